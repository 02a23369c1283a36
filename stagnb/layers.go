package stagnb

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/internal/enum"
)

// Hyperparameters read from the scope by NoiseFromScope and the layer builders (NewGCN,
// NewSAGE, NewGIN). Params are scoped: set them on a sub-scope to change one layer.
const (
	// ParamNoise is the noise distribution, as ParseDistribution reads it, e.g. "normal(1,0.2)",
	// "uniform(0.8,1.2)", "bernoulli(0.2)". The default is "none".
	ParamNoise = "stag_noise"
	// ParamStructure is the noise structure, as ParseStructure reads it, e.g. "stag", "dropedge",
	// "gdc+renormalize". The default is "stag" (per layer × feature × edge).
	ParamStructure = "stag_structure"
	// ParamNoiseOffAtEval turns the noise off outside training: each weight is replaced by its mean
	// (Noise.EvalWeight).
	// The default is false: the paper keeps the noise on and averages Monte-Carlo samples.
	ParamNoiseOffAtEval = "stag_noise_off_at_eval"
	// ParamPlacement is where GCN's noise sits: "aggregate_first", "transform_first" or "dgl"
	// (see Placement). The default is "aggregate_first".
	ParamPlacement = "stag_placement"
	// ParamNorm is the degree normalisation of GCN: "both", "right", "left" or "none".
	// The default is "both".
	ParamNorm = "stag_norm"
	// ParamGINEpsilon is GIN's ε, the weight of a node's own features: (1+ε)·h_v + Σ z·h_u.
	// The default is 0.
	ParamGINEpsilon = "stag_gin_epsilon"
	// ParamGINLearnEpsilon makes GIN's ε a trained variable starting at ParamGINEpsilon.
	// The default is false.
	ParamGINLearnEpsilon = "stag_gin_learn_epsilon"
)

// NoiseFromScope builds the noise configured by ParamNoise, ParamStructure and
// ParamNoiseOffAtEval. It returns nil (no noise) when ParamNoise is "none".
func NoiseFromScope(scope *model.Scope) (*Noise, error) {
	d, err := ParseDistribution(model.GetParamOr(scope, ParamNoise, "none"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ParamNoise, err)
	}
	if d.IsNone() {
		return nil, nil
	}
	s, err := ParseStructure(model.GetParamOr(scope, ParamStructure, "stag"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ParamStructure, err)
	}
	n := NewNoise(d, s)
	n.OffAtEval = model.GetParamOr(scope, ParamNoiseOffAtEval, false)
	return n, nil
}

// checkOut panics, naming the layer builder fn, when a layer's output width out is not positive.
func checkOut(fn string, out int) {
	if out < 1 {
		exceptions.Panicf("stagnb.%s: out=%d: a layer needs at least one output channel", fn, out)
	}
}

// mustNoiseFromScope is NoiseFromScope for graph building, where errors panic.
func mustNoiseFromScope(fn string, scope *model.Scope) *Noise {
	n, err := NoiseFromScope(scope)
	if err != nil {
		exceptions.Panicf("stagnb.%s: %v", fn, err)
	}
	return n
}

// Placement says where a GCN layer puts its noise relative to its weight matrix W.
type Placement int

const (
	// AggregateFirst aggregates the noisy input features, then transforms: (Â⊙Z)X·W, noise shaped
	// [E, C_in]. It is what the variational models and the authors' 2022 code do.
	AggregateFirst Placement = iota
	// TransformFirst transforms first and aggregates the noisy transformed messages: (Â⊙Z)(X·W),
	// noise shaped [E, C_out].
	TransformFirst
	// DGLOrder transforms first when C_in > C_out, else aggregates first: DGL's GraphConv order,
	// which the paper-era MLE runs (Table 2) used, so their layer-0 noise was on the 128-wide
	// transformed messages of Cora.
	DGLOrder
)

// ParsePlacement reads aggregate_first, transform_first or dgl.
func ParsePlacement(s string) (Placement, error) {
	return enum.Parse[Placement]("placement", s, placementNames...)
}

var placementNames = []string{"aggregate_first", "transform_first", "dgl"}

// String returns the placement's name as ParsePlacement reads it.
func (p Placement) String() string { return enum.Name("Placement", int(p), placementNames...) }

// transformFirst resolves the placement for a layer of width in → out.
func (p Placement) transformFirst(in, out int) bool {
	return p == TransformFirst || (p == DGLOrder && in > out)
}

// weight creates (or reuses) the `[in, out]` weight of a layer whose input is x (`[N, in]`),
// Xavier-uniform initialised as in DGL.
func weight(scope *model.Scope, name string, x *Node, out int) *Node {
	return weightIn(scope, name, x.Graph(), x.DType(), x.Shape().Dimensions[1], out)
}

