package experiments_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }

var (
	e      = math.E
	sqrt2  = math.Sqrt2
	expm1  = math.Expm1
	square = func(x float64) float64 { return x * x }
)

// TestTable1Exact checks every deterministic value of Table 1 against values worked out by hand.
func TestTable1Exact(t *testing.T) {
	type want struct {
		sum, mean, max, min, std float64
		expSum                   float64 // Π (e^x−1)/x over the non-zero x
		prod                     float64 // Π x over the non-zero x
	}
	cases := [4][2]want{
		{ // {2, 2}: mean 2, deviations 0, 0.  {0, 4}: mean 2, deviations ±2 → std 2.
			{4, 2, 2, 2, 0, square(expm1(2) / 2), 4},
			{4, 2, 4, 0, 2, expm1(4) / 4, 4},
		},
		{ // {0, 2, 2}: mean 4/3, Σd² = 16/9+4/9+4/9 = 24/9 → std √(8/9) = 2√2/3.  {0, 0, 2}: the same std.
			{4, 4. / 3, 2, 0, 2 * sqrt2 / 3, square(expm1(2) / 2), 4},
			{2, 2. / 3, 2, 0, 2 * sqrt2 / 3, expm1(2) / 2, 2},
		},
		{ // {0, 2, 2, 4}: mean 2, Σd² = 4+0+0+4 → std √2.  {0, 0, 4, 4}: all |d| = 2 → std 2.
			{8, 2, 4, 0, sqrt2, square(expm1(2)/2) * expm1(4) / 4, 16},
			{8, 2, 4, 0, 2, square(expm1(4) / 4), 16},
		},
		{ // {1, 1, 4}: mean 2, Σd² = 1+1+4 = 6 → std √2.  {0, 3, 3}: mean 2, Σd² = 4+1+1 → √2.
			{6, 2, 4, 1, sqrt2, square(expm1(1)) * expm1(4) / 4, 4},
			{6, 2, 3, 0, sqrt2, square(expm1(3) / 3), 9},
		},
	}
	rows := experiments.Table1Exact()
	if len(rows) != len(cases) {
		t.Fatalf("%d rows, want %d", len(rows), len(cases))
	}
	for i, r := range rows {
		for j, m := range []experiments.MultisetStats{r.A, r.B} {
			w := cases[i][j]
			got := []float64{m.Sum, m.Mean, m.Max, m.Min, m.Std, m.ExpSum, m.ProdNonZero}
			exp := []float64{w.sum, w.mean, w.max, w.min, w.std, w.expSum, w.prod}
			names := []string{"SUM", "MEAN", "MAX", "MIN", "STD", "E[exp(SUM)]", "Π x"}
			for k := range got {
				if !near(got[k], exp[k], 1e-12) {
					t.Errorf("pair %d %s: %s = %.12g, want %.12g", i+1, experiments.FormatMultiset(m.X), names[k], got[k], exp[k])
				}
			}
			if m.MC != 0 || m.MCStdErr != 0 || r.Samples != 0 {
				t.Errorf("pair %d: Table1Exact has Monte-Carlo values", i+1)
			}
		}
	}
}

