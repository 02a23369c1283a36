package experiments_test

import (
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// distinctNumeric counts the distinct values of v, two values being the same when they differ by
// less than 1e-9 (relative): the float64 way of counting, independent of the exact keys.
func distinctNumeric(v []float64) int {
	v = slices.Clone(v)
	sort.Float64s(v)
	n := 0
	for i := range v {
		if i == 0 || v[i]-v[i-1] > 1e-9*math.Max(1, math.Abs(v[i])) {
			n++
		}
	}
	return n
}

// distinctPairs counts the distinct pairs (a[i], b[i]) numerically (both within 1e-9, relative).
func distinctPairs(a, b []float64) int {
	type pt struct{ a, b float64 }
	ps := make([]pt, len(a))
	for i := range a {
		ps[i] = pt{a[i], b[i]}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].a < ps[j].a || ps[i].a == ps[j].a && ps[i].b < ps[j].b })
	close := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(x)) }
	var seen []pt
	for _, p := range ps {
		dup := false
		// Equal first coordinates (numerically) form a run at the end of seen.
		for k := len(seen) - 1; k >= 0 && close(seen[k].a, p.a); k-- {
			if close(seen[k].b, p.b) {
				dup = true
				break
			}
		}
		if !dup {
			seen = append(seen, p)
		}
	}
	return len(seen)
}

// TestFigure3Collisions counts the collisions of every input two ways: the exact keys of
// Figure3Collisions (rationals, the |x| multiset), and here numerically from the float64 values of
// stagnb's aggregators and of the moment generating function, M(t) at t = 0.7 and 1.3 (two points
// of the function that decides the distribution). It also checks the counts that follow by hand:
// SUM takes every integer in [−7m, 7m] (the positive and the negative parts are any integer in
// [0, 7m], since 1, 2, 4 are binary digits), MAX every element, and for m = 1 the largest SUM group
// is SUM = 0, the 7 non-empty sets P ∪ −P with P ⊆ {1, 2, 4}.
func TestFigure3Collisions(t *testing.T) {
	cases := []struct {
		m, classes      int
		largestSumGroup int // 0: not checked
	}{
		{m: 1, classes: 63, largestSumGroup: 7},
		{m: 2, classes: 728},
		{m: 4, classes: 15624},
	}
	for _, c := range cases {
		cols, err := experiments.Figure3Collisions(datasets.ToyElements, c.m)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := datasets.Multisets(len(datasets.ToyElements), c.m)
		if err != nil {
			t.Fatal(err)
		}
		var sum, mean, mx, mgfA, mgfB, expSum []float64
		for _, m := range ms {
			x := m.Values(datasets.ToyElements)
			sum = append(sum, stagnb.MultisetSum(x))
			mean = append(mean, stagnb.MultisetMean(x))
			mx = append(mx, stagnb.MultisetMax(x))
			mgfA = append(mgfA, math.Log(experiments.MGFUniformSum(x, 0.7)))
			mgfB = append(mgfB, math.Log(experiments.MGFUniformSum(x, 1.3)))
			expSum = append(expSum, math.Log(stagnb.ExpSumUniformExpectation(x)))
		}
		want := map[string]int{
			experiments.Figure3Sum:    distinctNumeric(sum),
			experiments.Figure3Mean:   distinctNumeric(mean),
			experiments.Figure3Max:    distinctNumeric(mx),
			experiments.Figure3STAG:   distinctPairs(mgfA, mgfB),
			experiments.Figure3ExpSum: distinctNumeric(expSum),
		}
		if want[experiments.Figure3Sum] != 14*c.m+1 || want[experiments.Figure3Max] != 6 {
			t.Errorf("m = %d: numerically %d sums and %d maxima, want %d and 6", c.m, want[experiments.Figure3Sum], want[experiments.Figure3Max], 14*c.m+1)
		}
		if len(cols) != len(experiments.Figure3Aggregators) {
			t.Fatalf("m = %d: %d counts, want %d", c.m, len(cols), len(experiments.Figure3Aggregators))
		}
		for _, col := range cols {
			if col.NumClasses != c.classes || col.MaxMultiplicity != c.m {
				t.Errorf("m = %d %s: %d classes (multiplicity %d), want %d", c.m, col.Aggregator, col.NumClasses, col.MaxMultiplicity, c.classes)
			}
			if col.Distinct != want[col.Aggregator] {
				t.Errorf("m = %d %s: %d distinct values, counted numerically %d", c.m, col.Aggregator, col.Distinct, want[col.Aggregator])
			}
			if got := col.BestAccuracy(); math.Abs(got-float64(col.Distinct)/float64(c.classes)) > 1e-15 {
				t.Errorf("m = %d %s: best accuracy %v", c.m, col.Aggregator, got)
			}
			if col.Distinct == col.NumClasses {
				if col.ExampleA != nil || col.LargestGroup != 1 {
					t.Errorf("m = %d %s: no collision, yet example %v / largest group %d", c.m, col.Aggregator, col.ExampleA, col.LargestGroup)
				}
				continue
			}
			if col.ExampleA == nil || slices.Equal(col.ExampleA, col.ExampleB) {
				t.Errorf("m = %d %s: example %v and %v is not a pair of different multisets", c.m, col.Aggregator, col.ExampleA, col.ExampleB)
				continue
			}
			if !sameInput(col.Aggregator, col.ExampleA, col.ExampleB) {
				t.Errorf("m = %d %s: example %v and %v is told apart", c.m, col.Aggregator, col.ExampleA, col.ExampleB)
			}
		}
		if c.largestSumGroup > 0 && cols[0].LargestGroup != c.largestSumGroup {
			t.Errorf("m = %d: largest SUM group %d, want %d", c.m, cols[0].LargestGroup, c.largestSumGroup)
		}
	}
}

