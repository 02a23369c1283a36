package stagnb_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/stagnb"
)

// sparseCase is a graph with features given both densely and in CSR form.
type sparseCase struct {
	name  string
	el    *stagnb.EdgeList
	dense [][]float32
	// CSR of dense.
	rowPtr, col []int32
	val         []float32
}

// csrCase builds a sparseCase from dense features, storing only the non-zeros.
func csrCase(name string, el *stagnb.EdgeList, dense [][]float32) sparseCase {
	c := sparseCase{name: name, el: el, dense: dense, rowPtr: []int32{0}}
	for _, row := range dense {
		for j, v := range row {
			if v != 0 {
				c.col, c.val = append(c.col, int32(j)), append(c.val, v)
			}
		}
		c.rowPtr = append(c.rowPtr, int32(len(c.col)))
	}
	return c
}

// input prepares the case's features with normalisation norm.
func (c sparseCase) input(t *testing.T, norm stagnb.Norm) *stagnb.SparseInput {
	t.Helper()
	s, err := stagnb.NewSparseInput(c.el, len(c.dense[0]), c.rowPtr, c.col, c.val, norm)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// randomSparseCase is a random directed graph of n nodes and e edges (some nodes receive nothing)
// with f features, about a fifth of them non-zero, normally distributed.
func randomSparseCase(seed uint64, n, e, f int) sparseCase {
	r := rand.New(rand.NewPCG(seed, 1))
	src, dst := make([]int32, e), make([]int32, e)
	for i := range e {
		src[i] = int32(r.IntN(n))
		dst[i] = int32(r.IntN(n - 3)) // the last 3 nodes have no incoming edge
	}
	el, err := stagnb.NewEdgeList(n, src, dst)
	if err != nil {
		panic(err)
	}
	dense := make([][]float32, n)
	for i := range dense {
		dense[i] = make([]float32, f)
		for j := range dense[i] {
			if r.Float64() < 0.2 {
				dense[i][j] = float32(r.NormFloat64())
			}
		}
	}
	return csrCase("random", el, dense)
}

// sparseCases are the hand graph fourNodes (node 0 receives nothing; with and without self-loops)
// and a random graph.
func sparseCases() []sparseCase {
	return []sparseCase{
		csrCase("four", fourNodes(), fourX),
		csrCase("four+self_loops", fourNodes().WithSelfLoops(), fourX),
		randomSparseCase(7, 30, 97, 23),
	}
}

// sparseLayer is one layer built both ways: from the sparse input and from the dense features.
type sparseLayer struct {
	name string
	// vars are the variables (under scope) whose gradients must agree.
	vars   []string
	sparse func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node
	dense  func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node
}

func sparseLayers() []sparseLayer {
	const out = 3
	tanh := func(x *Node) *Node { return Tanh(x) }
	return []sparseLayer{
		{"sage", []string{"sage/self", "sage/neigh", "sage/bias"},
			func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewSAGEFromSparse(scope, x, edges, out).Noise(noise).Activation(tanh).Done()
			},
			func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewSAGE(scope, x, edges, out).Noise(noise).Activation(tanh).Done()
			}},
		{"gin", []string{"gin/weights", "gin/bias"},
			func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGINFromSparse(scope, x, edges, out).Noise(noise).Activation(tanh).Done()
			},
			func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGIN(scope, x, edges, out).Noise(noise).Activation(tanh).Done()
			}},
		{"gin eps=0.5", []string{"gin/weights", "gin/bias"},
			func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGINFromSparse(scope, x, edges, out).Epsilon(0.5, false).Noise(noise).Done()
			},
			func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGIN(scope, x, edges, out).Epsilon(0.5, false).Noise(noise).Done()
			}},
		{"gin learned eps", []string{"gin/weights", "gin/bias", "gin/epsilon"},
			func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGINFromSparse(scope, x, edges, out).Epsilon(0.25, true).Noise(noise).Done()
			},
			func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGIN(scope, x, edges, out).Epsilon(0.25, true).Noise(noise).Done()
			}},
		{"gin two linears", []string{"gin/weights", "gin/bias", "gin/linear_1/weights", "gin/linear_1/bias"},
			func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGINFromSparse(scope, x, edges, out).Hidden(5, tanh).Noise(noise).Activation(tanh).Done()
			},
			func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGIN(scope, x, edges, out).Apply(stagnb.GINHiddenApply(5, out, tanh)).Noise(noise).Activation(tanh).Done()
			}},
	}
}

