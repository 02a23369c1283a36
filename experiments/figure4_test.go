package experiments_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// pathSetup is the path 0 – 1 – 2 as a Figure 4 setup, with the signal x = (1, 0, 0).
// Degrees 1, 2, 1, so D̃ = diag(2, 3, 2) and
//
//	P = [[1/2, 1/√6, 0], [1/√6, 1/3, 1/√6], [0, 1/√6, 1/2]].
func pathSetup(t *testing.T) *experiments.Figure4Setup {
	t.Helper()
	g := &datasets.GeometricGraph{NumNodes: 3, Edges: [][2]int32{{0, 1}, {1, 2}}}
	el, err := stagnb.UndirectedEdgeList(3, g.Edges)
	if err != nil {
		t.Fatal(err)
	}
	lap, err := stagnb.NormalizedLaplacian(el)
	if err != nil {
		t.Fatal(err)
	}
	return &experiments.Figure4Setup{
		Config:    experiments.Figure4Config{Nodes: 3, Channels: 1},
		Graph:     g,
		Edges:     el.WithSelfLoops(),
		Laplacian: lap,
		Signal:    [][]float64{{1}, {0}, {0}},
	}
}

// TestExpectedEnergiesByHand checks the closed form on the path graph against values worked out
// by hand. PX = (1/2, 1/√6, 0); its energy is (1/(2√2) − 1/√18)² + (1/√18)² = 1/72 + 4/72 = 5/72.
// The variance term is Σ_i Δ̃_ii P_i0² = (1/2)(1/4) + (2/3)(1/6) = 17/72, so
// E[E(P(Z ⊙ X))] = μ² 5/72 + σ² 17/72. E(X) itself is (1/√2)² / 2 · 2 = 1/2.
func TestExpectedEnergiesByHand(t *testing.T) {
	s := pathSetup(t)
	cases := []struct {
		name          string
		mu, v         float64
		energy1       float64
		sqnorm1       float64 // E‖PZX‖² = μ² ‖PX‖² + σ² Σ_i P_i0² = μ²(1/4 + 1/6) + σ²(1/4 + 1/6)
		energyX       float64
		sqnormX       float64
		deterministic bool
	}{
		{"deterministic", 1, 0, 5. / 72, 5. / 12, 0.5, 1, true},
		{"E z = 0.5, Var z = 0.25", 0.5, 0.25, 0.25*5/72 + 0.25*17/72, 0.25*5/12 + 0.25*5/12, 0.5, 1, false},
		{"E z = 1, Var z = 1", 1, 1, 5./72 + 17./72, 5./12 + 5./12, 0.5, 1, false},
	}
	for _, c := range cases {
		e, n := experiments.ExpectedEnergies(s, s.Signal, c.mu, c.v, 1)
		if len(e) != 2 || len(n) != 2 {
			t.Fatalf("%s: %d energies and %d norms, want 2 each (steps 0 and 1)", c.name, len(e), len(n))
		}
		for _, chk := range []struct {
			what      string
			got, want float64
		}{{"E(X₀)", e[0], c.energyX}, {"‖X₀‖²", n[0], c.sqnormX}, {"E[E(X₁)]", e[1], c.energy1}, {"E‖X₁‖²", n[1], c.sqnorm1}} {
			if math.Abs(chk.got-chk.want) > 1e-12 {
				t.Errorf("%s: %s = %.15g, want %.15g", c.name, chk.what, chk.got, chk.want)
			}
		}
		// E(X₀) also by the library.
		if got, _ := stagnb.DirichletEnergy(s.Edges, s.Signal); math.Abs(got-c.energyX) > 1e-12 {
			t.Errorf("stagnb.DirichletEnergy(X₀) = %g, want %g", got, c.energyX)
		}
	}
}