// sameInput reports whether agg gives x and y the same input.
func sameInput(agg string, x, y []float64) bool {
	eq := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(a)) }
	switch agg {
	case experiments.Figure3Sum:
		return eq(stagnb.MultisetSum(x), stagnb.MultisetSum(y))
	case experiments.Figure3Mean:
		return eq(stagnb.MultisetMean(x), stagnb.MultisetMean(y))
	case experiments.Figure3Max:
		return eq(stagnb.MultisetMax(x), stagnb.MultisetMax(y))
	case experiments.Figure3STAG:
		return experiments.SameUniformSumDistribution(x, y)
	case experiments.Figure3ExpSum:
		return eq(math.Log(stagnb.ExpSumUniformExpectation(x)), math.Log(stagnb.ExpSumUniformExpectation(y)))
	}
	return false
}

// TestFigure3Settings checks the protocol: the paper's network, optimiser and data in full mode,
// the smaller data set in quick mode.
func TestFigure3Settings(t *testing.T) {
	for _, s := range []experiments.Settings{experiments.FullSettings(), experiments.QuickSettings()} {
		cfg := experiments.Figure3Settings(s)
		if cfg.Hidden != 128 || cfg.LearningRate != 1e-3 || !slices.Equal(cfg.Elements, datasets.ToyElements) {
			t.Errorf("%s: hidden %d, learning rate %g, elements %v; want the paper's 128, 1e-3, %v", s.Mode(), cfg.Hidden, cfg.LearningRate, cfg.Elements, datasets.ToyElements)
		}
		if cfg.MCSamples != 32 || len(cfg.Seeds) < 2 || cfg.Seeds[0] != s.Seed {
			t.Errorf("%s: K = %d, seeds %v", s.Mode(), cfg.MCSamples, cfg.Seeds)
		}
		wantM := datasets.ToyMaxMultiplicity
		if s.Quick {
			wantM = 1
		}
		if cfg.MaxMultiplicity != wantM {
			t.Errorf("%s: multiplicity ≤ %d, want %d", s.Mode(), cfg.MaxMultiplicity, wantM)
		}
	}
}

