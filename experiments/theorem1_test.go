package experiments_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// TestMGFUniformSum checks the moment generating function of Σ z_i x_i, z_i ~ Uniform(0, 1):
// its value at 0, the one-element formula (e^{tx} − 1)/(tx) worked out by hand, and the identity
// M_X(t) = e^{t·SUM(X)} M_X(−t), which holds because z ↦ 1 − z maps Σ z_i x_i to SUM(X) − Σ z_i x_i.
func TestMGFUniformSum(t *testing.T) {
	cases := []struct {
		x    []float64
		t    float64
		want float64 // NaN: not checked
	}{
		{[]float64{2, -1, 4}, 0, 1},
		{[]float64{2}, 1, (math.Exp(2) - 1) / 2},
		{[]float64{-4}, 0.5, (math.Exp(-2) - 1) / -2},
		{[]float64{1, 1}, 2, math.Pow((math.Exp(2)-1)/2, 2)},
		{[]float64{-4, -1, -1, 2, 4}, 1.7, math.NaN()},
		{[]float64{-2, 1, 1, 4, 4}, -2.3, math.NaN()},
	}
	for _, c := range cases {
		got := experiments.MGFUniformSum(c.x, c.t)
		if !math.IsNaN(c.want) && math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("M_%v(%g) = %.15g, want %.15g", c.x, c.t, got, c.want)
		}
		mirror := math.Exp(c.t*stagnb.MultisetSum(c.x)) * experiments.MGFUniformSum(c.x, -c.t)
		if math.Abs(got-mirror) > 1e-12*got {
			t.Errorf("M_%v(%g) = %.15g, but e^{t·SUM} M(−t) = %.15g", c.x, c.t, got, mirror)
		}
	}
}

// TestTheorem1Exact checks the two pairs: the first differs in distribution, the second does not,
// and their log moment generating functions say the same.
func TestTheorem1Exact(t *testing.T) {
	rows := experiments.Theorem1Exact()
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for i, r := range rows {
		for _, fn := range []func([]float64) float64{stagnb.MultisetSum, stagnb.MultisetMean, stagnb.MultisetMax} {
			if fn(r.X) != fn(r.Y) {
				t.Errorf("pair %d: SUM, MEAN and MAX should all confuse %v and %v", i+1, r.X, r.Y)
			}
		}
	}
	// Pair 1: log M differs by 2h(t) − 2h(t/2) with h(v) = log(sinh v / v), ≈ t²/4 for small t;
	// at t = ±3 it is 2 log(sinh 3/3) − 2 log(sinh 1.5/1.5) ≈ 1.71.
	wantGap := 2*math.Log(math.Sinh(3)/3) - 2*math.Log(math.Sinh(1.5)/1.5)
	if r := rows[0]; r.SameDistribution || math.Abs(r.MaxLogMGFGap-wantGap) > 1e-9 {
		t.Errorf("pair 1: same distribution %v, gap %.12g; want false and %.12g", r.SameDistribution, r.MaxLogMGFGap, wantGap)
	}
	if r := rows[1]; !r.SameDistribution || r.MaxLogMGFGap > 1e-12 {
		t.Errorf("pair 2: same distribution %v, gap %g; want true and rounding error", r.SameDistribution, r.MaxLogMGFGap)
	}
	cases := []struct {
		x, y []float64
		same bool
	}{
		{[]float64{-2, 1, 1}, []float64{-1, -1, 2}, true}, // SUM 0, |x| = {1, 1, 2}
		{[]float64{-2, 1, 1}, []float64{2, -1, -1}, true}, // the same pair, other order
		{[]float64{1, 3}, []float64{2, 2}, false},         // same SUM, different |x|
		{[]float64{-1, 2}, []float64{1, -2}, false},       // same |x|, SUM 1 and −1
		{[]float64{0.5, -0.25}, []float64{-0.5, 0.75}, false},
	}
	for _, c := range cases {
		if got := experiments.SameUniformSumDistribution(c.x, c.y); got != c.same {
			t.Errorf("SameUniformSumDistribution(%v, %v) = %v, want %v", c.x, c.y, got, c.same)
		}
	}
}

// TestTheorem1Draws tests the two pairs on draws made by the library's stochastic aggregation: the
// first pair's Kolmogorov–Smirnov distance is far above the 1% critical value (its true distance,
// computed from the exact densities, is about 0.04), the second pair's below the 0.1% critical
// value 1.949·√(2/n), which equal distributions exceed with probability 0.001.
func TestTheorem1Draws(t *testing.T) {
	const n = 20000
	rows, err := experiments.Theorem1(stagtest.Backend(t), n, 11)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1.628 * math.Sqrt(2.0/n); math.Abs(rows[0].KSCritical-want) > 1e-12 {
		t.Errorf("critical value %g, want %g", rows[0].KSCritical, want)
	}
	if rows[0].KS < 2*rows[0].KSCritical {
		t.Errorf("pair 1: KS distance %.4f, want well above %.4f", rows[0].KS, rows[0].KSCritical)
	}
	if strict := 1.949 * math.Sqrt(2.0/n); rows[1].KS > strict {
		t.Errorf("pair 2: KS distance %.4f above the 0.1%% critical value %.4f", rows[1].KS, strict)
	}
	tab := experiments.Theorem1Table(rows)
	if len(tab.Rows) != 2 || tab.Rows[0][9] != "yes" || tab.Rows[1][5] != "yes" {
		t.Errorf("table rows %v", tab.Rows)
	}
	if _, err := experiments.Theorem1(stagtest.Backend(t), 1, 0); err == nil {
		t.Error("Theorem1 with 1 draw: no error")
	}
}

// TestTheorem1MGFPlot checks the plot's meaning: the two multisets and their difference in the
// legend, and a title naming the common SUM.
func TestTheorem1MGFPlot(t *testing.T) {
	for pair := 1; pair <= 2; pair++ {
		p, err := experiments.Theorem1MGFPlot(pair, 3, 61)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := figures.SVG(p)
		if err != nil {
			t.Fatal(err)
		}
		x, y := experiments.Theorem1Pairs[pair-1][0], experiments.Theorem1Pairs[pair-1][1]
		for _, want := range []string{"X = " + experiments.FormatMultiset(x), "Y = " + experiments.FormatMultiset(y), "log M_X − log M_Y", "SUM"} {
			if !strings.Contains(svg, want) {
				t.Errorf("pair %d: SVG lacks %q", pair, want)
			}
		}
	}
	for _, bad := range []int{0, 3} {
		if _, err := experiments.Theorem1MGFPlot(bad, 3, 61); err == nil {
			t.Errorf("pair %d: no error", bad)
		}
	}
}

// TestExpressivenessPaperVsOurs checks the rows that need no training: Theorem 1 and its proof,
// both marked as not agreeing, naming the counterexample.
func TestExpressivenessPaperVsOurs(t *testing.T) {
	tab := experiments.ExpressivenessPaperVsOurs(nil)
	if len(tab.Rows) != 2 {
		t.Fatalf("%d rows without training, want 2", len(tab.Rows))
	}
	if !strings.Contains(tab.Rows[0][2], experiments.FormatMultiset(experiments.Theorem1Pairs[1][0])) {
		t.Errorf("Theorem 1 row does not name the counterexample: %q", tab.Rows[0][2])
	}
	for _, r := range tab.Rows {
		if !strings.HasPrefix(r[3], "no") {
			t.Errorf("%s: agrees = %q, want no", r[0], r[3])
		}
	}
}
