package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb"
)

// peerMethod is one method as the PyTorch Geometric peer (bench/peer/pyg_gcn.py) reads it.
type peerMethod struct {
	Name                 string         `json:"name"`
	Placement            string         `json:"placement"`
	PlacementOtherLayers string         `json:"placement_other_layers"`
	MCSamples            int            `json:"mc_samples"`
	Noise                map[string]any `json:"noise"`
	NoiseText            string         `json:"noise_text"`
	Structure            map[string]any `json:"structure"`
}

// peerSpec is the peer's spec.json.
type peerSpec struct {
	Dataset string       `json:"dataset"`
	Layers  int          `json:"layers"`
	Hidden  int          `json:"hidden"`
	Warmup  int          `json:"warmup"`
	Steps   int          `json:"steps"`
	Seed    int64        `json:"seed"`
	Methods []peerMethod `json:"methods"`
}

// peerMethods converts the picked GCN methods to the peer's form. Methods the peer has no
// counterpart for (the Table 2 and Table 3/8 models of the "lightweight" suite) are left out and
// named in skipped.
func peerMethods(picked []models.BenchMethod) (methods []peerMethod, skipped []string, err error) {
	for _, m := range picked {
		if m.Model != "" || m.Table2 {
			skipped = append(skipped, m.Name)
			continue
		}
		d, err := stagnb.ParseDistribution(m.Noise)
		if err != nil {
			return nil, nil, fmt.Errorf("bench %s: %w", m.Name, err)
		}
		st, err := stagnb.ParseStructure(m.Structure)
		if err != nil {
			return nil, nil, fmt.Errorf("bench %s: %w", m.Name, err)
		}
		kind := map[stagnb.DistKind]string{stagnb.DistNone: "none", stagnb.DistNormal: "normal",
			stagnb.DistUniform: "uniform", stagnb.DistBernoulli: "bernoulli"}[d.Kind]
		if kind == "" {
			return nil, nil, fmt.Errorf("bench %s: noise %q has no PyTorch Geometric counterpart", m.Name, m.Noise)
		}
		layers := map[stagnb.LayerSharing]string{stagnb.PerLayer: "per_layer", stagnb.SharedLayers: "shared"}[st.Layers]
		features := map[stagnb.FeatureSharing]string{stagnb.PerFeature: "per_feature", stagnb.SharedFeatures: "shared"}[st.Features]
		edges := map[stagnb.EdgeSharing]string{stagnb.PerEdge: "per_edge", stagnb.PerSourceNode: "per_source", stagnb.AllEdges: "all"}[st.Edges]
		text := ""
		if !d.IsNone() {
			text = stagnb.NewNoise(d, st).String()
		}
		methods = append(methods, peerMethod{
			Name: m.Name, Placement: m.FirstPlacement.String(), PlacementOtherLayers: m.OtherPlacement.String(),
			MCSamples: m.MCSamples, NoiseText: text,
			Noise: map[string]any{"kind": kind, "mu": d.Mu, "sigma": d.Sigma, "low": d.Low, "high": d.High,
				"drop_rate": d.DropRate, "rescale": d.Rescale},
			Structure: map[string]any{"layers": layers, "features": features, "edges": edges, "renormalize": st.Renormalize},
		})
	}
	return methods, skipped, nil
}

// exportPeerData writes the data the peer reads into dir: the dataset's row-normalised features,
// its directed edges (as the benchmark's NodeTask has them: the raw graph's own self-loops kept,
// none added unless selfLoops), labels and training nodes as .npy files. runPeer adds spec.json.
func exportPeerData(dir, dataset string, selfLoops bool) error {
	p, task, err := benchTask(dataset, selfLoops)
	if err != nil {
		return err
	}
	x := p.RowNormalizedFeatures()
	dense := make([]float32, x.NumRows*x.NumCols)
	for r := range x.NumRows {
		for k := x.RowPtr[r]; k < x.RowPtr[r+1]; k++ {
			dense[r*x.NumCols+int(x.ColIdx[k])] = x.Values[k]
		}
	}
	widen := func(v []int32) []int64 {
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out
	}
	train := make([]int32, len(task.Split.Train))
	for i, v := range task.Split.Train {
		train[i] = int32(v)
	}
	files := []struct {
		name  string
		shape []int
		data  any
	}{
		{"x", []int{x.NumRows, x.NumCols}, dense},
		{"src", []int{len(task.Edges.Src)}, widen(task.Edges.Src)},
		{"dst", []int{len(task.Edges.Dst)}, widen(task.Edges.Dst)},
		{"labels", []int{len(task.Labels)}, widen(task.Labels)},
		{"train", []int{len(train)}, widen(train)},
	}
	for _, f := range files {
		if err := writeNpy(filepath.Join(dir, f.name+".npy"), f.shape, f.data); err != nil {
			return err
		}
	}
	return nil
}