// TestSparseLayersMatchDense checks that the sparse GraphSAGE and GIN layers give the dense layers'
// output and the same gradients for every variable (their custom matmul gradients included),
// whatever normalisation the sparse input was prepared with: without noise (the host-aggregated
// path), with noise off at evaluation (E[z] = 0.6, or 1 when renormalized), and with DropEdge noise, whose one draw per
// edge is shared by the two layers of one graph (the per-pair scatter path).
func TestSparseLayersMatchDense(t *testing.T) {
	bern, _ := stagnb.Bernoulli(0.4, false)
	noises := []struct {
		name  string
		noise *stagnb.Noise
	}{
		{"none", nil},
		{"off at eval", &stagnb.Noise{Dist: bern, Structure: stagnb.StructureSTAG, OffAtEval: true}},
		{"renormalized off at eval", &stagnb.Noise{Dist: bern, Structure: stagnb.Structure{Features: stagnb.SharedFeatures, Renormalize: true}, OffAtEval: true}},
		{"dropedge", stagnb.NewNoise(bern, stagnb.StructureDropEdge)},
	}
	norms := []stagnb.Norm{stagnb.NormBoth, stagnb.NormRight, stagnb.NormNone}
	for _, c := range sparseCases() {
		for _, layer := range sparseLayers() {
			t.Run(c.name+"/"+layer.name, func(t *testing.T) {
				// One graph holds every normalisation and noise, each under a scope of its own, so
				// that a GPU compiles 15 graphs for this test rather than 180 (about 0.7 s each).
				type combo struct {
					name string
					outs int // the combination's outputs start at outs
				}
				var combos []combo
				res := runGraph(t, 3, func(scope *model.Scope, g *Graph) []*Node {
					var outs []*Node
					for _, norm := range norms {
						x := c.input(t, norm)
						for _, nz := range noises {
							name := norm.String() + "/" + nz.name
							combos = append(combos, combo{name, len(outs)})
							s := scope.At("combo_%d", len(combos))
							edges := c.el.Const(g)
							ySparse := layer.sparse(s, x, edges, nz.noise)
							yDense := layer.dense(s, Const(g, c.dense), edges, nz.noise)
							var vars []*Node
							for _, path := range layer.vars {
								v := s.Store().GetVariable(s.Scope() + "/" + path)
								if v == nil {
									t.Fatalf("%s: variable %s not created", name, path)
								}
								vars = append(vars, v.NodeValue(g))
							}
							// A loss that weighs the outputs unevenly, so that every gradient entry matters.
							weights := Iota(g, ySparse.Shape(), 0)
							loss := func(y *Node) *Node { return ReduceAllSum(Mul(Square(y), OnePlus(weights))) }
							outs = append(outs, ySparse, yDense)
							outs = append(outs, Gradient(loss(ySparse), vars...)...)
							outs = append(outs, Gradient(loss(yDense), vars...)...)
							// The same layer (same variables) without noise: what renormalized noise
							// off at evaluation stands for, weight 1.
							outs = append(outs, layer.sparse(s, x, edges, nil))
						}
					}
					return outs
				})
				k := len(layer.vars)
				for _, cb := range combos {
					t.Run(cb.name, func(t *testing.T) {
						r := res[cb.outs : cb.outs+3+2*k]
						checkNear(t, "output", r[0], r[1], 1e-5)
						if strings.HasSuffix(cb.name, "/renormalized off at eval") {
							checkNear(t, "output against no noise", r[0], r[len(r)-1], 1e-5)
						}
						for i, path := range layer.vars {
							checkNear(t, "gradient of "+path, r[2+i], r[2+k+i], 1e-4)
						}
					})
				}
			})
		}
	}
}