// weightIn is weight for an input of width in and type dtype.
func weightIn(scope *model.Scope, name string, g *Graph, dtype dtypes.DType, in, out int) *Node {
	return scope.WithInitializer(initializer.XavierUniformFn(scope)).
		VariableWithShape(name, shapes.Make(dtype, in, out)).NodeValue(g)
}

// bias creates (or reuses) a zero-initialised `[out]` bias and returns it shaped `[1, out]`.
func bias(scope *model.Scope, g *Graph, dtype dtypes.DType, out int) *Node {
	b := scope.WithInitializer(initializer.Zero).
		VariableWithShape("bias", shapes.Make(dtype, out)).NodeValue(g)
	return Reshape(b, 1, out)
}

// GCNConfig configures a graph convolution layer; create it with NewGCN and build it with Done.
type GCNConfig struct {
	scope      *model.Scope
	x          *Node
	sparse     *SparseInput
	edges      *Edges
	out        int
	noise      *Noise
	norm       Norm
	placement  Placement
	useBias    bool
	activation func(*Node) *Node
	dropout    float64
}

// NewGCN starts a GCN layer (Kipf & Welling) with STAG noise on its aggregation:
//
//	H' = act( norm(Σ_{u→v} z_uv ⊙ x_u)·W + b )     aggregate first (noise on the input features)
//	H' = act( norm(Σ_{u→v} z_uv ⊙ (x_u·W)) + b )   transform first (noise on the transformed ones)
//
// The placement picks one (DGLOrder: transform first where the layer narrows).
//
// x is `[num_nodes, C_in]`; the output is `[num_nodes, out]`. The noise, normalisation and
// placement come from ParamNoise/ParamStructure/ParamNoiseOffAtEval, ParamNorm and ParamPlacement
// unless set with the builder methods. The layer scopes itself in "gcn"; its weights are
// "gcn/weights" (Xavier uniform) and "gcn/bias" (zeros). Self-loops are a property of the edge
// list (EdgeList.WithSelfLoops), not of the layer.
func NewGCN(scope *model.Scope, x *Node, edges *Edges, out int) *GCNConfig {
	edges.checkNodes("NewGCN", "x", x)
	c := newGCNConfig("NewGCN", scope, edges, out)
	c.x = x
	return c
}

// newGCNConfig reads the layer's hyperparameters from the scope, for NewGCN and NewGCNFromSparse.
func newGCNConfig(fn string, scope *model.Scope, edges *Edges, out int) *GCNConfig {
	checkOut(fn, out)
	norm, err := ParseNorm(model.GetParamOr(scope, ParamNorm, "both"))
	if err != nil {
		exceptions.Panicf("stagnb.%s: %s: %v", fn, ParamNorm, err)
	}
	placement, err := ParsePlacement(model.GetParamOr(scope, ParamPlacement, "aggregate_first"))
	if err != nil {
		exceptions.Panicf("stagnb.%s: %s: %v", fn, ParamPlacement, err)
	}
	return &GCNConfig{
		scope: scope.At("gcn"), edges: edges, out: out,
		noise: mustNoiseFromScope(fn, scope), norm: norm, placement: placement, useBias: true,
	}
}

// NewGCNFromSparse starts a GCN layer whose input is the constant sparse matrix x (Float32),
// typically the first layer on bag-of-words features. Aggregating first, it draws noise only
// for the non-zero features (see SparseInput); transforming first, it multiplies the dense x
// by W. The layer's normalisation must be the one x was prepared with.
func NewGCNFromSparse(scope *model.Scope, x *SparseInput, edges *Edges, out int) *GCNConfig {
	if edges.NumNodes != x.el.NumNodes || edges.NumEdges() != x.el.NumEdges() {
		exceptions.Panicf("stagnb.NewGCNFromSparse: x was prepared for %d nodes and %d edges, edges has %d and %d",
			x.el.NumNodes, x.el.NumEdges(), edges.NumNodes, edges.NumEdges())
	}
	c := newGCNConfig("NewGCNFromSparse", scope, edges, out)
	c.sparse = x
	return c.Norm(x.norm)
}

// Noise sets the layer's noise (nil for none).
func (c *GCNConfig) Noise(n *Noise) *GCNConfig { c.noise = n; return c }

// Norm sets the degree normalisation.
func (c *GCNConfig) Norm(n Norm) *GCNConfig { c.norm = n; return c }

// Placement sets where the noise sits relative to the weights.
func (c *GCNConfig) Placement(p Placement) *GCNConfig { c.placement = p; return c }

// UseBias sets whether the layer adds a bias (default true).
func (c *GCNConfig) UseBias(b bool) *GCNConfig { c.useBias = b; return c }

