package models

import (
	"fmt"
	"math"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/internal/enum"
	"github.com/stagnb/stagnb/stagnb"
)

// Posterior is the dimensionality of STAG-VI's variational parameters {μ_Z, σ_Z}, the paper's
// section "Variational Inference with STAG" (Table 3).
type Posterior int

const (
	// PosteriorR is STAG_VI(ℝ): one scalar μ and one scalar log σ shared by all layers, edges and
	// features ("r").
	PosteriorR Posterior = iota
	// PosteriorRC is STAG_VI(ℝ^C): a μ and a log σ per feature of each layer's input, as the
	// original code did (per layer, so really ℝ^{L×C}) ("rc").
	PosteriorRC
	// PosteriorRE is STAG_VI(ℝ^|E|): per-edge μ and log σ amortised from an encoder GCN, shared
	// by the features of the edge ("re").
	PosteriorRE
	// PosteriorREC is STAG_VI(ℝ^{|E|×C}): per-edge, per-feature μ and log σ amortised from an
	// encoder GCN ("rec").
	PosteriorREC
)

// ParsePosterior reads r, rc, re or rec.
func ParsePosterior(s string) (Posterior, error) {
	return enum.Parse[Posterior]("posterior", s, posteriorNames...)
}

var posteriorNames = []string{"r", "rc", "re", "rec"}

// String returns the posterior's name as ParsePosterior reads it.
func (p Posterior) String() string { return enum.Name("Posterior", int(p), posteriorNames...) }

// Amortised reports whether the posterior's parameters come from the encoder network.
func (p Posterior) Amortised() bool { return p == PosteriorRE || p == PosteriorREC }

// VIObjective is the regulariser that STAG-VI adds to the mean cross-entropy of the training nodes.
type VIObjective int

const (
	// VILegacy is the original code's regulariser: −mean log p(a) of the noise samples under the
	// prior Normal(1, σ_prior), averaged over the elements of the `[E, C_in]` noise, with no
	// entropy term. R: −2·mean over layer 0's sample only; the others: −mean(log p(a_first)) −
	// mean(log p(a_rest)), as the submitted scripts (digest §3; the earlier Cora ℝ^|E|×C script,
	// cora_backup, weighted both terms by 0.5) ("legacy").
	VILegacy VIObjective = iota
	// VIELBO is the paper's negative ELBO: the analytic KL(q‖p) of Normal(μ, σ) to the prior
	// Normal(1, σ_prior), summed over every noise element of every layer, times VIGCN.RegScale
	// ("elbo").
	VIELBO
)

// ParseVIObjective reads legacy or elbo.
func ParseVIObjective(s string) (VIObjective, error) {
	return enum.Parse[VIObjective]("VI objective", s, viObjectiveNames...)
}

var viObjectiveNames = []string{"legacy", "elbo"}

// String returns the objective's name as ParseVIObjective reads it.
func (o VIObjective) String() string { return enum.Name("VIObjective", int(o), viObjectiveNames...) }

// VIHyper are the hyperparameters of the paper's Table 9, used as the original code used them,
// which is not what the paper's appendix says of μ0: there μ0 is the initial value of μ (the
// initial bias of the head that predicts μ); in the code, and here, Mu0 is the standard deviation
// of the random Normal(1, Mu0) initialisation of μ (of the per-feature μ, or of the amortised μ
// head's bias; unused by PosteriorR, whose μ starts at 1). LogSigma0 is the initial log σ (or log σ
// head bias), SigmaPrior the standard deviation of the prior Normal(1, SigmaPrior).
type VIHyper struct {
	Mu0        float64 `json:"mu0"`
	LogSigma0  float64 `json:"log_sigma0"`
	SigmaPrior float64 `json:"sigma_prior"`
}

