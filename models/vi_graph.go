package models

import (
	"fmt"
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/stagnb"
)

// GraphPredictor is a graph-regression model that TrainGraphRegressor trains: GraphRegressor
// (fixed noise, Table 2) or VIGraphRegressor (learned noise, Table 4).
type GraphPredictor interface {
	// Predict returns the predictions `Float32[num_graphs]` for batch b, whose nodes have
	// numFeatures features. A model with a regulariser adds it while training
	// (train.AddRegularizationLoss).
	Predict(scope *model.Scope, g *Graph, b *GraphBatch, numFeatures int) *Node
}

// VIGraphRegressor is STAG-VI for graph regression, the paper's Table 4, as the authors' mol_vi
// scripts built it: Layers GCN layers of width Hidden that aggregate first and multiply each
// message's input features by noise a ~ q = Normal(μ, σ) of shape `[E, C_in(l)]`, the activation
// after every layer but the last, ReLU of the SUM over each molecule's atoms, then Linear(Hidden,
// Hidden) → ReLU → Linear(Hidden, 1).
//
// μ and σ = exp(log σ) are learned as for VIGCN: PosteriorR one pair shared by all layers (μ starts
// at 1), PosteriorRC one pair per layer and input feature (μ ~ Normal(1, μ0)), and the amortised
// PosteriorRE and PosteriorREC predicted per edge (and feature) by a linear head on concat(h_src,
// h_dst) of a two-layer GCN encoder of the molecule. PosteriorRE has one head pair, Linear(2·Hidden,
// 1) for μ and for log σ, shared by all layers as in the code's mol_vi_per_edge (VIGCN gives layer 0
// heads of its own, as cora_vi_per_layer did); PosteriorREC has one head pair for layer 0 (C_in(0)
// outputs) and one for the other layers (Hidden outputs). Layer 0 draws its own sample; the other
// layers reuse one sample between them. Because the encoder reads the graph, the
// posterior generalises to molecules not seen in training. While training it adds the code's
// regulariser (VILegacy): −mean log p(a) of layer 0's sample (twice for PosteriorR) plus the mean
// over the other layers of theirs, under the prior Normal(1, σ_prior).
//
// With Deterministic set the model has no noise (a = 1), no variational parameters and no
// regulariser: the architecture and protocol alone, a control row that the paper's Table 4 lacks.
//
// The GCN layers are scoped "layer_0", "layer_1", … ("gcn/weights", "gcn/bias"), the readout
// "readout_0" and "readout_1", the variational parameters and the encoder "vi".
type VIGraphRegressor struct {
	Posterior Posterior
	// Deterministic drops the noise: Posterior and Hyper are then unused.
	Deterministic bool
	// Layers is the number of GCN layers (paper: 2) and Hidden their width (128).
	Layers, Hidden int
	// Activation after the GCN layers but the last, and in the encoder ("relu").
	Activation string
	// Hyper are the Table 9 hyperparameters of the dataset.
	Hyper VIHyper
	// RegScale multiplies the regulariser; 0 means 1, as the original code.
	RegScale float64
}

// NewVIGraphRegressor returns the paper's 2-layer, 128-wide, ReLU STAG-VI molecule model with
// posterior p and hyperparameters h.
func NewVIGraphRegressor(p Posterior, h VIHyper) *VIGraphRegressor {
	return &VIGraphRegressor{Posterior: p, Layers: 2, Hidden: 128, Activation: "relu", Hyper: h}
}

// NewVIGraphControl returns the paper's 2-layer, 128-wide, ReLU STAG-VI molecule model without
// noise (Deterministic).
func NewVIGraphControl() *VIGraphRegressor {
	return &VIGraphRegressor{Deterministic: true, Layers: 2, Hidden: 128, Activation: "relu"}
}

// String describes the model, e.g. "stag_vi_graph(rc, legacy, μ0=1, logσ0=0, σ_prior=0.5)", or
// "stag_vi_graph(deterministic)".
func (m *VIGraphRegressor) String() string {
	if m.Deterministic {
		return "stag_vi_graph(deterministic)"
	}
	return fmt.Sprintf("stag_vi_graph(%s, legacy%s, μ0=%g, logσ0=%g, σ_prior=%g)", m.Posterior, regScaleSuffix(m.RegScale), m.Hyper.Mu0, m.Hyper.LogSigma0, m.Hyper.SigmaPrior)
}