// Activation sets an activation applied to the output (default none).
func (c *GCNConfig) Activation(fn func(*Node) *Node) *GCNConfig { c.activation = fn; return c }

// InputDropout sets a dropout rate for the layer's sparse input while training (Kipf & Welling's
// feature dropout, as in the paper's Figure 5): drawn once per non-zero of X (SparseInput.DropoutKeep),
// rescaled by 1/(1−rate). Only layers built with NewGCNFromSparse accept it; apply dropout to a
// dense input before NewGCN.
func (c *GCNConfig) InputDropout(rate float64) *GCNConfig {
	if c.sparse == nil {
		exceptions.Panicf("stagnb.GCNConfig.InputDropout: the layer has a dense input; apply dropout to it before NewGCN")
	}
	if rate < 0 || rate >= 1 {
		exceptions.Panicf("stagnb.GCNConfig.InputDropout: rate %g outside [0, 1)", rate)
	}
	c.dropout = rate
	return c
}

// Done builds the layer and returns its output `[num_nodes, out]`.
func (c *GCNConfig) Done() *Node {
	g := c.edges.Src.Graph()
	var x *Node // the dense input
	var in int
	dtype := dtypes.Float32
	if c.sparse != nil {
		if c.norm != c.sparse.norm {
			exceptions.Panicf("stagnb.GCNConfig: normalisation %s differs from the sparse input's %s", c.norm, c.sparse.norm)
		}
		in = c.sparse.numFeatures
	} else {
		x, in, dtype = c.x, c.x.Shape().Dimensions[1], c.x.DType()
	}
	w := weightIn(c.scope, "weights", g, dtype, in, c.out)
	var keep *Node // input dropout's scale per non-zero of the sparse input, nil for none
	if c.sparse != nil {
		keep = c.sparse.DropoutKeep(c.scope, g, c.dropout)
	}
	fixed, fixedW := fixedWeight(c.scope, g, c.noise)
	var h *Node
	switch {
	case c.sparse != nil && c.placement.transformFirst(in, c.out) && keep == nil && fixed:
		// Â(X·W) = (ÂX)·W: with nothing random, ÂX is a constant summed on the host once, and
		// the layer needs no Gather or Scatter of transformed messages.
		h = c.sparse.fixedMatMul(0, fixedW, w)
	case c.sparse != nil && c.placement.transformFirst(in, c.out) && featureFree(c.noise):
		// Noise shared by the features commutes with W: Â_z(X·W) = (Â_z X)·W, the same numbers
		// from the same draws, scattered from the (edge, non-zero feature) pairs.
		h = c.sparse.aggregateMatMul(c.scope, c.edges, c.noise, keep, w)
	case c.placement.transformFirst(in, c.out):
		var xw *Node
		switch {
		case keep != nil:
			xw = c.sparse.droppedMatMul(keep, w)
		case c.sparse != nil:
			xw = c.sparse.DenseMatMul(w)
		default:
			xw = MatMulPadded(x, w)
		}
		h = StochasticAggregate(c.scope, xw, c.edges, AggSum, c.norm, c.noise)
	case c.sparse != nil:
		h = c.sparse.aggregateMatMul(c.scope, c.edges, c.noise, keep, w)
	default:
		h = MatMulPadded(StochasticAggregate(c.scope, x, c.edges, AggSum, c.norm, c.noise), w)
	}
	if c.useBias {
		h = Add(h, bias(c.scope, g, dtype, c.out))
	}
	if c.activation != nil {
		h = c.activation(h)
	}
	return h
}

// featureFree reports whether noise draws one weight for all feature channels (Features ==
// SharedFeatures) from a fixed distribution, so that where it multiplies the messages — before or
// after the layer's weights — does not matter.
func featureFree(noise *Noise) bool {
	return noise != nil && noise.Dist.Kind != DistGiven && noise.Structure.Features == SharedFeatures
}

// SAGEConfig configures a GraphSAGE layer; create it with NewSAGE and build it with Done.
type SAGEConfig struct {
	scope      *model.Scope
	x          *Node
	edges      *Edges
	out        int
	noise      *Noise
	agg        Aggregator
	activation func(*Node) *Node
}

// NewSAGE starts a GraphSAGE layer (Hamilton et al.) with the mean aggregator, as DGL's
// SAGEConv("mean") that the paper's Table 6 used:
//
//	h'_v = act( h_v·W_self + MEAN_{u→v}(z_uv ⊙ h_u)·W_neigh + b )
//
// The noise multiplies the neighbours' input features (aggregate first); the self term has none.
// x is `[num_nodes, C_in]`, the output `[num_nodes, out]`. The layer scopes itself in "sage",
// with "sage/self", "sage/neigh" and "sage/bias".
func NewSAGE(scope *model.Scope, x *Node, edges *Edges, out int) *SAGEConfig {
	edges.checkNodes("NewSAGE", "x", x)
	checkOut("NewSAGE", out)
	return &SAGEConfig{scope: scope.At("sage"), x: x, edges: edges, out: out,
		noise: mustNoiseFromScope("NewSAGE", scope), agg: AggMean}
}

