package stagnb

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/initializer"
	"github.com/gomlx/gomlx/support/exceptions"
)

// WithNorm returns the same features prepared for normalisation norm: s itself when it already
// is, otherwise a new SparseInput on the same edge list. GraphSAGE's mean aggregator needs
// NormRight (divide by the in-degree) and GIN's sum NormNone; NewSAGEFromSparse and
// NewGINFromSparse call it themselves, once per graph.
func (s *SparseInput) WithNorm(norm Norm) (*SparseInput, error) {
	if s.norm == norm {
		return s, nil
	}
	n, f := s.el.NumNodes, s.numFeatures
	rowPtr := make([]int32, n+1)
	col := make([]int32, 0, len(s.pairVal))
	val := make([]float32, 0, len(s.pairVal))
	for r := range n {
		for c, v := range s.dense[r*f : (r+1)*f] {
			if v != 0 {
				col, val = append(col, int32(c)), append(val, v)
			}
		}
		rowPtr[r+1] = int32(len(col))
	}
	return NewSparseInput(s.el, f, rowPtr, col, val, norm)
}

// withNormIn is WithNorm for graph building: the derived input is made once per graph g, so that
// Monte-Carlo samples and layers share its constants; errors panic naming fn.
func (s *SparseInput) withNormIn(fn string, g *Graph, norm Norm) *SparseInput {
	if s.norm == norm {
		return s
	}
	const param = "/stagnb_sparse_norms"
	var cache map[graphConstKey]*SparseInput
	if v, ok := model.GetGraphParam(g, param); ok {
		cache = v.(map[graphConstKey]*SparseInput)
	} else {
		cache = map[graphConstKey]*SparseInput{}
		model.SetGraphParam(g, param, cache)
	}
	key := graphConstKey{s, norm.String()}
	if d, ok := cache[key]; ok {
		return d
	}
	d, err := s.WithNorm(norm)
	if err != nil {
		exceptions.Panicf("stagnb.%s: %v", fn, err)
	}
	cache[key] = d
	return d
}

// checkSparseEdges panics unless x was prepared for the edge list that edges holds.
func checkSparseEdges(fn string, x *SparseInput, edges *Edges) {
	if edges.NumNodes != x.el.NumNodes || edges.NumEdges() != x.el.NumEdges() {
		exceptions.Panicf("stagnb.%s: x was prepared for %d nodes and %d edges, edges has %d and %d",
			fn, x.el.NumNodes, x.el.NumEdges(), edges.NumNodes, edges.NumEdges())
	}
}

// selfPlusAggregateMatMul returns (selfWeight·X + Aggregate(scope, edges, noise))·w for w
// `[num_features, out]`: GIN's first linear layer in one matmul. The aggregate is scattered
// straight onto selfWeight·X, and the gradient with respect to w is (selfWeight·Xᵀ + Sᵀ)·v with
// Sᵀ scattered onto the constant Xᵀ, so neither X nor S is ever transposed in the graph.
func (s *SparseInput) selfPlusAggregateMatMul(scope *model.Scope, edges *Edges, noise *Noise, selfWeight float64, w *Node) *Node {
	g := edges.Src.Graph()
	if w.Rank() != 2 || w.Shape().Dimensions[0] != s.numFeatures || w.DType() != dtypes.Float32 {
		exceptions.Panicf("stagnb.NewGINFromSparse: w must be Float32[num_features=%d, out], got %s", s.numFeatures, w.Shape())
	}
	vals := s.noisyValues(scope, edges, noise)
	_, _, _, idx := s.pairs(g)
	self := s.denseConst(g)
	if selfWeight != 1 {
		self = MulScalar(self, selfWeight)
	}
	a := scatterSum(self, idx, vals)
	return matMulWithTransposed(a, w, func() *Node {
		selfT := s.denseTConst(g)
		if selfWeight != 1 {
			selfT = MulScalar(selfT, selfWeight)
		}
		idxT := s.pairsT(g)
		return scatterSum(selfT, idxT, StopGradient(vals))
	})
}

