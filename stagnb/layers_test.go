package stagnb_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// hostGCN computes D̃^-½ Ã D̃^-½ X W + b densely on the host for the edge list el
// (which already holds its self-loops): the deterministic GCN layer, written independently.
func hostGCN(el *stagnb.EdgeList, x [][]float32, w []float64, b []float64, out int) []float64 {
	n, in := el.NumNodes, len(x[0])
	din, dout := el.InDegrees(), el.OutDegrees()
	agg := make([][]float64, n)
	for v := range agg {
		agg[v] = make([]float64, in)
	}
	for e := range el.Src {
		u, v := el.Src[e], el.Dst[e]
		c := 1 / math.Sqrt(float64(max(dout[u], 1))*float64(max(din[v], 1)))
		for k := range in {
			agg[v][k] += c * float64(x[u][k])
		}
	}
	res := make([]float64, n*out)
	for v := range n {
		for j := range out {
			s := b[j]
			for k := range in {
				s += agg[v][k] * w[k*out+j]
			}
			res[v*out+j] = s
		}
	}
	return res
}

// TestNoNoiseGCNIsDeterministicGCN checks that a STAG GCN layer without noise, in both
// placements, equals the plain GCN formula computed on the host; and that noise whose
// variance is 0 (normal(1,0)) is the same layer exactly.
func TestNoNoiseGCNIsDeterministicGCN(t *testing.T) {
	el := fourNodes().WithSelfLoops()
	const out = 3
	zeroVar, _ := stagnb.Normal(1, 0)
	for _, tc := range []struct {
		name      string
		placement stagnb.Placement
		noise     *stagnb.Noise
	}{
		{"aggregate_first/nil", stagnb.AggregateFirst, nil},
		{"transform_first/nil", stagnb.TransformFirst, nil},
		{"dgl/normal(1,0)", stagnb.DGLOrder, stagnb.NewNoise(zeroVar, stagnb.StructureSTAG)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := runGraph(t, 5, func(scope *model.Scope, g *Graph) []*Node {
				y := stagnb.NewGCN(scope, Const(g, fourX), el.Const(g), out).Placement(tc.placement).Noise(tc.noise).Done()
				gcn := scope.At("gcn")
				return []*Node{y, gcn.GetVariable("weights").NodeValue(g), gcn.GetVariable("bias").NodeValue(g)}
			})
			want := hostGCN(el, fourX, res[1], res[2], out)
			checkNear(t, "GCN", res[0], want, 1e-5)
		})
	}
}

// TestSAGEAndGIN checks the GraphSAGE and GIN layers without noise against their formulas,
// and that GIN's noise leaves the self term alone.
func TestSAGEAndGIN(t *testing.T) {
	el := fourNodes()
	res := runGraph(t, 5, func(scope *model.Scope, g *Graph) []*Node {
		x := Const(g, fourX)
		edges := el.Const(g)
		sage := stagnb.NewSAGE(scope.At("a"), x, edges, 2).Done()
		gin := stagnb.NewGIN(scope.At("b"), x, edges, 2).Epsilon(0.5, false).Done()
		// With noise that drops every message (Bernoulli p→1 is invalid, so use normal(0,0)),
		// GIN keeps (1+ε)·x.
		zero := stagnb.NewNoise(stagnb.Distribution{Kind: stagnb.DistNormal, Mu: 0, Sigma: 0}, stagnb.StructureSTAG)
		ginSelf := stagnb.NewGIN(scope.At("b"), x, edges, 2).Epsilon(0.5, false).Noise(zero).Done()
		v := func(path string) *Node { return scope.Store().GetVariable(path).NodeValue(g) }
		return []*Node{sage, gin, ginSelf,
			v("/a/sage/self"), v("/a/sage/neigh"), v("/a/sage/bias"), v("/b/gin/weights"), v("/b/gin/bias")}
	})
	mean := [][]float64{{0, 0}, {13.0 / 3, 2.0 / 3}, {2, 5}, {1, -1}}
	sum := [][]float64{{0, 0}, {13, 2}, {2, 5}, {1, -1}}
	lin := func(h [][]float64, w []float64, j int) []float64 {
		r := make([]float64, len(h))
		for v := range h {
			r[v] = h[v][0]*w[j] + h[v][1]*w[2+j]
		}
		return r
	}
	x := make([][]float64, 4)
	for v := range x {
		x[v] = []float64{float64(fourX[v][0]), float64(fourX[v][1])}
	}
	var wantSAGE, wantGIN, wantSelf []float64
	ginIn, selfIn := make([][]float64, 4), make([][]float64, 4)
	for v := range 4 {
		ginIn[v] = []float64{1.5*x[v][0] + sum[v][0], 1.5*x[v][1] + sum[v][1]}
		selfIn[v] = []float64{1.5 * x[v][0], 1.5 * x[v][1]}
	}
	for v := range 4 {
		for j := range 2 {
			wantSAGE = append(wantSAGE, lin(x, res[3], j)[v]+lin(mean, res[4], j)[v]+res[5][j])
			wantGIN = append(wantGIN, lin(ginIn, res[6], j)[v]+res[7][j])
			wantSelf = append(wantSelf, lin(selfIn, res[6], j)[v]+res[7][j])
		}
	}
	checkNear(t, "SAGE", res[0], wantSAGE, 1e-5)
	checkNear(t, "GIN", res[1], wantGIN, 1e-5)
	checkNear(t, "GIN with all messages zeroed", res[2], wantSelf, 1e-5)
}

