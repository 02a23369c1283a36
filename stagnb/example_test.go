package stagnb_test

import (
	"fmt"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/stagnb"
)

// A two-layer STAG GCN on a 4-node cycle: Normal(1, 0.2) noise per edge × feature, drawn in every
// forward pass, and the mean of 32 Monte-Carlo samples of the logits.
func Example() {
	backend, err := compute.NewWithConfig("go")
	if err != nil {
		panic(err)
	}
	el, err := stagnb.UndirectedEdgeList(4, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 0}})
	if err != nil {
		panic(err)
	}
	el = el.WithSelfLoops()
	store := model.NewStore()
	store.SetParams(map[string]any{
		stagnb.ParamNoise:     "normal(1,0.2)", // σ is the standard deviation
		stagnb.ParamStructure: "stag",          // per layer × feature × edge
	})
	x := [][]float32{{1, 0}, {0, 1}, {1, 1}, {0, 0}}
	exec := model.MustNewExec(backend, store, func(scope *model.Scope, g *Graph) *Node {
		edges := el.Const(g)
		mean, _ := stagnb.MonteCarlo(g, 32, stagnb.MCMean, func(int) *Node {
			h := stagnb.NewGCN(scope.At("layer_0"), Const(g, x), edges, 8).Activation(activation.Relu).Done()
			return stagnb.NewGCN(scope.At("layer_1"), h, edges, 3).Done()
		})
		return mean
	})
	logits := exec.MustCall()[0]
	fmt.Println(logits.Shape())
	// Output: (Float32)[4, 3]
}
