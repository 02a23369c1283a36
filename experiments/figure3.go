package experiments

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/loss"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
)

// The inputs of Figure 3: each multiset is aggregated into one real number (STAG: K of them) by one
// of these, then classified by the same MLP.
const (
	// Figure3Sum is SUM(X) = Σ x.
	Figure3Sum = "SUM"
	// Figure3Mean is MEAN(X) = Σ x / |X|.
	Figure3Mean = "MEAN"
	// Figure3Max is MAX(X).
	Figure3Max = "MAX"
	// Figure3STAG is the stochastic aggregator E_q[σ(SUM(ξ_q(X)))] with q = Uniform(0, 1), estimated
	// by Monte Carlo: the SUM of the multiplicatively perturbed elements, Σ z_i x_i, is drawn K times
	// with fresh noise at every step (stagnb.StochasticAggregate), each draw goes through the MLP's
	// first layer and its ReLU (σ), and the K results are averaged before the rest of the MLP.
	Figure3STAG = "STAG"
	// Figure3ExpSum is the same stochastic aggregator with σ = exp and the expectation taken
	// exactly, as in Table 1: log E[exp(SUM(ξ_U(0,1)(X)))] = Σ_i log((e^{x_i} − 1)/x_i)
	// (stagnb.ExpSumUniformExpectation), one deterministic number per multiset.
	Figure3ExpSum = "STAG exact"
)

// Figure3Aggregators are the inputs of Figure 3, in the order of the legend: the paper's four
// (SUM, MEAN, MAX, STAG by Monte Carlo) and STAG's expectation in closed form. The index of an
// aggregator is its colour (figures.Color).
var Figure3Aggregators = []string{Figure3Sum, Figure3Mean, Figure3Max, Figure3STAG, Figure3ExpSum}

// Figure3Config is the protocol of Figure 3. The paper fixes the data (underlying set
// {−4, −2, −1, 1, 2, 4}, multiplicity at most 4), the network (two hidden layers of 128 ReLU units)
// and the optimiser (Adam, learning rate 10⁻³); the rest is ours.
type Figure3Config struct {
	// Elements is the underlying set: datasets.ToyElements.
	Elements []float64
	// MaxMultiplicity is the largest multiplicity of an element: 4 in the paper (15,624 multisets,
	// each its own class).
	MaxMultiplicity int
	// Hidden is the width of each of the two hidden layers: 128.
	Hidden int
	// LearningRate is Adam's learning rate: 10⁻³.
	LearningRate float64
	// Steps is the number of training steps of each run.
	Steps int
	// BatchSize is the number of multisets per step, drawn without replacement epoch by epoch;
	// 0, or at least the number of multisets, trains on all of them at every step.
	BatchSize int
	// EvalEvery is the number of steps between two measurements of the training accuracy (the
	// accuracy on every multiset, which is the whole training set); step 0 and the last step are
	// always measured.
	EvalEvery int
	// MCSamples is K, the number of noise draws that STAG averages, in training and when measuring.
	MCSamples int
	// Seeds holds one seed per run; every aggregator is trained once per seed.
	Seeds []int64
	// Quick marks the quick settings' protocol (Figure3Settings): its tables then say that they
	// are not comparable to the paper.
	Quick bool
}

// Figure3Settings returns the protocol for the notebook's settings.
//
// Full: the paper's data (multiplicity ≤ 4, 15,624 multisets and classes), batches of 1,024,
// 3,000 steps, K = 32 draws (the paper's number of Monte-Carlo samples), 3 seeds; this needs a
// GPU — on two CPU cores the 15,624-way softmax alone takes seconds per step.
//
// Quick: multiplicity ≤ 1 (the 63 non-empty subsets of the underlying set), all of them in every
// step, 1,000 steps, K = 32, 2 seeds: about a minute and a half on two CPU cores, long enough for
// SUM, MEAN and MAX to reach their plateaus. Not comparable to the paper.
func Figure3Settings(s Settings) Figure3Config {
	cfg := Figure3Config{
		Elements: slices.Clone(datasets.ToyElements), MaxMultiplicity: datasets.ToyMaxMultiplicity,
		Hidden: 128, LearningRate: 1e-3,
		Steps: 3000, BatchSize: 1024, EvalEvery: 150, MCSamples: 32,
		Seeds: []int64{s.Seed, s.Seed + 1, s.Seed + 2},
	}
	if s.Quick {
		cfg.MaxMultiplicity, cfg.Steps, cfg.BatchSize, cfg.EvalEvery = 1, 1000, 0, 50
		cfg.Seeds = []int64{s.Seed, s.Seed + 1}
		cfg.Quick = true
	}
	return cfg
}

