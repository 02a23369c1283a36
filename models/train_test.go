package models

import (
	"math"
	"os"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// coraTask loads Cora as the paper's code used it (no added self-loops, row-normalised
// features), or skips.
func coraTask(t *testing.T) *NodeTask { return planetoidTask(t, "cora", NewNodeTask) }

// rawCoraTask is coraTask with the raw binary features (NewRawNodeTask).
func rawCoraTask(t *testing.T) *NodeTask {
	task := planetoidTask(t, "cora", NewRawNodeTask)
	if !task.RawFeatures {
		t.Fatal("NewRawNodeTask: RawFeatures is false")
	}
	return task
}

// planetoidTask loads a Planetoid dataset into a task with newTask, or skips without data.
func planetoidTask(t *testing.T, name string, newTask func(*datasets.Planetoid, bool, stagnb.Norm) (*NodeTask, error)) *NodeTask {
	t.Helper()
	if os.Getenv(datasets.DataDirEnv) == "" {
		t.Skipf("$%s is not set: no dataset directory to test with", datasets.DataDirEnv)
	}
	p, err := datasets.LoadPlanetoid(datasets.NewResolver(), name)
	if err != nil {
		t.Fatal(err)
	}
	task, err := newTask(p, false, stagnb.NormBoth)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestGCNParameterCount checks the architecture against the paper's 184k parameters, exactly the
// original code's 184,455 (1433·128 + 128 + 128·7 + 7).
func TestGCNParameterCount(t *testing.T) {
	task := coraTask(t)
	count := trainableParameters(t, &GCN{Layers: 2, Hidden: 128, Activation: "relu"}, task)
	if count != 184455 {
		t.Errorf("2-layer GCN-128 on Cora has %d trainable parameters, want 184455", count)
	}
}

// TestTrainCoraQuick trains the 2-layer GCN on Cora with the quick protocol, deterministic and
// with STAG Normal(1, 0.4), and asks for at least 75 % test accuracy.
func TestTrainCoraQuick(t *testing.T) {
	task := coraTask(t)
	normal, _ := stagnb.Normal(1, 0.4)
	for _, tc := range []struct {
		name  string
		noise *stagnb.Noise
	}{
		{"deterministic", nil},
		{"normal(1,0.4)", stagnb.NewNoise(normal, stagnb.StructureSTAG)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &GCN{Layers: 2, Hidden: 128, Noise: tc.noise, FirstPlacement: stagnb.DGLOrder, OtherPlacement: stagnb.DGLOrder, Activation: "relu"}
			cfg := QuickTrainConfig()
			res, err := TrainNodeClassifier(stagtest.Backend(t), task, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: test %.2f%% at epoch %d (val %.2f%%), NLL %.3f, ECE %.3f, %.1f s",
				tc.name, 100*res.TestAcc, res.BestEpoch, 100*res.ValAcc, res.TestNLL, res.TestECE, res.WallSeconds)
			if res.TestAcc < 0.75 {
				t.Errorf("test accuracy %.2f%%, want ≥ 75%%", 100*res.TestAcc)
			}
			if math.IsNaN(res.TestNLL) || res.TestECE < 0 || res.TestECE > 1 || len(res.Evaluations) != cfg.Epochs/cfg.EvalEvery {
				t.Errorf("metrics: NLL %g, ECE %g, %d evaluations", res.TestNLL, res.TestECE, len(res.Evaluations))
			}
		})
	}
}

func TestNLLAndECE(t *testing.T) {
	// Two nodes, two classes: node 0 predicted 0.9 for its class 0 (right), node 1 0.6 for class 0
	// but labelled 1 (wrong). NLL = −(ln 0.9 + ln 0.4)/2; bins of width 0.5: both in [0.5, 1):
	// |accuracy 1 − confidence 1.5| / 2 = 0.25.
	probs := []float32{0.9, 0.1, 0.6, 0.4}
	nll, ece := nllAndECE(probs, 2, []int32{0, 1}, []int32{0, 1}, 2)
	if want := -(math.Log(0.9) + math.Log(0.4)) / 2; math.Abs(nll-want) > 1e-6 {
		t.Errorf("NLL %g, want %g", nll, want)
	}
	if math.Abs(ece-0.25) > 1e-6 {
		t.Errorf("ECE %g, want 0.25", ece)
	}
	if acc := accuracy(probs, 2, []int32{0, 1}, []int32{0, 1}); acc != 0.5 {
		t.Errorf("accuracy %g, want 0.5", acc)
	}
}

// TestMCScores checks the two ways an evaluation turns Monte-Carlo samples into a prediction,
// on three samples of two nodes' logits. Node 0: one confident vote for class 0 (12 against 0)
// and two weak ones for class 1 (0 against 1): the mean logits pick class 0, the majority vote
// (BBGDC's code) class 1. Node 1: two samples for class 1 and one for class 0, and both ways pick
// class 1. The mean softmax probabilities are the same either way.
func TestMCScores(t *testing.T) {
	samples := [][][]float32{
		{{12, 0}, {0, 3}},
		{{0, 1}, {0, 3}},
		{{0, 1}, {1, 0}},
	}
	for _, tc := range []struct {
		vote       bool
		wantScores []float64
	}{
		{false, []float64{4, 2.0 / 3, 1.0 / 3, 2}},
		{true, []float64{1.0 / 3, 2.0 / 3, 1.0 / 3, 2.0 / 3}},
	} {
		store := model.NewStore()
		exec := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) []*Node {
			scores, probs := mcScores(g, len(samples), len(samples), tc.vote, func(k int) *Node { return Const(g, samples[k]) })
			return []*Node{scores, probs}
		})
		outs := exec.MustCall()
		scores := outs[0].Value().([][]float32)
		probs := outs[1].Value().([][]float32)
		for i, want := range tc.wantScores {
			if got := float64(scores[i/2][i%2]); math.Abs(got-want) > 1e-6 {
				t.Errorf("vote=%v: score[%d][%d] = %g, want %g", tc.vote, i/2, i%2, got, want)
			}
		}
		// The probabilities are the mean softmax either way: node 0's class 0 has
		// (σ(12) + 2·σ(−1))/3 with σ the logistic function.
		sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
		if got, want := float64(probs[0][0]), (sigmoid(12)+2*sigmoid(-1))/3; math.Abs(got-want) > 1e-6 {
			t.Errorf("vote=%v: mean probability of node 0, class 0 = %g, want %g", tc.vote, got, want)
		}
		predicted := accuracy([]float32{scores[0][0], scores[0][1]}, 2, []int32{1}, []int32{0})
		if want := map[bool]float64{false: 0, true: 1}[tc.vote]; predicted != want {
			t.Errorf("vote=%v: accuracy of node 0 (labelled 1) = %g, want %g", tc.vote, predicted, want)
		}
	}
}

