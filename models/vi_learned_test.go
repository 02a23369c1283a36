package models

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/internal/stagtest"
)

// TestVILearnedNoise trains each posterior for one epoch and reads its learned q through
// TrainConfig.Inspect: one value per position of the posterior's grid (layer 0: one per (edge,
// non-zero feature) pair), σ > 0, and μ equal to its initial value where the posterior fixes it
// (ℝ: μ starts at 1 and moves by about one Adam step).
func TestVILearnedNoise(t *testing.T) {
	task := coraTask(t)
	e, p := task.Edges.NumEdges(), task.Features.NumPairs()
	for _, tc := range []struct {
		posterior Posterior
		layer1    int
		positions string
	}{
		{PosteriorR, 1, "all"},
		{PosteriorRC, 128, "feature"},
		{PosteriorRE, e, "edge"},
		{PosteriorREC, e * 128, "(edge, feature)"},
	} {
		t.Run(tc.posterior.String(), func(t *testing.T) {
			h, err := VIHyperparameters("cora", tc.posterior)
			if err != nil {
				t.Fatal(err)
			}
			m := NewVIGCN(tc.posterior, VILegacy, h)
			cfg := QuickVIProtocol()
			cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 1, 1, 1
			var noise []LearnedNoise
			cfg.Inspect = func(store *model.Store) error {
				noise, err = m.LearnedNoise(stagtest.Backend(t), store, task)
				return err
			}
			if _, err := TrainNodeClassifier(stagtest.Backend(t), task, m, cfg); err != nil {
				t.Fatal(err)
			}
			if len(noise) != 2 {
				t.Fatalf("%d layers of noise, want 2", len(noise))
			}
			for l, want := range []int{p, tc.layer1} {
				n := noise[l]
				if n.Layer != l || len(n.Mu) != want || len(n.Sigma) != want {
					t.Errorf("layer %d: Layer %d, %d μ and %d σ values, want %d", l, n.Layer, len(n.Mu), len(n.Sigma), want)
				}
				for i := range n.Sigma {
					if !(n.Sigma[i] > 0) || math.IsInf(float64(n.Sigma[i]), 0) || math.IsNaN(float64(n.Mu[i])) {
						t.Fatalf("layer %d position %d: μ %g, σ %g", l, i, n.Mu[i], n.Sigma[i])
					}
				}
			}
			if noise[1].Positions != tc.positions || noise[0].Positions != "(edge, non-zero feature)" {
				t.Errorf("positions %q, %q", noise[0].Positions, noise[1].Positions)
			}
			if tc.posterior == PosteriorR {
				mu, sigma := noise[1].Mu[0], noise[1].Sigma[0]
				// One Adam step moves a parameter by at most about the learning rate (1e-2).
				if math.Abs(float64(mu)-1) > 0.02 || math.Abs(math.Log(float64(sigma))-h.LogSigma0) > 0.02 {
					t.Errorf("μ = %g, σ = %g after one step; want ≈ 1 and e^%g", mu, sigma, h.LogSigma0)
				}
				for i, v := range noise[0].Mu {
					if v != mu {
						t.Fatalf("layer 0 pair %d: μ %g differs from the shared μ %g", i, v, mu)
					}
				}
			}
		})
	}
}