// TestFigure3RejectsBadConfigs checks that every field out of range is named.
func TestFigure3RejectsBadConfigs(t *testing.T) {
	good := experiments.Figure3Settings(experiments.QuickSettings())
	cases := []struct {
		name string
		edit func(*experiments.Figure3Config)
		want string
	}{
		{"zero element", func(c *experiments.Figure3Config) { c.Elements = []float64{1, 0} }, "non-zero"},
		{"no steps", func(c *experiments.Figure3Config) { c.Steps = 0 }, "Steps"},
		{"no draws", func(c *experiments.Figure3Config) { c.MCSamples = 0 }, "MCSamples"},
		{"no seeds", func(c *experiments.Figure3Config) { c.Seeds = nil }, "Seeds"},
		{"negative batch", func(c *experiments.Figure3Config) { c.BatchSize = -1 }, "BatchSize"},
	}
	backend := stagtest.Backend(t)
	for _, c := range cases {
		cfg := good
		cfg.Seeds = slices.Clone(good.Seeds)
		c.edit(&cfg)
		_, err := experiments.Figure3(backend, cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestFigure3Trains runs a short training on the 63 sets (multiplicity ≤ 1): before training every
// input is at chance level, the deterministic inputs never beat their collision bound, and after
// 200 steps every input is well above chance — SUM, MEAN and exact STAG within reach of their
// bounds, which they reached by step 200 in our runs.
func TestFigure3Trains(t *testing.T) {
	if testing.Short() {
		t.Skip("trains five small models (about ten seconds)")
	}
	cfg := experiments.Figure3Settings(experiments.QuickSettings())
	cfg.Steps, cfg.EvalEvery, cfg.MCSamples, cfg.Seeds = 200, 50, 8, []int64{7}
	res, err := experiments.Figure3(stagtest.Backend(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.NumClasses != 63 || len(res.Curves) != len(experiments.Figure3Aggregators) {
		t.Fatalf("%d classes and %d curves, want 63 and %d", res.NumClasses, len(res.Curves), len(experiments.Figure3Aggregators))
	}
	chance := 1.0 / 63
	for i, c := range res.Curves {
		if c.Aggregator != experiments.Figure3Aggregators[i] {
			t.Errorf("curve %d is %s, want %s", i, c.Aggregator, experiments.Figure3Aggregators[i])
		}
		if !slices.Equal(c.Steps, []int{0, 50, 100, 150, 200}) || len(c.Accuracy) != 1 || len(c.Accuracy[0]) != 5 {
			t.Fatalf("%s: steps %v, %d runs", c.Aggregator, c.Steps, len(c.Accuracy))
		}
		acc := c.Accuracy[0]
		bound := res.Collisions[i].BestAccuracy()
		// Before training the logits are nearly equal: a handful of right guesses at most.
		if acc[0] > 4*chance {
			t.Errorf("%s: accuracy %.3f before training, want chance level (%.3f)", c.Aggregator, acc[0], chance)
		}
		for k, a := range acc {
			if c.Aggregator != experiments.Figure3STAG && a > bound+1e-12 {
				t.Errorf("%s: accuracy %.4f at step %d beats the collision bound %.4f", c.Aggregator, a, c.Steps[k], bound)
			}
		}
		min := 0.5 * bound
		if c.Aggregator == experiments.Figure3STAG || c.Aggregator == experiments.Figure3Max {
			min = 4 * chance // MAX's bound is 6/63; STAG's estimate is noisy with K = 8
		}
		if acc[4] < min {
			t.Errorf("%s: accuracy %.3f after 200 steps, want at least %.3f", c.Aggregator, acc[4], min)
		}
	}
	p, err := experiments.Figure3Plot(res)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := figures.SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Figure 3", "SUM", "MEAN", "MAX", "STAG, Monte Carlo (K = 8)", "STAG exact"} {
		if !strings.Contains(svg, want) {
			t.Errorf("plot SVG lacks %q (title or legend)", want)
		}
	}
	tab := experiments.Figure3Table(res)
	if len(tab.Rows) != len(experiments.Figure3Aggregators) || !strings.Contains(tab.Header[len(tab.Header)-1], "ours") {
		t.Errorf("table: %d rows, header %v", len(tab.Rows), tab.Header)
	}
	pv := experiments.ExpressivenessPaperVsOurs(res)
	if len(pv.Rows) != 4 || !strings.HasPrefix(pv.Header[1], "paper") || pv.Header[2] != "ours" {
		t.Errorf("paper vs ours: %d rows, header %v; want 4 rows and paper / ours columns", len(pv.Rows), pv.Header)
	}
	// The quick settings' tables say so; the tables of other settings do not.
	for _, quick := range []bool{true, false} {
		res.Config.Quick = quick
		for _, tab := range []figures.Table{experiments.Figure3Table(res), experiments.ExpressivenessPaperVsOurs(res)} {
			if got := strings.Contains(strings.Join(tab.Footnotes, "\n"), experiments.QuickNote); got != quick {
				t.Errorf("Config.Quick %v: table %q says %q: %v", quick, tab.Title, experiments.QuickNote, got)
			}
		}
	}
}
