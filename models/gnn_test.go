package models

import (
	"slices"
	"testing"
	"time"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// trainableParameters builds m on task once and counts its trainable parameters.
func trainableParameters(t *testing.T, m NodeClassifier, task *NodeTask) int {
	t.Helper()
	store := model.NewStore()
	exec := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) *Node {
		return m.Logits(scope, g, task)
	})
	exec.MustCall()
	count := 0
	for v := range store.IterVariables() {
		if v.Trainable {
			count += v.Shape().Size()
		}
	}
	return count
}

// TestGNNParameterCount checks the Table 6 and 7 networks on Cora against the counts of their
// doc comments (the original code's architectures, one bias per SAGE layer), and the Citeseer
// two-linear GIN apply on a toy task.
func TestGNNParameterCount(t *testing.T) {
	task := coraTask(t)
	for _, tc := range []struct {
		name string
		m    NodeClassifier
		want int
	}{
		{"sage 2 layers", Table6Model(2, nil), 368775},        // 2·1433·128 + 128 + 2·128·7 + 7
		{"sage 4 layers", Table6Model(4, nil), 434567},        // + 2·(2·128·128 + 128)
		{"gin 2 layers", Table7Model(2, nil, "cora"), 184455}, // 1433·128 + 128 + 128·7 + 7
		{"gin 4 layers", Table7Model(4, nil, "cora"), 217479}, // + 2·(128·128 + 128)
	} {
		if got := trainableParameters(t, tc.m, task); got != tc.want {
			t.Errorf("%s on Cora: %d trainable parameters, want %d", tc.name, got, tc.want)
		}
	}

	// Toy task: 5 features, 3 classes, hidden 4. Two-linear apply: layer 0 is 5→5→4, layer 1 4→4→3.
	toy := ginToyTask(t)
	gin := &GIN{Layers: 2, Hidden: 4, Activation: "relu", TwoLinearApply: true}
	if got, want := trainableParameters(t, gin, toy), (5*5+5+5*4+4)+(4*4+4+4*3+3); got != want {
		t.Errorf("two-linear GIN on the toy task: %d parameters, want %d", got, want)
	}
	if Table7Model(2, nil, "citeseer").TwoLinearApply != true || Table7Model(2, nil, "cora").TwoLinearApply {
		t.Errorf("Table7Model: the two-linear apply must be Citeseer's only")
	}
}

// ginToyTask is a 6-node path graph with 5 sparse features and 3 classes.
func ginToyTask(t *testing.T) *NodeTask {
	t.Helper()
	el, err := stagnb.UndirectedEdgeList(6, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	feats, err := stagnb.NewSparseInput(el, 5, []int32{0, 2, 3, 5, 6, 7, 9}, []int32{0, 3, 1, 2, 4, 0, 3, 1, 2},
		[]float32{1, 0.5, 1, 0.3, 0.7, 1, 1, 0.2, 0.8}, stagnb.NormBoth)
	if err != nil {
		t.Fatal(err)
	}
	return &NodeTask{Name: "toy", Edges: el, Features: feats, Labels: []int32{0, 1, 2, 0, 1, 2}, NumClasses: 3}
}

// TestTrainSAGECoraQuick trains Table 6's 2-layer GraphSAGE on Cora with the quick protocol and
// STAG Normal(1, 0.4), asks for at least 70 % test accuracy, and logs the time per training step.
// (Without noise the sparse layers equal the dense ones exactly: stagnb's TestSparseLayersMatchDense.)
func TestTrainSAGECoraQuick(t *testing.T) {
	task := coraTask(t)
	trainGNNQuick(t, task, func(noise *stagnb.Noise) NodeClassifier { return Table6Model(2, noise) })
}

// TestTrainGINCoraQuick is TestTrainSAGECoraQuick for Table 7's 2-layer GIN.
func TestTrainGINCoraQuick(t *testing.T) {
	task := coraTask(t)
	trainGNNQuick(t, task, func(noise *stagnb.Noise) NodeClassifier { return Table7Model(2, noise, "cora") })
}

// trainGNNQuick trains the model with the normal(1,0.4) row of Table 2's noise.
func trainGNNQuick(t *testing.T, task *NodeTask, build func(*stagnb.Noise) NodeClassifier) {
	t.Logf("%s: %d edges, %d features, %d (edge, non-zero feature) pairs drawn per noisy first layer",
		task.Name, task.Edges.NumEdges(), task.Features.NumFeatures(), task.Features.NumPairs())
	for _, config := range []string{"normal(1,0.4)"} {
		t.Run(config, func(t *testing.T) {
			noise, err := NoiseForConfig(config)
			if err != nil {
				t.Fatal(err)
			}
			cfg := QuickTrainConfig()
			// The time between two epochs without evaluation is one training step.
			var steps []time.Duration
			last := time.Now()
			cfg.Progress = func(p Progress) {
				now := time.Now()
				if !p.Evaluated && p.Epoch > 2 && (p.Epoch-1)%cfg.EvalEvery != 0 {
					steps = append(steps, now.Sub(last))
				}
				last = now
			}
			res, err := TrainNodeClassifier(stagtest.Backend(t), task, build(noise), cfg)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(steps)
			median := steps[len(steps)/2]
			t.Logf("%s: test %.2f%% at epoch %d (val %.2f%%), %.1f s in all, %.1f ms per training step (median of %d)",
				config, 100*res.TestAcc, res.BestEpoch, 100*res.ValAcc, res.WallSeconds,
				float64(median.Microseconds())/1000, len(steps))
			if res.TestAcc < 0.70 {
				t.Errorf("test accuracy %.2f%%, want ≥ 70%%", 100*res.TestAcc)
			}
		})
	}
}