// viTable9 is the paper's Table 9 ("Hyperparameters used in VI experiments"), columns
// (μ0, log σ0, σ_prior) per dataset and posterior.
var viTable9 = map[string]map[Posterior]VIHyper{
	"cora": {
		PosteriorR:   {0.5, 1.0, 0.2},
		PosteriorRC:  {0.25, 2.0, 1.0},
		PosteriorRE:  {0.5, 1.5, 0.5},
		PosteriorREC: {0.5, 1.0, 0.5},
	},
	"citeseer": {
		PosteriorR:   {0.5, 0.0, 0.5},
		PosteriorRC:  {0.25, 2.0, 0.5},
		PosteriorRE:  {0.5, 1.5, 0.5},
		PosteriorREC: {0.5, 1.0, 1.0},
	},
	"esol": {
		PosteriorR:   {0.5, -1.0, 0.1},
		PosteriorRC:  {1.0, 0.0, 0.5},
		PosteriorRE:  {0.1, 0.0, 1.0},
		PosteriorREC: {0.1, -1.0, 0.1},
	},
	"freesolv": {
		PosteriorR:   {0.1, -1.0, 1.0},
		PosteriorRC:  {0.1, 0.0, 0.5},
		PosteriorRE:  {0.5, -2.0, 1.0},
		PosteriorREC: {1.0, 0.0, 0.1},
	},
}

// VIHyperparameters returns the hyperparameters of posterior p on dataset (cora, citeseer, esol
// or freesolv) from Table 9 of Wang & Karaletsos, "Stochastic Aggregation in Graph Neural
// Networks" (ICML 2021), supplementary material, "Hyperparameters used in VI experiments".
func VIHyperparameters(dataset string, p Posterior) (VIHyper, error) {
	byPosterior, ok := viTable9[strings.ToLower(dataset)]
	if !ok {
		return VIHyper{}, fmt.Errorf("models.VIHyperparameters: no Table 9 entry for dataset %q (want cora, citeseer, esol or freesolv)", dataset)
	}
	h, ok := byPosterior[p]
	if !ok {
		return VIHyper{}, fmt.Errorf("models.VIHyperparameters: unknown posterior %s", p)
	}
	return h, nil
}

// VIProtocol is the original code's Table 3 protocol: Adam with learning rate 1e-3 on every
// parameter, no weight decay (the code overwrote its grouped optimiser), 3000 epochs, evaluation
// every 100 epochs with 32 Monte-Carlo samples (digest §3, §9).
func VIProtocol() TrainConfig {
	return TrainConfig{LearningRate: 1e-3, WeightDecayFirst: 0, Epochs: 3000, EvalEvery: 100, MCSamples: 32, Seed: 1}
}

// QuickVIProtocol shrinks VIProtocol to run in about a minute on a CPU (100 epochs, learning rate
// 1e-2, 8 samples); its results are not comparable to the paper.
func QuickVIProtocol() TrainConfig {
	c := VIProtocol()
	c.LearningRate, c.Epochs, c.EvalEvery, c.MCSamples = 1e-2, 100, 50, 8
	return c
}

// VIGCN is STAG-VI for node classification: a GCN whose every aggregation multiplies the input
// features of each message by reparameterised noise a ~ q = Normal(μ, σ), σ = exp(log σ), shaped
// `[E, C_in(l)]` (aggregate first, as the original code's parameter counts prove, digest §3), with
// μ and σ learned as Posterior says. The noise stays on at evaluation (the trainer averages
// Monte-Carlo samples). While training it adds its Objective with train.AddRegularizationLoss.
//
// The main layers are scoped "layer_0", "layer_1", … under scope (weights "gcn/weights",
// "gcn/bias", as GCN); the variational parameters and the encoder live under "vi".
type VIGCN struct {
	Posterior Posterior
	Objective VIObjective
	// Layers is the number of GCN layers (paper: 2) and Hidden their width (128).
	Layers, Hidden int
	// Activation between layers and in the encoder: "relu" (paper and the VI launcher).
	Activation string
	// Hyper are the Table 9 hyperparameters.
	Hyper VIHyper
	// RegScale multiplies the regulariser. VIELBO: the KL sum; 0 means 1/(number of training
	// nodes), which makes the loss (mean cross-entropy + scaled KL) the negative ELBO per training
	// node. VILegacy: the negative log prior; 0 means 1, as the submitted scripts (the authors'
	// earlier Cora ℝ^|E|×C script, cora_backup, weighted it 0.5).
	RegScale float64
	// RegSamples is the number of positions of layer 0's `[E, C_in]` noise grid drawn uniformly
	// at every step to estimate the regulariser where it cannot be summed in closed form (legacy
	// for every posterior, ELBO for PosteriorREC); 0 means the number of edges. Layer 0's noise is
	// only drawn at the (edge, non-zero feature) pairs, which are not a uniform sample of the grid.
	RegSamples int
}