// TestNoisyPropagationMoments checks one noisy step on the path graph against the exact
// expectation: the mean over many independent copies of E(X₁) must be within 5 standard errors
// of μ² 5/72 + σ² 17/72, for every noise class (the copies are channels with independent draws).
func TestNoisyPropagationMoments(t *testing.T) {
	backend := stagtest.Backend(t)
	s := pathSetup(t)
	const copies = 20_000
	noises := append(experiments.Figure4Noises(), experiments.Theorem2Noises()...)
	for i, nz := range noises {
		states, err := experiments.NoisyPropagation(backend, s.Edges, s.Signal, nz.Dist, 1, copies, int64(100+i))
		if err != nil {
			t.Fatalf("%s: %v", nz.Name, err)
		}
		if len(states) != 2 || len(states[1]) != copies || len(states[1][0]) != 3 || len(states[1][0][0]) != 1 {
			t.Fatalf("%s: states shaped [%d][%d][%d][%d], want [2][%d][3][1]", nz.Name, len(states), len(states[1]),
				len(states[1][0]), len(states[1][0][0]), copies)
		}
		var es []float64
		for _, x := range states[1] {
			e, err := stagnb.DirichletEnergy(s.Edges, x)
			if err != nil {
				t.Fatal(err)
			}
			es = append(es, e)
		}
		mean, se := meanSE(es)
		mu, v := nz.Dist.Mean(), nz.Dist.Variance()
		want := mu*mu*5/72 + v*17/72
		if nz.Dist.IsNone() {
			if math.Abs(mean-want) > 1e-12 || se > 1e-12 {
				t.Errorf("%s: E(X₁) = %g ± %g, want exactly %g", nz.Name, mean, se, want)
			}
			continue
		}
		if math.Abs(mean-want) > 5*se {
			t.Errorf("%s: mean E(X₁) = %.5f ± %.5f, want %.5f (|z| = %.1f)", nz.Name, mean, se, want, math.Abs(mean-want)/se)
		}
		// The first state is the input, in every copy.
		for k, x := range states[0] {
			if x[0][0] != 1 || x[1][0] != 0 || x[2][0] != 0 {
				t.Fatalf("%s: copy %d of X₀ = %v, want the input", nz.Name, k, x)
			}
		}
	}
}

// meanSE returns the mean of vs and its standard error.
func meanSE(vs []float64) (mean, se float64) {
	for _, v := range vs {
		mean += v
	}
	mean /= float64(len(vs))
	var ss float64
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(vs)-1) / float64(len(vs)))
}

