package stagnb_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/stagnb"
	"gonum.org/v1/gonum/mat"
)

// rgg returns a random geometric graph and its edge list.
func rgg(t *testing.T, n int, radius float64, seed uint64) (*datasets.GeometricGraph, *stagnb.EdgeList) {
	t.Helper()
	g, err := datasets.RandomGeometricGraph(n, radius, seed)
	if err != nil {
		t.Fatal(err)
	}
	el, err := stagnb.UndirectedEdgeList(n, g.Edges)
	if err != nil {
		t.Fatal(err)
	}
	return g, el
}

// TestDirichletEnergyMatchesLaplacian checks the edge-list energy against tr(XᵀΔ̃X) with the
// dense NormalizedLaplacian, on random graphs.
func TestDirichletEnergyMatchesLaplacian(t *testing.T) {
	for seed := uint64(1); seed <= 4; seed++ {
		g, el := rgg(t, 90, 0.18, seed)
		r := rand.New(rand.NewPCG(seed, 2))
		const c = 3
		x := make([][]float64, g.NumNodes)
		xm := mat.NewDense(g.NumNodes, c, nil)
		for v := range x {
			x[v] = make([]float64, c)
			for k := range c {
				x[v][k] = r.NormFloat64()
				xm.Set(v, k, x[v][k])
			}
		}
		lap, err := stagnb.NormalizedLaplacian(el)
		if err != nil {
			t.Fatal(err)
		}
		var lx, xtlx mat.Dense
		lx.Mul(lap, xm)
		xtlx.Mul(xm.T(), &lx)
		want := mat.Trace(&xtlx)
		got, err := stagnb.DirichletEnergy(el, x)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, want, 1e-10) {
			t.Errorf("seed %d: edge-list energy %.12g, tr(XᵀΔ̃X) %.12g", seed, got, want)
		}
		d, err := stagnb.NewDirichlet(el)
		if err != nil {
			t.Fatal(err)
		}
		if prepared, err := d.Energy(x); err != nil || prepared != got {
			t.Errorf("seed %d: NewDirichlet(el).Energy(x) = %.12g (%v), DirichletEnergy %.12g", seed, prepared, err, got)
		}
		f := mat.Col(nil, 0, xm)
		fs, _ := stagnb.DirichletEnergyScalar(el, f)
		fv := mat.NewVecDense(len(f), f)
		if want := mat.Inner(fv, lap, fv); !near(fs, want, 1e-10) {
			t.Errorf("seed %d: scalar energy %.12g, fᵀΔ̃f %.12g", seed, fs, want)
		}
	}
}

