package stagnb_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/stagnb"
)

// sparseFour is fourX in CSR form (the zero at [2][1] is not stored).
func sparseFour(t *testing.T, el *stagnb.EdgeList, norm stagnb.Norm) *stagnb.SparseInput {
	t.Helper()
	s, err := stagnb.NewSparseInput(el, 2, []int32{0, 2, 4, 5, 7}, []int32{0, 1, 0, 1, 0, 0, 1},
		[]float32{1, -1, 2, 5, 4, 8, 3}, norm)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSparseInputMatchesDense checks that the sparse aggregation equals the dense one: exactly
// the same numbers without noise and, under the same seed, with every structure whose draw does
// not depend on the feature layout; in distribution (Monte-Carlo mean and spread) for the
// per-pair draws of per-edge × per-feature noise.
func TestSparseInputMatchesDense(t *testing.T) {
	el := fourNodes().WithSelfLoops()
	bern, _ := stagnb.Bernoulli(0.5, false)
	for _, tc := range []struct {
		name  string
		noise *stagnb.Noise
	}{
		{"none", nil},
		{"dropedge", stagnb.NewNoise(bern, stagnb.StructureDropEdge)},
		{"dropedge+per_layer+renormalize", stagnb.NewNoise(bern, stagnb.Structure{Features: stagnb.SharedFeatures, Renormalize: true})},
		{"dropout", stagnb.NewNoise(bern, stagnb.StructureDropout)},
		{"node_sampling", stagnb.NewNoise(bern, stagnb.StructureNodeSampling)},
		{"off at eval", &stagnb.Noise{Dist: bern, Structure: stagnb.StructureSTAG, OffAtEval: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sparse := runGraph(t, 4, func(scope *model.Scope, g *Graph) []*Node {
				return []*Node{sparseFour(t, el, stagnb.NormBoth).Aggregate(scope, el.Const(g), tc.noise)}
			})
			dense := runGraph(t, 4, func(scope *model.Scope, g *Graph) []*Node {
				return []*Node{stagnb.StochasticAggregate(scope, Const(g, fourX), el.Const(g), stagnb.AggSum, stagnb.NormBoth, tc.noise)}
			})
			checkNear(t, "sparse vs dense", sparse[0], dense[0], 1e-6)
		})
	}
	t.Run("stag normal(1,0.8) in distribution", func(t *testing.T) {
		const k = 600
		d, _ := stagnb.Normal(1, 0.8)
		noise := stagnb.NewNoise(d, stagnb.StructureSTAG)
		// The mean and spread of k calls of a one-sample graph.
		stats := func(fn func(scope *model.Scope, g *Graph) *Node) [][]float64 {
			m, s := callMoments(t, 8, k, func(scope *model.Scope, g *Graph) []*Node { return []*Node{fn(scope, g)} })
			return [][]float64{m[0], s[0]}
		}
		sparse := stats(func(scope *model.Scope, g *Graph) *Node {
			return sparseFour(t, el, stagnb.NormBoth).Aggregate(scope, el.Const(g), noise)
		})
		exact := runGraph(t, 8, func(scope *model.Scope, g *Graph) []*Node {
			return []*Node{stagnb.StochasticAggregate(scope, Const(g, fourX), el.Const(g), stagnb.AggSum, stagnb.NormBoth, nil)}
		})[0]
		dense := stats(func(scope *model.Scope, g *Graph) *Node {
			return stagnb.StochasticAggregate(scope, Const(g, fourX), el.Const(g), stagnb.AggSum, stagnb.NormBoth, noise)
		})
		for i := range exact {
			se := dense[1][i] / math.Sqrt(k)
			if math.Abs(sparse[0][i]-exact[i]) > 5*se+1e-6 {
				t.Errorf("element %d: sparse MC mean %g, want E[z]·aggregate %g ± 5×%g", i, sparse[0][i], exact[i], se)
			}
			if math.Abs(sparse[1][i]-dense[1][i]) > 0.25*dense[1][i]+1e-6 {
				t.Errorf("element %d: sparse MC spread %g, dense %g", i, sparse[1][i], dense[1][i])
			}
		}
	})
}

func TestSparseInputErrors(t *testing.T) {
	el := fourNodes()
	bad := []struct {
		name, want string
		rowPtr     []int32
		col        []int32
		val        []float32
		features   int
	}{
		{"short rowPtr", "rowPtr has 2 entries", []int32{0, 1}, []int32{0}, []float32{1}, 2},
		{"count mismatch", "2 columns and 1 values", []int32{0, 1, 1, 1, 2}, []int32{0, 1}, []float32{1}, 2},
		{"column out of range", "column 5 outside", []int32{0, 1, 1, 1, 1}, []int32{5}, []float32{1}, 2},
		{"rowPtr not from 0", "rowPtr[0]=1, want 0", []int32{1, 1, 1, 1, 1}, []int32{0}, []float32{1}, 2},
		{"negative rowPtr", "rowPtr[0]=-1, want 0", []int32{-1, 0, 0, 0, 0}, nil, nil, 2},
		{"no features", "numFeatures=0", []int32{0, 0, 0, 0, 0}, nil, nil, 0},
	}
	for _, tc := range bad {
		_, err := stagnb.NewSparseInput(el, tc.features, tc.rowPtr, tc.col, tc.val, stagnb.NormBoth)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// Edges of another graph: refused with the two sizes, not clamped indices.
	other, _ := stagnb.NewEdgeList(4, []int32{0}, []int32{1})
	for _, name := range []string{"Aggregate", "AggregateMatMul"} {
		err := exceptions.TryCatch[error](func() {
			runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
				x := sparseFour(t, el, stagnb.NormBoth)
				if name == "Aggregate" {
					return []*Node{x.Aggregate(scope, other.Const(g), nil)}
				}
				return []*Node{x.AggregateMatMul(scope, other.Const(g), nil, Ones(g, shapes.Make(dtypes.Float32, 2, 3)))}
			})
		})
		if err == nil || !strings.Contains(err.Error(), "SparseInput."+name+": x was prepared for 4 nodes and 5 edges, edges has 4 and 1") {
			t.Errorf("%s with another graph's edges: %v", name, err)
		}
	}
	// Per-feature noise per source node would need the full [E, F] draw: refused.
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("per_source_node per-feature noise on sparse input: no panic")
		}
	}()
	bern, _ := stagnb.Bernoulli(0.5, false)
	runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
		n := stagnb.NewNoise(bern, stagnb.Structure{Edges: stagnb.PerSourceNode})
		return []*Node{sparseFour(t, el, stagnb.NormBoth).Aggregate(scope, el.Const(g), n)}
	})
}

