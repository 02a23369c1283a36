package models

import (
	"fmt"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// LearnedNoise is the variational posterior q = Normal(μ, σ) of one layer of a trained VIGCN.
type LearnedNoise struct {
	// Layer is the layer's index.
	Layer int
	// Positions says what one value stands for: "all" (PosteriorR), "feature", "edge", or
	// "(edge, feature)". Layer 0's values are those at the (edge, non-zero input feature) pairs,
	// the only positions its noise multiplies ("(edge, non-zero feature)").
	Positions string
	// Mu and Sigma hold μ and σ = exp(log σ), one value per position.
	Mu, Sigma []float32
}

// LearnedNoise evaluates the variational parameters of every layer of m from the trained
// variables in store (TrainConfig.Inspect hands the store over): the free parameters of
// PosteriorR and PosteriorRC, and the encoder's outputs for the amortised posteriors.
func (m *VIGCN) LearnedNoise(backend compute.Backend, store *model.Store, task *NodeTask) ([]LearnedNoise, error) {
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, g *Graph) []*Node {
		vg := m.graphState(scope, g, task)
		outs := []*Node{vg.pairMu, Exp(vg.pairLogS)}
		for l := 1; l < m.Layers; l++ {
			q := vg.gridAt(l)
			outs = append(outs, Reshape(q.mu, -1), Reshape(Exp(q.logSigma), -1))
		}
		return outs
	})
	if err != nil {
		return nil, fmt.Errorf("models.VIGCN.LearnedNoise: %w", err)
	}
	defer exec.Finalize()
	outs, err := exec.Call()
	if err != nil {
		return nil, fmt.Errorf("models.VIGCN.LearnedNoise: %w", err)
	}
	grid := map[Posterior]string{PosteriorR: "all", PosteriorRC: "feature", PosteriorRE: "edge", PosteriorREC: "(edge, feature)"}[m.Posterior]
	res := make([]LearnedNoise, m.Layers)
	for l := range res {
		res[l] = LearnedNoise{Layer: l, Positions: grid,
			Mu: tensors.MustCopyFlatData[float32](outs[2*l]), Sigma: tensors.MustCopyFlatData[float32](outs[2*l+1])}
		if l == 0 {
			res[l].Positions = "(edge, non-zero feature)"
		}
	}
	for _, t := range outs {
		t.FinalizeAll()
	}
	return res, nil
}
