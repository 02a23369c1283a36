package models

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// toyTask is a 6-node path graph with self-loops, 3 sparse features and 3 classes, for fast
// graph checks.
func toyTask(t *testing.T) *NodeTask {
	t.Helper()
	el, err := stagnb.UndirectedEdgeList(6, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	el = el.WithSelfLoops()
	feats, err := stagnb.NewSparseInput(el, 3, []int32{0, 1, 3, 4, 5, 7, 8}, []int32{0, 1, 2, 0, 2, 1, 0, 2},
		[]float32{1, 0.5, 0.5, 1, 1, 0.5, 0.5, 1}, stagnb.NormBoth)
	if err != nil {
		t.Fatal(err)
	}
	return &NodeTask{Name: "toy", Edges: el, Features: feats, Labels: []int32{0, 0, 1, 1, 2, 2}, NumClasses: 3}
}

// trainableCount builds m's evaluation graph on task once and counts the trainable parameters.
func trainableCount(t *testing.T, task *NodeTask, m NodeClassifier) int {
	t.Helper()
	store := model.NewStore()
	model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) *Node {
		return m.Logits(scope, g, task)
	}).MustCall()
	count := 0
	for v := range store.IterVariables() {
		if v.Trainable {
			count += v.Shape().Size()
		}
	}
	return count
}

// mcLogits runs two Monte-Carlo copies of m's logits in one evaluation graph, with a store
// seeded with seed, and returns them flattened.
func mcLogits(t *testing.T, task *NodeTask, m NodeClassifier, seed int64) (a, b []float32) {
	t.Helper()
	store := model.NewStore()
	store.SetParam(model.ParamInitialSeed, seed)
	if err := store.SetRNGStateFromSeed(seed); err != nil {
		t.Fatal(err)
	}
	out := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) []*Node {
		return stagnb.MonteCarloSamples(g, 2, func(int) *Node { return Reshape(m.Logits(scope, g, task), -1) })
	}).MustCall()
	return out[0].Value().([]float32), out[1].Value().([]float32)
}

// checkSamples asserts that two Monte-Carlo copies differ and that a seed reproduces them.
func checkSamples(t *testing.T, task *NodeTask, m NodeClassifier) {
	t.Helper()
	a1, b1 := mcLogits(t, task, m, 7)
	a2, b2 := mcLogits(t, task, m, 7)
	a3, _ := mcLogits(t, task, m, 8)
	equal := func(x, y []float32) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return len(x) == len(y)
	}
	if equal(a1, b1) {
		t.Errorf("the two Monte-Carlo copies are equal: each must draw its own noise")
	}
	if !equal(a1, a2) || !equal(b1, b2) {
		t.Errorf("seed 7 does not reproduce the samples")
	}
	if equal(a1, a3) {
		t.Errorf("seeds 7 and 8 give the same sample")
	}
}

// kumaraswamyBetaKLNumeric integrates E_q[log q(x) − log p(x)] over x = F⁻¹(u), u = (1 − cos πt)/2,
// with the midpoint rule in t (the substitution clusters the points at the singular ends).
func kumaraswamyBetaKLNumeric(a, b, alpha, beta float64) float64 {
	const n = 400000
	lgA, _ := math.Lgamma(alpha)
	lgB, _ := math.Lgamma(beta)
	lgAB, _ := math.Lgamma(alpha + beta)
	sum := 0.0
	for i := range n {
		tt := (float64(i) + 0.5) / n
		u := (1 - math.Cos(math.Pi*tt)) / 2
		du := math.Pi / 2 * math.Sin(math.Pi*tt)
		// x = (1 − (1−u)^{1/b})^{1/a}; work in logs for the ends.
		oneMinusXa := math.Pow(1-u, 1/b) // 1 − x^a
		xa := -math.Expm1(math.Log1p(-u) / b)
		logX := math.Log(xa) / a
		logQ := math.Log(a) + math.Log(b) + (a-1)*logX + (b-1)*math.Log(oneMinusXa)
		logP := (alpha-1)*logX + (beta-1)*math.Log1p(-math.Exp(logX)) - (lgA + lgB - lgAB)
		sum += (logQ - logP) * du
	}
	return sum / n
}