// TestSparseLayersNoiseInExpectation checks the sparse layers with noise in distribution: without
// activation a layer is linear in the noise, so the Monte-Carlo mean of its outputs must be the
// layer with every weight replaced by E[z] (within 5 standard errors), and their spread must be
// the dense layer's spread under the same noise (within 25 %), zero exactly where the dense one is.
func TestSparseLayersNoiseInExpectation(t *testing.T) {
	const k = 400
	normal, _ := stagnb.Normal(1, 0.8)
	bern, _ := stagnb.Bernoulli(0.4, false)
	uniform, _ := stagnb.Uniform(0.2, 1.8)
	builders := []struct {
		name   string
		sparse func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node
		dense  func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node
	}{
		{"sage",
			func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewSAGEFromSparse(scope, x, edges, 3).Noise(noise).Done()
			},
			func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewSAGE(scope, x, edges, 3).Noise(noise).Done()
			}},
		{"gin",
			func(scope *model.Scope, x *stagnb.SparseInput, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGINFromSparse(scope, x, edges, 3).Noise(noise).Done()
			},
			func(scope *model.Scope, x *Node, edges *stagnb.Edges, noise *stagnb.Noise) *Node {
				return stagnb.NewGIN(scope, x, edges, 3).Noise(noise).Done()
			}},
	}
	for _, c := range []sparseCase{csrCase("four", fourNodes(), fourX), randomSparseCase(11, 12, 30, 9)} {
		for _, b := range builders {
			for _, d := range []stagnb.Distribution{normal, bern, uniform} {
				noise := stagnb.NewNoise(d, stagnb.StructureSTAG)
				t.Run(c.name+"/"+b.name+"/"+d.String(), func(t *testing.T) {
					x := c.input(t, stagnb.NormBoth)
					// K calls of a graph with one sample of each layer.
					ms, ss := callMoments(t, 5, k, func(scope *model.Scope, g *Graph) []*Node {
						edges := c.el.Const(g)
						xd := Const(g, c.dense)
						// An evaluation graph with the noise off at evaluation uses E[z] for every weight.
						exact := b.dense(scope, xd, edges, &stagnb.Noise{Dist: d, Structure: stagnb.StructureSTAG, OffAtEval: true})
						return []*Node{b.sparse(scope, x, edges, noise), b.dense(scope, xd, edges, noise), exact}
					})
					mean, spread, denseSpread, exact := ms[0], ss[0], ss[1], ms[2]
					varied := 0
					for i := range exact {
						se := denseSpread[i] / math.Sqrt(k)
						if math.Abs(mean[i]-exact[i]) > 5*se+1e-5 {
							t.Errorf("element %d: MC mean %g, want %g ± 5×%g", i, mean[i], exact[i], se)
						}
						if math.Abs(spread[i]-denseSpread[i]) > 0.25*denseSpread[i]+1e-5 {
							t.Errorf("element %d: sparse MC spread %g, dense %g", i, spread[i], denseSpread[i])
						}
						if denseSpread[i] > 1e-3 {
							varied++
						}
					}
					if varied < len(exact)/2 {
						t.Errorf("only %d of %d outputs vary under noise %s", varied, len(exact), noise)
					}
				})
			}
		}
	}
}

// TestSparseLayersBuildNoEdgeFeatureTensor checks the point of the sparse layers: neither the
// forward pass nor the gradient of a noisy sparse layer has a tensor of num_edges × num_features
// elements, which the dense layers do build (the check can fail).
func TestSparseLayersBuildNoEdgeFeatureTensor(t *testing.T) {
	c := randomSparseCase(3, 30, 97, 23)
	ef := c.el.NumEdges() * len(c.dense[0])
	normal, _ := stagnb.Normal(1, 0.5)
	noise := stagnb.NewNoise(normal, stagnb.StructureSTAG)
	for _, layer := range sparseLayers() {
		for _, sparse := range []bool{true, false} {
			largest := 0
			runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
				edges := c.el.Const(g)
				var y *Node
				if sparse {
					y = layer.sparse(scope, c.input(t, stagnb.NormBoth), edges, noise)
				} else {
					y = layer.dense(scope, Const(g, c.dense), edges, noise)
				}
				w := scope.Store().GetVariable("/" + layer.vars[0]).NodeValue(g)
				grad := Gradient(ReduceAllSum(Square(y)), w)[0]
				for _, n := range g.Nodes() {
					if n.Shape().Size() == ef {
						largest = ef
					}
				}
				return []*Node{y, grad}
			})
			if found := largest == ef; found == sparse {
				t.Errorf("%s (sparse=%v): a [num_edges=%d × num_features=%d] tensor built = %v, want %v",
					layer.name, sparse, c.el.NumEdges(), len(c.dense[0]), found, !sparse)
			}
		}
	}
}

// TestSparseInputWithNorm checks that WithNorm re-prepares the same features: its aggregation is
// the dense one with the new normalisation, and the same normalisation returns the input itself.
func TestSparseInputWithNorm(t *testing.T) {
	c := randomSparseCase(5, 20, 60, 11)
	x := c.input(t, stagnb.NormBoth)
	if same, err := x.WithNorm(stagnb.NormBoth); err != nil || same != x {
		t.Errorf("WithNorm(same normalisation) = %p, %v; want the input %p", same, err, x)
	}
	for _, norm := range []stagnb.Norm{stagnb.NormRight, stagnb.NormNone, stagnb.NormLeft} {
		y, err := x.WithNorm(norm)
		if err != nil {
			t.Fatal(err)
		}
		if y.Norm() != norm || y.NumPairs() != x.NumPairs() || y.NumFeatures() != x.NumFeatures() {
			t.Errorf("%s: norm %s, %d pairs, %d features; want %s, %d, %d", norm, y.Norm(), y.NumPairs(), y.NumFeatures(), norm, x.NumPairs(), x.NumFeatures())
		}
		res := runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
			edges := c.el.Const(g)
			return []*Node{y.Aggregate(scope, edges, nil), stagnb.StochasticAggregate(scope, Const(g, c.dense), edges, stagnb.AggSum, norm, nil)}
		})
		checkNear(t, norm.String(), res[0], res[1], 1e-6)
	}
}
