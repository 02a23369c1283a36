package models

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/loss"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

var allPosteriors = []Posterior{PosteriorR, PosteriorRC, PosteriorRE, PosteriorREC}

// TestVIParameterCount checks each posterior against the original code's exact parameter counts
// on Cora (digest §3; the paper's Table 3 says 184k, 188k, 386k and 1186k): the base GCN's
// 184,455 plus 2 (R), 2·(1433+128) (R^C), an encoder 1433→128→128 (200,064) with per-layer
// Linear(256→1) heads for μ and log σ (R^|E|) or Linear(256→1433) and Linear(256→128) heads
// (R^|E|×C).
func TestVIParameterCount(t *testing.T) {
	task := coraTask(t)
	for _, tc := range []struct {
		p    Posterior
		want int
	}{
		{PosteriorR, 184457},
		{PosteriorRC, 187577},
		{PosteriorRE, 385547},
		{PosteriorREC, 1186873},
	} {
		t.Run(tc.p.String(), func(t *testing.T) {
			h, err := VIHyperparameters("cora", tc.p)
			if err != nil {
				t.Fatal(err)
			}
			store := model.NewStore()
			m := NewVIGCN(tc.p, VILegacy, h)
			out := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) *Node {
				return m.Logits(scope, g, task)
			}).MustCall()
			if got := out[0].Shape().Dimensions; !slices.Equal(got, []int{2708, 7}) {
				t.Errorf("logits shaped %v, want [2708 7]", got)
			}
			count := 0
			for v := range store.IterVariables() {
				if v.Trainable {
					count += v.Shape().Size()
				}
			}
			if count != tc.want {
				t.Errorf("STAG_VI(%s) on Cora has %d trainable parameters, want %d", tc.p, count, tc.want)
			}
		})
	}
}