// denseConst returns X as a `Float32[num_nodes, num_features]` constant of g, made once per graph
// from a tensor (graph.Const of a flat slice inspects every element by reflection).
func (s *SparseInput) denseConst(g *Graph) *Node {
	return graphConst(g, s, "layers_sparse/dense", func() *Node {
		return ConstTensor(g, tensors.FromFlatDataAndDimensions(append([]float32(nil), s.dense...), s.el.NumNodes, s.numFeatures))
	})
}

// denseTConst returns Xᵀ as a `Float32[num_features, num_nodes]` constant of g transposed on the
// host: transposed in the graph, the pure-Go backend would transpose it again at every step.
func (s *SparseInput) denseTConst(g *Graph) *Node {
	return graphConst(g, s, "layers_sparse/denseT", func() *Node {
		n, f := s.el.NumNodes, s.numFeatures
		t := make([]float32, n*f)
		for r := range n {
			for c, v := range s.dense[r*f : (r+1)*f] {
				t[c*n+r] = v
			}
		}
		return ConstTensor(g, tensors.FromFlatDataAndDimensions(t, f, n))
	})
}

// fixedWeight reports whether noise draws nothing in graph g, and then the constant weight it
// stands for (1, or Noise.EvalWeight when the noise is off at evaluation).
func fixedWeight(scope *model.Scope, g *Graph, noise *Noise) (bool, float64) {
	switch {
	case noise == nil || noise.Dist.IsNone():
		return true, 1
	case noise.Dist.Kind != DistGiven && !noise.Active(scope, g):
		return true, noise.EvalWeight()
	}
	return false, 0
}

// fixedMatMul returns (selfWeight·X + aggWeight·S)·w for the deterministic aggregate S of the
// pairs, both summed and transposed on the host once per graph: without noise the first layer
// needs no scatter at all.
func (s *SparseInput) fixedMatMul(selfWeight, aggWeight float64, w *Node) *Node {
	g := w.Graph()
	n, f := s.el.NumNodes, s.numFeatures
	name := fmt.Sprintf("layers_sparse/fixed(%g,%g)", selfWeight, aggWeight)
	var a []float32
	build := func() []float32 {
		if a == nil {
			a = make([]float32, n*f)
			for i, v := range s.dense {
				a[i] = float32(selfWeight) * v
			}
			for p, v := range s.pairVal {
				a[int(s.pairDst[p])*f+int(s.pairCol[p])] += float32(aggWeight) * v
			}
		}
		return a
	}
	x := graphConst(g, s, name, func() *Node {
		return ConstTensor(g, tensors.FromFlatDataAndDimensions(append([]float32(nil), build()...), n, f))
	})
	return matMulWithTransposed(x, w, func() *Node {
		return graphConst(g, s, name+"T", func() *Node {
			a := build()
			t := make([]float32, n*f)
			for r := range n {
				for c, v := range a[r*f : (r+1)*f] {
					t[c*n+r] = v
				}
			}
			return ConstTensor(g, tensors.FromFlatDataAndDimensions(t, f, n))
		})
	})
}

// SAGESparseConfig configures a GraphSAGE layer whose input is a constant sparse matrix; create it
// with NewSAGEFromSparse and build it with Done.
type SAGESparseConfig struct {
	scope      *model.Scope
	x          *SparseInput
	edges      *Edges
	out        int
	noise      *Noise
	activation func(*Node) *Node
}