// TestReparameterisedGradient checks, in float64, that the gradient of a loss with respect to the
// μ and σ of a Given (variational) noise matches central finite differences, with the RNG reset
// to the same seed for every evaluation so that ε is the same draw.
func TestReparameterisedGradient(t *testing.T) {
	el := fourNodes()
	backend := stagtest.Backend(t)
	store := model.NewStore()
	x64 := make([][]float64, 4)
	for v := range x64 {
		x64[v] = []float64{float64(fourX[v][0]), float64(fourX[v][1])}
	}
	exec := model.MustNewExec(backend, store, func(scope *model.Scope, mu, sigma *Node) []*Node {
		g := mu.Graph()
		noise := stagnb.NewNoise(stagnb.Given(mu, sigma), stagnb.StructureSTAG)
		y := stagnb.StochasticAggregate(scope, Const(g, x64), el.Const(g), stagnb.AggSum, stagnb.NormBoth, noise)
		loss := ReduceAllSum(Square(Tanh(y)))
		grads := Gradient(loss, mu, sigma)
		return []*Node{loss, grads[0], grads[1]}
	})
	// μ per channel ([1,2]) and σ per edge ([5,1]): gradients must reach both shapes.
	mu := []float64{1.1, 0.7}
	sigma := []float64{0.3, 0.5, 0.2, 0.4, 0.6}
	eval := func(mu, sigma []float64) []*tensors.Tensor {
		if err := store.SetRNGStateFromSeed(17); err != nil {
			t.Fatal(err)
		}
		return exec.MustCall(tensors.FromFlatDataAndDimensions(append([]float64(nil), mu...), 1, 2),
			tensors.FromFlatDataAndDimensions(append([]float64(nil), sigma...), 5, 1))
	}
	outs := flatten(t, eval(mu, sigma))
	const h = 1e-6
	check := func(name string, params []float64, grad []float64, setLoss func(p []float64) float64) {
		for i := range params {
			p := append([]float64(nil), params...)
			p[i] += h
			up := setLoss(p)
			p[i] -= 2 * h
			down := setLoss(p)
			fd := (up - down) / (2 * h)
			if !near(grad[i], fd, 1e-5) {
				t.Errorf("d loss / d %s[%d]: autodiff %.9g, finite differences %.9g", name, i, grad[i], fd)
			}
		}
	}
	check("mu", mu, outs[1], func(p []float64) float64 { return flatten(t, eval(p, sigma))[0][0] })
	check("sigma", sigma, outs[2], func(p []float64) float64 { return flatten(t, eval(mu, p))[0][0] })
	if outs[2][0] == 0 && outs[2][1] == 0 {
		t.Errorf("σ gradient is zero: the noise is not reparameterised")
	}
}

// TestMonteCarloReductions checks the shapes and meaning of the three reductions, and that noise
// switched off at evaluation gives a zero spread and the weight-scaled mean.
func TestMonteCarloReductions(t *testing.T) {
	el := fourNodes()
	bern, _ := stagnb.Bernoulli(0.5, false)
	res := runGraph(t, 21, func(scope *model.Scope, g *Graph) []*Node {
		x := Const(g, fourX)
		edges := el.Const(g)
		on := stagnb.NewNoise(bern, stagnb.StructureSTAG)
		off := &stagnb.Noise{Dist: bern, Structure: stagnb.StructureSTAG, OffAtEval: true}
		fwd := func(n *stagnb.Noise) func(int) *Node {
			return func(int) *Node {
				return stagnb.StochasticAggregate(scope, x, edges, stagnb.AggSum, stagnb.NormNone, n)
			}
		}
		voteMean, _ := stagnb.MonteCarlo(g, 64, stagnb.MCVote, fwd(on))
		probMean, _ := stagnb.MonteCarlo(g, 64, stagnb.MCProbs, fwd(on))
		offMean, offSpread := stagnb.MonteCarlo(g, 8, stagnb.MCMean, fwd(off))
		return []*Node{voteMean, probMean, offMean, offSpread}
	})
	for v := range 4 {
		votes := res[0][2*v] + res[0][2*v+1]
		probs := res[1][2*v] + res[1][2*v+1]
		if !near(votes, 1, 1e-6) || !near(probs, 1, 1e-5) {
			t.Errorf("node %d: vote fractions sum to %g, probabilities to %g; want 1", v, votes, probs)
		}
	}
	// Off at eval: the weights are E[z] = 0.5, so the SUM is halved, with no spread.
	want := []float64{0, 0, 6.5, 1, 1, 2.5, 0.5, -0.5}
	checkNear(t, "off-at-eval mean", res[2], want, 1e-6)
	checkNear(t, "off-at-eval spread", res[3], make([]float64, 8), 1e-6)
}

