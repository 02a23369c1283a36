package models

import (
	"testing"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// TestTrainESOLQuick trains the molecule model on ESOL for a few hundred full-batch epochs, with
// and without STAG noise, and asks it to beat predicting the training mean on the test set.
func TestTrainESOLQuick(t *testing.T) {
	coraTask(t) // skips without data
	ds, err := datasets.LoadESOL(datasets.NewResolver())
	if err != nil {
		t.Fatal(err)
	}
	task, err := NewGraphTask(ds)
	if err != nil {
		t.Fatal(err)
	}
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
			res, err := TrainGraphRegressor(stagtest.Backend(t), task, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: test RMSE %.4f at epoch %d (val %.4f); predicting the mean: %.4f; predictive std %.4f; %.1f s",
				tc.name, res.TestRMSE, res.BestEpoch, res.ValRMSE, res.MeanBaselineRMSE, res.TestPredStd, res.WallSeconds)
			if res.TestRMSE >= res.MeanBaselineRMSE {
				t.Errorf("test RMSE %.4f does not beat the mean's %.4f", res.TestRMSE, res.MeanBaselineRMSE)
			}
			if (tc.noise == nil) != (res.TestPredStd == 0) {
				t.Errorf("predictive std %g with noise %v", res.TestPredStd, tc.noise)
			}
		})
	}
}