// validate reports the first field of cfg that is out of range.
func (cfg Figure3Config) validate() error {
	switch {
	case len(cfg.Elements) == 0:
		return fmt.Errorf("Figure3Config.Elements is empty")
	case cfg.MaxMultiplicity < 1:
		return fmt.Errorf("Figure3Config.MaxMultiplicity = %d, want ≥ 1", cfg.MaxMultiplicity)
	case cfg.Hidden < 1:
		return fmt.Errorf("Figure3Config.Hidden = %d, want ≥ 1", cfg.Hidden)
	case !(cfg.LearningRate > 0):
		return fmt.Errorf("Figure3Config.LearningRate = %g, want > 0", cfg.LearningRate)
	case cfg.Steps < 1 || cfg.EvalEvery < 1:
		return fmt.Errorf("Figure3Config.Steps = %d, Figure3Config.EvalEvery = %d, want ≥ 1", cfg.Steps, cfg.EvalEvery)
	case cfg.BatchSize < 0:
		return fmt.Errorf("Figure3Config.BatchSize = %d, want ≥ 0", cfg.BatchSize)
	case cfg.MCSamples < 1:
		return fmt.Errorf("Figure3Config.MCSamples = %d, want ≥ 1", cfg.MCSamples)
	case len(cfg.Seeds) == 0:
		return fmt.Errorf("Figure3Config.Seeds is empty")
	}
	for _, x := range cfg.Elements {
		if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("element %v: want finite and non-zero (Theorem 1 excludes 0)", x)
		}
	}
	return nil
}

// Figure3Collision says how many multisets one aggregator can tell apart: it maps the NumClasses
// multisets (each its own class) to Distinct different values, so a classifier that sees only its
// output gets at most Distinct of them right.
type Figure3Collision struct {
	// Aggregator is one of Figure3Aggregators.
	Aggregator string
	// Distinct is the number of different values (for STAG: different distributions of the
	// perturbed SUM), and NumClasses the number of multisets.
	Distinct, NumClasses int
	// MaxMultiplicity is the largest multiplicity of the multisets counted.
	MaxMultiplicity int
	// LargestGroup is the largest number of multisets that share one value.
	LargestGroup int
	// ExampleA and ExampleB are two different multisets with the same value, with the fewest
	// elements (nil when every multiset has its own value).
	ExampleA, ExampleB []float64
}

// BestAccuracy is Distinct / NumClasses, the highest training accuracy any classifier of the
// aggregated value can reach: one multiset per value.
func (c Figure3Collision) BestAccuracy() float64 {
	return float64(c.Distinct) / float64(c.NumClasses)
}