// TestMonteCarloSpreadFarFromZero checks the spread of outputs whose mean is large beside their
// spread (a regression target of 1000 ± 0.01, say): it must be the samples' standard deviation,
// and exactly zero for identical samples, not the rounding error of E[y²] − E[y]² in float32.
func TestMonteCarloSpreadFarFromZero(t *testing.T) {
	for _, tc := range []struct {
		name              string
		offset, deviation float32
	}{
		{"identical samples near 3", 3.14159, 0},
		{"identical samples near -25", -25.37, 0},
		{"1000 ± 0.01", 1000, 0.01},
		{"-3 ± 0.001", -3, 0.001},
		{"0 ± 1", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const samples = 16
			values := make([]float32, samples) // offset ± deviation, alternating: the spread is the deviation
			for k := range values {
				values[k] = tc.offset + tc.deviation*float32(1-2*(k%2))
			}
			res := runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
				mean, spread := stagnb.MonteCarlo(g, samples, stagnb.MCMean, func(k int) *Node {
					return Const(g, []float32{values[k]})
				})
				return []*Node{mean, spread}
			})
			var mean, sq float64 // the float64 statistics of the float32 samples
			for _, v := range values {
				mean += float64(v) / samples
			}
			for _, v := range values {
				sq += (float64(v) - mean) * (float64(v) - mean) / samples
			}
			if got, want := res[1][0], math.Sqrt(sq); math.Abs(got-want) > 1e-3*want || (want == 0 && got != 0) {
				t.Errorf("spread %g, want %g (samples %v)", got, want, values)
			}
			if got := res[0][0]; math.Abs(got-mean) > 1e-6*(1+math.Abs(mean)) {
				t.Errorf("mean %g, want %g", got, mean)
			}
		})
	}
}

// TestSharedLayersReuseOneDraw checks that SharedLayers noise is one draw per Monte-Carlo sample:
// equal in two layers of a sample, different between samples.
func TestSharedLayersReuseOneDraw(t *testing.T) {
	el := fourNodes()
	d, _ := stagnb.Normal(1, 1)
	noise := stagnb.NewNoise(d, stagnb.StructureDropEdge)
	res := runGraph(t, 2, func(scope *model.Scope, g *Graph) []*Node {
		edges := el.Const(g)
		var outs []*Node
		stagnb.MonteCarlo(g, 2, stagnb.MCMean, func(int) *Node {
			a := noise.Weights(scope, edges, 3, dtypes.Float32)
			b := noise.Weights(scope, edges, 3, dtypes.Float32)
			outs = append(outs, a, b)
			return Zeros(g, shapes.Make(dtypes.Float32, 1))
		})
		return outs
	})
	checkNear(t, "sample 1, layer 2 vs layer 1", res[1], res[0], 0)
	checkNear(t, "sample 2, layer 2 vs layer 1", res[3], res[2], 0)
	if res[0][0] == res[2][0] {
		t.Errorf("samples 1 and 2 reuse the same draw %v", res[0])
	}
}

