package models

import (
	"math"
	"reflect"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
)

// moleculeTask loads ESOL or FreeSolv in the paper's split, or skips without data.
func moleculeTask(t *testing.T, name string) *GraphTask {
	t.Helper()
	coraTask(t) // skips without data
	ds, err := datasets.LoadMolecules(datasets.NewResolver(), name, datasets.MoleculeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	task, err := NewGraphTask(ds)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestVIGraphRegressor trains each STAG-VI posterior with Table 9's hyperparameters and the quick
// VI protocol shortened to a few dozen epochs — the global and per-feature ones on ESOL, the
// amortised ones (an encoder per molecule, slower) on the smaller FreeSolv — and asks each to beat
// predicting the training mean on the test set, with a non-zero predictive spread (the learned
// noise stays on at test).
func TestVIGraphRegressor(t *testing.T) {
	for _, tc := range []struct {
		posterior, dataset string
		epochs             int
	}{
		{"r", "esol", 40},
		{"rc", "esol", 40},
		{"re", "freesolv", 30},
		{"rec", "freesolv", 30},
	} {
		t.Run(tc.posterior, func(t *testing.T) {
			task := moleculeTask(t, tc.dataset)
			m, err := GraphModelFor(RunSpec{Table: "table4", Dataset: tc.dataset, Config: "vi:" + tc.posterior, Layers: 2, Seed: 1, Quick: true})
			if err != nil {
				t.Fatal(err)
			}
			vi, ok := m.(*VIGraphRegressor)
			if !ok || vi.Posterior.String() != tc.posterior {
				t.Fatalf("GraphModelFor(table4, vi:%s) = %T %v", tc.posterior, m, m)
			}
			cfg := QuickVIProtocol()
			cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = tc.epochs, tc.epochs/2, 2
			res, err := TrainGraphRegressor(stagtest.Backend(t), task, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s on %s: test RMSE %.4f at epoch %d (val %.4f); predicting the mean: %.4f; predictive std %.4f; %.1f s",
				vi, tc.dataset, res.TestRMSE, res.BestEpoch, res.ValRMSE, res.MeanBaselineRMSE, res.TestPredStd, res.WallSeconds)
			if res.TestRMSE >= res.MeanBaselineRMSE {
				t.Errorf("test RMSE %.4f does not beat the mean's %.4f", res.TestRMSE, res.MeanBaselineRMSE)
			}
			if !(res.TestPredStd > 0) {
				t.Errorf("predictive std %g: the learned noise should stay on at test time", res.TestPredStd)
			}
		})
	}
	if _, err := GraphModelFor(RunSpec{Table: "table4", Dataset: "esol", Config: "bbgdc", Layers: 2}); err == nil ||
		!strings.Contains(err.Error(), `"bbgdc"`) || !strings.Contains(err.Error(), "vi:rec, deterministic, deterministic(table2)") {
		t.Errorf("GraphModelFor(table4, bbgdc): error %v, want one naming the config and Table 4's six rows", err)
	}
}

// TestVIGraphRegressorHeads checks the amortised posteriors' heads, as the authors' scripts built
// them: PosteriorRE one pair Linear(2·Hidden, 1) for μ and log σ shared by every layer
// (mol_vi_per_edge), PosteriorREC one pair for layer 0 (C_in(0) outputs) and one for the others
// (Hidden outputs), with three layers so that the rest heads serve two.
func TestVIGraphRegressorHeads(t *testing.T) {
	task := toyGraphTask(t)
	const hidden = 8
	for _, tc := range []struct {
		posterior Posterior
		want      map[string][]int // variable under /vi/head_… → shape
	}{
		{PosteriorRE, map[string][]int{
			"head_first/mu/weights": {2 * hidden, 1}, "head_first/mu/bias": {1},
			"head_first/log_sigma/weights": {2 * hidden, 1}, "head_first/log_sigma/bias": {1},
		}},
		{PosteriorREC, map[string][]int{
			"head_first/mu/weights": {2 * hidden, task.NumFeatures}, "head_first/mu/bias": {task.NumFeatures},
			"head_first/log_sigma/weights": {2 * hidden, task.NumFeatures}, "head_first/log_sigma/bias": {task.NumFeatures},
			"head_rest/mu/weights": {2 * hidden, hidden}, "head_rest/mu/bias": {hidden},
			"head_rest/log_sigma/weights": {2 * hidden, hidden}, "head_rest/log_sigma/bias": {hidden},
		}},
	} {
		t.Run(tc.posterior.String(), func(t *testing.T) {
			h, err := VIHyperparameters("freesolv", tc.posterior)
			if err != nil {
				t.Fatal(err)
			}
			m := &VIGraphRegressor{Posterior: tc.posterior, Layers: 3, Hidden: hidden, Activation: "relu", Hyper: h}
			store := model.NewStore()
			exec := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) *Node {
				return m.Predict(scope, g, task.Train, task.NumFeatures)
			})
			exec.MustCall()
			got := map[string][]int{}
			for v := range store.IterVariables() {
				if name, ok := strings.CutPrefix(v.Scope()+"/"+v.Name(), "/vi/head_"); ok {
					got["head_"+name] = v.Shape().Dimensions
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("heads: got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestVIGraphControl checks Table 4's deterministic control rows: the VI molecule model without
// noise has no variational parameters and no encoder, adds no regulariser, predicts the same at
// every Monte-Carlo sample, and learns (beats predicting the training mean after a few dozen
// epochs); "deterministic(table2)" is Table 2's model in Table 4's protocol.
func TestVIGraphControl(t *testing.T) {
	task := moleculeTask(t, "freesolv")
	m, err := GraphModelFor(RunSpec{Table: "table4", Dataset: "freesolv", Config: "deterministic", Layers: 2, Seed: 1, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	vi, ok := m.(*VIGraphRegressor)
	if !ok || !vi.Deterministic || vi.String() != "stag_vi_graph(deterministic)" {
		t.Fatalf("GraphModelFor(table4, deterministic) = %T %v", m, m)
	}
	store := model.NewStore()
	var reg *Node
	exec := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) *Node {
		store.SetTraining(g, true)
		pred := m.Predict(scope, g, task.Train, task.NumFeatures)
		reg = train.GetRegularizationLoss(g)
		return pred
	})
	exec.MustCall()
	if reg != nil {
		t.Errorf("regularisation loss %s, want none", reg)
	}
	for v := range store.IterVariables() {
		if strings.HasPrefix(v.Scope(), "/vi") {
			t.Errorf("variable %s/%s: the control has no variational parameters", v.Scope(), v.Name())
		}
	}
	cfg := QuickVIProtocol()
	cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 40, 20, 4
	res, err := TrainGraphRegressor(stagtest.Backend(t), task, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: test RMSE %.4f at epoch %d; predicting the mean: %.4f", vi, res.TestRMSE, res.BestEpoch, res.MeanBaselineRMSE)
	if res.TestRMSE >= res.MeanBaselineRMSE {
		t.Errorf("test RMSE %.4f does not beat the mean's %.4f", res.TestRMSE, res.MeanBaselineRMSE)
	}
	if res.TestPredStd != 0 {
		t.Errorf("predictive std %g, want 0 without noise", res.TestPredStd)
	}

	// The second control: Table 2's deterministic model in Table 4's protocol (no L2, 32 samples).
	spec := RunSpec{Table: "table4", Dataset: "freesolv", Config: "deterministic(table2)", Layers: 2, Seed: 1}
	m2, err := GraphModelFor(spec)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := GraphModelFor(RunSpec{Table: "table2", Dataset: "freesolv", Config: "deterministic", Layers: 2, Seed: 1})
	if !reflect.DeepEqual(m2, want) {
		t.Errorf("GraphModelFor(table4, deterministic(table2)) = %+v, want Table 2's %+v", m2, want)
	}
	if cfg, vi := ProtocolFor(spec), VIProtocol(); cfg.LearningRate != vi.LearningRate || cfg.WeightDecayFirst != 0 ||
		cfg.Epochs != vi.Epochs || cfg.EvalEvery != vi.EvalEvery || cfg.MCSamples != vi.MCSamples {
		t.Errorf("ProtocolFor(table4, deterministic(table2)) = %+v, want Table 4's %+v", cfg, vi)
	}
}

// TestVIGraphRegressorRegScale checks that RegScale multiplies the molecule model's regulariser,
// with σ ≈ 0 so that every noise sample is its μ and two forward passes see the same noise.
func TestVIGraphRegressorRegScale(t *testing.T) {
	task := toyGraphTask(t)
	for _, p := range allPosteriors {
		t.Run(p.String(), func(t *testing.T) {
			h, err := VIHyperparameters("freesolv", p)
			if err != nil {
				t.Fatal(err)
			}
			store := model.NewStore()
			backend := stagtest.Backend(t)
			regOf := func(scale float64) float64 {
				m := &VIGraphRegressor{Posterior: p, Layers: 2, Hidden: 4, Activation: "relu", Hyper: h, RegScale: scale}
				out := model.MustNewExec(backend, store, func(scope *model.Scope, g *Graph) []*Node {
					store.SetTraining(g, true)
					pred := m.Predict(scope, g, task.Train, task.NumFeatures)
					reg := train.GetRegularizationLoss(g)
					if reg == nil {
						t.Fatal("no regularisation loss while training")
					}
					return []*Node{pred, reg}
				}).MustCall()
				return float64(out[1].Value().(float32))
			}
			regOf(0) // creates the variables
			setVariational(t, store, 1.3, -30, 0.8, -30)
			base, scaled := regOf(0), regOf(0.25)
			if base == 0 || math.Abs(scaled-0.25*base) > 1e-5*math.Abs(base) {
				t.Errorf("regulariser with RegScale 0.25: %.6f, want 0.25 × %.6f", scaled, base)
			}
		})
	}
}