// NewVIGCN returns the paper's 2-layer, 128-wide, ReLU STAG-VI model with posterior p,
// objective obj and hyperparameters h.
func NewVIGCN(p Posterior, obj VIObjective, h VIHyper) *VIGCN {
	return &VIGCN{Posterior: p, Objective: obj, Layers: 2, Hidden: 128, Activation: "relu", Hyper: h}
}

// String describes the model, e.g. "stag_vi(rec, legacy, μ0=0.5, logσ0=1, σ_prior=0.5)", with
// the regulariser's weight when RegScale sets one ("legacy×0.5").
func (m *VIGCN) String() string {
	return fmt.Sprintf("stag_vi(%s, %s%s, μ0=%g, logσ0=%g, σ_prior=%g)", m.Posterior, m.Objective, regScaleSuffix(m.RegScale), m.Hyper.Mu0, m.Hyper.LogSigma0, m.Hyper.SigmaPrior)
}

// regScaleSuffix is "×w" for a regulariser weight w set, "" for 0 (the objective's default).
func regScaleSuffix(w float64) string {
	if w == 0 {
		return ""
	}
	return fmt.Sprintf("×%g", w)
}

// viGraph holds what a VIGCN computes once per graph and shares between the Monte-Carlo
// samples of an evaluation graph: the deterministic encoder's edge embeddings and the variational
// parameters (they do not depend on the noise).
type viGraph struct {
	scope    *model.Scope
	task     *NodeTask
	m        *VIGCN
	edges    *stagnb.Edges
	emb      *Node         // `[E, 2H]` = concat(h_src, h_dst) of the encoder, amortised posteriors only
	nodeEmb  *Node         // `[N, H]`: the encoder's h, amortised posteriors only
	heads    map[int]*Node // per parameter group: h·[W_μ top | W_μ bottom | W_logσ top | W_logσ bottom] (PosteriorREC)
	pairMu   *Node         // `[P]` layer 0's μ at the (edge, non-zero feature) pairs
	pairLogS *Node         // `[P]` layer 0's log σ at the pairs
	grid     map[int]qGrid // per layer ≥ 1 (amortised: key 1 for all of them)
}

// qGrid are μ and log σ broadcastable to a layer's `[E, C]` noise: `[1, 1]`, `[1, C]`, `[E, 1]`
// or `[E, C]`.
type qGrid struct{ mu, logSigma *Node }

// Logits builds the model and returns `Float32[num_nodes, num_classes]`.
func (m *VIGCN) Logits(scope *model.Scope, g *Graph, task *NodeTask) *Node {
	if m.Layers < 1 || m.Hidden < 1 {
		exceptions.Panicf("models.VIGCN: Layers=%d and Hidden=%d must be ≥ 1", m.Layers, m.Hidden)
	}
	if m.Hyper.SigmaPrior <= 0 {
		exceptions.Panicf("models.VIGCN: σ_prior=%g must be > 0", m.Hyper.SigmaPrior)
	}
	vg := m.graphState(scope, g, task)
	act := activationFn(m.Activation)
	sparse := task.Features
	numEdges := task.Edges.NumEdges()
	training := scope.IsTraining(g)

	var h, zRest *Node
	var restNLP []*Node // −mean log p(a) of each layer ≥ 1's sample (legacy)
	for l := range m.Layers {
		in, out := m.Hidden, m.Hidden
		if l == 0 {
			in = sparse.NumFeatures()
		}
		if l == m.Layers-1 {
			out = task.NumClasses
		}
		ls := scope.At("layer_%d", l).At("gcn")
		w := ls.WithInitializer(initializer.XavierUniformFn(ls)).VariableWithShape("weights", shapes.Make(dtypes.Float32, in, out)).NodeValue(g)
		b := ls.WithInitializer(initializer.Zero).VariableWithShape("bias", shapes.Make(dtypes.Float32, out)).NodeValue(g)
		if l == 0 {
			eps := stagnb.StandardNormal(scope, g, shapes.Make(dtypes.Float32, sparse.NumPairs()))
			z := Add(vg.pairMu, Mul(Exp(vg.pairLogS), eps))
			h = sparse.AggregateWeightedMatMul(z, w)
		} else {
			var z *Node
			if m.Posterior.Amortised() && zRest != nil {
				z = zRest // the original code drew one a_rest for all layers ≥ 1
			} else {
				q := vg.gridAt(l)
				eps := stagnb.StandardNormal(scope, g, shapes.Make(dtypes.Float32, numEdges, in))
				z = Add(q.mu, Mul(Exp(q.logSigma), eps))
				restNLP = append(restNLP, ReduceAllMean(m.negLogPrior(z)))
				if m.Posterior.Amortised() {
					zRest = z
				}
			}
			h = stagnb.MatMulPadded(weightedAggregate(h, vg.edges, z, sparse.Norm()), w)
		}
		h = Add(h, Reshape(b, 1, out))
		if l < m.Layers-1 {
			h = act(h)
		}
	}
	if training {
		train.AddRegularizationLoss(m.regulariser(vg, restNLP))
	}
	return h
}