// TestKumaraswamyBetaKL checks the closed-form KL (and its digamma and log-gamma) against a
// numerical integral, with the code's Beta(0.8, 1) prior and with β ≠ 1 (Taylor series).
func TestKumaraswamyBetaKL(t *testing.T) {
	for _, tc := range []struct {
		a, b, alpha, beta float64
		terms             int
		tol               float64
	}{
		{1.5, 0.7, 0.8, 1, 10, 1e-3},    // the code's prior, a and b near their initial softplus values
		{0.6, 2.0, 0.8, 1, 10, 1e-3},    //
		{3.0, 0.4, 0.8, 1, 10, 1e-3},    //
		{2.0, 3.0, 1.5, 2.5, 300, 1e-3}, // β ≠ 1: the series, to many terms (10 leave ≈ 0.01 here)
		{1.2, 2.5, 0.5, 3.0, 300, 1e-3},
	} {
		want := kumaraswamyBetaKLNumeric(tc.a, tc.b, tc.alpha, tc.beta)
		out := model.MustNewExec(stagtest.Backend(t), model.NewStore(), func(_ *model.Scope, g *Graph) *Node {
			return KumaraswamyBetaKL(Const(g, tc.a), Const(g, tc.b), tc.alpha, tc.beta, tc.terms)
		}).MustCall()
		got := out[0].Value().(float64)
		if math.Abs(got-want) > tc.tol*(1+math.Abs(want)) {
			t.Errorf("KL(Kumaraswamy(%g,%g) ‖ Beta(%g,%g)) = %.6f, numerical integral %.6f", tc.a, tc.b, tc.alpha, tc.beta, got, want)
		}
	}
	// A known value: Kumaraswamy(1, 1) = Beta(1, 1) = U(0, 1).
	out := model.MustNewExec(stagtest.Backend(t), model.NewStore(), func(_ *model.Scope, g *Graph) *Node {
		return KumaraswamyBetaKL(Const(g, 1.0), Const(g, 1.0), 1, 1, 10)
	}).MustCall()
	if got := out[0].Value().(float64); math.Abs(got) > 1e-9 {
		t.Errorf("KL(U(0,1) ‖ U(0,1)) = %g, want 0", got)
	}
}

// TestSpecialFunctions checks digamma and logGamma against known values and math.Lgamma.
func TestSpecialFunctions(t *testing.T) {
	xs := []float64{0.1, 0.5, 1, 2, 3.7, 25}
	out := model.MustNewExec(stagtest.Backend(t), model.NewStore(), func(_ *model.Scope, g *Graph) []*Node {
		x := Const(g, xs)
		return []*Node{digamma(x), logGamma(x)}
	}).MustCall()
	psi, lg := out[0].Value().([]float64), out[1].Value().([]float64)
	const gamma = 0.5772156649015329
	known := map[float64]float64{0.5: -gamma - 2*math.Ln2, 1: -gamma, 2: 1 - gamma}
	for i, x := range xs {
		if want, ok := known[x]; ok && math.Abs(psi[i]-want) > 1e-9 {
			t.Errorf("ψ(%g) = %.12f, want %.12f", x, psi[i], want)
		}
		// ψ is the derivative of log Γ: central difference of math.Lgamma.
		h := 1e-5 * x
		l1, _ := math.Lgamma(x + h)
		l0, _ := math.Lgamma(x - h)
		if want := (l1 - l0) / (2 * h); math.Abs(psi[i]-want) > 1e-5*(1+math.Abs(want)) {
			t.Errorf("ψ(%g) = %.9f, finite difference of log Γ %.9f", x, psi[i], want)
		}
		if want, _ := math.Lgamma(x); math.Abs(lg[i]-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("log Γ(%g) = %.12f, want %.12f", x, lg[i], want)
		}
	}
}

// TestBBGDCParameterCount checks the 2-layer BBGDC GCN-128 on Cora: the plain GCN's 184,455
// weights and biases plus a_uc and b_uc for each of the 2 layers, 184,459.
func TestBBGDCParameterCount(t *testing.T) {
	task := coraTask(t)
	if got := trainableCount(t, task, NewBBGDC()); got != 184459 {
		t.Errorf("BBGDC on Cora has %d trainable parameters, want 184459", got)
	}
}

