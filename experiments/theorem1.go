package experiments

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
)

// Theorem1Pairs are two pairs of multisets over the underlying set of Figure 3 that SUM, MEAN and
// MAX all confuse (same sum, same size, same maximum):
//
//  1. {−1, 1, 4} and {−2, 2, 4}: their absolute values differ, so the perturbed sums differ in
//     distribution and their moment generating functions differ (Theorem 1 holds);
//  2. {−4, −1, −1, 2, 4} and {−4, −2, 1, 1, 4}: the second is the negation of the first and
//     SUM = 0, so with z_i ~ Uniform(0, 1) the perturbed sums have the same distribution (the
//     substitution z ↦ 1 − z maps Σ z_i x_i to SUM(X) − Σ z_i x_i) — a counterexample to the
//     theorem with the noise its proof uses.
var Theorem1Pairs = [2][2][]float64{
	{{-1, 1, 4}, {-2, 2, 4}},
	{{-4, -1, -1, 2, 4}, {-4, -2, 1, 1, 4}},
}

// MGFUniformSum is the moment generating function M(t) = E[exp(t·SUM(ξ_U(0,1)(X)))] of the
// perturbed sum Σ z_i x_i, z_i ~ Uniform(0, 1) independent:
//
//	M(t) = Π_i (e^{t x_i} − 1)/(t x_i),
//
// computed as stagnb.ExpSumUniformExpectation of the scaled multiset t·X (1 at t = 0).
func MGFUniformSum(x []float64, t float64) float64 {
	scaled := make([]float64, len(x))
	for i, v := range x {
		scaled[i] = t * v
	}
	return stagnb.ExpSumUniformExpectation(scaled)
}

// SameUniformSumDistribution reports whether Σ z_i x_i and Σ z_j y_j (z ~ Uniform(0, 1)
// independent) have the same distribution, for multisets of non-zero reals: exactly when
// SUM(X) = SUM(Y) and the multisets of absolute values are equal (see Figure3Collisions).
func SameUniformSumDistribution(x, y []float64) bool {
	return ratSum(x).Cmp(ratSum(y)) == 0 && slices.Equal(sortedAbs(x), sortedAbs(y))
}

// Theorem1MGFPlot plots log M(t) (MGFUniformSum) of the two multisets of pair (1 or 2 of
// Theorem1Pairs) for t in [−tMax, tMax] on points grid points, and dashed their difference
// log M_X(t) − log M_Y(t), which is zero everywhere exactly when the two perturbed sums are equal in
// distribution.
func Theorem1MGFPlot(pair int, tMax float64, points int) (*plot.Plot, error) {
	if pair < 1 || pair > len(Theorem1Pairs) {
		return nil, fmt.Errorf("experiments.Theorem1MGFPlot: pair %d, want 1…%d", pair, len(Theorem1Pairs))
	}
	if !(tMax > 0) || points < 2 {
		return nil, fmt.Errorf("experiments.Theorem1MGFPlot: tMax = %g, points = %d, want tMax > 0 and points ≥ 2", tMax, points)
	}
	x, y := Theorem1Pairs[pair-1][0], Theorem1Pairs[pair-1][1]
	ts := make([]float64, points)
	lx, ly, diff := make([]float64, points), make([]float64, points), make([]float64, points)
	for i := range ts {
		ts[i] = -tMax + 2*tMax*float64(i)/float64(points-1)
		lx[i], ly[i] = math.Log(MGFUniformSum(x, ts[i])), math.Log(MGFUniformSum(y, ts[i]))
		diff[i] = lx[i] - ly[i]
	}
	title := fmt.Sprintf("Theorem 1: SUM %s = SUM %s = %s", FormatMultiset(x), FormatMultiset(y),
		strconv.FormatFloat(stagnb.MultisetSum(x), 'g', -1, 64))
	return figures.Lines(title, "t", "log E[exp(t · Σ z_i x_i)]", []figures.Series{
		{Name: "X = " + FormatMultiset(x), Method: 0, X: ts, Y: lx},
		{Name: "Y = " + FormatMultiset(y), Method: 1, X: ts, Y: ly},
		{Name: "log M_X − log M_Y", Method: 2, X: ts, Y: diff, Dashed: true},
	})
}

