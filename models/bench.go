package models

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/stagnb"
)

// BenchMethod is one row of the speed benchmark: a noise and where the layers put it.
type BenchMethod struct {
	Name string
	// Noise is a distribution as stagnb.ParseDistribution reads it, Structure as ParseStructure does.
	Noise, Structure string
	// FirstPlacement is the first layer's placement, OtherPlacement the other layers'.
	FirstPlacement, OtherPlacement stagnb.Placement
	// MCSamples > 0 times Monte-Carlo inference with that many samples instead of a training step.
	MCSamples int
	// MCChunk > 0 draws those samples in calls of at most MCChunk (TrainConfig.MCChunk): an
	// inference is then all the calls, and its first call compiles a graph of that many samples.
	MCChunk int
	// Model, if set, is a Table 3 or Table 8 row ("vi:r", "vi:rc", "vi:re", "vi:rec", "bbgdc", "bbb")
	// built by ModelFor instead of the GCN with Noise; Noise, Structure and the placements are
	// then unused.
	Model string
	// Table2 builds Table2Model (DGL's order, ELU, the code's Normal guard) instead of the plain
	// ReLU GCN.
	Table2 bool
	// Suite is the group `stag bench -methods` selects by name: "core" (the speed targets of the
	// STAG layers) or "lightweight" (the paper's "STAG is lightweight" comparison, Table 3's models).
	Suite string
}

// BenchMethods are the rows of `stag bench`. Suite "core": the deterministic GCN and STAG,
// DropEdge and GDC through the same code path, STAG in both placements, and 32-sample
// Monte-Carlo inference; the later layers aggregate in DGL's order (transform first when
// narrowing, so Cora's 128 → 7 layer draws [E, 7] noise). Suite "lightweight": the models of the
// paper's Table 3 (STAG as in Table 2, the four STAG-VI posteriors, BBGDC) and Table 8's BBB,
// each as reproduce builds it (layers and hidden width are theirs: 2 × 128), beside the
// deterministic and STAG GCNs of Table 2 (the Table2 rows: DGL's order, ELU).
var BenchMethods = []BenchMethod{
	{Name: "deterministic", Noise: "none", Structure: "stag", FirstPlacement: stagnb.AggregateFirst, OtherPlacement: stagnb.DGLOrder, Suite: "core"},
	{Name: "stag_normal", Noise: "normal(1,0.8)", Structure: "stag", FirstPlacement: stagnb.AggregateFirst, OtherPlacement: stagnb.DGLOrder, Suite: "core"},
	{Name: "stag_normal", Noise: "normal(1,0.8)", Structure: "stag", FirstPlacement: stagnb.TransformFirst, OtherPlacement: stagnb.DGLOrder, Suite: "core"},
	{Name: "dropedge", Noise: "bernoulli(0.2)", Structure: "dropedge", FirstPlacement: stagnb.AggregateFirst, OtherPlacement: stagnb.DGLOrder, Suite: "core"},
	{Name: "gdc", Noise: "bernoulli(0.2)", Structure: "gdc", FirstPlacement: stagnb.AggregateFirst, OtherPlacement: stagnb.DGLOrder, Suite: "core"},
	{Name: "stag_normal_mc", Noise: "normal(1,0.8)", Structure: "stag", FirstPlacement: stagnb.AggregateFirst, OtherPlacement: stagnb.DGLOrder, MCSamples: 32, Suite: "core"},
	{Name: "deterministic_table2", Noise: "none", Structure: "stag", FirstPlacement: stagnb.DGLOrder, OtherPlacement: stagnb.DGLOrder, Table2: true, Suite: "lightweight"},
	{Name: "stag_table2", Noise: "normal(1,0.8)", Structure: "stag", FirstPlacement: stagnb.DGLOrder, OtherPlacement: stagnb.DGLOrder, Table2: true, Suite: "lightweight"},
	{Name: "stag_vi_r", Model: "vi:r", Suite: "lightweight"},
	{Name: "stag_vi_rc", Model: "vi:rc", Suite: "lightweight"},
	{Name: "stag_vi_re", Model: "vi:re", Suite: "lightweight"},
	{Name: "stag_vi_rec", Model: "vi:rec", Suite: "lightweight"},
	{Name: "bbgdc", Model: "bbgdc", Suite: "lightweight"},
	{Name: "bbb", Model: "bbb", Suite: "lightweight"},
}