func TestNoisyPropagationErrors(t *testing.T) {
	backend := stagtest.Backend(t)
	s := pathSetup(t)
	bad := stagnb.Distribution{Kind: stagnb.DistNormal, Mu: 1, Sigma: -1}
	cases := []struct {
		name          string
		x             [][]float64
		d             stagnb.Distribution
		depth, copies int
	}{
		{"rows", [][]float64{{1}, {0}}, stagnb.NoNoise(), 1, 1},
		{"ragged", [][]float64{{1}, {0, 1}, {0}}, stagnb.NoNoise(), 1, 1},
		{"copies", s.Signal, stagnb.NoNoise(), 1, 0},
		{"depth", s.Signal, stagnb.NoNoise(), -1, 1},
		{"distribution", s.Signal, bad, 1, 1},
	}
	for _, c := range cases {
		if _, err := experiments.NoisyPropagation(backend, s.Edges, c.x, c.d, c.depth, c.copies, 1); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if _, err := experiments.NoisyPropagation(nil, s.Edges, s.Signal, stagnb.NoNoise(), 1, 1, 1); err == nil {
		t.Errorf("nil backend: no error")
	}
}

// TestFigure4Setup checks the paper's graph and signal: 200 nodes, the self-loops added, and a
// signal that lies in the span of the 20 eigenvectors of the smallest eigenvalues of Δ̃.
func TestFigure4Setup(t *testing.T) {
	s, err := experiments.Figure4Setting(experiments.QuickSettings())
	if err != nil {
		t.Fatal(err)
	}
	c := s.Config
	if c.Nodes != 200 || c.Radius != 0.125 || c.Eigenvectors != 20 || c.Runs != 10 {
		t.Errorf("config %+v, want the paper's 200 nodes, radius 0.125, 20 eigenvectors, 10 runs", c)
	}
	if got, want := s.Edges.NumEdges(), 2*len(s.Graph.Edges)+200; got != want {
		t.Errorf("%d directed edges with self-loops, want %d", got, want)
	}
	if len(s.Signal) != 200 || len(s.Signal[0]) != c.Channels {
		t.Fatalf("signal %d×%d, want 200×%d", len(s.Signal), len(s.Signal[0]), c.Channels)
	}
	// Coefficients of the signal on the eigenvectors beyond the 20th are 0.
	n, _ := s.Spectrum.Vectors.Dims()
	var inside, outside float64
	for k := range n {
		var coef float64
		for v := range n {
			coef += s.Spectrum.Vectors.At(v, k) * s.Signal[v][0]
		}
		if k < c.Eigenvectors {
			inside += coef * coef
		} else {
			outside += coef * coef
		}
	}
	if outside > 1e-20*inside || inside == 0 {
		t.Errorf("signal energy outside the first %d eigenvectors: %g (inside %g)", c.Eigenvectors, outside, inside)
	}
	// Its Rayleigh quotient is then at most λ_20.
	e, _ := stagnb.DirichletEnergy(s.Edges, s.Signal)
	if q := e / inside; q < 0 || q > s.Spectrum.Values[c.Eigenvectors-1]+1e-12 {
		t.Errorf("E(X₀)/‖X₀‖² = %g, want in [0, λ_20 = %g]", q, s.Spectrum.Values[c.Eigenvectors-1])
	}
	if got := s.Components(); got < 1 || math.Abs(s.Spectrum.Values[got-1]) > 1e-9 || s.Spectrum.Values[got] < 1e-9 {
		t.Errorf("%d components, but the eigenvalues start %v", got, s.Spectrum.Values[:got+1])
	}
	tab := experiments.Figure4SetupTable(s)
	if len(tab.Rows) == 0 || !strings.Contains(tab.Markdown(), "200, 0.125") {
		t.Errorf("setup table lacks the graph's size:\n%s", tab.Markdown())
	}
}

// TestEnergyCurvesAgainstExact runs the Figure 4 propagation with many runs for a few steps and
// checks each noise's mean energy against the exact expectation within 5 standard errors, and the
// deterministic curve against the host computation exactly.
func TestEnergyCurvesAgainstExact(t *testing.T) {
	backend := stagtest.Backend(t)
	s, err := experiments.Figure4Setting(experiments.QuickSettings())
	if err != nil {
		t.Fatal(err)
	}
	const runs, depth = 2000, 3
	noises := append(experiments.Figure4Noises(), experiments.Theorem2Noises()...)
	curves, err := experiments.EnergyCurves(backend, s, noises, depth, runs, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range curves {
		if len(c.Steps) != depth+1 || len(c.Energy) != runs || len(c.Expected) != depth+1 {
			t.Fatalf("%s: %d steps, %d runs, %d exact values", c.Noise.Name, len(c.Steps), len(c.Energy), len(c.Expected))
		}
		for k := 0; k <= depth; k++ {
			se := c.Std[k] / math.Sqrt(runs)
			if c.Noise.Dist.IsNone() {
				want, _ := stagnb.DirichletEnergy(s.Edges, s.Smoothed(s.Signal, k))
				if math.Abs(c.Mean[k]-want) > 1e-9*want || math.Abs(c.Expected[k]-want) > 1e-9*want {
					t.Errorf("deterministic step %d: mean %g, exact %g, host %g", k, c.Mean[k], c.Expected[k], want)
				}
				continue
			}
			if math.Abs(c.Mean[k]-c.Expected[k]) > 5*se+1e-12 {
				t.Errorf("%s step %d: mean %.5g ± %.2g, exact %.5g (|z| = %.1f)", c.Noise.Name, k, c.Mean[k], se, c.Expected[k],
					math.Abs(c.Mean[k]-c.Expected[k])/se)
			}
			if q := c.QuotientMean[k]; !(q >= 0 && q < 2) {
				t.Errorf("%s step %d: E(X)/‖X‖² = %g outside [0, 2)", c.Noise.Name, k, q)
			}
		}
	}
}

// TestExpectedEnergiesTheorem2 checks the theorem's statement with the closed form along the whole
// Figure 4 depth: with E z = 1 the expected energy is at least the deterministic one at every
// step (the variance term is non-negative), and it grows with the variance.
func TestExpectedEnergiesTheorem2(t *testing.T) {
	s, err := experiments.Figure4Setting(experiments.QuickSettings())
	if err != nil {
		t.Fatal(err)
	}
	det, _ := experiments.ExpectedEnergies(s, s.Signal, 1, 0, 20)
	prev := det
	for _, v := range []float64{1. / 12, 0.25, 1} {
		e, _ := experiments.ExpectedEnergies(s, s.Signal, 1, v, 20)
		for k := 1; k <= 20; k++ {
			if e[k] < prev[k] {
				t.Errorf("Var z = %g, step %d: expected energy %g below %g (smaller variance or deterministic)", v, k, e[k], prev[k])
			}
		}
		prev = e
	}
}

func TestTheorem2Check(t *testing.T) {
	backend := stagtest.Backend(t)
	s, err := experiments.Figure4Setting(experiments.QuickSettings())
	if err != nil {
		t.Fatal(err)
	}
	inputs := experiments.Theorem2Inputs(s, 1)
	noises := append(experiments.Theorem2Noises(), experiments.Figure4Noises()[1:]...)
	const samples = 600
	rows, err := experiments.Theorem2Check(backend, s, inputs, noises, samples, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(inputs)*len(noises) {
		t.Fatalf("%d rows, want %d", len(rows), len(inputs)*len(noises))
	}
	for i, r := range rows {
		if r.Noise.Name != noises[i/len(inputs)].Name || r.Input != inputs[i%len(inputs)].Name {
			t.Errorf("row %d is (%s, %s), want (%s, %s)", i, r.Noise.Name, r.Input, noises[i/len(inputs)].Name, inputs[i%len(inputs)].Name)
		}
		if r.Samples != samples || !(r.StdErr > 0) {
			t.Errorf("row %d: %d samples, s.e. %g", i, r.Samples, r.StdErr)
		}
		if math.Abs(r.Z()) > 5 {
			t.Errorf("%s, %s: Monte Carlo %.5g ± %.2g vs exact %.5g (|z| = %.1f)", r.Input, r.Noise.Name, r.MC, r.StdErr, r.Exact, math.Abs(r.Z()))
		}
		if r.ConditionMet() && !r.Holds() {
			t.Errorf("%s, %s: |E z| ≥ 1 but E[E(ρ(ξ(X)))] = %g < E(ρ(X)) = %g", r.Input, r.Noise.Name, r.Exact, r.Deterministic)
		}
		if r.ConditionMet() != (i < 3*len(inputs)) {
			t.Errorf("row %d (%s): condition met = %v", i, r.Noise.Name, r.ConditionMet())
		}
	}
	tab := experiments.Theorem2Table(rows)
	if len(tab.Rows) != len(rows) || len(tab.Header) != len(tab.Rows[0]) {
		t.Errorf("table: %d rows of %d cells, header of %d", len(tab.Rows), len(tab.Rows[0]), len(tab.Header))
	}
	if _, err := experiments.Theorem2Check(backend, s, inputs, noises, 1, 3); err == nil {
		t.Errorf("1 sample: no error")
	}
}

// TestFigure4PaperVsOurs checks the verdicts of the comparison on hand-made curves: a noise whose
// energy ends below the deterministic one but whose normalised energy ends above it, and one above
// on both.
func TestFigure4PaperVsOurs(t *testing.T) {
	steps := []float64{0, 1}
	curve := func(nz experiments.Figure4Noise, energy, quotient float64) experiments.EnergyCurve {
		return experiments.EnergyCurve{Noise: nz, Steps: steps, Energy: make([][]float64, 10),
			Mean: []float64{1, energy}, QuotientMean: []float64{0.1, quotient}}
	}
	f4 := experiments.Figure4Noises()
	t2 := experiments.Theorem2Noises()
	fig4 := []experiments.EnergyCurve{curve(f4[0], 0.5, 0.05), curve(f4[1], 1e-3, 0.2)}
	thm2 := []experiments.EnergyCurve{curve(f4[0], 0.5, 0.05), curve(t2[0], 0.8, 0.07)}
	tab := experiments.Figure4PaperVsOurs(fig4, thm2)
	want := [][2]string{
		{"deterministic", "yes"},
		{f4[1].Name, "energy: no (decays faster); normalised energy: yes"},
		{t2[0].Name, "yes"},
	}
	if len(tab.Rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(tab.Rows), len(want), tab.Markdown())
	}
	for i, w := range want {
		r := tab.Rows[i]
		if r[0] != w[0] || r[len(r)-1] != w[1] {
			t.Errorf("row %d: %q … %q, want %q … %q", i, r[0], r[len(r)-1], w[0], w[1])
		}
	}
	if !strings.HasPrefix(tab.Header[1], "paper") || !strings.HasPrefix(tab.Header[2], "ours") {
		t.Errorf("header %q: want paper and ours columns", tab.Header)
	}
}

func TestEnergyPlot(t *testing.T) {
	backend := stagtest.Backend(t)
	s, err := experiments.Figure4Setting(experiments.QuickSettings())
	if err != nil {
		t.Fatal(err)
	}
	curves, err := experiments.EnergyCurves(backend, s, experiments.Figure4Noises(), 5, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, quotient := range []bool{false, true} {
		p, err := experiments.EnergyPlot("Figure 4", curves, quotient)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Title.Text, "3 runs") {
			t.Errorf("title %q does not give the number of runs", p.Title.Text)
		}
		svg, err := figures.SVG(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, nz := range experiments.Figure4Noises() {
			if !strings.Contains(svg, ">"+nz.Name+"<") {
				t.Errorf("quotient=%v: legend lacks %q", quotient, nz.Name)
			}
		}
	}
	if _, err := experiments.EnergyPlot("empty", nil, false); err == nil {
		t.Errorf("no curves: no error")
	}
}

// TestEnergyExplorer checks the explorer's sliders and plot: the initial values are Figure 4's
// Normal(0.5, 0.5) at depth 20, the plot draws for other values, and a noise that zeroes the
// signal (mean 0, std 0) is an error, not a panic.
func TestEnergyExplorer(t *testing.T) {
	backend := stagtest.Backend(t)
	vs, err := figures.InitialValues(experiments.EnergySliders())
	if err != nil {
		t.Fatal(err)
	}
	if vs[0] != 0.5 || vs[1] != 0.5 || vs[2] != 20 {
		t.Errorf("initial values %v, want [0.5 0.5 20]", vs)
	}
	s, err := experiments.Figure4Setting(experiments.QuickSettings())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mean, std float64 }{{1.2, 0.3}, {1, 0}, {-1, 0.5}} {
		if _, err := experiments.EnergyExplorerPlot(backend, s, c.mean, c.std, 4); err != nil {
			t.Errorf("Normal(%g, %g): %v", c.mean, c.std, err)
		}
	}
	if _, err := experiments.EnergyExplorerPlot(backend, s, 0, 0, 4); err == nil {
		t.Errorf("Normal(0, 0): no error for a zero energy on a log axis")
	}
	// Outside a notebook ExploreEnergy draws once and returns.
	if err := experiments.ExploreEnergy(backend, experiments.QuickSettings()); err != nil {
		t.Error(err)
	}
}

func TestFigure4Settings(t *testing.T) {
	q, f := experiments.Figure4Settings(experiments.QuickSettings()), experiments.Figure4Settings(experiments.FullSettings())
	if q.TheoremSamples >= f.TheoremSamples {
		t.Errorf("quick mode draws %d samples, full %d: want fewer in quick mode", q.TheoremSamples, f.TheoremSamples)
	}
	q.TheoremSamples = f.TheoremSamples
	if q != f {
		t.Errorf("quick and full settings differ beyond the Monte-Carlo draws: %+v vs %+v", q, f)
	}
}