// NewSAGEFromSparse starts the GraphSAGE layer of NewSAGE (mean aggregator, noise on the
// neighbours' input features) for the constant sparse input x, typically the first layer on
// bag-of-words features:
//
//	h'_v = act( x_v·W_self + MEAN_{u→v}(z_uv ⊙ x_u)·W_neigh + b )
//
// It never forms the `[num_edges, num_features]` messages: the mean is scattered from the
// (edge, non-zero feature) pairs, each with its own noise draw, into `[num_nodes, num_features]`
// and multiplied by W_neigh (see SparseInput.AggregateMatMul); the self term is the constant X
// times W_self with a precomputed Xᵀ for the gradient. x may have been prepared with any
// normalisation: the layer derives the in-degree (NormRight) version it needs, once per graph.
//
// The variables are those of NewSAGE ("sage/self", "sage/neigh", "sage/bias"), so without noise
// both layers give the same output on the same weights. The noise comes from ParamNoise,
// ParamStructure and ParamNoiseOffAtEval unless set with Noise.
func NewSAGEFromSparse(scope *model.Scope, x *SparseInput, edges *Edges, out int) *SAGESparseConfig {
	checkSparseEdges("NewSAGEFromSparse", x, edges)
	checkOut("NewSAGEFromSparse", out)
	return &SAGESparseConfig{scope: scope.At("sage"), x: x, edges: edges, out: out,
		noise: mustNoiseFromScope("NewSAGEFromSparse", scope)}
}

// Noise sets the layer's noise (nil for none).
func (c *SAGESparseConfig) Noise(n *Noise) *SAGESparseConfig { c.noise = n; return c }

// Activation sets an activation applied to the output (default none).
func (c *SAGESparseConfig) Activation(fn func(*Node) *Node) *SAGESparseConfig {
	c.activation = fn
	return c
}

// Done builds the layer and returns its output `Float32[num_nodes, out]`.
func (c *SAGESparseConfig) Done() *Node {
	g := c.edges.Src.Graph()
	x := c.x.withNormIn("NewSAGEFromSparse", g, NormRight)
	f32 := dtypes.Float32
	wSelf := weightIn(c.scope, "self", g, f32, x.numFeatures, c.out)
	wNeigh := weightIn(c.scope, "neigh", g, f32, x.numFeatures, c.out)
	neigh := func() *Node { return x.AggregateMatMul(c.scope, c.edges, c.noise, wNeigh) }
	if fixed, z := fixedWeight(c.scope, g, c.noise); fixed {
		neigh = func() *Node { return x.fixedMatMul(0, z, wNeigh) }
	}
	h := Add(x.DenseMatMul(wSelf), neigh())
	h = Add(h, bias(c.scope, g, f32, c.out))
	if c.activation != nil {
		h = c.activation(h)
	}
	return h
}

// GINSparseConfig configures a GIN layer whose input is a constant sparse matrix; create it with
// NewGINFromSparse and build it with Done.
type GINSparseConfig struct {
	scope      *model.Scope
	x          *SparseInput
	edges      *Edges
	out        int
	noise      *Noise
	epsilon    float64
	learnEps   bool
	hidden     int
	hiddenAct  func(*Node) *Node
	activation func(*Node) *Node
}

// NewGINFromSparse starts the GIN layer of NewGIN (sum aggregator, noise on the neighbours'
// messages only) for the constant sparse input x, typically the first layer on bag-of-words
// features:
//
//	h'_v = act( apply( (1+ε)·x_v + Σ_{u→v} z_uv ⊙ x_u ) )
//
// apply is one linear layer ("gin/weights", "gin/bias"), or two with Hidden. Its first linear
// layer is computed without forming the `[num_edges, num_features]` messages: the noisy pairs
// (edge, non-zero feature) are scattered onto (1+ε)·X, and the product's gradient uses a
// precomputed Xᵀ plus the pairs scattered transposed. x may have been prepared with any
// normalisation: the layer derives the unnormalised (NormNone) version it needs, once per graph.
//
// The variables are those of NewGIN (with Apply(GINHiddenApply(…)) when Hidden is set), so without
// noise both layers give the same output on the same weights. ε comes from ParamGINEpsilon and
// ParamGINLearnEpsilon, the noise from ParamNoise, ParamStructure and ParamNoiseOffAtEval, unless
// set with the builder methods.
func NewGINFromSparse(scope *model.Scope, x *SparseInput, edges *Edges, out int) *GINSparseConfig {
	checkSparseEdges("NewGINFromSparse", x, edges)
	checkOut("NewGINFromSparse", out)
	return &GINSparseConfig{scope: scope.At("gin"), x: x, edges: edges, out: out,
		noise:    mustNoiseFromScope("NewGINFromSparse", scope),
		epsilon:  model.GetParamOr(scope, ParamGINEpsilon, 0.0),
		learnEps: model.GetParamOr(scope, ParamGINLearnEpsilon, false)}
}