// Noise sets the layer's noise (nil for none).
func (c *SAGEConfig) Noise(n *Noise) *SAGEConfig { c.noise = n; return c }

// Aggregator sets the neighbour aggregator (default AggMean).
func (c *SAGEConfig) Aggregator(a Aggregator) *SAGEConfig { c.agg = a; return c }

// Activation sets an activation applied to the output (default none).
func (c *SAGEConfig) Activation(fn func(*Node) *Node) *SAGEConfig { c.activation = fn; return c }

// Done builds the layer and returns its output `[num_nodes, out]`.
func (c *SAGEConfig) Done() *Node {
	neigh := StochasticAggregate(c.scope, c.x, c.edges, c.agg, NormNone, c.noise)
	h := Add(MatMulPadded(c.x, weight(c.scope, "self", c.x, c.out)), MatMulPadded(neigh, weight(c.scope, "neigh", c.x, c.out)))
	h = Add(h, bias(c.scope, c.x.Graph(), c.x.DType(), c.out))
	if c.activation != nil {
		h = c.activation(h)
	}
	return h
}

// GINConfig configures a GIN layer; create it with NewGIN and build it with Done.
type GINConfig struct {
	scope      *model.Scope
	x          *Node
	edges      *Edges
	out        int
	noise      *Noise
	epsilon    float64
	learnEps   bool
	apply      func(scope *model.Scope, h *Node) *Node
	activation func(*Node) *Node
}

// NewGIN starts a GIN layer (Xu et al.) with the sum aggregator, as DGL's GINConv("sum") that
// the paper's Table 7 used:
//
//	h'_v = act( apply( (1+ε)·h_v + Σ_{u→v} z_uv ⊙ h_u ) )
//
// The noise multiplies the neighbours' messages only, not the (1+ε)·h_v self term. apply defaults
// to one linear layer (weights "gin/weights", bias "gin/bias"); ε comes from ParamGINEpsilon and
// ParamGINLearnEpsilon ("gin/epsilon" when learned). x is `[num_nodes, C_in]`.
func NewGIN(scope *model.Scope, x *Node, edges *Edges, out int) *GINConfig {
	edges.checkNodes("NewGIN", "x", x)
	checkOut("NewGIN", out)
	return &GINConfig{scope: scope.At("gin"), x: x, edges: edges, out: out,
		noise:    mustNoiseFromScope("NewGIN", scope),
		epsilon:  model.GetParamOr(scope, ParamGINEpsilon, 0.0),
		learnEps: model.GetParamOr(scope, ParamGINLearnEpsilon, false)}
}

// Noise sets the layer's noise (nil for none).
func (c *GINConfig) Noise(n *Noise) *GINConfig { c.noise = n; return c }

// Epsilon sets ε and whether it is learned.
func (c *GINConfig) Epsilon(eps float64, learn bool) *GINConfig {
	c.epsilon, c.learnEps = eps, learn
	return c
}

// Apply replaces the linear layer applied after the aggregation by fn, which must return
// `[num_nodes, out]` (the paper's Citeseer GIN used two linear layers).
func (c *GINConfig) Apply(fn func(scope *model.Scope, h *Node) *Node) *GINConfig {
	c.apply = fn
	return c
}

// Activation sets an activation applied to the output (default none).
func (c *GINConfig) Activation(fn func(*Node) *Node) *GINConfig { c.activation = fn; return c }

// Done builds the layer and returns its output `[num_nodes, out]`.
func (c *GINConfig) Done() *Node {
	g := c.x.Graph()
	var eps *Node
	if c.learnEps {
		eps = c.scope.WithInitializer(initializer.Zero).VariableWithValue("epsilon", c.epsilon).NodeValue(g)
		eps = ConvertDType(eps, c.x.DType())
	} else {
		eps = Scalar(g, c.x.DType(), c.epsilon)
	}
	h := Add(Mul(OnePlus(eps), c.x), StochasticAggregate(c.scope, c.x, c.edges, AggSum, NormNone, c.noise))
	if c.apply != nil {
		h = c.apply(c.scope, h)
	} else {
		h = Add(MatMulPadded(h, weight(c.scope, "weights", c.x, c.out)), bias(c.scope, c.x.Graph(), c.x.DType(), c.out))
	}
	if c.activation != nil {
		h = c.activation(h)
	}
	return h
}