// Theorem1Row is what the notebook reports about one pair of Theorem1Pairs.
type Theorem1Row struct {
	// X and Y are the two multisets.
	X, Y []float64
	// SameDistribution is SameUniformSumDistribution(X, Y).
	SameDistribution bool
	// MaxLogMGFGap is the largest |log M_X(t) − log M_Y(t)| over t in [−3, 3].
	MaxLogMGFGap float64
	// KS is the two-sample Kolmogorov–Smirnov distance between Samples draws of Σ z_i x_i and of
	// Σ z_j y_j made with the library's stochastic aggregation (SumSamples), and KSCritical its 1%
	// critical value 1.628·√(2/Samples): above it, the two samples differ at the 1% level. All
	// three are 0 when there are no draws (Theorem1Exact).
	KS, KSCritical float64
	// Samples and Seed are those of the draws.
	Samples int
	Seed    int64
}

// Theorem1Exact computes the rows of Theorem1Table without Monte Carlo: for each pair the exact
// verdict and the largest gap between the log moment generating functions over t in [−3, 3].
func Theorem1Exact() []Theorem1Row {
	var rows []Theorem1Row
	for _, p := range Theorem1Pairs {
		r := Theorem1Row{X: p[0], Y: p[1], SameDistribution: SameUniformSumDistribution(p[0], p[1])}
		for k := range 601 {
			t := -3 + float64(k)/100
			r.MaxLogMGFGap = max(r.MaxLogMGFGap, math.Abs(math.Log(MGFUniformSum(p[0], t))-math.Log(MGFUniformSum(p[1], t))))
		}
		rows = append(rows, r)
	}
	return rows
}

// Theorem1 computes Theorem1Exact and adds a two-sample Kolmogorov–Smirnov test on samples draws
// of each perturbed sum, made by SumSamples (stagnb.StochasticAggregate) on backend with seed.
func Theorem1(backend compute.Backend, samples int, seed int64) ([]Theorem1Row, error) {
	if samples < 2 {
		return nil, fmt.Errorf("experiments.Theorem1: samples = %d, want at least 2", samples)
	}
	var ms [][]float64
	for _, p := range Theorem1Pairs {
		ms = append(ms, p[0], p[1])
	}
	draws, err := SumSamples(backend, ms, samples, seed)
	if err != nil {
		return nil, fmt.Errorf("experiments.Theorem1: %w", err)
	}
	rows := Theorem1Exact()
	for i := range rows {
		rows[i].KS, rows[i].KSCritical = ksDistance(draws[2*i], draws[2*i+1]), 1.628*math.Sqrt(2/float64(samples))
		rows[i].Samples, rows[i].Seed = samples, seed
	}
	return rows, nil
}