// BenchResult is one benchmark measurement, written by `stag bench` as one JSON line.
type BenchResult struct {
	Method               string `json:"method"`
	Placement            string `json:"placement"`
	PlacementOtherLayers string `json:"placement_other_layers"`
	Noise                string `json:"noise"`
	Backend              string `json:"backend"`
	Device               string `json:"device"`
	// CPU is the host CPU and its widest SIMD extension (stagnb.CPUDescription), which sets the
	// pure-Go backend's matmul speed: compare CPU timings only between equal CPUs.
	CPU        string `json:"cpu,omitempty"`
	GoMaxProcs int    `json:"gomaxprocs"`
	Dataset    string `json:"dataset"`
	Nodes      int    `json:"nodes"`
	Edges      int    `json:"edges"`
	SelfLoops  bool   `json:"self_loops"`
	Layers     int    `json:"layers"`
	Hidden     int    `json:"hidden"`
	Model      string `json:"model,omitempty"`
	// Params is the number of trainable parameters.
	Params    int `json:"params"`
	MCSamples int `json:"mc_samples,omitempty"`
	// MCCalls > 1 says that an inference drew its MCSamples in that many calls of a graph of
	// MCSamples / MCCalls samples (BenchMethod.MCChunk); its time is theirs together.
	MCCalls   int     `json:"mc_calls,omitempty"`
	Steps     int     `json:"steps"`
	MSPerStep float64 `json:"ms_per_step"`
	MSMin     float64 `json:"ms_min"`
	MSMax     float64 `json:"ms_max"`
	// Repeats > 1 says that the method ran in that many processes (`stag bench -repeat`):
	// MSPerStep is then the median of their medians, listed in MSPerStepRuns in the order they ran,
	// MSMin and MSMax the extremes over all of them, FirstStepMS the median and PeakRSSMB the largest.
	Repeats       int       `json:"repeats,omitempty"`
	MSPerStepRuns []float64 `json:"ms_per_step_runs,omitempty"`
	FirstStepMS   float64   `json:"first_step_ms"`
	FinalLoss     float64   `json:"final_loss,omitempty"`
	PeakRSSMB     float64   `json:"peak_rss_mb"`
	// PeakDeviceMB is the GPU memory of the process at its peak, measured by `stag bench` with
	// nvidia-smi the same way for ours and the peer; DeviceMemory says how. Both are empty without
	// an NVIDIA GPU.
	PeakDeviceMB float64 `json:"peak_device_mb,omitempty"`
	DeviceMemory string  `json:"device_memory,omitempty"`
	Seed         int64   `json:"seed"`
	// Provenance: the command line, the source revision (with "+dirty" for uncommitted changes)
	// and when the measurement was taken.
	Command string `json:"command,omitempty"`
	Commit  string `json:"commit,omitempty"`
	Time    string `json:"time,omitempty"`
}