// Predict returns the predictions `Float32[num_graphs]` for batch b.
func (m *VIGraphRegressor) Predict(scope *model.Scope, g *Graph, b *GraphBatch, numFeatures int) *Node {
	if m.Layers < 1 || m.Hidden < 1 {
		exceptions.Panicf("models.VIGraphRegressor: Layers=%d and Hidden=%d must be ≥ 1", m.Layers, m.Hidden)
	}
	if !m.Deterministic && m.Hyper.SigmaPrior <= 0 {
		exceptions.Panicf("models.VIGraphRegressor: σ_prior=%g must be > 0", m.Hyper.SigmaPrior)
	}
	b.check("VIGraphRegressor.Predict", numFeatures)
	edges := b.Edges.Const(g)
	numEdges := b.Edges.NumEdges()
	act := activationFn(m.Activation)
	h := Reshape(Const(g, b.Features), b.Edges.NumNodes, numFeatures)
	vi := scope.At("vi")
	var emb *Node
	if !m.Deterministic && m.Posterior.Amortised() {
		emb = m.edgeEmbeddings(vi, g, b, h, edges)
	}
	var firstNLP, zRest *Node
	var restNLP []*Node
	for l := range m.Layers {
		in := m.Hidden
		if l == 0 {
			in = numFeatures
		}
		var z *Node
		if m.Deterministic {
			z = Ones(g, shapes.Make(dtypes.Float32, 1, 1))
		} else if l > 0 && zRest != nil {
			z = zRest // the code drew one a_rest for all layers ≥ 1
		} else {
			mu, logSigma := m.params(vi, g, l, in, emb)
			eps := stagnb.StandardNormal(scope, g, shapes.Make(dtypes.Float32, numEdges, in))
			z = Add(mu, Mul(Exp(logSigma), eps))
			nlp := ReduceAllMean(negLogNormalPrior(z, m.Hyper.SigmaPrior))
			if l == 0 {
				firstNLP = nlp
			} else {
				restNLP = append(restNLP, nlp)
				if m.Posterior.Amortised() {
					zRest = z
				}
			}
		}
		ls := scope.At("layer_%d", l).At("gcn")
		w := ls.WithInitializer(initializer.XavierUniformFn(ls)).VariableWithShape("weights", shapes.Make(dtypes.Float32, in, m.Hidden)).NodeValue(g)
		bias := ls.WithInitializer(initializer.Zero).VariableWithShape("bias", shapes.Make(dtypes.Float32, m.Hidden)).NodeValue(g)
		h = Add(stagnb.MatMulPadded(weightedAggregate(h, edges, z, stagnb.NormBoth), w), Reshape(bias, 1, m.Hidden))
		if l < m.Layers-1 {
			h = act(h)
		}
	}
	relu := activationFn("relu")
	pooled := relu(ScatterSum(Zeros(g, shapes.Make(dtypes.Float32, b.Edges.NumGraphs, m.Hidden)), edges.NodeGraph, h, false, false))
	r := relu(layers.Dense(scope.At("readout_0"), pooled, true, m.Hidden))
	pred := Reshape(layers.Dense(scope.At("readout_1"), r, true, 1), b.Edges.NumGraphs)
	if scope.IsTraining(g) && !m.Deterministic {
		train.AddRegularizationLoss(legacyRegulariser(m.Posterior, firstNLP, restNLP, m.RegScale))
	}
	return pred
}

// params returns layer l's μ and log σ, broadcastable to its `[E, in]` noise: `[1, 1]`, `[1, in]`,
// `[E, 1]` or `[E, in]` for the four posteriors; emb are the encoder's edge embeddings (amortised
// posteriors only).
func (m *VIGraphRegressor) params(vi *model.Scope, g *Graph, l, in int, emb *Node) (mu, logSigma *Node) {
	switch m.Posterior {
	case PosteriorR:
		mu, logSigma = viScalarParams(vi, g, m.Hyper)
		return Reshape(mu, 1, 1), Reshape(logSigma, 1, 1)
	case PosteriorRC:
		mu, logSigma = viFeatureParams(vi, g, l, in, m.Hyper)
		return Reshape(mu, 1, in), Reshape(logSigma, 1, in)
	case PosteriorRE, PosteriorREC:
		out := in
		if m.Posterior == PosteriorRE {
			out = 1
		}
		// PosteriorRE's one head pair lives in "head_first"; PosteriorREC's rest heads in "head_rest".
		first := l == 0 || m.Posterior == PosteriorRE
		linear := func(name string) *Node {
			w, b := viHead(vi, g, first, name, emb, out, m.Hyper)
			return Add(stagnb.MatMulPadded(emb, w), Reshape(b, 1, out))
		}
		return linear("mu"), linear("log_sigma")
	}
	exceptions.Panicf("models.VIGraphRegressor: unknown posterior %d", m.Posterior)
	return nil, nil
}

// edgeEmbeddings returns encode's edge embeddings of batch b, built once per graph: the encoder
// has no noise, so the Monte-Carlo samples of an evaluation share them.
func (m *VIGraphRegressor) edgeEmbeddings(vi *model.Scope, g *Graph, b *GraphBatch, x *Node, edges *stagnb.Edges) *Node {
	const param = "/stagnb_vi_graph_embeddings"
	type key struct {
		m *VIGraphRegressor
		b *GraphBatch
	}
	var cache map[key]*Node
	if v, ok := model.GetGraphParam(g, param); ok {
		cache = v.(map[key]*Node)
	} else {
		cache = map[key]*Node{}
		model.SetGraphParam(g, param, cache)
	}
	if emb, ok := cache[key{m, b}]; ok {
		return emb
	}
	emb := m.encode(vi, x, edges)
	cache[key{m, b}] = emb
	return emb
}

// encode runs the deterministic encoder (two GCN layers in → Hidden → Hidden with the activation,
// no noise) on the molecule and returns the edge embeddings concat(h_src, h_dst) `[E, 2·Hidden]`.
func (m *VIGraphRegressor) encode(vi *model.Scope, x *Node, edges *stagnb.Edges) *Node {
	act := activationFn(m.Activation)
	h := stagnb.NewGCN(vi.At("encoder_0"), x, edges, m.Hidden).Noise(nil).Placement(stagnb.DGLOrder).Activation(act).Done()
	h = stagnb.NewGCN(vi.At("encoder_1"), h, edges, m.Hidden).Noise(nil).Placement(stagnb.DGLOrder).Activation(act).Done()
	return Concatenate([]*Node{Gather(h, edges.Src), Gather(h, edges.Dst)}, 1)
}

// negLogNormalPrior is the element-wise −log p(a) under the prior Normal(1, σ_prior).
func negLogNormalPrior(a *Node, sigmaPrior float64) *Node {
	return AddScalar(DivScalar(Square(AddScalar(a, -1)), 2*sigmaPrior*sigmaPrior), math.Log(sigmaPrior)+0.5*math.Log(2*math.Pi))
}
