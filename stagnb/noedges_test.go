package stagnb_test

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/stagnb"
)

// TestNoEdges checks that a graph without edges (a molecule of one heavy atom, isolated nodes)
// goes through every aggregator, noise structure and layer, dense and sparse, forward and
// backward: the aggregates are 0, a GCN layer gives its bias (0), and the gradients of its
// variables are finite.
func TestNoEdges(t *testing.T) {
	el, err := stagnb.NewEdgeList(3, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := [][]float32{{1, 0}, {0, 2}, {3, 4}}
	sparse, err := stagnb.NewSparseInput(el, 2, []int32{0, 1, 2, 4}, []int32{0, 1, 0, 1}, []float32{1, 2, 3, 4}, stagnb.NormBoth)
	if err != nil {
		t.Fatal(err)
	}
	normal, _ := stagnb.Normal(1, 1)
	bern, _ := stagnb.Bernoulli(0.5, false)
	for _, c := range []struct {
		name  string
		zeros bool // the output is all 0
		build func(scope *model.Scope, x *Node, edges *stagnb.Edges) *Node
	}{
		{"Aggregate sum", true, func(_ *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.Aggregate(Zeros(x.Graph(), shapes.Make(dtypes.Float32, 0, 2)), e, stagnb.AggSum)
		}},
		{"Aggregate max", true, func(_ *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.Aggregate(Zeros(x.Graph(), shapes.Make(dtypes.Float32, 0, 2)), e, stagnb.AggMax)
		}},
		{"StochasticAggregate mean stag", true, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.StochasticAggregate(s, x, e, stagnb.AggMean, stagnb.NormBoth, stagnb.NewNoise(normal, stagnb.StructureSTAG))
		}},
		{"StochasticAggregate std gdc+renormalize", true, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			st, _ := stagnb.ParseStructure("gdc+renormalize")
			return stagnb.StochasticAggregate(s, x, e, stagnb.AggStd, stagnb.NormRight, stagnb.NewNoise(bern, st))
		}},
		{"StochasticAggregate sum node_sampling", true, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.StochasticAggregate(s, x, e, stagnb.AggSum, stagnb.NormNone, stagnb.NewNoise(bern, stagnb.StructureNodeSampling))
		}},
		{"NewEdges degrees", true, func(_ *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return Concatenate([]*Node{stagnb.NewEdges(e.Src, e.Dst, 3).InDegree, stagnb.NewEdges(e.Src, e.Dst, 3).OutDegree}, 1)
		}},
		{"GCN aggregate first", true, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.NewGCN(s, x, e, 4).Noise(stagnb.NewNoise(normal, stagnb.StructureSTAG)).Done()
		}},
		{"GCN transform first", true, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.NewGCN(s, x, e, 4).Placement(stagnb.TransformFirst).Noise(stagnb.NewNoise(bern, stagnb.StructureDropEdge)).Done()
		}},
		{"GCN from sparse", true, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.NewGCNFromSparse(s, sparse, e, 4).Noise(stagnb.NewNoise(normal, stagnb.StructureSTAG)).InputDropout(0.5).Done()
		}},
		{"GCN layers sharing a draw", true, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			// The second, narrower layer takes the first channels of the first layer's draw.
			shared, _ := stagnb.ParseStructure("stag+shared_layers")
			h := stagnb.NewGCN(s.At("layer_0"), x, e, 4).Placement(stagnb.TransformFirst).Noise(stagnb.NewNoise(normal, shared)).Done()
			return stagnb.NewGCN(s.At("layer_1"), h, e, 2).Placement(stagnb.TransformFirst).Noise(stagnb.NewNoise(normal, shared)).Done()
		}},
		{"SAGE", false, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.NewSAGE(s, x, e, 4).Noise(stagnb.NewNoise(normal, stagnb.StructureSTAG)).Done()
		}},
		{"SAGE from sparse", false, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.NewSAGEFromSparse(s, sparse, e, 4).Noise(stagnb.NewNoise(normal, stagnb.StructureSTAG)).Done()
		}},
		{"GIN", false, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.NewGIN(s, x, e, 4).Noise(stagnb.NewNoise(normal, stagnb.StructureSTAG)).Done()
		}},
		{"GIN from sparse", false, func(s *model.Scope, x *Node, e *stagnb.Edges) *Node {
			return stagnb.NewGINFromSparse(s, sparse, e, 4).Noise(stagnb.NewNoise(normal, stagnb.StructureSTAG)).Done()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
				edges := el.Const(g)
				xn := Const(g, x)
				out := c.build(scope, xn, edges)
				var vars []*Node
				for v := range scope.IterVariables() {
					if v.Shape().DType.IsFloat() { // not the RNG state
						vars = append(vars, v.NodeValue(g))
					}
				}
				outs := []*Node{out}
				if len(vars) > 0 {
					outs = append(outs, Gradient(ReduceAllSum(Square(OnePlus(out))), vars...)...)
				}
				checkNoEmptySlices(t, g)
				return outs
			})
			for i, r := range res {
				for _, v := range r {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("output %d is not finite: %v", i, r)
					}
				}
			}
			if c.zeros {
				for _, v := range res[0] {
					if v != 0 {
						t.Fatalf("output %v, want all 0", res[0])
					}
				}
			}
		})
	}
}

// checkNoEmptySlices fails the test when g slices an operand with an empty axis: the pure-Go
// backend runs such a slice, but go-xla v0.4.5 refuses to build it ("start index 0 is out of
// bounds for axis 0 with size 0", results/h200/core-tests-call15.log), so a graph without edges
// must not hold one on any backend.
func checkNoEmptySlices(t *testing.T, g *Graph) {
	t.Helper()
	for _, n := range g.Nodes() {
		if n.Type() != NodeTypeSlice {
			continue
		}
		if in := n.Inputs()[0].Shape(); in.Size() == 0 {
			t.Errorf("graph slices %s, an operand with an empty axis, which XLA refuses", in)
		}
	}
}
