package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/models"
)

// TestWriteNpy checks the .npy files the peer reads: magic, version, a header padded so the data
// starts at a multiple of 64 bytes, the dtype and shape, then the little-endian data.
func TestWriteNpy(t *testing.T) {
	for _, tc := range []struct {
		name, descr, shape string
		dims               []int
		data               any
		dataBytes          int
	}{
		{"matrix", "<f4", "(2, 3)", []int{2, 3}, []float32{1, 2, 3, 4, 5, 6.5}, 24},
		{"vector", "<i8", "(4,)", []int{4}, []int64{0, -1, 7, 1 << 40}, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name+".npy")
			if err := writeNpy(path, tc.dims, tc.data); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(b[:8]) != "\x93NUMPY\x01\x00" {
				t.Fatalf("magic/version %q", b[:8])
			}
			hlen := int(binary.LittleEndian.Uint16(b[8:10]))
			header := string(b[10 : 10+hlen])
			if (10+hlen)%64 != 0 || !strings.HasSuffix(header, "\n") {
				t.Errorf("header of %d bytes (data at %d), ending %q: want the data 64-byte aligned after a newline", hlen, 10+hlen, header[len(header)-1:])
			}
			if !strings.Contains(header, "'descr': '"+tc.descr+"'") || !strings.Contains(header, "'shape': "+tc.shape) || !strings.Contains(header, "'fortran_order': False") {
				t.Errorf("header %q: want descr %s, shape %s, C order", header, tc.descr, tc.shape)
			}
			data := b[10+hlen:]
			if len(data) != tc.dataBytes {
				t.Fatalf("%d data bytes, want %d", len(data), tc.dataBytes)
			}
			var want bytes.Buffer
			_ = binary.Write(&want, binary.LittleEndian, tc.data)
			if !bytes.Equal(data, want.Bytes()) {
				t.Errorf("data %x, want %x", data, want.Bytes())
			}
		})
	}
	if err := writeNpy(filepath.Join(t.TempDir(), "x.npy"), []int{1}, []int32{1}); err == nil || !strings.Contains(err.Error(), "unsupported type") {
		t.Errorf("int32 data: got %v, want an unsupported-type error", err)
	}
}

// TestPeerMethods checks that the methods reach the peer with the noise and sharing of our presets,
// and that the models without a PyTorch Geometric counterpart are named as skipped.
func TestPeerMethods(t *testing.T) {
	pm, skipped, err := peerMethods(models.BenchMethods)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]peerMethod{}
	for _, m := range pm {
		byKey[m.Name+"/"+m.Placement] = m
	}
	for _, tc := range []struct {
		key, kind                 string
		mu, sigma, drop           float64
		layers, features, edges   string
		mc                        int
		placement, otherPlacement string
	}{
		{"deterministic/aggregate_first", "none", 0, 0, 0, "per_layer", "per_feature", "per_edge", 0, "aggregate_first", "dgl"},
		{"stag_normal/aggregate_first", "normal", 1, 0.8, 0, "per_layer", "per_feature", "per_edge", 0, "aggregate_first", "dgl"},
		{"stag_normal/transform_first", "normal", 1, 0.8, 0, "per_layer", "per_feature", "per_edge", 0, "transform_first", "dgl"},
		{"dropedge/aggregate_first", "bernoulli", 0, 0, 0.2, "shared", "shared", "per_edge", 0, "aggregate_first", "dgl"},
		{"gdc/aggregate_first", "bernoulli", 0, 0, 0.2, "per_layer", "per_feature", "per_edge", 0, "aggregate_first", "dgl"},
		{"stag_normal_mc/aggregate_first", "normal", 1, 0.8, 0, "per_layer", "per_feature", "per_edge", 32, "aggregate_first", "dgl"},
	} {
		m, ok := byKey[tc.key]
		if !ok {
			t.Errorf("%s: not passed to the peer (got %v)", tc.key, byKey)
			continue
		}
		n, s := m.Noise, m.Structure
		if n["kind"] != tc.kind || n["mu"] != tc.mu || n["sigma"] != tc.sigma || n["drop_rate"] != tc.drop || n["rescale"] != false {
			t.Errorf("%s: noise %v, want %s mu %v sigma %v drop %v without rescale", tc.key, n, tc.kind, tc.mu, tc.sigma, tc.drop)
		}
		if s["layers"] != tc.layers || s["features"] != tc.features || s["edges"] != tc.edges || s["renormalize"] != false {
			t.Errorf("%s: structure %v, want %s/%s/%s", tc.key, s, tc.layers, tc.features, tc.edges)
		}
		if m.MCSamples != tc.mc || m.Placement != tc.placement || m.PlacementOtherLayers != tc.otherPlacement {
			t.Errorf("%s: mc %d placements %s/%s, want %d %s/%s", tc.key, m.MCSamples, m.Placement, m.PlacementOtherLayers, tc.mc, tc.placement, tc.otherPlacement)
		}
	}
	if len(pm) != 6 {
		t.Errorf("%d methods for the peer, want the 6 GCN methods of the core suite", len(pm))
	}
	for _, name := range []string{"stag_table2", "stag_vi_r", "bbgdc", "bbb"} {
		if !slices.Contains(skipped, name) {
			t.Errorf("%s should be skipped (no peer counterpart); skipped: %v", name, skipped)
		}
	}
}