// TestDirichletEnergyBadInput checks that DirichletEnergy refuses what it cannot compute, with an
// error that says why: a directed edge list (the energy needs an undirected graph), an invalid one,
// and features of the wrong number of rows.
func TestDirichletEnergyBadInput(t *testing.T) {
	path, err := stagnb.UndirectedEdgeList(3, [][2]int32{{0, 1}, {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	three := [][]float64{{1}, {2}, {3}}
	for _, c := range []struct {
		name string
		el   *stagnb.EdgeList
		x    [][]float64
		want string
	}{
		{"directed", fourNodes(), [][]float64{{1}, {2}, {3}, {4}}, "must be symmetric"},
		// Every node has in- and out-degree 1: only the edges themselves tell it from an undirected cycle.
		{"directed cycle", &stagnb.EdgeList{NumNodes: 3, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 0}}, three, "0→1 is listed ×1 but 1→0 ×0"},
		{"node out of range", &stagnb.EdgeList{NumNodes: 3, Src: []int32{0, 5}, Dst: []int32{5, 0}}, three, "stagnb.DirichletEnergy"},
		{"too few rows", path, [][]float64{{1}}, "1 feature rows for 3 nodes"},
		{"ragged rows", path, [][]float64{{1}, {2, 3}, {4}}, "channels"},
	} {
		if _, err := stagnb.DirichletEnergy(c.el, c.x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
		// The prepared form refuses the same, naming itself: the graph in NewDirichlet, the
		// features in Energy.
		var err error
		if d, derr := stagnb.NewDirichlet(c.el); derr != nil {
			err = derr
		} else {
			_, err = d.Energy(c.x)
		}
		want := strings.ReplaceAll(c.want, "stagnb.DirichletEnergy", "stagnb.NewDirichlet")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "DirichletEnergy") {
			t.Errorf("%s: NewDirichlet/Energy error %v, want one mentioning %q and naming the prepared form", c.name, err, want)
		}
	}
}

// table1 holds the paper's Table 1: multiset pairs from Corso et al. and the closed-form
// column as printed, which omits the 1/Π x_i factor.
var table1 = []struct {
	a, b           []float64
	paperA, paperB float64
}{
	{[]float64{2, 2}, []float64{0, 4}, sq(math.Expm1(2)), math.Expm1(4)},
	// The paper prints e⁴−1 for {0,2,2}; the expectation is ((e²−1)/2)², see the test.
	{[]float64{0, 2, 2}, []float64{0, 0, 2}, math.Expm1(4), math.Expm1(2)},
	{[]float64{0, 2, 2, 4}, []float64{0, 0, 4, 4}, math.Pow(math.Expm1(2), 3) * (1 + math.Exp(2)), sq(math.Expm1(4))},
	{[]float64{1, 1, 4}, []float64{0, 3, 3}, math.Pow(math.Expm1(1), 3) * (1 + math.E + math.Exp(2) + math.Exp(3)), sq(math.Expm1(3))},
}

func sq(x float64) float64 { return x * x }

// prodNonZero is Π x_i over the non-zero elements.
func prodNonZero(m []float64) float64 {
	p := 1.0
	for _, x := range m {
		if x != 0 {
			p *= x
		}
	}
	return p
}

// TestTable1ClosedForm reproduces the eight closed-form values of Table 1 (times Π x_i, the
// factor the paper leaves out), checks that STAG separates every pair while each deterministic
// aggregator fails on at least one, and checks the closed form against a Monte-Carlo estimate
// made with the library's own stochastic SUM aggregation.
func TestTable1ClosedForm(t *testing.T) {
	for i, row := range table1 {
		for j, m := range [][]float64{row.a, row.b} {
			got := stagnb.ExpSumUniformExpectation(m) * prodNonZero(m)
			want := []float64{row.paperA, row.paperB}[j]
			if i == 1 && j == 0 {
				// Paper typo (see original-code digest §5): {0,2,2} gives (e²−1)², not e⁴−1.
				want = sq(math.Expm1(2))
			}
			if !near(got, want, 1e-12) {
				t.Errorf("row %d multiset %v: Π x_i · E[exp(SUM)] = %.10g, want %.10g", i+1, m, got, want)
			}
		}
		if ea, eb := stagnb.ExpSumUniformExpectation(row.a), stagnb.ExpSumUniformExpectation(row.b); near(ea, eb, 1e-9) {
			t.Errorf("row %d: STAG does not separate %v and %v (%g)", i+1, row.a, row.b, ea)
		}
	}
	// Each deterministic aggregator confuses some pair of the table (the point of Table 1).
	for name, agg := range map[string]func([]float64) float64{
		"SUM": stagnb.MultisetSum, "MEAN": stagnb.MultisetMean, "MAX": stagnb.MultisetMax,
		"MIN": stagnb.MultisetMin, "STD": stagnb.MultisetStd,
	} {
		confused := false
		for _, row := range table1 {
			confused = confused || near(agg(row.a), agg(row.b), 1e-12)
		}
		if !confused {
			t.Errorf("%s separates every pair of Table 1", name)
		}
	}

	// Monte Carlo with the library: each multiset is a star whose leaves hold its elements; the
	// centre aggregates z·x with z ~ Uniform(0,1) per edge. K independent stars per multiset.
	const k = 3000
	var multisets [][]float64
	for _, row := range table1 {
		multisets = append(multisets, row.a, row.b)
	}
	var src, dst []int32
	var feats [][]float32
	for _, m := range multisets {
		for range k {
			centre := int32(len(feats))
			feats = append(feats, []float32{0})
			for _, x := range m {
				src, dst = append(src, int32(len(feats))), append(dst, centre)
				feats = append(feats, []float32{float32(x)})
			}
		}
	}
	el, err := stagnb.NewEdgeList(len(feats), src, dst)
	if err != nil {
		t.Fatal(err)
	}
	u01, _ := stagnb.Uniform(0, 1)
	out := runGraph(t, 13, func(scope *model.Scope, g *Graph) []*Node {
		s := stagnb.StochasticAggregate(scope, Const(g, feats), el.Const(g), stagnb.AggSum, stagnb.NormNone, stagnb.NewNoise(u01, stagnb.StructureSTAG))
		return []*Node{Exp(s)}
	})[0]
	pos := 0
	for _, m := range multisets {
		var mean float64
		for range k {
			mean += out[pos]
			pos += 1 + len(m)
		}
		mean /= k
		want := stagnb.ExpSumUniformExpectation(m)
		// Var[exp(S)] = E[exp(2S)] − E[exp(S)]², and E[exp(2S)] is the closed form at 2X.
		double := make([]float64, len(m))
		for i, x := range m {
			double[i] = 2 * x
		}
		se := math.Sqrt((stagnb.ExpSumUniformExpectation(double) - want*want) / k)
		t.Logf("%v: Monte Carlo %.4f, closed form %.4f ± %.4f", m, mean, want, se)
		if math.Abs(mean-want) > 5*se {
			t.Errorf("%v: Monte Carlo %g, closed form %g ± 5×%g", m, mean, want, se)
		}
	}
}

// TestTheorem2 checks E_q[E(ρ(ξ_q(X)))] ≥ E(ρ(X)) by Monte Carlo for noises with |E z| ≥ 1, with ρ
// the GCN aggregation D̃^-½ Ã D̃^-½ on a random geometric graph and X a smooth signal (the
// setting of Figure 4). The sample mean must not fall 3 standard errors below the bound.
func TestTheorem2(t *testing.T) {
	const samples = 200
	_, el := rgg(t, 100, 0.2, 3)
	_, spec := laplacianSpectrum(t, el)
	xm, err := spec.SmoothSignal(20, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := make([][]float32, el.NumNodes)
	for v := range x {
		for c := range 4 {
			x[v] = append(x[v], float32(xm.At(v, c)))
		}
	}
	loops := el.WithSelfLoops()
	energy := func(flat []float64) float64 {
		rows := make([][]float64, el.NumNodes)
		for v := range rows {
			rows[v] = flat[v*4 : (v+1)*4]
		}
		e, err := stagnb.DirichletEnergy(el, rows)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	// The samples: calls of a one-sample graph.
	aggregate := func(noise *stagnb.Noise, calls int) [][]float64 {
		var outs [][]float64
		for _, out := range runGraphCalls(t, 31, calls, func(scope *model.Scope, g *Graph) []*Node {
			return []*Node{stagnb.StochasticAggregate(scope, Const(g, x), loops.Const(g), stagnb.AggSum, stagnb.NormBoth, noise)}
		}) {
			outs = append(outs, out[0])
		}
		return outs
	}
	bound := energy(aggregate(nil, 1)[0])
	for _, s := range []string{"normal(1,0.5)", "uniform(0.5,1.5)", "bernoulli(0.5,rescale)", "normal(-1.2,0.3)"} {
		d, err := stagnb.ParseDistribution(s)
		if err != nil {
			t.Fatal(err)
		}
		var sum, sumSq float64
		for _, out := range aggregate(stagnb.NewNoise(d, stagnb.StructureSTAG), samples) {
			e := energy(out)
			sum += e
			sumSq += e * e
		}
		mean := sum / samples
		se := math.Sqrt((sumSq/samples - mean*mean) / samples)
		t.Logf("%-22s |E z| = %.2f: E[energy] = %.4f ± %.4f, deterministic %.4f", s, math.Abs(d.Mean()), mean, se, bound)
		if mean < bound-3*se {
			t.Errorf("%s: E[energy] %g < deterministic %g − 3×%g", s, mean, bound, se)
		}
	}
}
