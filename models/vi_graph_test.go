package models

import (
	"strings"
	"testing"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
)

// esolTask loads ESOL in the paper's split, or skips without data.
func esolTask(t *testing.T) *GraphTask {
	t.Helper()
	coraTask(t) // skips without data
	ds, err := datasets.LoadESOL(datasets.NewResolver())
	if err != nil {
		t.Fatal(err)
	}
	task, err := NewGraphTask(ds)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestVIGraphRegressorESOL trains each STAG-VI posterior on ESOL with Table 9's hyperparameters
// and the quick VI protocol shortened to 60 epochs, and asks each to beat predicting the training
// mean on the test set, with a non-zero predictive spread (the learned noise stays on at test).
func TestVIGraphRegressorESOL(t *testing.T) {
	task := esolTask(t)
	for _, name := range []string{"r", "rc", "re", "rec"} {
		t.Run(name, func(t *testing.T) {
			m, err := GraphModelFor(RunSpec{Table: "table4", Dataset: "esol", Config: "vi:" + name, Layers: 2, Seed: 1, Quick: true})
			if err != nil {
				t.Fatal(err)
			}
			vi, ok := m.(*VIGraphRegressor)
			if !ok || vi.Posterior.String() != name {
				t.Fatalf("GraphModelFor(table4, vi:%s) = %T %v", name, m, m)
			}
			cfg := QuickVIProtocol()
			cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 60, 30, 4
			res, err := TrainGraphRegressor(stagtest.Backend(t), task, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: test RMSE %.4f at epoch %d (val %.4f); predicting the mean: %.4f; predictive std %.4f; %.1f s",
				vi, res.TestRMSE, res.BestEpoch, res.ValRMSE, res.MeanBaselineRMSE, res.TestPredStd, res.WallSeconds)
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
