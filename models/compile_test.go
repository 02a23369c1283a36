package models

import (
	"sync/atomic"
	"testing"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// compileCounter is a backend that counts the computations compiled on it. On the pure-Go
// backend a compilation costs milliseconds; on XLA it costs from a fraction of a second to
// seconds, so a training loop must compile its graphs once, not once per step or evaluation.
type compileCounter struct {
	compute.Backend
	compiles *atomic.Int64
}

func (b compileCounter) Builder(name string) compute.Builder {
	return countingBuilder{Builder: b.Backend.Builder(name), counter: b}
}

type countingBuilder struct {
	compute.Builder
	counter compileCounter
}

func (b countingBuilder) Compile() (compute.Executable, error) {
	b.counter.compiles.Add(1)
	exe, err := b.Builder.Compile()
	return countedExecutable{Executable: exe, counter: b.counter}, err
}

// countedExecutable runs the wrapped backend's executable on its own buffers and hands back
// buffers that name the counter as their backend (GoMLX ties a tensor to its buffer's backend).
type countedExecutable struct {
	compute.Executable
	counter compileCounter
}

func (e countedExecutable) Execute(inputs []compute.Buffer, donate []bool, device compute.DeviceNum) ([]compute.Buffer, error) {
	inner := make([]compute.Buffer, len(inputs))
	for i, b := range inputs {
		if c, ok := b.(countedBuffer); ok {
			b = c.Buffer
		}
		inner[i] = b
	}
	outs, err := e.Executable.Execute(inner, donate, device)
	for i, b := range outs {
		outs[i] = countedBuffer{Buffer: b, counter: e.counter}
	}
	return outs, err
}

type countedBuffer struct {
	compute.Buffer
	counter compileCounter
}

func (b countedBuffer) Backend() compute.Backend { return b.counter }

// TestCompilesOncePerRun trains every kind of model of the reproduced tables (on toy data) for
// a few epochs and for three times as many, and checks that the number of compiled computations
// does not grow with the epochs or the evaluations: the training step and the Monte-Carlo
// evaluation are each built once per run, with inputs of fixed shapes, as a GPU backend needs.
func TestCompilesOncePerRun(t *testing.T) {
	// One counter for the whole test: GoMLX ties tensors to the backend instance that made them.
	counter := compileCounter{Backend: stagtest.Backend(t), compiles: new(atomic.Int64)}
	nodeTask := toyWideTask(t)
	graphTask := toyGraphTask(t)
	for _, tc := range []struct{ table, config string }{
		{"table2", "deterministic"},
		{"table2", "normal(1,0.8)"},
		{"table2", "de(0.2)"},
		{"table2", "gdc(0.2)"},
		{"table5", "normal(1,0.8)"},
		{"table6", "normal(1,0.8)"},
		{"table7", "normal(1,0.8)"},
		{"table3", "vi:r"},
		{"table3", "vi:rec"},
		{"table3", "bbgdc"},
		{"table8", "bbb"},
		{"figure5", "dropout(0.5)"},
		{"table2", "molecule:normal(1,0.8)"},
		{"table4", "vi:re"},
	} {
		t.Run(tc.table+"/"+tc.config, func(t *testing.T) {
			compiles := func(epochs int) int64 {
				before := counter.compiles.Load()
				cfg := DefaultTrainConfig()
				cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = epochs, 2, 2
				var err error
				if tc.table == "table4" || tc.config == "molecule:normal(1,0.8)" {
					spec := RunSpec{Table: tc.table, Dataset: "esol", Config: tc.config, Layers: 2, Seed: 1}
					if tc.table == "table2" {
						spec.Config = "normal(1,0.8)"
					}
					var m GraphPredictor
					if m, err = GraphModelFor(spec); err != nil {
						t.Fatal(err)
					}
					_, err = TrainGraphRegressor(counter, graphTask, m, cfg)
				} else {
					var m NodeClassifier
					if m, err = ModelFor(RunSpec{Table: tc.table, Dataset: "cora", Config: tc.config, Layers: 2, Seed: 1}); err != nil {
						t.Fatal(err)
					}
					_, err = TrainNodeClassifier(counter, nodeTask, m, cfg)
				}
				if err != nil {
					t.Fatal(err)
				}
				return counter.compiles.Load() - before
			}
			few, many := compiles(2), compiles(6)
			t.Logf("%d computations compiled for 2 epochs, %d for 6", few, many)
			if few == 0 || many != few {
				t.Errorf("compiled %d computations for 2 epochs (1 evaluation) and %d for 6 epochs (3 evaluations); want the same number, > 0", few, many)
			}
		})
	}
}

// toyGraphTask is a graph-regression task of two small molecules (a 3-atom and a 2-atom path,
// with self-loops) used for every split.
func toyGraphTask(t *testing.T) *GraphTask {
	t.Helper()
	el, err := stagnb.UndirectedEdgeList(5, [][2]int32{{0, 1}, {1, 2}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	el = el.WithSelfLoops()
	el.NodeGraph, el.NumGraphs = []int32{0, 0, 0, 1, 1}, 2
	const numFeatures = 4
	feats := make([]float32, 5*numFeatures)
	for i := range feats {
		feats[i] = float32(i%3) / 2
	}
	b := &GraphBatch{Edges: el, Features: feats, Labels: []float32{-1, 0.5}}
	return &GraphTask{Name: "toy", NumFeatures: numFeatures, Train: b, Val: b, Test: b}
}

// toyWideTask is toyTask (a 6-node path graph with self-loops, 3 classes) with 200 sparse
// features, more than Table2Model's 128 hidden units, so that its first layer transforms first as
// on Cora, and a train/validation/test split.
func toyWideTask(t *testing.T) *NodeTask {
	t.Helper()
	task := toyTask(t)
	const numFeatures = 200
	rowPtr := []int32{0}
	var cols []int32
	var vals []float32
	for v := range task.Edges.NumNodes {
		for k := range 3 {
			cols = append(cols, int32(v*31+k*67)%numFeatures)
			vals = append(vals, 1.0/3)
		}
		rowPtr = append(rowPtr, int32(len(cols)))
	}
	feats, err := stagnb.NewSparseInput(task.Edges, numFeatures, rowPtr, cols, vals, stagnb.NormBoth)
	if err != nil {
		t.Fatal(err)
	}
	task.Features = feats
	task.Split = datasets.Split{Train: []int32{0, 3, 5}, Val: []int32{1, 4}, Test: []int32{2}}
	return task
}