// legacyRegulariser is the authors' code's regulariser (VILegacy) from the −mean log p(a) of each
// layer's sample: layer 0's term (twice for PosteriorR, whose one sample all layers share) plus
// the mean of the terms of the layers ≥ 1 (restNLP), weighted by regScale (0: 1). VIGCN and
// VIGraphRegressor share it.
func legacyRegulariser(posterior Posterior, firstNLP *Node, restNLP []*Node, regScale float64) *Node {
	reg := firstNLP
	switch {
	case posterior == PosteriorR:
		reg = MulScalar(reg, 2)
	case len(restNLP) > 0:
		rest := restNLP[0]
		for _, r := range restNLP[1:] {
			rest = Add(rest, r)
		}
		reg = Add(reg, DivScalar(rest, float64(len(restNLP))))
	}
	if regScale != 0 {
		reg = MulScalar(reg, regScale)
	}
	return reg
}

// regulariser returns the objective's scalar term for one forward pass; restNLP are the legacy
// terms of the layers ≥ 1 samples.
func (m *VIGCN) regulariser(vg *viGraph, restNLP []*Node) *Node {
	g := vg.edges.Src.Graph()
	e, f := vg.task.Edges.NumEdges(), vg.task.Features.NumFeatures()
	k := m.RegSamples
	if k <= 0 {
		k = e
	}
	// Uniform positions of layer 0's [E, F] grid.
	sampleGrid := func() (mu, logSigma *Node) {
		edge := vg.scope.RandomIntN(g, int32(e), shapes.Make(dtypes.Int32, k, 1))
		col := vg.scope.RandomIntN(g, int32(f), shapes.Make(dtypes.Int32, k, 1))
		return vg.paramsAt(0, edge, col)
	}
	switch m.Objective {
	case VILegacy:
		mu, logSigma := sampleGrid()
		a := Add(mu, Mul(Exp(logSigma), stagnb.StandardNormal(vg.scope, g, mu.Shape())))
		return legacyRegulariser(m.Posterior, ReduceAllMean(m.negLogPrior(a)), restNLP, m.RegScale)
	case VIELBO:
		var kl *Node
		if m.Posterior == PosteriorREC {
			mu, logSigma := sampleGrid()
			kl = MulScalar(ReduceAllSum(m.normalKL(mu, logSigma)), float64(e)*float64(f)/float64(k))
		} else {
			kl = m.gridKL(vg.gridAt(0), e, f)
		}
		for l := 1; l < m.Layers; l++ {
			if m.Posterior.Amortised() && l > 1 {
				break // one a_rest for all layers ≥ 1
			}
			kl = Add(kl, m.gridKL(vg.gridAt(l), e, m.Hidden))
		}
		scale := m.RegScale
		if scale == 0 {
			scale = 1 / float64(len(vg.task.Split.Train))
		}
		return MulScalar(kl, scale)
	}
	exceptions.Panicf("models.VIGCN: unknown objective %d", m.Objective)
	return nil
}

// gridKL sums KL(q‖p) over a `[rows, cols]` noise grid whose parameters q broadcast to it.
func (m *VIGCN) gridKL(q qGrid, rows, cols int) *Node {
	d := q.mu.Shape().Dimensions
	repeat := float64(rows/d[0]) * float64(cols/d[1])
	return MulScalar(ReduceAllSum(m.normalKL(q.mu, q.logSigma)), repeat)
}