// TestBenchMarkdown renders ours beside the peer's: one row per method and placement, the ratio
// PyG / ours, memory labelled by kind, a dash where a side is missing.
func TestBenchMarkdown(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"method":"deterministic","placement":"aggregate_first","backend":"go","device":"CPU","params":184455,"ms_per_step":10,"first_step_ms":12345,"peak_rss_mb":500}`),
		[]byte(`{"method":"stag_normal","placement":"aggregate_first","backend":"go","device":"CPU","params":184455,"ms_per_step":4,"peak_rss_mb":510}`),
		[]byte(`{"method":"stag_table2","placement":"dgl","backend":"go","device":"CPU","params":184455,"ms_per_step":5,"peak_rss_mb":520}`),
		[]byte(`{"method":"stag_normal_mc","placement":"aggregate_first","backend":"xla","device":"H100","params":184455,"mc_samples":32,"ms_per_step":3,"peak_rss_mb":530}`),
		[]byte(`{"method":"deterministic","impl":"pyg","placement":"aggregate_first","backend":"pyg","device":"H100","params":184455,"ms_per_step":5,"peak_rss_mb":900,"peak_device_mb":42}`),
		[]byte(`{"method":"stag_normal","impl":"pyg","placement":"aggregate_first","backend":"pyg","device":"H100","params":184455,"ms_per_step":8,"peak_rss_mb":900,"peak_device_mb":60}`),
	}
	md, err := benchMarkdown(lines)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| method | placement | params | ours (ms/step) | PyG (ms/step) | PyG / ours | ours: first step (s) |",
		"| deterministic | aggregate_first | 184455 | 10.00 | 5.00 | 0.50× | 12.35 | 500 (RSS) | 42 (device) |",
		"| stag_normal | aggregate_first | 184455 | 4.00 | 8.00 | 2.00× | 0.00 | 510 (RSS) | 60 (device) |",
		"| stag_table2 | dgl | 184455 | 5.00 | – | – | 0.00 | 520 (RSS) | – |",
		"| stag_normal_mc | aggregate_first | 184455 | 3.00 | – | – | 0.00 | 530 (RSS) | – |",
		"ours: go on CPU; PyG: pyg on H100.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	rows := 0
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ") {
			rows++
		}
	}
	if rows != 5 {
		t.Errorf("%d table lines, want a header and 4 rows:\n%s", rows, md)
	}
	if strings.Contains(md, "median of") {
		t.Errorf("single runs are described as repeated:\n%s", md)
	}
	lines[1] = []byte(`{"method":"stag_normal","placement":"aggregate_first","backend":"go","device":"CPU","params":184455,"ms_per_step":4,"peak_rss_mb":510,"repeats":3,"ms_per_step_runs":[5,4,3]}`)
	if md, err = benchMarkdown(lines); err != nil {
		t.Fatal(err)
	}
	if want := "Each time is the median of 3 processes' medians (`-repeat 3`)"; !strings.Contains(md, want) {
		t.Errorf("table lacks %q:\n%s", want, md)
	}
}

// TestBenchPeer runs `stag bench -peer` with the Python in $STAGNB_PEER_PYTHON (one with torch and
// torch_geometric; the GPU machine has them, CI does not, so it skips there): every GCN method
// has a PyG line with the same parameter count, and the Markdown table has their ratios.
func TestBenchPeer(t *testing.T) {
	python := os.Getenv("STAGNB_PEER_PYTHON")
	if python == "" {
		t.Skip("set STAGNB_PEER_PYTHON to a Python with torch and torch_geometric to run the PyG peer")
	}
	needData(t)
	dir := t.TempDir()
	bin := stagBinary(t)
	md := filepath.Join(dir, "bench.md")
	cmd := exec.Command(bin, "bench", "-methods", "core", "-steps", "3", "-warmup", "1", "-peer", python,
		"-peer-script", filepath.Join("..", "..", "bench", "peer", "pyg_gcn.py"), "-peer-threads", "2", "-markdown", md)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("stag bench -peer: %v\n%s", err, stderr.String())
	}
	type rec struct {
		Method, Impl, Placement, Backend, Device, Command, CPU string
		Params                                                 int
		MSPerStep                                              float64 `json:"ms_per_step"`
	}
	ours, peer := map[string]rec{}, map[string]rec{}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		if r.Impl == "pyg" {
			peer[r.Method+"/"+r.Placement] = r
		} else {
			ours[r.Method+"/"+r.Placement] = r
		}
	}
	if len(ours) != 6 || len(peer) != 6 {
		t.Fatalf("%d of our records and %d of the peer's, want 6 and 6:\n%s", len(ours), len(peer), stdout.String())
	}
	for k, o := range ours {
		p, ok := peer[k]
		if !ok {
			t.Errorf("%s: no peer record", k)
			continue
		}
		t.Logf("%s: ours %.1f ms, PyG %.1f ms (%s on %s)", k, o.MSPerStep, p.MSPerStep, p.Backend, p.Device)
		if p.Params != o.Params || p.MSPerStep <= 0 || !strings.Contains(p.Backend, "torch") || !strings.Contains(p.Command, "-peer") || p.CPU == "" || p.CPU != o.CPU {
			t.Errorf("%s: peer record %+v against ours %+v: want the same parameter count and host CPU, a time, the versions and the command", k, p, o)
		}
	}
	table, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table)
	if strings.Count(string(table), "×") != 6 {
		t.Errorf("want a ratio for each of the 6 methods:\n%s", table)
	}
}

// TestBenchPeerInterleaved runs `stag bench -peer` with a stand-in for the peer (a shell script
// that answers with the method it was given) and checks that each of our methods is followed by
// the peer's, on stdout and in -out, so that a bench stopped part-way keeps its pairs.
func TestBenchPeerInterleaved(t *testing.T) {
	needData(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake_peer.sh")
	script := `spec="$2/spec.json"