// TestTable1AgainstPaper checks the comparison with the paper: every separation the paper marks is
// right, STAG tells every pair apart while each deterministic aggregator confuses one, and exactly
// two printed values differ from ours: the {0, 2, 2} closed form and the STD of pair 3.
func TestTable1AgainstPaper(t *testing.T) {
	rows := experiments.Table1Exact()
	type cell struct{ pair, col int }
	differ := map[cell]bool{}
	for i, r := range rows {
		for c := range experiments.Table1Columns {
			p := r.Paper[c]
			a, b := r.A.Column(c), r.B.Column(c)
			if c == experiments.ColumnExpSum {
				a, b = a*r.A.ProdNonZero, b*r.B.ProdNonZero
			}
			if (!near(a, b, 1e-9)) != p.Separated {
				t.Errorf("pair %d %s: paper says apart=%v, ours %g vs %g", i+1, experiments.Table1Columns[c], p.Separated, a, b)
			}
			if !near(a, p.A, 1e-9) || !near(b, p.B, 1e-9) {
				differ[cell{i + 1, c}] = true
			}
			if p.Line < 369 || p.Line > 399 {
				t.Errorf("pair %d column %d: line %d outside the table", i+1, c, p.Line)
			}
		}
		if !r.Paper[experiments.ColumnExpSum].Separated {
			t.Errorf("pair %d: STAG does not tell it apart", i+1)
		}
	}
	want := map[cell]bool{{2, experiments.ColumnExpSum}: true, {3, 4}: true}
	if len(differ) != len(want) {
		t.Errorf("cells that differ from the paper: %v, want %v", differ, want)
	}
	for c := range want {
		if !differ[c] {
			t.Errorf("pair %d column %d: expected to differ from the paper", c.pair, c.col)
		}
	}
	// The paper's e⁴−1 for {0, 2, 2}; the true Π(e^x−1) is (e²−1)².
	if p := rows[1].Paper[experiments.ColumnExpSum]; !near(p.A, math.Pow(e, 4)-1, 1e-12) || !near(rows[1].A.ExpSum*4, square(expm1(2)), 1e-12) {
		t.Errorf("pair 2: paper %g, ours×Πx %g", p.A, rows[1].A.ExpSum*4)
	}
	for c := range experiments.ColumnExpSum {
		confused := false
		for _, r := range rows {
			confused = confused || near(r.A.Column(c), r.B.Column(c), 1e-12)
		}
		if !confused {
			t.Errorf("%s tells every pair apart", experiments.Table1Columns[c])
		}
	}
}