// normalKL is the element-wise KL(Normal(μ, e^logσ) ‖ Normal(1, σ_prior)) =
// log σ_prior − log σ + (σ² + (μ−1)²)/(2σ_prior²) − ½.
func (m *VIGCN) normalKL(mu, logSigma *Node) *Node {
	sp := m.Hyper.SigmaPrior
	quad := DivScalar(Add(Exp(MulScalar(logSigma, 2)), Square(AddScalar(mu, -1))), 2*sp*sp)
	return AddScalar(Sub(quad, logSigma), math.Log(sp)-0.5)
}

// negLogPrior is the element-wise −log p(a) under the prior Normal(1, σ_prior).
func (m *VIGCN) negLogPrior(a *Node) *Node { return negLogNormalPrior(a, m.Hyper.SigmaPrior) }

// graphState returns the per-graph state of m, building the encoder and the variational
// parameters at the first call for g.
func (m *VIGCN) graphState(scope *model.Scope, g *Graph, task *NodeTask) *viGraph {
	const param = "/stagnb_vi_graph"
	var cache map[*VIGCN]*viGraph
	if v, ok := model.GetGraphParam(g, param); ok {
		cache = v.(map[*VIGCN]*viGraph)
	} else {
		cache = map[*VIGCN]*viGraph{}
		model.SetGraphParam(g, param, cache)
	}
	if vg, ok := cache[m]; ok && vg.task == task {
		return vg
	}
	vg := &viGraph{scope: scope, task: task, m: m, edges: task.Edges.Const(g), grid: map[int]qGrid{}, heads: map[int]*Node{}}
	if m.Posterior.Amortised() {
		vg.nodeEmb = m.encode(scope.At("vi"), vg.edges, task)
		vg.emb = Concatenate([]*Node{Gather(vg.nodeEmb, vg.edges.Src), Gather(vg.nodeEmb, vg.edges.Dst)}, 1)
	}
	edge, col := task.Features.PairIndices(g)
	vg.pairMu, vg.pairLogS = vg.paramsAt(0, edge, col)
	cache[m] = vg
	return vg
}

// encode runs the deterministic encoder (two GCN layers in → H → H with activation, no noise, on
// the same graph and the raw features) and returns the node embeddings h `[N, H]`; an edge's
// embedding is concat(h_src, h_dst) `[2H]`.
func (m *VIGCN) encode(scope *model.Scope, edges *stagnb.Edges, task *NodeTask) *Node {
	act := activationFn(m.Activation)
	h := stagnb.NewGCNFromSparse(scope.At("encoder_0"), task.Features, edges, m.Hidden).
		Noise(nil).Placement(stagnb.DGLOrder).Activation(act).Done()
	return stagnb.NewGCN(scope.At("encoder_1"), h, edges, m.Hidden).
		Noise(nil).Norm(task.Features.Norm()).Placement(stagnb.DGLOrder).Activation(act).Done()
}

// group is the parameter group of layer l: per layer for PosteriorRC, first/rest heads for the
// amortised posteriors (the original code's a_first and a_rest), one for PosteriorR.
func (m *VIGCN) group(l int) int {
	switch {
	case m.Posterior == PosteriorR:
		return 0
	case m.Posterior.Amortised():
		return min(l, 1)
	}
	return l
}

// width is the input width of layer l, the number of columns of its noise.
func (vg *viGraph) width(l int) int {
	if l == 0 {
		return vg.task.Features.NumFeatures()
	}
	return vg.m.Hidden
}

// viScalarParams returns PosteriorR's μ (initialised to 1, as the original code hard-coded) and
// log σ (log σ0), the scalar variables "mu" and "log_sigma" of scope vi.
func viScalarParams(vi *model.Scope, g *Graph, h VIHyper) (mu, logSigma *Node) {
	mu = vi.VariableWithValue("mu", float32(1)).NodeValue(g)
	logSigma = vi.VariableWithValue("log_sigma", float32(h.LogSigma0)).NodeValue(g)
	return mu, logSigma
}

// viFeatureParams returns PosteriorRC's μ ~ Normal(1, μ0) and constant log σ0 of layer l,
// `[width]`, the variables of scope vi/layer_<l>.
func viFeatureParams(vi *model.Scope, g *Graph, l, width int, h VIHyper) (mu, logSigma *Node) {
	s := vi.At("layer_%d", l)
	shape := shapes.Make(dtypes.Float32, width)
	mu = s.WithInitializer(normalInit(s, 1, h.Mu0)).VariableWithShape("mu", shape).NodeValue(g)
	logSigma = s.WithInitializer(constInit(h.LogSigma0)).VariableWithShape("log_sigma", shape).NodeValue(g)
	return mu, logSigma
}