name=$(sed -n 's/.*"name": "\([^"]*\)".*/\1/p' "$spec" | head -1)
placement=$(sed -n 's/.*"placement": "\([^"]*\)".*/\1/p' "$spec" | head -1)
echo "{\"method\":\"$name\",\"impl\":\"pyg\",\"placement\":\"$placement\",\"params\":1,\"ms_per_step\":1,\"first_step_ms\":1,\"peak_rss_mb\":1}"
`
	if err := os.WriteFile(fake, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bench.jsonl")
	cmd := exec.Command(stagBinary(t), "bench", "-methods", "deterministic,stag_normal", "-steps", "1", "-warmup", "0",
		"-hidden", "8", "-peer", "sh", "-peer-script", fake, "-out", out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("stag bench -peer: %v\n%s", err, stderr.String())
	}
	var order []string
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var r struct{ Method, Impl, Placement string }
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		order = append(order, r.Impl+":"+r.Method+"/"+r.Placement)
	}
	want := []string{":deterministic/aggregate_first", "pyg:deterministic/aggregate_first",
		":stag_normal/aggregate_first", "pyg:stag_normal/aggregate_first",
		":stag_normal/transform_first", "pyg:stag_normal/transform_first"}
	if !slices.Equal(order, want) {
		t.Errorf("lines in the order %q, want each of ours followed by the peer's: %q", order, want)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != stdout.String() {
		t.Errorf("-out (%v) differs from the lines written:\n%s", err, b)
	}
}