// TestTable1MonteCarlo checks each closed form against its Monte-Carlo estimate made with the
// library's stochastic SUM aggregation, within 5 standard errors, and the estimated standard error
// against the exact one, √((E[exp(2S)] − E[exp(S)]²)/k), where E[exp(2S)] is the closed form at 2X.
func TestTable1MonteCarlo(t *testing.T) {
	const samples = 20_000
	start := time.Now()
	rows, err := experiments.Table1(stagtest.Backend(t), samples, 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Table1 with %d samples per multiset: %s", samples, time.Since(start))
	for i, r := range rows {
		if r.Samples != samples || r.Seed != 7 {
			t.Errorf("pair %d: samples %d seed %d", i+1, r.Samples, r.Seed)
		}
		for _, m := range []experiments.MultisetStats{r.A, r.B} {
			double := make([]float64, len(m.X))
			for k, x := range m.X {
				double[k] = 2 * x
			}
			se := math.Sqrt((stagnb.ExpSumUniformExpectation(double) - square(m.ExpSum)) / samples)
			t.Logf("%-14s closed form %9.4f, MC %9.4f ± %.4f (exact se %.4f)", experiments.FormatMultiset(m.X), m.ExpSum, m.MC, m.MCStdErr, se)
			if math.Abs(m.MC-m.ExpSum) > 5*se {
				t.Errorf("%v: MC %g, closed form %g ± 5×%g", m.X, m.MC, m.ExpSum, se)
			}
			if math.Abs(m.MCStdErr-se) > 0.1*se {
				t.Errorf("%v: estimated standard error %g, exact %g", m.X, m.MCStdErr, se)
			}
		}
	}
	if _, err := experiments.Table1(stagtest.Backend(t), 1, 7); err == nil {
		t.Errorf("Table1 with 1 sample: no error")
	}
}

// TestSumSamples checks the draws of SUM(ξ_U(0,1)(X)) by their first two moments: mean Σx/2 and
// variance Σx²/12, within 5 standard errors, and that the same seed gives the same draws.
func TestSumSamples(t *testing.T) {
	const k = 20_000
	multisets := [][]float64{{2, 2}, {0, 4}, {-1, 3}, {5}}
	b := stagtest.Backend(t)
	draws, err := experiments.SumSamples(b, multisets, k, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range multisets {
		var wantMean, wantVar float64
		for _, x := range m {
			wantMean += x / 2
			wantVar += x * x / 12
		}
		var mean, ss float64
		for _, s := range draws[i] {
			mean += s
		}
		mean /= k
		for _, s := range draws[i] {
			ss += (s - mean) * (s - mean)
		}
		variance := ss / (k - 1)
		if se := math.Sqrt(wantVar / k); math.Abs(mean-wantMean) > 5*se {
			t.Errorf("%v: mean %g, want %g ± 5×%g", m, mean, wantMean, se)
		}
		// The variance of the sample variance is about 2σ⁴/k for these light-tailed sums; 5× that.
		if se := wantVar * math.Sqrt(2./k); math.Abs(variance-wantVar) > 5*se {
			t.Errorf("%v: variance %g, want %g ± 5×%g", m, variance, wantVar, se)
		}
	}
	again, err := experiments.SumSamples(b, multisets[:1], 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	first, err := experiments.SumSamples(b, multisets[:1], 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k := range again[0] {
		if again[0][k] != first[0][k] {
			t.Errorf("same seed, different draw %d: %g vs %g", k, again[0][k], first[0][k])
		}
	}
	for name, ms := range map[string][][]float64{"no multisets": nil, "empty multiset": {{}}} {
		if _, err := experiments.SumSamples(b, ms, 3, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := experiments.SumSamples(b, multisets, 0, 1); err == nil {
		t.Errorf("0 samples: no error")
	}
}

func TestSumUniformDensity(t *testing.T) {
	cases := []struct {
		m    []float64
		s    float64
		want float64
	}{
		{[]float64{4}, 1, 0.25},                // 4z: uniform on [0, 4]
		{[]float64{0, 4}, 3.9, 0.25},           // a zero adds nothing
		{[]float64{0, 4}, 4.1, 0},              // outside the support
		{[]float64{0, 4}, -0.1, 0},             // outside the support
		{[]float64{2, 2}, 1, 0.25},             // 2z₁+2z₂: triangle on [0, 4], peak 1/2 at 2
		{[]float64{2, 2}, 2, 0.5},              //
		{[]float64{2, 2}, 3, 0.25},             //
		{[]float64{-2}, -1, 0.5},               // −2z: uniform on [−2, 0]
		{[]float64{-2}, 1, 0},                  //
		{[]float64{1, 1, 1}, 1.5, 0.75},        // Irwin–Hall(3) at its centre: 3/4
		{[]float64{1, 1, 1}, 0.5, 0.125},       // Irwin–Hall(3): s²/2
		{[]float64{1, -1}, 0, 1},               // z₁ − z₂: triangle on [−1, 1], peak 1
		{[]float64{0, 0}, 0, 0},                // no density
		{[]float64{1, 2}, 1.5, 0.5},            // z₁+2z₂: trapezoid, plateau 1/2 on [1, 2]
		{[]float64{1, 2}, 0.5, 0.25},           // rising edge s/2
		{[]float64{0, 0, 4, 4}, 4, 0.25},       // 4z₁+4z₂: triangle on [0, 8], peak 1/4
		{[]float64{0, 0, 4, 4}, 2, 0.125},      //
		{[]float64{1, 1, 4}, 7, 0},             // beyond SUM = 6
		{[]float64{0, 3, 3}, 3, 1. / 3},        // triangle on [0, 6], peak 1/3
		{[]float64{0, 2, 2, 4}, 4, 0.25},       // (4² − 2² − 2²)/(2!·2·2·4) = 8/32
		{[]float64{0, 2, 2, 4}, 0.5, 1. / 128}, // s²/(2!·16)
	}
	for _, c := range cases {
		if got := experiments.SumUniformDensity(c.m, c.s); !near(got, c.want, 1e-12) {
			t.Errorf("density of %v at %g = %g, want %g", c.m, c.s, got, c.want)
		}
	}
	// Every Table 1 density integrates to 1 and has mean Σx/2 (midpoint rule on a fine grid).
	for _, pair := range experiments.Table1Pairs {
		for _, m := range pair {
			hi := stagnb.MultisetSum(m)
			const n = 20_000
			h := hi / n
			var area, mean float64
			for k := range n {
				s := (float64(k) + 0.5) * h
				f := experiments.SumUniformDensity(m, s)
				area += h * f
				mean += h * f * s
			}
			if !near(area, 1, 1e-6) || !near(mean, hi/2, 1e-6) {
				t.Errorf("%v: ∫f = %g, mean %g, want 1 and %g", m, area, mean, hi/2)
			}
		}
	}
}

func TestTable1SumHistogram(t *testing.T) {
	b := stagtest.Backend(t)
	p, err := experiments.Table1SumHistogram(b, 1, 2000, 30, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Table 1, pair 1: SUM {2, 2} = SUM {0, 4} = 4"; p.Title.Text != want {
		t.Errorf("title %q, want %q", p.Title.Text, want)
	}
	svg, err := figures.SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"X = {2, 2}", "X = {0, 4}", "density (dashed: exact)", "z_i ~ Uniform(0, 1)"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	for _, pair := range []int{0, 5} {
		if _, err := experiments.Table1SumHistogram(b, pair, 10, 5, 1); err == nil {
			t.Errorf("pair %d: no error", pair)
		}
	}
}

func TestTable1Renderers(t *testing.T) {
	rows := experiments.Table1Exact()
	agg := experiments.Table1AggregatorTable(rows)
	wantApart := []string{"MAX, MIN, STD, STAG", "SUM, MEAN, STAG", "STD, STAG", "MAX, MIN, STAG"}
	if len(agg.Rows) != 4 {
		t.Fatalf("aggregator table: %d rows", len(agg.Rows))
	}
	for i, r := range agg.Rows {
		if got := r[len(r)-1]; got != wantApart[i] {
			t.Errorf("pair %d told apart by %q, want %q", i+1, got, wantApart[i])
		}
	}
	if got := agg.Rows[0][1]; got != "4 = 4" {
		t.Errorf("pair 1 SUM cell %q", got)
	}
	if got := agg.Rows[1][2]; got != "1.333 ≠ 0.6667" {
		t.Errorf("pair 2 MEAN cell %q", got)
	}

	pvo := experiments.Table1PaperVsOurs(rows)
	if len(pvo.Rows) != 24 {
		t.Fatalf("paper vs ours: %d rows, want 24", len(pvo.Rows))
	}
	md := pvo.Markdown()
	if !strings.Contains(md, "| multisets | column | paper (as printed) | paper (value) | ours |") {
		t.Errorf("paper-vs-ours header missing:\n%s", md)
	}
	var disagreements []string
	for _, r := range pvo.Rows {
		if strings.HasPrefix(r[6], "no") {
			disagreements = append(disagreements, r[0]+" "+r[1]+": "+r[6])
		}
	}
	if len(disagreements) != 2 || !strings.Contains(disagreements[0], "(e²−1)²") || !strings.Contains(disagreements[1], "√mean(x²)") {
		t.Errorf("disagreements %q", disagreements)
	}

	mc := experiments.Table1MonteCarloTable(rows)
	if len(mc.Rows) != 8 || mc.Rows[0][2] != "—" {
		t.Errorf("Monte-Carlo table without estimates: %q", mc.Rows)
	}
	if got := mc.Rows[0][1]; got != "10.2050" { // ((e²−1)/2)² = 3.194528² = 10.20500…
		t.Errorf("closed form of {2, 2}: %q", got)
	}
}