// TestNormalMinChannels checks the original code's guard: Normal noise only on messages with at
// least 8 channels. On a toy task whose every message is narrower, two Monte-Carlo samples are
// equal with the guard and differ without it.
func TestNormalMinChannels(t *testing.T) {
	el, err := stagnb.UndirectedEdgeList(4, [][2]int32{{0, 1}, {1, 2}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	feats, err := stagnb.NewSparseInput(el, 2, []int32{0, 1, 2, 3, 4}, []int32{0, 1, 0, 1}, []float32{1, 1, 1, 1}, stagnb.NormBoth)
	if err != nil {
		t.Fatal(err)
	}
	task := &NodeTask{Name: "toy", Edges: el, Features: feats, Labels: []int32{0, 1, 2, 0}, NumClasses: 3}
	normal, _ := stagnb.Normal(1, 1)
	for _, guard := range []int{0, 8} {
		m := &GCN{Layers: 2, Hidden: 4, Noise: stagnb.NewNoise(normal, stagnb.StructureSTAG),
			FirstPlacement: stagnb.DGLOrder, OtherPlacement: stagnb.DGLOrder, Activation: "elu", NormalMinChannels: guard}
		out := model.MustNewExec(stagtest.Backend(t), model.NewStore(), func(scope *model.Scope, g *Graph) []*Node {
			return stagnb.MonteCarloSamples(g, 2, func(int) *Node { return m.Logits(scope, g, task) })
		}).MustCall()
		a, b := out[0].Value().([][]float32), out[1].Value().([][]float32)
		same := true
		for i := range a {
			for j := range a[i] {
				same = same && a[i][j] == b[i][j]
			}
		}
		if same != (guard == 8) {
			t.Errorf("NormalMinChannels=%d: samples equal = %v", guard, same)
		}
	}
}