// viToyTask is a 4-node path graph with 3 sparse features and 3 classes (6 directed edges).
func viToyTask(t *testing.T) *NodeTask {
	t.Helper()
	el, err := stagnb.UndirectedEdgeList(4, [][2]int32{{0, 1}, {1, 2}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	feats, err := stagnb.NewSparseInput(el, 3, []int32{0, 1, 3, 4, 6}, []int32{0, 1, 2, 0, 1, 2}, []float32{1, 0.5, 0.5, 1, 0.3, 0.7}, stagnb.NormBoth)
	if err != nil {
		t.Fatal(err)
	}
	return &NodeTask{Name: "toy", Edges: el, Features: feats, Labels: []int32{0, 1, 2, 0}, NumClasses: 3,
		Split: datasets.Split{Train: []int32{0, 1}, Val: []int32{2}, Test: []int32{3}}}
}

// setVariational sets every variational parameter so that layer 0's posterior is
// Normal(muFirst, e^logSigmaFirst) and the other layers' Normal(muRest, e^logSigmaRest) for every
// element: the amortised heads get zero weights and these biases; R has a single μ and log σ
// (the "first" ones).
func setVariational(t *testing.T, store *model.Store, muFirst, lsFirst, muRest, lsRest float64) {
	t.Helper()
	n := 0
	for v := range store.IterVariables() {
		if !strings.HasPrefix(v.Scope(), "/vi") || strings.Contains(v.Scope(), "encoder") {
			continue
		}
		rest := strings.Contains(v.Scope(), "layer_1") || strings.Contains(v.Scope(), "head_rest")
		sigma := v.Name() == "log_sigma" || strings.HasSuffix(v.Scope(), "log_sigma")
		value := map[[2]bool]float64{{false, false}: muFirst, {false, true}: lsFirst, {true, false}: muRest, {true, true}: lsRest}[[2]bool{rest, sigma}]
		if v.Name() == "weights" {
			value = 0
		}
		data := make([]float32, v.Shape().Size())
		for i := range data {
			data[i] = float32(value)
		}
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(data, v.Shape().Dimensions...)); err != nil {
			t.Fatalf("setting %s/%s: %v", v.Scope(), v.Name(), err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no variational parameter found under /vi")
	}
}

// TestVIObjectives checks both regularisers against their closed forms on the toy task (E = 6
// edges, C_in = 3 features in layer 0, 4 hidden):
//
//   - legacy with σ ≈ 0 (log σ = −30), so that every sample a equals μ:
//     R: 2·nlp(μ); others: nlp(μ_first) + nlp(μ_rest), nlp(a) = (a−1)²/(2σp²) + log σp + ½ log 2π;
//   - ELBO with σ > 0: RegScale·[E·3·KL(μ_first, σ_first) + E·4·KL(μ_rest, σ_rest)], KL the analytic
//     KL(Normal(μ, σ) ‖ Normal(1, σp)), and the default RegScale 1/|train| = 1/2;
//
// and both with RegScale 0.25, which multiplies the legacy term and replaces the ELBO's 1/2.
func TestVIObjectives(t *testing.T) {
	task := viToyTask(t)
	const sp = 0.5
	nlp := func(a float64) float64 { return (a-1)*(a-1)/(2*sp*sp) + math.Log(sp) + 0.5*math.Log(2*math.Pi) }
	kl := func(mu, ls float64) float64 {
		s := math.Exp(ls)
		return math.Log(sp) - ls + (s*s+(mu-1)*(mu-1))/(2*sp*sp) - 0.5
	}
	const e, f, hid = 6, 3, 4
	for _, p := range allPosteriors {
		for _, tc := range []struct {
			obj   VIObjective
			scale float64
		}{{VILegacy, 0}, {VIELBO, 0}, {VILegacy, 0.25}, {VIELBO, 0.25}} {
			obj := tc.obj
			muF, lsF, muR, lsR := 1.3, -30.0, 0.8, -30.0
			if obj == VIELBO {
				lsF, lsR = math.Log(0.4), math.Log(0.7)
			}
			if p == PosteriorR { // one μ and σ for all layers
				muR, lsR = muF, lsF
			}
			var want float64
			switch {
			case obj == VILegacy && p == PosteriorR:
				want = 2 * nlp(muF)
			case obj == VILegacy:
				want = nlp(muF) + nlp(muR)
			case tc.scale == 0:
				want = 0.5 * (e*f*kl(muF, lsF) + e*hid*kl(muR, lsR)) // 1/|train| = 1/2
			default:
				want = e*f*kl(muF, lsF) + e*hid*kl(muR, lsR)
			}
			if tc.scale != 0 {
				want *= tc.scale
			}
			t.Run(fmt.Sprintf("%s/%s/scale=%g", p, obj, tc.scale), func(t *testing.T) {
				m := &VIGCN{Posterior: p, Objective: obj, Layers: 2, Hidden: hid, Activation: "relu",
					Hyper: VIHyper{Mu0: 0.3, LogSigma0: 0.5, SigmaPrior: sp}, RegScale: tc.scale}
				store := model.NewStore()
				backend := stagtest.Backend(t)
				model.MustNewExec(backend, store, func(scope *model.Scope, g *Graph) *Node {
					return m.Logits(scope, g, task)
				}).MustCall()
				setVariational(t, store, muF, lsF, muR, lsR)
				out, err := model.MustNewExec(backend, store, func(scope *model.Scope, g *Graph) []*Node {
					store.SetTraining(g, true)
					logits := m.Logits(scope, g, task)
					reg := train.GetRegularizationLoss(g)
					if reg == nil {
						reg = Const(g, float32(math.NaN())) // reported below
					}
					return []*Node{logits, reg}
				}).Call()
				if err != nil {
					t.Fatalf("%+v", err)
				}
				got := float64(out[1].Value().(float32))
				if math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
					t.Errorf("regulariser %.6f, want %.6f", got, want)
				}
				// Not training: no regulariser.
				model.MustNewExec(backend, store, func(scope *model.Scope, g *Graph) *Node {
					logits := m.Logits(scope, g, task)
					if train.GetRegularizationLoss(g) != nil {
						t.Error("regularisation loss added outside training")
					}
					return logits
				}).MustCall()
			})
		}
	}
}

// TestVIGradientsReachVariationalParameters takes two Adam steps (both objectives) on the toy
// task, which runs the same sparse layer-0 path as Cora, for every posterior, and checks that
// every variational parameter and encoder weight moved between the two steps: the gradient flows
// through the reparameterised noise, the per-pair weights and the amortisation heads.
func TestVIGradientsReachVariationalParameters(t *testing.T) {
	task := viToyTask(t)
	idx := task.Split.Train
	labels := make([]int32, len(idx))
	for i, v := range idx {
		labels[i] = task.Labels[v]
	}
	batch := train.Batch{
		Inputs: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(slices.Clone(idx), len(idx), 1)},
		Labels: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(slices.Clone(labels), len(labels), 1)},
	}
	for _, p := range allPosteriors {
		for _, obj := range []VIObjective{VILegacy, VIELBO} {
			t.Run(p.String()+"/"+obj.String(), func(t *testing.T) {
				h, _ := VIHyperparameters("cora", p)
				m := &VIGCN{Posterior: p, Objective: obj, Layers: 3, Hidden: 4, Activation: "tanh", Hyper: h}
				store := model.NewStore()
				store.SetParam(model.ParamInitialSeed, int64(5))
				if err := store.SetRNGStateFromSeed(5); err != nil {
					t.Fatal(err)
				}
				trainer := train.NewTrainer(stagtest.Backend(t), store, func(scope *model.Scope, nodes *Node) *Node {
					return Gather(m.Logits(scope, nodes.Graph(), task), nodes)
				}, loss.SparseCategoricalCrossEntropyLogits, optimizer.Adam().LearningRate(1e-3).Done(), nil, nil)
				initial := map[string][]float32{}
				for step := range 2 {
					metrics, err := trainer.TrainStep(batch)
					if err != nil {
						t.Fatal(err)
					}
					if l := metrics[0].Value().(float32); math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
						t.Fatalf("step %d: loss %v", step, l)
					}
					if step == 0 { // the variables exist only now: record them after the first step
						for v := range store.IterVariables() {
							if strings.HasPrefix(v.Scope(), "/vi") {
								initial[v.Path()] = tensors.MustCopyFlatData[float32](v.MustValue())
							}
						}
					}
				}
				if len(initial) == 0 {
					t.Fatal("no variational parameter under /vi")
				}
				for v := range store.IterVariables() {
					if before, ok := initial[v.Path()]; ok && slices.Equal(before, tensors.MustCopyFlatData[float32](v.MustValue())) {
						t.Errorf("%s did not change in an Adam step", v.Path())
					}
				}
				// The data term alone (no regulariser outside training) has a non-zero gradient
				// with respect to every variational parameter.
				var paths []string
				norms := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) []*Node {
					logits := Gather(m.Logits(scope, g, task), Const(g, batch.Inputs[0]))
					ce := ReduceAllMean(loss.SparseCategoricalCrossEntropyLogits([]*Node{Const(g, batch.Labels[0])}, []*Node{logits}))
					var vars []*Node
					for v := range store.IterVariables() {
						if _, ok := initial[v.Path()]; ok {
							paths = append(paths, v.Path())
							vars = append(vars, v.NodeValue(g))
						}
					}
					var out []*Node
					for _, gr := range Gradient(ce, vars...) {
						out = append(out, ReduceAllSum(Abs(gr)))
					}
					return out
				}).MustCall()
				for i, n := range norms {
					if v := n.Value().(float32); !(v > 0) {
						t.Errorf("∂(cross-entropy)/∂%s = 0", paths[i])
					}
				}
			})
		}
	}
}