// Figure3Collisions counts how many of the multisets over elements (non-zero) with multiplicity at
// most maxMultiplicity each aggregator of Figure3Aggregators tells apart.
//
// SUM and MEAN are compared as exact rationals (math/big), MAX as the element itself. For STAG the
// value is the distribution of SUM(ξ_U(0,1)(X)) = Σ z_i x_i, which is determined by, and
// determines, the pair (SUM(X), multiset of |x_i|): its cumulant generating function is
//
//	log E[e^{tS}] = t·SUM(X)/2 + Σ_i h(t·x_i/2),  h(v) = log(sinh(v)/v),
//
// and h is even, so the distribution fixes SUM(X) and the even power sums Σ x_i^{2n}, that is the
// multiset of |x_i|, and nothing more. Multisets that differ only in the signs of elements, with the
// same SUM (for example X and −X when SUM(X) = 0), are therefore confused by STAG with uniform
// noise. The closed form of STAG exact, log E[exp(SUM(ξ))], is a float64 per multiset; two values
// count as one when they differ by less than 10⁻⁹ (relative), far above the rounding error of the
// sum of at most a few dozen logarithms and far below the gaps between different values here.
func Figure3Collisions(elements []float64, maxMultiplicity int) ([]Figure3Collision, error) {
	ms, err := datasets.Multisets(len(elements), maxMultiplicity)
	if err != nil {
		return nil, fmt.Errorf("experiments.Figure3Collisions: %w", err)
	}
	values := make([][]float64, len(ms))
	for i, m := range ms {
		values[i] = m.Values(elements)
	}
	keyFns := map[string]func(x []float64) string{
		Figure3Sum: func(x []float64) string { return ratSum(x).RatString() },
		Figure3Mean: func(x []float64) string {
			return new(big.Rat).Quo(ratSum(x), new(big.Rat).SetInt64(int64(len(x)))).RatString()
		},
		Figure3Max:  func(x []float64) string { return strconv.FormatFloat(stagnb.MultisetMax(x), 'g', -1, 64) },
		Figure3STAG: func(x []float64) string { return ratSum(x).RatString() + "|" + fmt.Sprint(sortedAbs(x)) },
	}
	var out []Figure3Collision
	for _, agg := range Figure3Aggregators {
		var group []int
		if key, ok := keyFns[agg]; ok {
			group = groupByKey(values, key)
		} else {
			v := make([]float64, len(values))
			for i, x := range values {
				v[i] = math.Log(stagnb.ExpSumUniformExpectation(x))
			}
			group = groupByValue(v, 1e-9)
		}
		c := collisionsOf(agg, values, group)
		c.MaxMultiplicity = maxMultiplicity
		out = append(out, c)
	}
	return out, nil
}

// ratSum is Σ x as an exact rational (every float64 is one).
func ratSum(x []float64) *big.Rat {
	s := new(big.Rat)
	for _, v := range x {
		s.Add(s, new(big.Rat).SetFloat64(v))
	}
	return s
}

// groupByKey numbers the groups of equal keys, in order of first appearance.
func groupByKey(values [][]float64, key func([]float64) string) []int {
	ids := map[string]int{}
	group := make([]int, len(values))
	for i, x := range values {
		k := key(x)
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
		}
		group[i] = id
	}
	return group
}

// groupByValue groups values that are within relTol (relative to the larger magnitude, at least
// 1) of their neighbour in sorted order, and numbers the groups in sorted order.
func groupByValue(v []float64, relTol float64) []int {
	order := make([]int, len(v))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return v[order[a]] < v[order[b]] })
	group := make([]int, len(v))
	id := 0
	for k, i := range order {
		if k > 0 {
			prev := v[order[k-1]]
			if v[i]-prev > relTol*max(1, math.Abs(prev), math.Abs(v[i])) {
				id++
			}
		}
		group[i] = id
	}
	return group
}

// collisionsOf summarises a grouping of the multisets values.
func collisionsOf(agg string, values [][]float64, group []int) Figure3Collision {
	members := map[int][]int{}
	for i, g := range group {
		members[g] = append(members[g], i)
	}
	c := Figure3Collision{Aggregator: agg, Distinct: len(members), NumClasses: len(values)}
	best := [3]int{math.MaxInt, math.MaxInt, math.MaxInt} // total size, first, second
	for _, ids := range members {
		c.LargestGroup = max(c.LargestGroup, len(ids))
		if len(ids) < 2 {
			continue
		}
		// The example is the pair with the fewest elements in all (ties: the earliest in the
		// enumeration), so that it does not depend on the map's order.
		sort.Slice(ids, func(a, b int) bool {
			sa, sb := len(values[ids[a]]), len(values[ids[b]])
			return sa < sb || sa == sb && ids[a] < ids[b]
		})
		cand := [3]int{len(values[ids[0]]) + len(values[ids[1]]), min(ids[0], ids[1]), max(ids[0], ids[1])}
		if cand[0] < best[0] || cand[0] == best[0] && (cand[1] < best[1] || cand[1] == best[1] && cand[2] < best[2]) {
			best = cand
			c.ExampleA, c.ExampleB = slices.Clone(values[ids[0]]), slices.Clone(values[ids[1]])
		}
	}
	return c
}

// figure3Label is the long name of an aggregator in tables; k is STAG's number of draws (0: the
// table is about the distribution, not a run).
func figure3Label(agg string, k int) string {
	switch agg {
	case Figure3STAG:
		if k == 0 {
			return "STAG: E[σ(SUM(ξ_U(0,1)(X)))], any σ and K"
		}
		return fmt.Sprintf("STAG: E[σ(SUM(ξ_U(0,1)(X)))], K = %d draws", k)
	case Figure3ExpSum:
		return "STAG exact: log E[exp(SUM(ξ_U(0,1)(X)))]"
	}
	return agg
}