// TestSharedLayersFromScope checks that layers configured through the scope's hyperparameters,
// each of which builds its own *Noise, share one draw when the structure is shared across layers,
// and draw independently when it is per layer.
func TestSharedLayersFromScope(t *testing.T) {
	el := fourNodes()
	for _, c := range []struct {
		structure string
		shared    bool
	}{
		{"dropedge", true},
		{"node_sampling", true},
		{"stag+shared_layers", true},
		{"stag", false},
	} {
		t.Run(c.structure, func(t *testing.T) {
			res := runGraph(t, 3, func(scope *model.Scope, g *Graph) []*Node {
				scope.SetParams(map[string]any{stagnb.ParamNoise: "normal(1,1)", stagnb.ParamStructure: c.structure})
				edges := el.Const(g)
				var outs []*Node
				for l := range 2 {
					noise, err := stagnb.NoiseFromScope(scope.At("layer_%d", l))
					if err != nil {
						t.Fatal(err)
					}
					w := noise.Weights(scope.At("layer_%d", l), edges, 3, dtypes.Float32)
					outs = append(outs, BroadcastToDims(w, el.NumEdges(), 3))
				}
				return outs
			})
			if c.shared {
				checkNear(t, "layer 2 vs layer 1", res[1], res[0], 0)
			} else if slices.Equal(res[0], res[1]) {
				t.Errorf("per-layer noise: the two layers have the same draw %v", res[0])
			}
		})
	}
}

// TestSharedLayersNarrowerLayer checks per-feature noise shared across layers of decreasing
// width: the narrower layer gets the first channels of the one draw, and a wider later layer is
// an error.
func TestSharedLayersNarrowerLayer(t *testing.T) {
	el := fourNodes()
	d, _ := stagnb.Normal(1, 1)
	noise := stagnb.NewNoise(d, stagnb.Structure{Layers: stagnb.SharedLayers, Features: stagnb.PerFeature, Edges: stagnb.PerEdge})
	res := runGraph(t, 2, func(scope *model.Scope, g *Graph) []*Node {
		edges := el.Const(g)
		wide := noise.Weights(scope, edges, 5, dtypes.Float32)
		narrow := noise.Weights(scope, edges, 2, dtypes.Float32)
		return []*Node{Slice(wide, AxisRange(), AxisRange(0, 2)), narrow}
	})
	checkNear(t, "narrow layer vs the first channels of the wide one", res[1], res[0], 0)
	if err := exceptions.TryCatch[error](func() {
		runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
			edges := el.Const(g)
			noise.Weights(scope, edges, 2, dtypes.Float32)
			return []*Node{noise.Weights(scope, edges, 5, dtypes.Float32)}
		})
	}); err == nil || !strings.Contains(err.Error(), "wider layer") {
		t.Errorf("a wider later layer: %v, want a panic naming the wider layer", err)
	}
}

// TestLayerBadInput checks that the layer builders refuse a bad output width or input shape with a
// panic that names the builder and the parameter.
func TestLayerBadInput(t *testing.T) {
	el := fourNodes()
	for _, c := range []struct {
		name, want string
		build      func(scope *model.Scope, g *Graph, edges *stagnb.Edges) *Node
	}{
		{"GCN out=0", "stagnb.NewGCN: out=0", func(s *model.Scope, g *Graph, e *stagnb.Edges) *Node {
			return stagnb.NewGCN(s, Const(g, fourX), e, 0).Done()
		}},
		{"SAGE out=-1", "stagnb.NewSAGE: out=-1", func(s *model.Scope, g *Graph, e *stagnb.Edges) *Node {
			return stagnb.NewSAGE(s, Const(g, fourX), e, -1).Done()
		}},
		{"GIN out=0", "stagnb.NewGIN: out=0", func(s *model.Scope, g *Graph, e *stagnb.Edges) *Node {
			return stagnb.NewGIN(s, Const(g, fourX), e, 0).Done()
		}},
		{"GCN from sparse out=0", "stagnb.NewGCNFromSparse: out=0", func(s *model.Scope, g *Graph, e *stagnb.Edges) *Node {
			return stagnb.NewGCNFromSparse(s, sparseFour(t, el, stagnb.NormBoth), e, 0).Done()
		}},
		{"SAGE from sparse out=0", "stagnb.NewSAGEFromSparse: out=0", func(s *model.Scope, g *Graph, e *stagnb.Edges) *Node {
			return stagnb.NewSAGEFromSparse(s, sparseFour(t, el, stagnb.NormBoth), e, 0).Done()
		}},
		{"GIN from sparse out=0", "stagnb.NewGINFromSparse: out=0", func(s *model.Scope, g *Graph, e *stagnb.Edges) *Node {
			return stagnb.NewGINFromSparse(s, sparseFour(t, el, stagnb.NormBoth), e, 0).Done()
		}},
		{"GCN x of 3 nodes", "stagnb.NewGCN: x must be shaped [num_nodes=4, C]", func(s *model.Scope, g *Graph, e *stagnb.Edges) *Node {
			return stagnb.NewGCN(s, Const(g, fourX[:3]), e, 2).Done()
		}},
	} {
		err := exceptions.TryCatch[error](func() {
			runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
				return []*Node{c.build(scope, g, el.Const(g))}
			})
		})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a panic mentioning %q", c.name, err, c.want)
		}
	}
}