// writeNpy writes a little-endian float32 or int64 array in NumPy's .npy format (version 1.0).
func writeNpy(path string, shape []int, data any) error {
	var descr string
	switch data.(type) {
	case []float32:
		descr = "<f4"
	case []int64:
		descr = "<i8"
	default:
		return fmt.Errorf("writeNpy %s: unsupported type %T", path, data)
	}
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	// Magic (6) + version (2) + header length (2) + header + '\n', padded to a multiple of 64.
	pad := 64 - (10+len(header)+1)%64
	if pad == 64 {
		pad = 0
	}
	header += strings.Repeat(" ", pad) + "\n"
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	_ = binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	if err := binary.Write(&buf, binary.LittleEndian, data); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// runPeer runs the peer script with python on the data exported in dir for the one method of spec,
// in a process of its own (so that its peak memory is that method's, as ours), and returns its JSON
// line with the command line and provenance added, and the GPU memory the probe measured (nil
// probe: none). The peer's stderr goes to stderr.
func runPeer(python, script, device string, threads int, dir string, spec peerSpec, command string, probe *gpuMemoryProbe, stderr io.Writer) ([]byte, error) {
	b, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "spec.json"), b, 0o644); err != nil {
		return nil, err
	}
	args := []string{script, "--data", dir}
	if device != "" {
		args = append(args, "--device", device)
	}
	if threads > 0 {
		args = append(args, "--threads", fmt.Sprint(threads))
	}
	cmd := exec.Command(python, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	peakMB, source, err := probe.run(cmd)
	if err != nil {
		return nil, fmt.Errorf("bench -peer: %s %s: %w", python, strings.Join(args, " "), err)
	}
	var lines [][]byte
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 && line[0] == '{' {
			lines = append(lines, slices.Clone(line))
		}
	}
	if len(lines) != len(spec.Methods) {
		return nil, fmt.Errorf("bench -peer: the peer printed %d results for %d methods", len(lines), len(spec.Methods))
	}
	r, err := decodeRecord(lines[0])
	if err != nil {
		return nil, fmt.Errorf("bench -peer: %w", err)
	}
	r["command"] = command
	r["commit"] = models.SourceRevision()
	r["cpu"] = stagnb.CPUDescription()
	r["time"] = time.Now().UTC().Format(time.RFC3339)
	setDeviceMemory(r, peakMB, source)
	return encodeRecord(r)
}

// benchRow is what the Markdown table reads of a record of ours or of the peer.
type benchRow struct {
	Method    string  `json:"method"`
	Impl      string  `json:"impl"`
	Placement string  `json:"placement"`
	Backend   string  `json:"backend"`
	Device    string  `json:"device"`
	Params    int     `json:"params"`
	MSPerStep float64 `json:"ms_per_step"`
	FirstMS   float64 `json:"first_step_ms"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
	PeakDevMB float64 `json:"peak_device_mb"`
	Repeats   int     `json:"repeats"`
	MCCalls   int     `json:"mc_calls"`
}

// benchMarkdown renders JSON lines of `stag bench` (ours, and the peer's where present) as a
// Markdown table: one row per method and placement, our ms per step beside the peer's and their
// ratio (peer / ours: above 1 means we are faster), then our first step, which includes compiling
// the graph (seconds on a GPU: XLA compiles for it). A Monte-Carlo method whose samples were
// drawn in several calls (`-mc-chunk`) says how many.
func benchMarkdown(lines [][]byte) (string, error) {
	type key struct{ method, placement string }
	var order []key
	ours, peer := map[key]benchRow{}, map[key]benchRow{}
	for _, l := range lines {
		var r benchRow
		if err := json.Unmarshal(l, &r); err != nil {
			return "", err
		}
		k := key{r.Method, r.Placement}
		if r.Impl == "pyg" {
			peer[k] = r
		} else {
			ours[k] = r
		}
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	var b strings.Builder
	b.WriteString("| method | placement | params | ours (ms/step) | PyG (ms/step) | PyG / ours | ours: first step (s) | ours peak memory (MB) | PyG peak memory (MB) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	num := func(v float64, ok bool) string {
		if !ok || math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%.2f", v)
	}
	mem := func(r benchRow, ok bool) string {
		if !ok {
			return "–"
		}
		if r.PeakDevMB > 0 {
			return fmt.Sprintf("%.0f (device)", r.PeakDevMB)
		}
		return fmt.Sprintf("%.0f (RSS)", r.PeakRSSMB)
	}
	for _, k := range order {
		o, okO := ours[k]
		p, okP := peer[k]
		params := o.Params
		if !okO {
			params = p.Params
		}
		ratio := "–"
		if okO && okP && o.MSPerStep > 0 {
			ratio = fmt.Sprintf("%.2f×", p.MSPerStep/o.MSPerStep)
		}
		method := k.method
		if o.MCCalls > 1 {
			method = fmt.Sprintf("%s (ours in %d calls)", method, o.MCCalls)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", method, k.placement, params,
			num(o.MSPerStep, okO), num(p.MSPerStep, okP), ratio, num(o.FirstMS/1000, okO), mem(o, okO), mem(p, okP))
	}
	var devices []string
	for _, m := range []map[key]benchRow{ours, peer} {
		for _, k := range order {
			if r, ok := m[k]; ok {
				devices = append(devices, fmt.Sprintf("%s: %s on %s", map[bool]string{true: "PyG", false: "ours"}[r.Impl == "pyg"], r.Backend, r.Device))
				break
			}
		}
	}
	if len(devices) > 0 {
		b.WriteString("\n" + strings.Join(devices, "; ") + ".\n")
	}
	repeats := 0
	for _, m := range []map[key]benchRow{ours, peer} {
		for _, r := range m {
			repeats = max(repeats, r.Repeats)
		}
	}
	if repeats > 1 {
		fmt.Fprintf(&b, "Each time is the median of %d processes' medians (`-repeat %d`), which took turns.\n", repeats, repeats)
	}
	return b.String(), nil
}
