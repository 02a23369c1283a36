package models

import (
	"strings"
	"testing"

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
	if _, err := GraphModelFor(RunSpec{Table: "table4", Dataset: "esol", Config: "bbgdc", Layers: 2}); err == nil || !strings.Contains(err.Error(), "vi:<posterior>") {
		t.Errorf("GraphModelFor(table4, bbgdc): error %v", err)
	}
}
