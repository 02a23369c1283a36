package stagnb_test

import (
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/stagnb"
)

// TestMonteCarloCallsDrawApart checks that two Monte-Carlo calls in one graph draw their own noise
// shared across layers: each sample of each call is a forward pass of its own, while within a
// sample the layers share one draw.
func TestMonteCarloCallsDrawApart(t *testing.T) {
	el := fourNodes()
	d, _ := stagnb.Normal(1, 1)
	dropEdge := stagnb.NewNoise(d, stagnb.StructureDropEdge)
	res := runGraph(t, 3, func(scope *model.Scope, g *Graph) []*Node {
		edges := el.Const(g)
		forward := func(int) *Node {
			a := dropEdge.Weights(scope, edges, 1, dtypes.Float32)
			b := dropEdge.Weights(scope, edges, 1, dtypes.Float32)
			return Concatenate([]*Node{a, b}, -1) // [edges, 2]: the two layers' draws
		}
		var outs []*Node
		for range 2 {
			outs = append(outs, stagnb.MonteCarloSums(g, 3, forward, func(y, first *Node) []*Node {
				return []*Node{first, y}
			})...)
		}
		return outs
	})
	for i, what := range []string{"call 1, first sample", "call 1, all samples", "call 2, first sample", "call 2, all samples"} {
		for e := 0; e < len(res[i]); e += 2 {
			if res[i][e] != res[i][e+1] {
				t.Errorf("%s, edge %d: the two layers' draws sum to %g and %g, want one draw", what, e/2, res[i][e], res[i][e+1])
			}
		}
	}
	if slices.Equal(res[0], res[2]) || slices.Equal(res[1], res[3]) {
		t.Errorf("the two Monte-Carlo calls reuse each other's draws: first samples %v and %v, sums %v and %v", res[0], res[2], res[1], res[3])
	}
}