// TestVITrainCoraQuick trains STAG_VI(ℝ^C) with the legacy objective on Cora for 60 epochs
// (learning rate 1e-2, 4 Monte-Carlo samples) and asks for ≥ 70 % test accuracy: the gradients
// reach the GCN weights through the reparameterised noise. It starts from σ = e^-1, not from
// Table 9's σ0 = e^2, which the regulariser needs far more than 60 epochs to shrink (60.8 % after
// 100 epochs at learning rate 1e-2).
func TestVITrainCoraQuick(t *testing.T) {
	task := coraTask(t)
	m := NewVIGCN(PosteriorRC, VILegacy, VIHyper{Mu0: 0.25, LogSigma0: -1, SigmaPrior: 1})
	cfg := QuickVIProtocol()
	cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 60, 30, 4
	res, err := TrainNodeClassifier(stagtest.Backend(t), task, m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: test %.2f%% at epoch %d (val %.2f%%), loss %.3f, %.1f s", m, 100*res.TestAcc, res.BestEpoch, 100*res.ValAcc, res.FinalLoss, res.WallSeconds)
	if res.TestAcc < 0.70 {
		t.Errorf("test accuracy %.2f%%, want ≥ 70%%", 100*res.TestAcc)
	}
}

func TestParsePosteriorAndObjective(t *testing.T) {
	for _, p := range allPosteriors {
		if q, err := ParsePosterior(p.String()); err != nil || q != p {
			t.Errorf("ParsePosterior(%q) = %v, %v", p, q, err)
		}
	}
	for _, o := range []VIObjective{VILegacy, VIELBO} {
		if q, err := ParseVIObjective(o.String()); err != nil || q != o {
			t.Errorf("ParseVIObjective(%q) = %v, %v", o, q, err)
		}
	}
	if _, err := ParsePosterior("rce"); err == nil {
		t.Error("ParsePosterior(rce): no error")
	}
	if _, err := VIHyperparameters("pubmed", PosteriorR); err == nil {
		t.Error("VIHyperparameters(pubmed): no error")
	}
	// Two spot checks of Table 9.
	if h, _ := VIHyperparameters("cora", PosteriorREC); h != (VIHyper{0.5, 1.0, 0.5}) {
		t.Errorf("Table 9 Cora R^|E|×C = %+v", h)
	}
	if h, _ := VIHyperparameters("freesolv", PosteriorRE); h != (VIHyper{0.5, -2.0, 1.0}) {
		t.Errorf("Table 9 FreeSolv R^|E| = %+v", h)
	}
}

// TestRECParamsAtMatchesDenseGrid checks R^|E|×C's μ and log σ at every position of layer 0's
// [E, C_in] grid, computed per position from the node embeddings (paramsAt), against the dense
// grid emb·W + b: they differ by at most twice the float32 bound of a (2H + 1)-term sum,
// γ_{2H+1}·(|emb|·|W| + |b|), γ_n = n·u/(1 − n·u), u = 2⁻²⁴.
func TestRECParamsAtMatchesDenseGrid(t *testing.T) {
	task := viToyTask(t)
	h, _ := VIHyperparameters("cora", PosteriorREC)
	const hidden = 5
	m := &VIGCN{Posterior: PosteriorREC, Objective: VILegacy, Layers: 2, Hidden: hidden, Activation: "tanh", Hyper: h}
	e, f := task.Edges.NumEdges(), task.Features.NumFeatures()
	var edgeIdx, colIdx []int32
	for i := range e {
		for c := range f {
			edgeIdx, colIdx = append(edgeIdx, int32(i)), append(colIdx, int32(c))
		}
	}
	k := len(edgeIdx)
	store := model.NewStore()
	store.SetParam(model.ParamInitialSeed, int64(3))
	exec := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) []*Node {
		vg := m.graphState(scope, g, task)
		edge, col := Reshape(Const(g, edgeIdx), k, 1), Reshape(Const(g, colIdx), k, 1)
		mu, logSigma := vg.paramsAt(0, edge, col)
		outs := []*Node{mu, logSigma}
		for _, name := range []string{"mu", "log_sigma"} {
			w, b := vg.head(m.group(0), name, f)
			dense := Add(MatMul(vg.emb, w), Reshape(b, 1, f))
			abs := Add(MatMul(Abs(vg.emb), Abs(w)), Reshape(Abs(b), 1, f))
			outs = append(outs, Reshape(dense, k), Reshape(abs, k))
		}
		return outs
	})
	res := exec.MustCall()
	v := make([][]float32, len(res))
	for i, r := range res {
		v[i] = tensors.MustCopyFlatData[float32](r)
	}
	n := float64(2*hidden + 1)
	gamma := n * math.Ldexp(1, -24) / (1 - n*math.Ldexp(1, -24))
	for j, name := range []string{"μ", "log σ"} {
		got, dense, abs := v[j], v[2+2*j], v[3+2*j]
		for i := range k {
			if d := math.Abs(float64(got[i]) - float64(dense[i])); d > 2*gamma*float64(abs[i]) {
				t.Errorf("%s at edge %d, feature %d: %g, dense grid %g (difference %g > bound %g)", name, edgeIdx[i], colIdx[i], got[i], dense[i], d, 2*gamma*float64(abs[i]))
			}
		}
		if slices.Equal(got, make([]float32, k)) {
			t.Errorf("%s: all zero", name)
		}
	}
}