// ksDistance is the two-sample Kolmogorov–Smirnov statistic sup_s |F_a(s) − F_b(s)|.
func ksDistance(a, b []float64) float64 {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Float64s(a)
	sort.Float64s(b)
	var i, j int
	d := 0.0
	for i < len(a) && j < len(b) {
		s := min(a[i], b[j])
		for i < len(a) && a[i] == s {
			i++
		}
		for j < len(b) && b[j] == s {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}

// Theorem1Table renders the rows: the deterministic aggregators of both multisets, whether the
// perturbed sums are equal in distribution (exactly, and by the moment generating functions), and
// the Kolmogorov–Smirnov test on draws made with stagnb.StochasticAggregate.
func Theorem1Table(rows []Theorem1Row) figures.Table {
	t := figures.Table{
		Title: "Theorem 1 with q = Uniform(0, 1): two pairs that SUM, MEAN and MAX confuse",
		Header: []string{"X; Y", "SUM", "MEAN", "MAX", "same |x| multiset", "equal in distribution (exact)",
			"max |log M_X − log M_Y|, t ∈ [−3, 3]", "KS distance of draws", "KS 1% critical value", "draws differ (1%)"},
		Right: []bool{false, true, true, true, false, false, true, true, true, false},
	}
	samples, seed := 0, int64(0)
	for _, r := range rows {
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
		pairOf := func(fn func([]float64) float64) string {
			return f(fn(r.X)) + " / " + f(fn(r.Y))
		}
		t.Rows = append(t.Rows, []string{
			FormatMultiset(r.X) + "; " + FormatMultiset(r.Y),
			pairOf(stagnb.MultisetSum), pairOf(stagnb.MultisetMean), pairOf(stagnb.MultisetMax),
			yesNo(slices.Equal(sortedAbs(r.X), sortedAbs(r.Y))), yesNo(r.SameDistribution), strconv.FormatFloat(r.MaxLogMGFGap, 'g', 3, 64),
			"—", "—", "—",
		})
		if r.Samples > 0 {
			row := t.Rows[len(t.Rows)-1]
			row[7], row[8], row[9] = strconv.FormatFloat(r.KS, 'f', 4, 64), strconv.FormatFloat(r.KSCritical, 'f', 4, 64), yesNo(r.KS > r.KSCritical)
		}
		samples, seed = r.Samples, r.Seed
	}
	t.Footnotes = []string{
		"Exact: Σ z_i x_i with z_i ~ Uniform(0, 1) has log M(t) = t·SUM(X)/2 + Σ_i log(sinh(t x_i/2)/(t x_i/2)), and the second term is even in each x_i, so the distribution is fixed by SUM(X) and the multiset of |x_i| — and by nothing else.",
		fmt.Sprintf("Draws: %d of each perturbed sum, by stagnb.StochasticAggregate (SUM, Uniform(0, 1) per edge) on star graphs, seed %d; the 1%% critical value of the two-sample Kolmogorov–Smirnov distance is 1.628·√(2/n).", samples, seed),
	}
	return t
}

// sortedAbs returns the absolute values of m, sorted: the multiset of |x|.
func sortedAbs(m []float64) []float64 {
	a := make([]float64, len(m))
	for i, v := range m {
		a[i] = math.Abs(v)
	}
	slices.Sort(a)
	return a
}

// ExpressivenessPaperVsOurs confronts the claims of the paper's §6 with our results: Theorem 1 and
// its proof (Theorem1Exact), Lemma 2's injectivity (the collisions of the paper's data,
// res.PaperCollisions) and Figure 3 (the training run res; nil leaves out the last two rows). The
// paper prints no numbers for them, so the table compares statements; every number in the "ours"
// column is computed.
func ExpressivenessPaperVsOurs(res *Figure3Result) figures.Table {
	t := figures.Table{
		Title:     "§6 \"STAG Increases Expressiveness\": paper vs ours",
		Header:    []string{"item", "paper (claim)", "ours", "agrees"},
		Footnotes: []string{"Line numbers are those of the paper's LaTeX source. The paper's Figure 3 has no numbers (its image is not in the source), so its row compares the claim with our curves."},
	}
	for _, r := range Theorem1Exact() {
		if !r.SameDistribution {
			continue
		}
		t.Rows = append(t.Rows, []string{
			"Theorem 1 (l. 319–323)",
			"For some noise q, ρ(ξ_q(X)) and ρ(ξ_q(Y)) are equal in distribution only if X = Y (elements ≠ 0); the proof takes ρ = SUM, q = Uniform(0, 1).",
			fmt.Sprintf("With the proof's ρ and q it is false: %s and %s (same SUM, negatives of each other) give the same distribution — max |log M_X − log M_Y| over t ∈ [−3, 3] is %.1e, rounding error.",
				FormatMultiset(r.X), FormatMultiset(r.Y), r.MaxLogMGFGap),
			"no, for the proof's q (an asymmetric q may still work)",
		}, []string{
			"Proof of Theorem 1 (l. 1057–1075)",
			"Equal moment generating functions give Σ x_i^n = Σ y_j^n for every n ≥ 1, hence X = Y.",
			"They give only n = 1 and the even n: log M(t) = t·SUM(X)/2 + Σ_i log(sinh(t x_i/2)/(t x_i/2)), whose second term is even in each x_i. Uniform noise recovers SUM(X) and the multiset of |x_i|, nothing more.",
			"no",
		})
		break
	}
	if res == nil {
		return t
	}
	if st, ex := findCollision(res.PaperCollisions, Figure3STAG), findCollision(res.PaperCollisions, Figure3ExpSum); st != nil && ex != nil {
		t.Rows = append(t.Rows, []string{
			"Lemma 2 (l. 340–347)",
			"f(X) = E_q[σ(ρ(ξ_q(X)))] is injective for some q, ρ, σ (Table 1: q = Uniform(0, 1), ρ = SUM, σ = exp).",
			fmt.Sprintf("Not with that q, whatever σ: on the %d multisets of the paper's Figure 3 data the distributions of SUM(ξ_U(0,1)(X)) take %d distinct forms, and E[exp(SUM(ξ_U(0,1)(X)))] %d distinct values (up to %d multisets share one).",
				st.NumClasses, st.Distinct, ex.Distinct, ex.LargestGroup),
			"no, for Table 1's q (though far more injective than SUM, MEAN or MAX)",
		})
	}
	if row := figure3PaperRow(res); row != nil {
		t.Rows = append(t.Rows, row)
	}
	t.Footnotes = append(t.Footnotes, figure3QuickNote(res)...)
	return t
}

// findCollision returns the collision count of agg in cols, or nil.
func findCollision(cols []Figure3Collision, agg string) *Figure3Collision {
	for i := range cols {
		if cols[i].Aggregator == agg {
			return &cols[i]
		}
	}
	return nil
}

// figure3PaperRow is the Figure 3 row of ExpressivenessPaperVsOurs (nil when res lacks a curve).
func figure3PaperRow(res *Figure3Result) []string {
	var bound, best float64
	bestName := ""
	for _, agg := range []string{Figure3Sum, Figure3Mean, Figure3Max} {
		c := res.Curve(agg)
		if c == nil {
			return nil
		}
		if m, _ := c.Final(); bestName == "" || m > best {
			bestName, best = agg, m
		}
		if col := findCollision(res.Collisions, agg); col != nil {
			bound = max(bound, col.BestAccuracy())
		}
	}
	stag, exact := res.Curve(Figure3STAG), res.Curve(Figure3ExpSum)
	if stag == nil || exact == nil {
		return nil
	}
	ms, _ := stag.Final()
	me, _ := exact.Final()
	agrees := "no"
	switch {
	case me > best && ms > best:
		agrees = "yes"
	case me > best:
		agrees = "partly: the exact expectation is above them, the Monte-Carlo estimate is not"
	case ms > best:
		agrees = "partly: the Monte-Carlo estimate is above them, the exact expectation is not"
	}
	return []string{
		"Figure 3 (l. 284–288, 741–743)",
		"\"STAG allows multisets to be distinguished by feedforward neural networks\": an MLP names multisets from STAG's aggregate, better than from SUM, MEAN or MAX.",
		fmt.Sprintf("%d multisets (multiplicity ≤ %d), %d steps, mean over %s: SUM, MEAN and MAX can reach at most %.2f%% (the best of them, %s, reached %.2f%%); STAG exact reached %.2f%%, STAG by Monte Carlo with K = %d draws %.2f%%.",
			res.NumClasses, res.Config.MaxMultiplicity, res.Config.Steps, seedList(res.Config.Seeds), 100*bound, bestName, 100*best, 100*me, res.Config.MCSamples, 100*ms),
		agrees,
	}
}