// TestSparseGCNGradient checks the custom gradients of the sparse GCN layer (Sᵀ·v when aggregating
// first, constant Xᵀ·v when transforming first) against autodiff of the dense layer with the same
// weights.
func TestSparseGCNGradient(t *testing.T) {
	el := fourNodes().WithSelfLoops()
	for _, placement := range []stagnb.Placement{stagnb.AggregateFirst, stagnb.TransformFirst} {
		t.Run(placement.String(), func(t *testing.T) {
			res := runGraph(t, 6, func(scope *model.Scope, g *Graph) []*Node {
				edges := el.Const(g)
				loss := func(y *Node) *Node { return ReduceAllSum(Square(Tanh(y))) }
				ySparse := stagnb.NewGCNFromSparse(scope, sparseFour(t, el, stagnb.NormBoth), edges, 3).Placement(placement).Done()
				yDense := stagnb.NewGCN(scope, Const(g, fourX), edges, 3).Placement(placement).Done()
				w := scope.At("gcn").GetVariable("weights").NodeValue(g)
				gSparse := Gradient(loss(ySparse), w)[0]
				gDense := Gradient(loss(yDense), w)[0]
				return []*Node{ySparse, yDense, gSparse, gDense}
			})
			checkNear(t, "output", res[0], res[1], 1e-5)
			checkNear(t, "gradient", res[2], res[3], 1e-5)
		})
	}
}

// TestSparseTransformFirstShortcuts checks the sparse GCN layer's transform-first shortcuts
// against the dense layer under the same seed: without anything random it multiplies the
// host-summed ÂX by W, and with noise shared by the features it scatters the noisy pairs first;
// outputs and weight gradients must equal the dense layer's, which transforms first and gathers
// the messages.
func TestSparseTransformFirstShortcuts(t *testing.T) {
	el := fourNodes().WithSelfLoops()
	bern, _ := stagnb.Bernoulli(0.5, false)
	normal, _ := stagnb.Normal(1, 0.5)
	for _, tc := range []struct {
		name  string
		noise *stagnb.Noise
	}{
		{"none", nil},
		{"dropedge", stagnb.NewNoise(bern, stagnb.StructureDropEdge)},
		{"normal per edge", stagnb.NewNoise(normal, stagnb.Structure{Features: stagnb.SharedFeatures})},
		{"node_sampling", stagnb.NewNoise(bern, stagnb.StructureNodeSampling)},
		{"stag off at eval", &stagnb.Noise{Dist: normal, Structure: stagnb.StructureSTAG, OffAtEval: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(sparse bool) [][]float64 {
				return runGraph(t, 9, func(scope *model.Scope, g *Graph) []*Node {
					edges := el.Const(g)
					var y *Node
					if sparse {
						y = stagnb.NewGCNFromSparse(scope, sparseFour(t, el, stagnb.NormBoth), edges, 3).Placement(stagnb.TransformFirst).Noise(tc.noise).Done()
					} else {
						y = stagnb.NewGCN(scope, Const(g, fourX), edges, 3).Placement(stagnb.TransformFirst).Noise(tc.noise).Done()
					}
					w := scope.At("gcn").GetVariable("weights").NodeValue(g)
					return []*Node{y, Gradient(ReduceAllSum(Square(Tanh(y))), w)[0]}
				})
			}
			s, d := run(true), run(false)
			checkNear(t, "output", s[0], d[0], 1e-5)
			checkNear(t, "gradient", s[1], d[1], 1e-5)
		})
	}
}

// TestSparseInputDense checks that Dense gives back the matrix the pairs were built from.
func TestSparseInputDense(t *testing.T) {
	el := fourNodes().WithSelfLoops()
	res := runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
		return []*Node{sparseFour(t, el, stagnb.NormBoth).Dense(g)}
	})
	var want []float64
	for _, row := range fourX {
		for _, x := range row {
			want = append(want, float64(x))
		}
	}
	checkNear(t, "Dense", res[0], want, 0)
}