// Noise sets the layer's noise (nil for none).
func (c *GINSparseConfig) Noise(n *Noise) *GINSparseConfig { c.noise = n; return c }

// Epsilon sets ε and whether it is learned ("gin/epsilon").
func (c *GINSparseConfig) Epsilon(eps float64, learn bool) *GINSparseConfig {
	c.epsilon, c.learnEps = eps, learn
	return c
}

// Hidden makes apply two linear layers, in → width → out with act (nil: none) between them,
// as GINHiddenApply does for NewGIN. The paper's Citeseer GIN script used width = in.
// width ≤ 0 restores the single linear layer.
func (c *GINSparseConfig) Hidden(width int, act func(*Node) *Node) *GINSparseConfig {
	c.hidden, c.hiddenAct = width, act
	return c
}

// Activation sets an activation applied to the output (default none).
func (c *GINSparseConfig) Activation(fn func(*Node) *Node) *GINSparseConfig {
	c.activation = fn
	return c
}

// Done builds the layer and returns its output `Float32[num_nodes, out]`.
func (c *GINSparseConfig) Done() *Node {
	g := c.edges.Src.Graph()
	x := c.x.withNormIn("NewGINFromSparse", g, NormNone)
	f32 := dtypes.Float32
	width := c.out
	if c.hidden > 0 {
		width = c.hidden
	}
	var h *Node
	if c.learnEps {
		// ε needs a gradient: (1+ε)·(X·W) + S·W, two products.
		eps := c.scope.WithInitializer(initializer.Zero).VariableWithValue("epsilon", c.epsilon).NodeValue(g)
		eps = ConvertDType(eps, f32)
		w := weightIn(c.scope, "weights", g, f32, x.numFeatures, width)
		h = Add(Mul(OnePlus(eps), x.DenseMatMul(w)), x.AggregateMatMul(c.scope, c.edges, c.noise, w))
	} else {
		w := weightIn(c.scope, "weights", g, f32, x.numFeatures, width)
		if fixed, z := fixedWeight(c.scope, g, c.noise); fixed {
			h = x.fixedMatMul(1+c.epsilon, z, w)
		} else {
			h = x.selfPlusAggregateMatMul(c.scope, c.edges, c.noise, 1+c.epsilon, w)
		}
	}
	h = Add(h, bias(c.scope, g, f32, width))
	if c.hidden > 0 {
		if c.hiddenAct != nil {
			h = c.hiddenAct(h)
		}
		h = linearIn(c.scope.At("linear_1"), h, c.out)
	}
	if c.activation != nil {
		h = c.activation(h)
	}
	return h
}

// GINHiddenApply returns, for GINConfig.Apply, the two-layer apply function of the paper's
// Citeseer GIN script: Linear(in, width) → act → Linear(width, out), act nil meaning none. Its
// variables are "gin/weights" and "gin/bias" (first layer) and "gin/linear_1/weights" and
// "gin/linear_1/bias" (second), the same as GINSparseConfig.Hidden.
func GINHiddenApply(width, out int, act func(*Node) *Node) func(scope *model.Scope, h *Node) *Node {
	return func(scope *model.Scope, h *Node) *Node {
		h = linearIn(scope, h, width)
		if act != nil {
			h = act(h)
		}
		return linearIn(scope.At("linear_1"), h, out)
	}
}

// linearIn is h·W + b with "weights" and "bias" in scope (h is `[num_nodes, in]`).
func linearIn(scope *model.Scope, h *Node, out int) *Node {
	return Add(MatMulPadded(h, weight(scope, "weights", h, out)), bias(scope, h.Graph(), h.DType(), out))
}