// viHead returns an amortised head for the edge embeddings emb `[E, in]`: the weights `[in, out]`
// and bias `[out]` of a Linear(in → out) predicting name ("mu" or "log_sigma") for layer 0 (first)
// or the other layers, under scope vi/head_first or vi/head_rest (VIGraphRegressor's PosteriorRE
// uses its first head for every layer), initialised as the original code
// (weights Normal(0, 1e-2) for μ, Normal(0, 1e-3) for log σ; μ bias ~ Normal(1, μ0), log σ bias =
// log σ0).
func viHead(vi *model.Scope, g *Graph, first bool, name string, emb *Node, out int, h VIHyper) (w, b *Node) {
	group := "rest"
	if first {
		group = "first"
	}
	s := vi.At("head_%s", group).At("%s", name)
	wStd, bInit := 1e-2, normalInit(s, 1, h.Mu0)
	if name == "log_sigma" {
		wStd, bInit = 1e-3, constInit(h.LogSigma0)
	}
	in := emb.Shape().Dimensions[1]
	w = s.WithInitializer(initializer.RandomNormalFn(s, wStd)).VariableWithShape("weights", shapes.Make(dtypes.Float32, in, out)).NodeValue(g)
	b = s.WithInitializer(bInit).VariableWithShape("bias", shapes.Make(dtypes.Float32, out)).NodeValue(g)
	return w, b
}

// head returns the amortised head of the given parameter group (0: layer 0's) and parameter.
func (vg *viGraph) head(group int, name string, out int) (w, b *Node) {
	return viHead(vg.scope.At("vi"), vg.edges.Src.Graph(), group == 0, name, vg.emb, out, vg.m.Hyper)
}

// headOut is the output width of the heads of layer l: 1 for PosteriorRE, C_in(l) for PosteriorREC.
func (vg *viGraph) headOut(l int) int {
	if vg.m.Posterior == PosteriorRE {
		return 1
	}
	return vg.width(l)
}

// gridAt returns layer l's μ and log σ broadcastable to its `[E, C_in(l)]` noise. It never builds
// a dense `[E, C_in(0)]` for layer 0 (PosteriorREC's layer 0 panics: use paramsAt).
func (vg *viGraph) gridAt(l int) qGrid {
	key := vg.m.group(l)
	if l == 0 {
		key = -1 // layer 0's own entry, even where its parameters are shared
	}
	if q, ok := vg.grid[key]; ok {
		return q
	}
	var q qGrid
	switch vg.m.Posterior {
	case PosteriorR:
		mu, ls := viScalarParams(vg.scope.At("vi"), vg.edges.Src.Graph(), vg.m.Hyper)
		q = qGrid{Reshape(mu, 1, 1), Reshape(ls, 1, 1)}
	case PosteriorRC:
		mu, ls := viFeatureParams(vg.scope.At("vi"), vg.edges.Src.Graph(), l, vg.width(l), vg.m.Hyper)
		c := vg.width(l)
		q = qGrid{Reshape(mu, 1, c), Reshape(ls, 1, c)}
	case PosteriorRE, PosteriorREC:
		if l == 0 && vg.m.Posterior == PosteriorREC {
			exceptions.Panicf("models.VIGCN: layer 0's [E, %d] parameters of posterior rec are only computed at given positions", vg.width(0))
		}
		out := vg.headOut(l)
		wm, bm := vg.head(vg.m.group(l), "mu", out)
		ws, bs := vg.head(vg.m.group(l), "log_sigma", out)
		q = qGrid{Add(stagnb.MatMulPadded(vg.emb, wm), Reshape(bm, 1, out)), Add(stagnb.MatMulPadded(vg.emb, ws), Reshape(bs, 1, out))}
	default:
		exceptions.Panicf("models.VIGCN: unknown posterior %d", vg.m.Posterior)
	}
	vg.grid[key] = q
	return q
}

