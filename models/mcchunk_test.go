package models

import (
	"math"
	"testing"

	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

func TestMCCalls(t *testing.T) {
	for _, tc := range []struct{ samples, chunk, perCall, calls int }{
		{32, 0, 32, 1},  // the default: one graph of all the samples
		{32, 8, 8, 4},   // a divisor
		{32, 32, 32, 1}, // all of them
		{32, 40, 32, 1}, // more than all of them
		{20, 8, 5, 4},   // BBGDC's 20 samples: the largest divisor not above 8
		{7, 3, 1, 7},    // a prime: one sample a call
		{1, 5, 1, 1},
	} {
		if perCall, calls := mcCalls(tc.samples, tc.chunk); perCall != tc.perCall || calls != tc.calls {
			t.Errorf("mcCalls(%d, %d) = %d per call × %d calls, want %d × %d", tc.samples, tc.chunk, perCall, calls, tc.perCall, tc.calls)
		}
	}
}

// TestPoolMeanSpread checks that the pooled mean and spread of a split sample are those of the
// whole: 12 samples of three values, cut into 1, 2, 3, 4 and 6 calls of equal size.
func TestPoolMeanSpread(t *testing.T) {
	samples := [][]float64{
		{1, -3, 0.5}, {2, -3, 0.25}, {4, -2, 0}, {8, -3.5, 1}, {0, -3, 2}, {-1, -3.25, 0.5},
		{3, -2.75, 0.5}, {5, -3, 0}, {2, -3, 0.75}, {7, -2.5, 1}, {6, -3, 0.5}, {1, -4, 0.25},
	}
	// meanSpread is the mean and the population standard deviation of samples[from:to].
	meanSpread := func(from, to int) (mean, spread []float32) {
		for j := range samples[0] {
			var m, sq float64
			for _, s := range samples[from:to] {
				m += s[j]
			}
			m /= float64(to - from)
			for _, s := range samples[from:to] {
				sq += (s[j] - m) * (s[j] - m)
			}
			mean, spread = append(mean, float32(m)), append(spread, float32(math.Sqrt(sq/float64(to-from))))
		}
		return mean, spread
	}
	wantMean, wantSpread := meanSpread(0, len(samples))
	for _, calls := range []int{1, 2, 3, 4, 6} {
		per := len(samples) / calls
		var outs [][][]float32
		for k := range calls {
			m, s := meanSpread(k*per, (k+1)*per)
			outs = append(outs, [][]float32{m, s})
		}
		pooled := poolMeanSpread(outs)
		for j := range wantMean {
			if math.Abs(float64(pooled[0][j]-wantMean[j])) > 1e-6 || math.Abs(float64(pooled[1][j]-wantSpread[j])) > 1e-6 {
				t.Errorf("%d calls, value %d: pooled mean %g and spread %g, want %g and %g", calls, j, pooled[0][j], pooled[1][j], wantMean[j], wantSpread[j])
			}
		}
	}
}

// TestChunkedEvaluation checks TrainConfig.MCChunk: an evaluation whose 8 samples are drawn in
// four calls of two trains and evaluates as one graph of all 8 does. The calls draw the same
// numbers in the same order, so a node classifier's evaluations agree (only the sums' rounding
// differs), and so does the training after them: its loss is the same to the bit. A graph
// regressor's validation and test samples take turns by call, so its predictions differ within
// the Monte-Carlo spread, but without noise they are the same (to rounding).
func TestChunkedEvaluation(t *testing.T) {
	task := coraTask(t) // skips without data
	normal, _ := stagnb.Normal(1, 0.8)
	noise := stagnb.NewNoise(normal, stagnb.StructureSTAG)
	t.Run("node classifier", func(t *testing.T) {
		m := &GCN{Layers: 2, Hidden: 64, Noise: noise, FirstPlacement: stagnb.DGLOrder, OtherPlacement: stagnb.DGLOrder, Activation: "relu"}
		cfg := QuickTrainConfig()
		cfg.Epochs, cfg.EvalEvery = 20, 10
		whole, err := TrainNodeClassifier(stagtest.Backend(t), task, m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.MCChunk = 3 // 8 samples: two a call
		chunked, err := TrainNodeClassifier(stagtest.Backend(t), task, m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The mean probabilities too (the test NLL), to the rounding of their sums.
		if math.Abs(chunked.TestNLL-whole.TestNLL) > 1e-5*whole.TestNLL || math.Abs(chunked.TestECE-whole.TestECE) > 1e-4 {
			t.Errorf("test NLL %v and ECE %v in calls of two samples, %v and %v in one graph", chunked.TestNLL, chunked.TestECE, whole.TestNLL, whole.TestECE)
		}
		if chunked.FinalLoss != whole.FinalLoss {
			t.Errorf("final loss %v in calls of two samples, %v in one graph of eight: the evaluations drew other numbers", chunked.FinalLoss, whole.FinalLoss)
		}
		for i, e := range whole.Evaluations {
			if c := chunked.Evaluations[i]; c != e {
				t.Errorf("evaluation %d: %+v in calls of two samples, %+v in one graph", i, c, e)
			}
		}
	})
	t.Run("graph regressor", func(t *testing.T) {
		gtask := esolTask(t)
		for _, tc := range []struct {
			name  string
			noise *stagnb.Noise
		}{{"deterministic", nil}, {"normal(1,0.8)", noise}} {
			m := &GraphRegressor{Layers: 2, Hidden: 64, Noise: tc.noise, Placement: stagnb.DGLOrder, Activation: "relu"}
			cfg := MoleculeTrainConfig()
			cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 10, 5, 8
			whole, err := TrainGraphRegressor(stagtest.Backend(t), gtask, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg.MCChunk = 2
			chunked, err := TrainGraphRegressor(stagtest.Backend(t), gtask, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: test RMSE %.4f (spread %.4f) in one graph, %.4f (%.4f) in four calls", tc.name, whole.TestRMSE, whole.TestPredStd, chunked.TestRMSE, chunked.TestPredStd)
			if tc.noise == nil {
				// The same predictions but for rounding: eight equal float32 values do not always sum
				// to exactly eight times one.
				if math.Abs(chunked.TestRMSE-whole.TestRMSE) > 1e-6*whole.TestRMSE || chunked.TestPredStd != 0 {
					t.Errorf("%s: test RMSE %v, spread %v in four calls; want %v and 0 as in one graph", tc.name, chunked.TestRMSE, chunked.TestPredStd, whole.TestRMSE)
				}
				continue
			}
			if chunked.TestPredStd <= 0 || math.Abs(chunked.TestPredStd-whole.TestPredStd) > 0.25*whole.TestPredStd ||
				math.Abs(chunked.TestRMSE-whole.TestRMSE) > 0.1*whole.TestRMSE {
				t.Errorf("%s: test RMSE %v, spread %v in four calls; want about %v and %v as in one graph", tc.name, chunked.TestRMSE, chunked.TestPredStd, whole.TestRMSE, whole.TestPredStd)
			}
		}
	})
}

// TestProtocolDiffLeavesOutMCChunk checks that how an evaluation's samples are split into calls
// does not make a record's protocol another: a record evaluated in one graph is kept by a
// command that evaluates in calls, and the other way round.
func TestProtocolDiffLeavesOutMCChunk(t *testing.T) {
	whole := DefaultTrainConfig()
	chunked := whole
	chunked.MCChunk = 8
	if d := ProtocolDiff(whole, chunked); d != "" {
		t.Errorf("ProtocolDiff with MCChunk 0 and 8: %q, want none", d)
	}
	chunked.MCSamples = 16
	if d := ProtocolDiff(whole, chunked); d != "mc_samples 32 → 16" {
		t.Errorf("ProtocolDiff with 32 and 16 samples: %q, want mc_samples alone", d)
	}
}