// Figure3CollisionTable renders what each input can tell apart (Figure3Collisions).
func Figure3CollisionTable(cols []Figure3Collision) figures.Table {
	return figure3Table(cols, nil)
}

// Figure3Table renders the collision counts of the run's data with the training accuracy each
// input reached (mean ± std over the seeds).
func Figure3Table(res *Figure3Result) figures.Table {
	return figure3Table(res.Collisions, res)
}

func figure3Table(cols []Figure3Collision, res *Figure3Result) figures.Table {
	t := figures.Table{
		Header: []string{"input", "distinct values", "multisets", "best possible accuracy", "largest group", "smallest two multisets it confuses"},
		Right:  []bool{false, true, true, true, true, false},
	}
	if len(cols) > 0 {
		t.Title = fmt.Sprintf("What each input can tell apart: %d multisets, multiplicity ≤ %d", cols[0].NumClasses, cols[0].MaxMultiplicity)
	}
	k := 0
	if res != nil {
		k = res.Config.MCSamples
		t.Title += ", and the training accuracy reached"
		t.Header = append(t.Header, "training accuracy reached (ours)")
		t.Right = append(t.Right, true)
	}
	for _, c := range cols {
		ex := "—"
		if c.ExampleA != nil {
			ex = FormatMultiset(c.ExampleA) + " and " + FormatMultiset(c.ExampleB)
		}
		name := figure3Label(c.Aggregator, k)
		row := []string{name, strconv.Itoa(c.Distinct), strconv.Itoa(c.NumClasses),
			fmt.Sprintf("%.2f%%", 100*c.BestAccuracy()), strconv.Itoa(c.LargestGroup), ex}
		if res != nil {
			row = append(row, "—")
			if cu := res.Curve(c.Aggregator); cu != nil {
				m, s := cu.Final()
				row[len(row)-1] = fmt.Sprintf("%.2f ± %.2f%%", 100*m, 100*s)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	t.Footnotes = []string{
		"Counted on the host (experiments.Figure3Collisions): SUM and MEAN as exact rationals, MAX as the element; STAG by its distribution — Σ z_i x_i with z_i ~ Uniform(0, 1) has the same distribution for two multisets exactly when they have the same SUM and the same multiset of absolute values, whatever σ and K; STAG exact by the value of its closed form. Every multiset is its own class, so a classifier of the input gets at most one multiset per distinct value right: best possible accuracy = distinct values / multisets.",
	}
	if res != nil {
		t.Footnotes = append(t.Footnotes, fmt.Sprintf(
			"Training accuracy: the accuracy on all %d multisets after %d steps, mean ± std over %s; STAG's is measured with K = %d fresh noise draws, so it is itself random. The paper's Figure 3 shows curves but prints no numbers, so there is nothing to compare these with.",
			res.NumClasses, res.Config.Steps, seedList(res.Config.Seeds), res.Config.MCSamples))
		t.Footnotes = append(t.Footnotes, figure3QuickNote(res)...)
	}
	return t
}

// figure3QuickNote is the footnote of the tables of a quick Figure 3 run (none for other runs).
func figure3QuickNote(res *Figure3Result) []string {
	if !res.Config.Quick {
		return nil
	}
	paper := ""
	if len(res.PaperCollisions) > 0 {
		p := res.PaperCollisions[0]
		paper = fmt.Sprintf("; the paper's data are %d multisets, multiplicity ≤ %d", p.NumClasses, p.MaxMultiplicity)
	}
	return []string{fmt.Sprintf("Mode: %s (%d multisets, multiplicity ≤ %d, %d steps%s).",
		QuickNote, res.NumClasses, res.Config.MaxMultiplicity, res.Config.Steps, paper)}
}

// seedList writes seeds as "2 seeds (42, 43)" or "1 seed (42)".
func seedList(seeds []int64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = strconv.FormatInt(v, 10)
	}
	word := "seeds"
	if len(seeds) == 1 {
		word = "seed"
	}
	return fmt.Sprintf("%d %s (%s)", len(seeds), word, strings.Join(s, ", "))
}

// Figure3Curve is the training accuracy of one aggregator at the measured steps, one row per seed.
type Figure3Curve struct {
	// Aggregator is one of Figure3Aggregators.
	Aggregator string
	// Steps are the measured steps (0 is before training).
	Steps []int
	// Accuracy[seed][i] is the fraction of all multisets classified right after Steps[i].
	Accuracy [][]float64
	// Seconds[seed] is the wall time of the run.
	Seconds []float64
}

// MeanStd returns the mean and the standard deviation (over seeds, population) of the accuracy at
// every measured step.
func (c *Figure3Curve) MeanStd() (mean, std []float64) {
	n := len(c.Steps)
	mean, std = make([]float64, n), make([]float64, n)
	for i := range n {
		var s, ss float64
		for _, a := range c.Accuracy {
			s += a[i]
		}
		mean[i] = s / float64(len(c.Accuracy))
		for _, a := range c.Accuracy {
			ss += (a[i] - mean[i]) * (a[i] - mean[i])
		}
		std[i] = math.Sqrt(ss / float64(len(c.Accuracy)))
	}
	return mean, std
}

// Final returns the mean and standard deviation over seeds of the last measured accuracy.
func (c *Figure3Curve) Final() (mean, std float64) {
	m, s := c.MeanStd()
	return m[len(m)-1], s[len(s)-1]
}

// Figure3Result holds the curves of Figure 3.
type Figure3Result struct {
	// Config is the protocol that produced the curves.
	Config Figure3Config
	// NumClasses is the number of multisets (classes).
	NumClasses int
	// Curves holds one curve per aggregator, in the order of Figure3Aggregators.
	Curves []Figure3Curve
	// Collisions are Figure3Collisions of the run's data, and PaperCollisions those of the paper's
	// (datasets.ToyElements, multiplicity ≤ datasets.ToyMaxMultiplicity).
	Collisions, PaperCollisions []Figure3Collision
	// Backend names the backend that trained the models.
	Backend string
}

// Curve returns the curve of aggregator agg, or nil.
func (r *Figure3Result) Curve(agg string) *Figure3Curve {
	for i := range r.Curves {
		if r.Curves[i].Aggregator == agg {
			return &r.Curves[i]
		}
	}
	return nil
}

// Figure3 trains the classifier of Figure 3 on backend: for every input of Figure3Aggregators and
// every seed, an MLP (two hidden layers of cfg.Hidden ReLU units, then a linear layer to one logit
// per multiset) learns to name each multiset from its aggregated value, with Adam and the
// cross-entropy loss.
//
// SUM, MEAN and MAX are computed on the host (stagnb.MultisetSum, MultisetMean, MultisetMax), and
// so is STAG exact (stagnb.ExpSumUniformExpectation, as its logarithm). STAG perturbs the elements
// in the graph with stagnb.StochasticAggregate on one star graph per multiset (SUM, no
// normalisation, Uniform(0, 1) noise per edge and channel, one channel per draw), so its K draws
// come from the model store's RNG and are fresh at every step and at every measurement; the first
// layer and its ReLU (σ) act on each draw and the K results are averaged, E_q[σ(SUM(ξ_q(X)))],
// before the second layer. The network is the same for every input.
//
// Every input is divided by the largest |value| of its kind over the data set (STAG by that of
// SUM), so that it lies in [−1, 1]; the layers start as PyTorch's nn.Linear does, weights and
// biases uniform in ±1/√fan_in (with GoMLX's zero biases, every first-layer ReLU of a scalar input
// would bend at 0). It returns the training accuracy (on all multisets) every cfg.EvalEvery steps.
func Figure3(backend compute.Backend, cfg Figure3Config) (*Figure3Result, error) {
	if backend == nil {
		return nil, fmt.Errorf("experiments.Figure3: nil backend")
	}
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("experiments.Figure3: %w", err)
	}
	data, err := newFigure3Data(cfg.Elements, cfg.MaxMultiplicity)
	if err != nil {
		return nil, fmt.Errorf("experiments.Figure3: %w", err)
	}
	res := &Figure3Result{Config: cfg, NumClasses: data.n, Backend: stagnb.BackendName(backend)}
	if res.Collisions, err = Figure3Collisions(cfg.Elements, cfg.MaxMultiplicity); err != nil {
		return nil, fmt.Errorf("experiments.Figure3: %w", err)
	}
	if res.PaperCollisions, err = Figure3Collisions(datasets.ToyElements, datasets.ToyMaxMultiplicity); err != nil {
		return nil, fmt.Errorf("experiments.Figure3: %w", err)
	}
	for _, agg := range Figure3Aggregators {
		curve := Figure3Curve{Aggregator: agg}
		for _, seed := range cfg.Seeds {
			start := time.Now()
			steps, acc, err := trainFigure3(backend, data, agg, cfg, seed)
			if err != nil {
				return nil, fmt.Errorf("experiments.Figure3: %s, seed %d: %w", agg, seed, err)
			}
			curve.Steps = steps
			curve.Accuracy = append(curve.Accuracy, acc)
			curve.Seconds = append(curve.Seconds, time.Since(start).Seconds())
		}
		res.Curves = append(res.Curves, curve)
	}
	return res, nil
}

// figure3Data is the data set on the host: the inputs of every aggregator.
type figure3Data struct {
	// n is the number of multisets; multiset i is class i.
	n int
	// values[agg][i] is the scaled deterministic input of multiset i.
	values map[string][]float32
	// padded holds the scaled elements of multiset i in padded[i*width:(i+1)*width], then zeros,
	// which multiplicative noise leaves at zero, so they add nothing to a SUM.
	padded []float32
	width  int
}

func newFigure3Data(elements []float64, maxMultiplicity int) (*figure3Data, error) {
	ms, err := datasets.Multisets(len(elements), maxMultiplicity)
	if err != nil {
		return nil, err
	}
	d := &figure3Data{n: len(ms), values: map[string][]float32{}, width: len(elements) * maxMultiplicity}
	raw := map[string][]float64{}
	for _, m := range ms {
		x := m.Values(elements)
		raw[Figure3Sum] = append(raw[Figure3Sum], stagnb.MultisetSum(x))
		raw[Figure3Mean] = append(raw[Figure3Mean], stagnb.MultisetMean(x))
		raw[Figure3Max] = append(raw[Figure3Max], stagnb.MultisetMax(x))
		raw[Figure3ExpSum] = append(raw[Figure3ExpSum], math.Log(stagnb.ExpSumUniformExpectation(x)))
	}
	scale := map[string]float64{}
	for agg, v := range raw {
		s := 0.0
		for _, x := range v {
			s = max(s, math.Abs(x))
		}
		if s == 0 {
			s = 1
		}
		scale[agg] = s
		d.values[agg] = make([]float32, len(v))
		for i, x := range v {
			d.values[agg][i] = float32(x / s)
		}
	}
	d.padded = make([]float32, d.n*d.width)
	for i, m := range ms {
		for j, x := range m.Values(elements) {
			d.padded[i*d.width+j] = float32(x / scale[Figure3Sum])
		}
	}
	return d, nil
}

// figure3Model builds the logits `[B, n]` of the multisets idx (`Int32[B]`).
type figure3Model struct {
	data   *figure3Data
	agg    string
	hidden int
	k      int
	noise  *stagnb.Noise
	stars  map[int]*stagnb.EdgeList // star graph per batch size
}

// star returns the star graph of b multisets: leaf j of multiset i is node i*width+j, and its
// centre is node b*width+i.
func (m *figure3Model) star(b int) (*stagnb.EdgeList, error) {
	if el, ok := m.stars[b]; ok {
		return el, nil
	}
	w := m.data.width
	src, dst := make([]int32, b*w), make([]int32, b*w)
	for i := range b {
		for j := range w {
			src[i*w+j], dst[i*w+j] = int32(i*w+j), int32(b*w+i)
		}
	}
	el, err := stagnb.NewEdgeList(b*w+b, src, dst)
	if err != nil {
		return nil, err
	}
	m.stars[b] = el
	return el, nil
}

// dense is a linear layer initialised as PyTorch's nn.Linear: weights and biases ~ U(±1/√fan_in).
func dense(scope *model.Scope, x *Node, out int) *Node {
	bound := 1 / math.Sqrt(float64(x.Shape().Dimensions[x.Rank()-1]))
	return layers.Dense(scope.WithInitializer(initializer.RandomUniformFn(scope, -bound, bound)), x, true, out)
}

func (m *figure3Model) logits(scope *model.Scope, idx *Node) *Node {
	g := idx.Graph()
	b := idx.Shape().Dimensions[0]
	idx2 := Reshape(idx, b, 1)
	var h *Node
	if m.agg != Figure3STAG {
		x := Gather(Reshape(Const(g, m.data.values[m.agg]), m.data.n, 1), idx2) // [B, 1]
		h = activation.Relu(dense(scope.At("hidden_0"), x, m.hidden))
	} else {
		w := m.data.width
		el, err := m.star(b)
		if err != nil {
			panic(err)
		}
		leaves := Gather(Reshape(Const(g, m.data.padded), m.data.n, w), idx2) // [B, w]
		nodes := Concatenate([]*Node{Reshape(leaves, b*w, 1), Zeros(g, shapes.Make(leaves.DType(), b, 1))}, 0)
		x := BroadcastToDims(nodes, b*w+b, m.k) // one channel per noise draw
		s := stagnb.StochasticAggregate(scope.At("stag"), x, el.Const(g), stagnb.AggSum, stagnb.NormNone, m.noise)
		sums := Slice(s, AxisRange(b*w, b*w+b)) // [B, K]: K draws of Σ z_i x_i per multiset
		h = activation.Relu(dense(scope.At("hidden_0"), Reshape(sums, b*m.k, 1), m.hidden))
		h = ReduceMean(Reshape(h, b, m.k, m.hidden), 1) // E_q[σ(SUM(ξ_q(X)))], estimated from K draws
	}
	h = activation.Relu(dense(scope.At("hidden_1"), h, m.hidden))
	return dense(scope.At("output"), h, m.data.n)
}

// logitFloor is how far below the largest logit figure3Loss clamps the others: e^−80 ≈ 2·10⁻³⁵ is
// still a normal float32.
const logitFloor = 80

// figure3Loss is the cross-entropy of the logits after clamping each one at logitFloor below the
// largest of its row. A logit that far below has probability under e^−80 and a gradient to match,
// so the loss and its gradient do not change in float32; what changes is the cost of the softmax
// on the pure-Go backend, whose exp goes through float64 and takes about 20 times longer when the
// result is subnormal (logits more than 708 below the maximum, which Adam reaches within a few
// hundred steps on this data).
func figure3Loss(labels, logits []*Node) *Node {
	l := logits[0]
	shifted := Sub(l, StopGradient(ReduceAndKeep(l, ReduceMax, -1)))
	return loss.SparseCategoricalCrossEntropyLogits(labels, []*Node{MaxScalar(shifted, -logitFloor)})
}

// trainFigure3 trains one model and returns the measured steps and training accuracies.
func trainFigure3(backend compute.Backend, data *figure3Data, agg string, cfg Figure3Config, seed int64) ([]int, []float64, error) {
	u01, err := stagnb.Uniform(0, 1)
	if err != nil {
		return nil, nil, err
	}
	m := &figure3Model{data: data, agg: agg, hidden: cfg.Hidden, k: cfg.MCSamples,
		noise: stagnb.NewNoise(u01, stagnb.StructureSTAG), stars: map[int]*stagnb.EdgeList{}}
	store := model.NewStore()
	defer store.Finalize()
	store.SetParam(model.ParamInitialSeed, seed)
	if err := store.SetRNGStateFromSeed(seed); err != nil {
		return nil, nil, err
	}
	trainer := train.NewTrainer(backend, store, func(scope *model.Scope, idx *Node) *Node {
		return m.logits(scope, idx)
	}, figure3Loss, models.PaperAdam(cfg.LearningRate), nil, nil)
	eval, err := model.NewExec(backend, store, func(scope *model.Scope, idx *Node) *Node {
		return ArgMax(m.logits(scope, idx), -1)
	})
	if err != nil {
		return nil, nil, err
	}
	defer eval.Finalize()

	batch := cfg.BatchSize
	if batch == 0 || batch > data.n {
		batch = data.n
	}
	evalBatch := min(data.n, max(batch, 1024))
	accuracy := func() (float64, error) {
		right := 0
		for lo := 0; lo < data.n; lo += evalBatch {
			idx := make([]int32, evalBatch)
			for i := range idx {
				idx[i] = int32((lo + i) % data.n)
			}
			outs, err := eval.Call(tensors.FromFlatDataAndDimensions(idx, evalBatch))
			if err != nil {
				return 0, err
			}
			pred := tensors.MustCopyFlatData[int32](outs[0])
			outs[0].FinalizeAll()
			for i := range min(evalBatch, data.n-lo) {
				if pred[i] == idx[i] {
					right++
				}
			}
		}
		return float64(right) / float64(data.n), nil
	}

	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed_f16_3))
	order := rng.Perm(data.n)
	pos := 0
	var steps []int
	var accs []float64
	for step := 0; step <= cfg.Steps; step++ {
		if step%cfg.EvalEvery == 0 || step == cfg.Steps {
			a, err := accuracy()
			if err != nil {
				return nil, nil, fmt.Errorf("accuracy at step %d: %w", step, err)
			}
			steps, accs = append(steps, step), append(accs, a)
		}
		if step == cfg.Steps {
			break
		}
		idx := make([]int32, batch)
		labels := make([]int32, batch)
		for i := range idx {
			if pos == data.n {
				order, pos = rng.Perm(data.n), 0
			}
			idx[i], labels[i] = int32(order[pos]), int32(order[pos])
			pos++
		}
		metrics, err := trainer.TrainStep(train.Batch{
			Inputs: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(idx, batch)},
			Labels: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(labels, batch, 1)},
		})
		if err != nil {
			return nil, nil, fmt.Errorf("step %d: %w", step+1, err)
		}
		l, _ := metrics[0].Value().(float32)
		for _, t := range metrics {
			t.FinalizeAll()
		}
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			return nil, nil, fmt.Errorf("step %d: the loss is %v", step+1, l)
		}
	}
	return steps, accs, nil
}

