package models

import (
	"math"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// esolTask loads ESOL and builds its regression task (skipping without data, as coraTask).
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

// TestTrainESOLQuick trains the molecule model on ESOL for a few hundred full-batch epochs, with
// and without STAG noise, and asks it to beat predicting the training mean on the test set.
func TestTrainESOLQuick(t *testing.T) {
	task := esolTask(t)
	if n := len(task.Train.Labels) + len(task.Val.Labels) + len(task.Test.Labels); n != 1128 || len(task.Train.Labels) != 902 {
		t.Fatalf("split sizes %d/%d/%d", len(task.Train.Labels), len(task.Val.Labels), len(task.Test.Labels))
	}
	normal, _ := stagnb.Normal(1, 0.4)
	for _, tc := range []struct {
		name  string
		noise *stagnb.Noise
	}{{"deterministic", nil}, {"normal(1,0.4)", stagnb.NewNoise(normal, stagnb.StructureSTAG)}} {
		t.Run(tc.name, func(t *testing.T) {
			m := &GraphRegressor{Layers: 2, Hidden: 128, Noise: tc.noise, Placement: stagnb.DGLOrder, Activation: "relu"}
			cfg := DefaultTrainConfig()
			cfg.LearningRate, cfg.WeightDecayFirst = 1e-3, 0
			cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 100, 50, 4
			progress := map[int]Progress{}
			cfg.Progress = func(p Progress) { progress[p.Epoch] = p }
			res, err := TrainGraphRegressor(stagtest.Backend(t), task, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			// The progress bar's status: no RMSE before the first evaluation, the best one's at its epoch.
			first, best := progress[1], progress[res.BestEpoch]
			if !math.IsNaN(first.ValRMSE) || strings.Contains(first.Status(), "RMSE") || !best.Evaluated ||
				best.ValRMSE != res.ValRMSE || best.TestRMSE != res.TestRMSE || !strings.Contains(best.Status(), "val RMSE") {
				t.Errorf("progress at epoch 1: %+v (%q); at the best epoch %d: %+v (%q); want the result's RMSEs %g and %g there",
					first, first.Status(), res.BestEpoch, best, best.Status(), res.ValRMSE, res.TestRMSE)
			}
			t.Logf("%s: test RMSE %.4f at epoch %d (val %.4f); predicting the mean: %.4f; predictive std %.4f; %.1f s",
				tc.name, res.TestRMSE, res.BestEpoch, res.ValRMSE, res.MeanBaselineRMSE, res.TestPredStd, res.WallSeconds)
			if res.TestRMSE >= res.MeanBaselineRMSE {
				t.Errorf("test RMSE %.4f does not beat the mean's %.4f", res.TestRMSE, res.MeanBaselineRMSE)
			}
			// The kept predictions are the selected evaluation's: they give its RMSEs back.
			for _, split := range []struct {
				name       string
				pred, want []float32
				rmse       float64
			}{{"val", res.ValPredictions, task.Val.Labels, res.ValRMSE}, {"test", res.TestPredictions, task.Test.Labels, res.TestRMSE}} {
				if len(split.pred) != len(split.want) || rmse(split.pred, split.want) != split.rmse {
					t.Errorf("%d %s predictions for %d molecules, want their RMSE %g to be the result's %g", len(split.pred), split.name,
						len(split.want), rmse(split.pred, split.want), split.rmse)
				}
			}
			if (tc.noise == nil) != (res.TestPredStd == 0) {
				t.Errorf("predictive std %g with noise %v", res.TestPredStd, tc.noise)
			}
		})
	}
}

// TestProgressStatus checks the progress bar's summary of an epoch in both tasks.
func TestProgressStatus(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		p    Progress
		want string
	}{
		{Progress{Loss: 1.5, ValAcc: nan, TestAcc: nan}, "loss 1.5000"},
		{Progress{Loss: 0.25, ValAcc: 0.782, TestAcc: 0.801}, "loss 0.2500, val 78.2 %, test 80.1 %"},
		{regressionProgress(1, 10, 2, nan, nan, false), "loss 2.0000"},
		{regressionProgress(5, 10, 0.5, 1.03421, 1.12049, true), "loss 0.5000, val RMSE 1.0342, test RMSE 1.1205"},
	} {
		if got := tc.p.Status(); got != tc.want {
			t.Errorf("%+v: status %q, want %q", tc.p, got, tc.want)
		}
	}
}