// TestBBGDCSamples checks that Monte-Carlo copies draw their own masks and that seeds reproduce
// them, for per-feature masks, feature blocks (the code's layout) and hard masks at evaluation.
func TestBBGDCSamples(t *testing.T) {
	task := toyTask(t)
	for _, tc := range []struct {
		name   string
		blocks []int
		hard   bool
	}{
		{"per feature", nil, false},
		{"blocks 1,2", []int{1, 2}, false},
		{"hard masks", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewBBGDC()
			m.Hidden, m.Blocks, m.HardMasksAtEval = 4, tc.blocks, tc.hard
			checkSamples(t, task, m)
		})
	}
}

// TestBBGDCMaskMean checks the masks' law on the toy task: with a_uc, b_uc at their initial
// range the keep probability π has mean E[π] = b·B(1 + 1/a, b), and relaxed masks of a given π
// average to about π; a 1-layer BBGDC with all-one features and NormNone therefore outputs, per
// node, Σ_in-edges z·w + b, whose Monte-Carlo mean over many samples must be near E[z]·deg·w + b.
func TestBBGDCMaskMean(t *testing.T) {
	el, err := stagnb.UndirectedEdgeList(3, [][2]int32{{0, 1}, {1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	el = el.WithSelfLoops()
	feats, err := stagnb.NewSparseInput(el, 1, []int32{0, 1, 2, 3}, []int32{0, 0, 0}, []float32{1, 1, 1}, stagnb.NormNone)
	if err != nil {
		t.Fatal(err)
	}
	task := &NodeTask{Name: "tiny", Edges: el, Features: feats, Labels: []int32{0, 0, 0}, NumClasses: 1}
	m := NewBBGDC()
	m.Layers = 1
	m.HardMasksAtEval = true
	const k = 1000
	store := model.NewStore()
	store.SetParam(model.ParamInitialSeed, int64(3))
	if err := store.SetRNGStateFromSeed(3); err != nil {
		t.Fatal(err)
	}
	out := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) []*Node {
		mean, _ := stagnb.MonteCarlo(g, k, stagnb.MCMean, func(int) *Node { return m.Logits(scope, g, task) })
		ls := scope.At("layer_0").At("bbgdc")
		a, b := kumaraswamyParams(ls, g)
		w := ls.GetVariable("weights").NodeValue(g)
		bias := ls.GetVariable("bias").NodeValue(g)
		return []*Node{Reshape(mean, -1), a, b, Reshape(w, -1), Reshape(bias, -1)}
	}).MustCall()
	mean := out[0].Value().([]float32)
	a, b := float64(out[1].Value().(float32)), float64(out[2].Value().(float32))
	w, bias := float64(out[3].Value().([]float32)[0]), float64(out[4].Value().([]float32)[0])
	lg1, _ := math.Lgamma(1 + 1/a)
	lg2, _ := math.Lgamma(b)
	lg3, _ := math.Lgamma(1 + 1/a + b)
	ePi := b * math.Exp(lg1+lg2-lg3)
	for v, deg := range []float64{2, 3, 2} {
		want := ePi*deg*w + bias
		// Var(Σ z) = deg²·Var(π) + deg·E[π(1−π)] ≤ (deg² + deg)/4: 5 standard errors of the mean.
		if tol := 5 * math.Sqrt((deg*deg+deg)/4/k) * math.Abs(w); math.Abs(float64(mean[v])-want) > tol {
			t.Errorf("node %d: Monte-Carlo mean %.4f, want E[π]·deg·w + b = %.4f ± %.4f (E[π] = %.3f)", v, mean[v], want, tol, ePi)
		}
	}
}

// TestBBGDCTrainCora trains BBGDC as its reference code did, on Cora's raw binary features with
// the code's L2, for 60 epochs with 2 Monte-Carlo samples, and asks for at least 75 % test
// accuracy (the largest class is 30 % of Cora; a model whose masks or KL broke learning stays far
// below).
func TestBBGDCTrainCora(t *testing.T) {
	task := rawCoraTask(t)
	m := NewBBGDC()
	cfg := BBGDCTrainConfig()
	cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 60, 30, 2
	res, err := TrainNodeClassifier(stagtest.Backend(t), task, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("BBGDC: test %.2f%% at epoch %d (val %.2f%%), NLL %.3f, loss %.3f, %.1f s",
		100*res.TestAcc, res.BestEpoch, 100*res.ValAcc, res.TestNLL, res.FinalLoss, res.WallSeconds)
	if res.TestAcc < 0.75 {
		t.Errorf("test accuracy %.2f%%, want ≥ 75%%", 100*res.TestAcc)
	}
}