// Bench times method on task with a Layers × Hidden GCN: the median over steps training steps
// (full batch, Adam lr 5e-3) after warmup steps, or, for a Monte-Carlo method, the median over
// steps inference calls. The first step (graph building, compilation and initialisation) is
// reported apart. PeakRSSMB is left for the caller, who knows the process.
func Bench(backend compute.Backend, task *NodeTask, method BenchMethod, layers, hidden, warmup, steps int, seed int64) (BenchResult, error) {
	var noise *stagnb.Noise
	if method.Model == "" {
		d, err := stagnb.ParseDistribution(method.Noise)
		if err != nil {
			return BenchResult{}, fmt.Errorf("bench %s: %w", method.Name, err)
		}
		st, err := stagnb.ParseStructure(method.Structure)
		if err != nil {
			return BenchResult{}, fmt.Errorf("bench %s: %w", method.Name, err)
		}
		if !d.IsNone() {
			noise = stagnb.NewNoise(d, st)
		}
	}
	var m NodeClassifier = &GCN{Layers: layers, Hidden: hidden, Noise: noise, FirstPlacement: method.FirstPlacement,
		OtherPlacement: method.OtherPlacement, Activation: "relu"}
	if method.Table2 {
		m = Table2Model(layers, noise)
	}
	if method.Model != "" {
		table := "table3"
		if method.Model == "bbb" {
			table = "table8"
		}
		var err error
		if m, err = ModelFor(RunSpec{Table: table, Dataset: task.Name, Config: method.Model, Layers: 2}); err != nil {
			return BenchResult{}, fmt.Errorf("bench %s: %w", method.Name, err)
		}
		layers, hidden, noise = 2, 128, nil
	}
	res := BenchResult{
		Method: method.Name, Placement: method.FirstPlacement.String(), PlacementOtherLayers: method.OtherPlacement.String(),
		Noise: noise.String(), Backend: stagnb.BackendName(backend), Device: stagnb.DeviceName(backend), CPU: stagnb.CPUDescription(),
		GoMaxProcs: runtime.GOMAXPROCS(0), Dataset: task.Name, Nodes: task.Edges.NumNodes, Edges: task.Edges.NumEdges(),
		SelfLoops: task.SelfLoops, Layers: layers, Hidden: hidden, MCSamples: method.MCSamples, Steps: steps, Seed: seed,
		Model: method.Model,
	}
	if method.Model != "" {
		res.Placement, res.PlacementOtherLayers, res.Noise = "", "", ""
	}

	// The training step of TrainNodeClassifier, without its per-step finiteness check.
	built := time.Now()
	ts, err := newTrainStep(backend, seed, func(scope *model.Scope, g *Graph) *Node {
		return trainLoss(g, task, m.Logits(scope, g, task))
	}, PaperAdam(5e-3))
	if err != nil {
		return res, fmt.Errorf("bench %s: %w", method.Name, err)
	}
	defer ts.Finalize()
	store, step := ts.store, ts.step
	buildMS := float64(time.Since(built).Microseconds()) / 1000
	timed := func(fn func() error) (float64, error) {
		start := time.Now()
		err := fn()
		return float64(time.Since(start).Microseconds()) / 1000, err
	}

	var run func() error
	if method.MCSamples > 0 {
		// Initialise the variables with one training step, then time the inference graph.
		if _, err := step(); err != nil {
			return res, err
		}
		perCall, calls := mcCalls(method.MCSamples, method.MCChunk)
		if calls > 1 {
			res.MCCalls = calls
		}
		exec, err := model.NewExec(backend, store, func(scope *model.Scope, g *Graph) *Node {
			mean, _ := stagnb.MonteCarlo(g, perCall, stagnb.MCMean, func(int) *Node {
				return m.Logits(scope, g, task)
			})
			return mean
		})
		if err != nil {
			return res, err
		}
		defer exec.Finalize()
		run = func() error {
			for range calls {
				out, err := exec.Call()
				for _, t := range out {
					t.FinalizeAll()
				}
				if err != nil {
					return err
				}
			}
			return nil
		}
	} else {
		run = func() error {
			l, err := step()
			res.FinalLoss = l
			return err
		}
	}
	if res.FirstStepMS, err = timed(run); err != nil {
		return res, fmt.Errorf("bench %s: %w", method.Name, err)
	}
	if method.MCSamples == 0 {
		res.FirstStepMS += buildMS // building and compiling the step came before its first call
	}
	for v := range store.IterVariables() {
		if v.Trainable {
			res.Params += v.Shape().Size()
		}
	}
	for range warmup {
		if err := run(); err != nil {
			return res, fmt.Errorf("bench %s: %w", method.Name, err)
		}
	}
	times := make([]float64, steps)
	for i := range times {
		if times[i], err = timed(run); err != nil {
			return res, fmt.Errorf("bench %s: %w", method.Name, err)
		}
	}
	slices.Sort(times)
	res.MSPerStep = times[len(times)/2]
	if len(times)%2 == 0 {
		res.MSPerStep = (times[len(times)/2-1] + times[len(times)/2]) / 2
	}
	res.MSMin, res.MSMax = times[0], times[len(times)-1]
	return res, nil
}