// paramsAt returns layer l's μ and log σ `[K]` at K positions (edge, col), both `Int32[K, 1]`,
// of its `[E, C_in(l)]` noise grid, without forming the grid.
func (vg *viGraph) paramsAt(l int, edge, col *Node) (mu, logSigma *Node) {
	k := edge.Shape().Dimensions[0]
	if vg.m.Posterior == PosteriorREC {
		// μ[e, c] = emb[e]·W[:, c] + b[c] = h[src_e]·W_top[:, c] + h[dst_e]·W_bottom[:, c] + b[c]:
		// one [N, H]·[H, 4·out] matmul for both heads, then four scalars per position. (Gathering
		// K embedding rows and weight columns instead moves K·2H values each way: 61M for Cora's
		// pairs, and as many again in the backward pass.)
		group, out := vg.m.group(l), vg.headOut(l)
		a := vg.nodeHeads(group, out)
		src, dst := Gather(vg.edges.Src, edge), Gather(vg.edges.Dst, edge) // [K, 1]
		pick := func(nodes *Node, offset int) *Node {
			return Gather(a, Concatenate([]*Node{nodes, AddScalar(col, offset)}, 1)) // [K]
		}
		bias := func(name string) *Node {
			_, b := vg.head(group, name, out)
			return Reshape(Gather(Reshape(b, out, 1), col), k)
		}
		mu = Add(Add(pick(src, 0), pick(dst, out)), bias("mu"))
		logSigma = Add(Add(pick(src, 2*out), pick(dst, 3*out)), bias("log_sigma"))
		return mu, logSigma
	}
	q := vg.gridAt(l)
	pick := func(x *Node) *Node {
		d := x.Shape().Dimensions
		switch {
		case d[0] == 1 && d[1] == 1:
			return BroadcastToDims(Reshape(x), k)
		case d[0] == 1:
			return Reshape(Gather(Reshape(x, d[1], 1), col), k)
		case d[1] == 1:
			return Reshape(Gather(x, edge), k)
		}
		exceptions.Panicf("models.VIGCN: unexpected parameter shape %s", x.Shape())
		return nil
	}
	return pick(q.mu), pick(q.logSigma)
}

// nodeHeads returns h·[W_μ top | W_μ bottom | W_logσ top | W_logσ bottom] `[N, 4·out]` for the
// amortised heads of a parameter group (W's top half multiplies an edge's source embedding, its
// bottom half the destination's), built once per graph.
func (vg *viGraph) nodeHeads(group, out int) *Node {
	if a, ok := vg.heads[group]; ok {
		return a
	}
	hidden := vg.nodeEmb.Shape().Dimensions[1]
	var parts []*Node
	for _, name := range []string{"mu", "log_sigma"} {
		w, _ := vg.head(group, name, out)
		parts = append(parts, Slice(w, AxisRange(0, hidden)), Slice(w, AxisRange(hidden, 2*hidden)))
	}
	a := MatMul(vg.nodeEmb, Concatenate(parts, 1))
	vg.heads[group] = a
	return a
}

// weightedAggregate returns norm(Σ_{u→v} z_uv ⊙ x_u) `[num_nodes, C]` for per-edge, per-feature
// weights z `[E, C]`, the gradient reaching both x and z.
func weightedAggregate(x *Node, edges *stagnb.Edges, z *Node, norm stagnb.Norm) *Node {
	dtype := x.DType()
	rsqrt := func(d *Node) *Node { return Rsqrt(MaxScalar(ConvertDType(d, dtype), 1)) }
	recip := func(d *Node) *Node { return Reciprocal(MaxScalar(ConvertDType(d, dtype), 1)) }
	switch norm {
	case stagnb.NormBoth:
		x = Mul(x, rsqrt(edges.OutDegree))
	case stagnb.NormLeft:
		x = Mul(x, recip(edges.OutDegree))
	}
	a := stagnb.Aggregate(Mul(Gather(x, edges.Src), z), edges, stagnb.AggSum)
	switch norm {
	case stagnb.NormBoth:
		a = Mul(a, rsqrt(edges.InDegree))
	case stagnb.NormRight:
		a = Mul(a, recip(edges.InDegree))
	}
	return a
}

// normalInit initialises a variable with Normal(mean, std) draws from the store's RNG.
func normalInit(scope *model.Scope, mean, std float64) model.VariableInitializer {
	return func(g *Graph, shape shapes.Shape) *Node {
		return AddScalar(MulScalar(scope.RandomNormal(g, shape), std), mean)
	}
}

// constInit initialises a variable with the constant v.
func constInit(v float64) model.VariableInitializer {
	return func(g *Graph, shape shapes.Shape) *Node {
		return MulScalar(Ones(g, shape), v)
	}
}
