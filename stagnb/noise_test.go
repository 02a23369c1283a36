package stagnb_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

func TestParseDistribution(t *testing.T) {
	good := []struct {
		in         string
		mean, vari float64
	}{
		{"none", 1, 0},
		{"normal(1, 0.2)", 1, 0.04},
		{"Uniform(0.8,1.2)", 1, 0.4 * 0.4 / 12},
		{"bernoulli(0.2)", 0.8, 0.16},
		{"bernoulli(0.5,rescale)", 1, 1},
	}
	for _, tc := range good {
		d, err := stagnb.ParseDistribution(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !near(d.Mean(), tc.mean, 1e-12) || !near(d.Variance(), tc.vari, 1e-12) {
			t.Errorf("%q: mean %g var %g, want %g %g", tc.in, d.Mean(), d.Variance(), tc.mean, tc.vari)
		}
		if back, err := stagnb.ParseDistribution(d.String()); err != nil || back != d {
			t.Errorf("%q: String()=%q does not parse back (%v)", tc.in, d.String(), err)
		}
	}
	bad := []struct{ in, want string }{
		{"normal(1,-0.1)", "standard deviation σ=-0.1"},
		{"uniform(1.2,0.8)", "upper bound b=0.8"},
		{"bernoulli(1)", "drop rate p=1"},
		{"bernoulli(-0.1)", "drop rate p=-0.1"},
		{"gamma(1,2)", `unknown name "gamma"`},
		{"normal(1)", "takes 2 parameters"},
		{"normal(1,x)", `parameter "x" is not a number`},
		{"normal(1,2", "missing closing parenthesis"},
		{"normal(nan,1)", "must be finite"},
	}
	for _, tc := range bad {
		_, err := stagnb.ParseDistribution(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

func TestParseStructure(t *testing.T) {
	good := map[string]stagnb.Structure{
		"stag":                           stagnb.StructureSTAG,
		"dropout":                        stagnb.StructureDropout,
		"dropedge":                       stagnb.StructureDropEdge,
		"node_sampling":                  stagnb.StructureNodeSampling,
		"gdc+renormalize":                {Layers: stagnb.PerLayer, Features: stagnb.PerFeature, Edges: stagnb.PerEdge, Renormalize: true},
		"dropedge+per_layer+renormalize": {Layers: stagnb.PerLayer, Features: stagnb.SharedFeatures, Edges: stagnb.PerEdge, Renormalize: true},
	}
	for in, want := range good {
		got, err := stagnb.ParseStructure(in)
		if err != nil || got != want {
			t.Errorf("%q: got %+v (%v), want %+v", in, got, err, want)
		}
		if back, err := stagnb.ParseStructure(got.String()); err != nil || back != got {
			t.Errorf("%q: String()=%q does not parse back", in, got.String())
		}
	}
	for in, want := range map[string]string{"bogus": `unknown preset "bogus"`, "stag+sideways": `unknown modifier "sideways"`} {
		if _, err := stagnb.ParseStructure(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// TestSampleMoments checks the sample mean and variance of each distribution against its
// analytic moments, with bounds of 5 standard errors: the mean's SE is σ/√n, the variance's
// is √((μ₄ − σ⁴)/n) with μ₄ the fourth central moment.
func TestSampleMoments(t *testing.T) {
	const n = 200_000
	type dist struct {
		d  stagnb.Distribution
		m4 float64 // fourth central moment
	}
	mk := func(d stagnb.Distribution, err error) stagnb.Distribution {
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bern := func(p float64, rescale bool) dist {
		d := mk(stagnb.Bernoulli(p, rescale))
		k, v := 1-p, 1.0
		if rescale {
			v = 1 / (1 - p)
		}
		return dist{d, math.Pow(v, 4) * k * (1 - k) * (1 - 3*k*(1-k))}
	}
	tests := []dist{
		{mk(stagnb.Normal(1, 0.8)), 3 * math.Pow(0.8, 4)},
		{mk(stagnb.Normal(0.5, 0.5)), 3 * math.Pow(0.5, 4)},
		{mk(stagnb.Uniform(0.2, 1.8)), math.Pow(1.6, 4) / 80},
		bern(0.2, false),
		bern(0.8, true),
	}
	for _, tc := range tests {
		t.Run(tc.d.String(), func(t *testing.T) {
			out := runGraph(t, 7, func(scope *model.Scope, g *Graph) []*Node {
				return []*Node{tc.d.Sample(scope, g, shapes.Make(dtypes.Float32, n))}
			})[0]
			var mean, m2 float64
			for _, v := range out {
				mean += v
			}
			mean /= n
			for _, v := range out {
				m2 += (v - mean) * (v - mean)
			}
			m2 /= n
			wantMean, wantVar := tc.d.Mean(), tc.d.Variance()
			seMean := math.Sqrt(wantVar / n)
			seVar := math.Sqrt((tc.m4 - wantVar*wantVar) / n)
			t.Logf("mean %.5f (want %.5f ± %.5f), variance %.5f (want %.5f ± %.5f)", mean, wantMean, seMean, m2, wantVar, seVar)
			if math.Abs(mean-wantMean) > 5*seMean {
				t.Errorf("sample mean %g, want %g ± 5×%g", mean, wantMean, seMean)
			}
			if math.Abs(m2-wantVar) > 5*seVar {
				t.Errorf("sample variance %g, want %g ± 5×%g", m2, wantVar, seVar)
			}
		})
	}
}

// randomEdgeList is a random directed graph with n nodes and about n·avgDeg edges (each node
// gets at least one incoming edge).
func randomEdgeList(n, avgDeg int, seed uint64) *stagnb.EdgeList {
	r := rand.New(rand.NewPCG(seed, 1))
	var src, dst []int32
	for v := range n {
		for range 1 + r.IntN(2*avgDeg-1) {
			src = append(src, int32(r.IntN(n)))
			dst = append(dst, int32(v))
		}
	}
	el, err := stagnb.NewEdgeList(n, src, dst)
	if err != nil {
		panic(err)
	}
	return el
}

// drawLayers draws the noise weights of two layers (in one graph) for a graph with C channels and
// returns them broadcast to [2][E][C].
func drawLayers(t *testing.T, el *stagnb.EdgeList, noise *stagnb.Noise, c int) [2][][]float64 {
	return drawLayersCalls(t, el, noise, c, 1)[0]
}

// drawLayersCalls is drawLayers called `calls` times: independent draws of the two layers' weights.
func drawLayersCalls(t *testing.T, el *stagnb.EdgeList, noise *stagnb.Noise, c, calls int) [][2][][]float64 {
	outs := runGraphCalls(t, 3, calls, func(scope *model.Scope, g *Graph) []*Node {
		edges := el.Const(g)
		var res []*Node
		for range 2 {
			z := noise.Weights(scope, edges, c, dtypes.Float32)
			res = append(res, BroadcastToDims(z, el.NumEdges(), c))
		}
		return res
	})
	ws := make([][2][][]float64, calls)
	for i, out := range outs {
		for l := range 2 {
			for e := range el.NumEdges() {
				ws[i][l] = append(ws[i][l], out[l][e*c:(e+1)*c])
			}
		}
	}
	return ws
}

// TestPresetMaskStructure checks that each Bernoulli preset draws the mask whose sharing
// pattern the paper's Section 5 states: equal where Z shares a draw, independent elsewhere.
// A mask is drawn 32 times (calls of one graph): positions that share a draw are equal in every
// call; two independent ones are equal in all 32 with probability 2⁻³², which a pattern that
// shares more than the paper's would make 1.
func TestPresetMaskStructure(t *testing.T) {
	const c, calls = 16, 32
	el := randomEdgeList(60, 4, 11)
	bern, _ := stagnb.Bernoulli(0.5, false)
	// draw(l, e, ch) names the draw that the preset must give position (l, e, ch) of the two
	// layers' masks: positions with one name share it, the others are independent.
	tests := []struct {
		name      string
		structure stagnb.Structure
		draw      func(l, e, ch int) int
	}{
		{"dropout Z[l,c]", stagnb.StructureDropout, func(l, _, ch int) int { return l*c + ch }},
		{"dropedge Z[e]", stagnb.StructureDropEdge, func(_, e, _ int) int { return e }},
		{"node sampling Z[src]", stagnb.StructureNodeSampling, func(_, e, _ int) int { return int(el.Src[e]) }},
		{"gdc Z[l,c,e]", stagnb.StructureGDC, func(l, e, ch int) int { return (l*el.NumEdges()+e)*c + ch }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := drawLayersCalls(t, el, stagnb.NewNoise(bern, tc.structure), c, calls)
			positions := map[int]int{} // positions per draw
			for l := range 2 {
				for e := range el.NumEdges() {
					for ch := range c {
						positions[tc.draw(l, e, ch)]++
						for _, w := range ws {
							if v := w[l][e][ch]; v != 0 && v != 1 {
								t.Fatalf("mask value %g, want 0 or 1", v)
							}
						}
					}
				}
			}
			r := rand.New(rand.NewPCG(5, 5))
			var pairs, differ, alwaysEqual int
			for range 20000 {
				l1, e1, c1 := r.IntN(2), r.IntN(el.NumEdges()), r.IntN(c)
				l2, e2, c2 := r.IntN(2), r.IntN(el.NumEdges()), r.IntN(c)
				if r.IntN(4) == 0 { // also probe close positions, which a wrong pattern would share
					e2 = e1
				}
				equal := 0
				for _, w := range ws {
					if w[l1][e1][c1] == w[l2][e2][c2] {
						equal++
					}
				}
				if tc.draw(l1, e1, c1) == tc.draw(l2, e2, c2) {
					if equal != calls {
						t.Fatalf("positions (l%d,e%d,c%d) and (l%d,e%d,c%d) must share a draw: they differ in %d of %d calls", l1, e1, c1, l2, e2, c2, calls-equal, calls)
					}
					continue
				}
				pairs++
				differ += calls - equal
				if equal == calls {
					if alwaysEqual++; alwaysEqual <= 3 {
						t.Errorf("positions (l%d,e%d,c%d) and (l%d,e%d,c%d) are equal in all %d calls: one draw, where the pattern has two", l1, e1, c1, l2, e2, c2, calls)
					}
				}
			}
			// Independent Bernoulli(½) values differ half the time. Within a call the pairs compare
			// a few draws (32 for dropout), so the fraction of a call varies by about 1/(n√2) around
			// ½ for n draws of equal share, besides the sampling of pairs; n_eff = 1/Σ share² for
			// draws of unequal shares (node sampling: a node's out-degree). The calls are independent.
			var sameDraw float64
			for _, n := range positions {
				sameDraw += math.Pow(float64(n)/float64(2*el.NumEdges()*c), 2) // of the two layers' positions
			}
			frac := float64(differ) / float64(pairs*calls)
			se := math.Sqrt((0.25/float64(pairs) + sameDraw*sameDraw/2) / calls)
			t.Logf("%d draws (%.0f effective); independent pairs differ in %.4f of %d pairs × %d calls, want 0.5 ± %.4f", len(positions), 1/sameDraw, frac, pairs, calls, se)
			if math.Abs(frac-0.5) > 5*se {
				t.Errorf("independent positions differ in %.4f of pairs × calls, want 0.5 ± 5×%.4f", frac, se)
			}
		})
	}
}

func TestRenormalizeRestoresInDegree(t *testing.T) {
	const c = 4
	el := randomEdgeList(40, 5, 2)
	in := el.InDegrees()
	for _, name := range []string{"dropedge+per_layer+renormalize", "gdc+renormalize"} {
		t.Run(name, func(t *testing.T) {
			s, err := stagnb.ParseStructure(name)
			if err != nil {
				t.Fatal(err)
			}
			bern, _ := stagnb.Bernoulli(0.4, false)
			w := drawLayers(t, el, stagnb.NewNoise(bern, s), c)
			for l := range 2 {
				sums := make([][c]float64, el.NumNodes)
				for e := range el.NumEdges() {
					for ch := range c {
						sums[el.Dst[e]][ch] += w[l][e][ch]
					}
				}
				for v := range el.NumNodes {
					for ch := range c {
						if s := sums[v][ch]; s != 0 && math.Abs(s-float64(in[v])) > 1e-4 {
							t.Errorf("layer %d node %d channel %d: weights sum to %g, want in-degree %d", l, v, ch, s, in[v])
						}
					}
				}
			}
		})
	}
}

// TestOffAtEvalWeight checks the weight that noise switched off at evaluation stands for, in the
// dense and the sparse aggregation: E[z] (0.2 for Bernoulli(0.8) without rescaling), but 1 where
// the structure renormalizes to the in-degree, as DropEdge evaluates on the whole graph.
func TestOffAtEvalWeight(t *testing.T) {
	bern, _ := stagnb.Bernoulli(0.8, false)
	el := fourNodes().WithSelfLoops()
	for _, tc := range []struct {
		structure string
		want      float64
	}{
		{"stag", 0.2},
		{"dropedge", 0.2},
		{"dropedge+per_layer+renormalize", 1},
		{"gdc+renormalize", 1},
	} {
		t.Run(tc.structure, func(t *testing.T) {
			st, err := stagnb.ParseStructure(tc.structure)
			if err != nil {
				t.Fatal(err)
			}
			noise := &stagnb.Noise{Dist: bern, Structure: st, OffAtEval: true}
			if got := noise.EvalWeight(); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("EvalWeight = %g, want %g", got, tc.want)
			}
			res := runGraph(t, 5, func(scope *model.Scope, g *Graph) []*Node {
				x, edges := Const(g, fourX), el.Const(g)
				exact := stagnb.StochasticAggregate(scope, x, edges, stagnb.AggSum, stagnb.NormBoth, nil)
				return []*Node{
					MulScalar(exact, tc.want),
					stagnb.StochasticAggregate(scope, x, edges, stagnb.AggSum, stagnb.NormBoth, noise),
					sparseFour(t, el, stagnb.NormBoth).Aggregate(scope, edges, noise),
				}
			})
			checkNear(t, "dense", res[1], res[0], 1e-6)
			checkNear(t, "sparse", res[2], res[0], 1e-6)
		})
	}
}

// TestUnbiasedSum checks E[noisy SUM] = E[z]·SUM with the Monte-Carlo mean of K samples (K calls
// of a one-sample graph): per node and channel the noisy sum has variance Var(z)·Σ x_u², so the
// mean of K samples must lie within 5·√(Var(z)·Σx²/K) of E[z]·Σx, and their spread near
// √(Var(z)·Σx²) (loosely: 30 %).
func TestUnbiasedSum(t *testing.T) {
	const k = 400
	el := fourNodes()
	for _, spec := range []string{"normal(1,0.8)", "uniform(0.2,1.8)", "bernoulli(0.3)", "normal(2,0.5)"} {
		t.Run(spec, func(t *testing.T) {
			d, err := stagnb.ParseDistribution(spec)
			if err != nil {
				t.Fatal(err)
			}
			mean, spread := callMoments(t, 9, k, func(scope *model.Scope, g *Graph) []*Node {
				return []*Node{stagnb.StochasticAggregate(scope, Const(g, fourX), el.Const(g), stagnb.AggSum, stagnb.NormNone, stagnb.NewNoise(d, stagnb.StructureSTAG))}
			})
			out := [][]float64{mean[0], spread[0]}
			// Node 1 receives x0, x2, x3; node 2 x1; node 3 x0.
			incoming := map[int][]int{1: {0, 2, 3}, 2: {1}, 3: {0}}
			for v, us := range incoming {
				for ch := range 2 {
					var sum, sumSq float64
					for _, u := range us {
						x := float64(fourX[u][ch])
						sum += x
						sumSq += x * x
					}
					want := d.Mean() * sum
					sd := math.Sqrt(d.Variance() * sumSq)
					got := out[0][v*2+ch]
					if math.Abs(got-want) > 5*sd/math.Sqrt(k) {
						t.Errorf("node %d channel %d: MC mean %g, want %g ± 5×%g", v, ch, got, want, sd/math.Sqrt(k))
					}
					if spread := out[1][v*2+ch]; math.Abs(spread-sd) > 0.3*sd {
						t.Errorf("node %d channel %d: MC spread %g, want ≈ %g", v, ch, spread, sd)
					}
				}
			}
		})
	}
}

func TestSameSeedSameNumbers(t *testing.T) {
	noise := stagnb.NewNoise(stagnb.Distribution{Kind: stagnb.DistNormal, Mu: 1, Sigma: 0.5}, stagnb.StructureSTAG)
	draw := func(seed int64) []float64 {
		return runGraph(t, seed, func(scope *model.Scope, g *Graph) []*Node {
			return []*Node{stagnb.StochasticAggregate(scope, Const(g, fourX), fourNodes().Const(g), stagnb.AggSum, stagnb.NormBoth, noise)}
		})[0]
	}
	a, b, c := draw(42), draw(42), draw(43)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("seed 42 twice: element %d is %g then %g", i, a[i], b[i])
		}
	}
	same := true
	for i := range a {
		same = same && a[i] == c[i]
	}
	if same {
		t.Errorf("seeds 42 and 43 gave the same numbers %v", a)
	}
}

// TestStandardNormalDistribution checks both halves of StandardNormal's Box–Muller draws (the
// cos half and the sin half) against Φ with a Kolmogorov–Smirnov test at
// level 0.001 (critical distance 1.95/√n), and that the two values of a pair are uncorrelated
// (|r| < 5/√n, five standard errors).
func TestStandardNormalDistribution(t *testing.T) {
	const n = 200_000
	z := runGraph(t, 11, func(scope *model.Scope, g *Graph) []*Node {
		return []*Node{stagnb.StandardNormal(scope, g, shapes.Make(dtypes.Float32, n))}
	})[0]
	half := n / 2
	for i, part := range [][]float64{z[:half], z[half:]} {
		s := slices.Clone(part)
		slices.Sort(s)
		d := 0.0
		for k, v := range s {
			phi := 0.5 * math.Erfc(-v/math.Sqrt2)
			d = max(d, math.Abs(phi-float64(k)/float64(half)), math.Abs(phi-float64(k+1)/float64(half)))
		}
		if crit := 1.95 / math.Sqrt(float64(half)); d > crit {
			t.Errorf("half %d (%s): Kolmogorov–Smirnov distance %.5f > %.5f", i, []string{"cos", "sin"}[i], d, crit)
		}
	}
	var sxy float64
	for k := range half {
		sxy += z[k] * z[half+k]
	}
	if r, bound := sxy/float64(half), 5/math.Sqrt(float64(half)); math.Abs(r) > bound {
		t.Errorf("pair correlation %.5f, want |r| < %.5f", r, bound)
	}
}

// BenchmarkSample times one draw of each distribution at the shape of Cora's per-edge × feature
// noise of a 128-wide layer ([13264, 128]: edges with self-loops × channels).
func BenchmarkSample(b *testing.B) {
	normal, _ := stagnb.Normal(1, 0.8)
	uniform, _ := stagnb.Uniform(0.6, 1.4)
	bern, _ := stagnb.Bernoulli(0.2, false)
	for _, d := range []stagnb.Distribution{normal, uniform, bern} {
		b.Run(d.String(), func(b *testing.B) {
			store := model.NewStore()
			if err := store.SetRNGStateFromSeed(1); err != nil {
				b.Fatal(err)
			}
			exec := model.MustNewExec(stagtest.Backend(b), store, func(scope *model.Scope, g *Graph) *Node {
				return ReduceAllSum(d.Sample(scope, g, shapes.Make(dtypes.Float32, 13264, 128)))
			})
			exec.MustCall1()
			b.ResetTimer()
			for range b.N {
				exec.MustCall1()
			}
		})
	}
}

// TestNoiseInvalidDistribution checks that a distribution whose constructor's error was ignored,
// or a struct literal out of range, is refused by NewNoise and by Weights (for a Noise literal)
// with the reason, instead of drawing from it.
func TestNoiseInvalidDistribution(t *testing.T) {
	bad := stagnb.Distribution{Kind: stagnb.DistBernoulli, DropRate: 1}
	if err := exceptions.TryCatch[error](func() { stagnb.NewNoise(bad, stagnb.StructureSTAG) }); err == nil ||
		!strings.Contains(err.Error(), "stagnb.NewNoise: bernoulli: drop rate p=1 must be in [0, 1)") {
		t.Errorf("NewNoise(bernoulli p=1): %v", err)
	}
	normal, _ := stagnb.Normal(1, -0.5)
	noise := &stagnb.Noise{Dist: normal, Structure: stagnb.StructureSTAG}
	err := exceptions.TryCatch[error](func() {
		runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
			return []*Node{noise.Weights(scope, fourNodes().Const(g), 2, dtypes.Float32)}
		})
	})
	if err == nil || !strings.Contains(err.Error(), "stagnb.Noise.Weights: normal: standard deviation σ=-0.5") {
		t.Errorf("Weights of a Noise literal with σ<0: %v", err)
	}
}