// Figure3Plot draws the training accuracy (in %) against the step for every input, mean ± 1 std
// over the seeds as a band, and dashed in the same colour the best possible accuracy of each input
// (res.Collisions).
func Figure3Plot(res *Figure3Result) (*plot.Plot, error) {
	var series []figures.Series
	last := 0.0
	for _, c := range res.Curves {
		if len(c.Steps) > 0 {
			last = max(last, float64(c.Steps[len(c.Steps)-1]))
		}
	}
	for i, agg := range Figure3Aggregators {
		c := res.Curve(agg)
		if c == nil {
			continue
		}
		mean, std := c.MeanStd()
		name := agg
		switch agg {
		case Figure3STAG:
			name = fmt.Sprintf("STAG, Monte Carlo (K = %d)", res.Config.MCSamples)
		case Figure3ExpSum:
			name = "STAG exact: log E[exp(SUM(ξ))]"
		}
		s := figures.Series{Name: name, Method: i,
			X: make([]float64, len(c.Steps)), Y: make([]float64, len(mean))}
		for j, st := range c.Steps {
			s.X[j], s.Y[j] = float64(st), 100*mean[j]
		}
		if len(c.Accuracy) > 1 {
			s.Std = make([]float64, len(std))
			for j := range std {
				s.Std[j] = 100 * std[j]
			}
		}
		series = append(series, s)
		for _, col := range res.Collisions {
			if col.Aggregator == agg {
				b := 100 * col.BestAccuracy()
				series = append(series, figures.Series{Method: i, X: []float64{0, last}, Y: []float64{b, b}, Dashed: true})
			}
		}
	}
	title := fmt.Sprintf("Figure 3: %d multisets over {%s}, multiplicity ≤ %d",
		res.NumClasses, formatElements(res.Config.Elements), res.Config.MaxMultiplicity)
	yLabel := "training accuracy (%)"
	if n := len(res.Config.Seeds); n > 1 {
		yLabel = fmt.Sprintf("training accuracy (%%), mean ± std of %d seeds", n)
	}
	p, err := figures.Lines(title, "training step", yLabel, series)
	if err != nil {
		return nil, err
	}
	// Accuracies run from 0 to 100%; the axis goes higher only to leave room for the legend.
	p.Y.Min = 0
	p.Y.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0"}, {Value: 20, Label: "20"},
		{Value: 40, Label: "40"}, {Value: 60, Label: "60"}, {Value: 80, Label: "80"}, {Value: 100, Label: "100"}})
	return p, nil
}

// formatElements writes the underlying set as "−4, −2, …".
func formatElements(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strings.Replace(strconv.FormatFloat(v, 'g', -1, 64), "-", "−", 1)
	}
	return strings.Join(s, ", ")
}
