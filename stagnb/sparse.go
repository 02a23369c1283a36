package stagnb

import (
	"fmt"
	"math"
	"slices"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
)

// SparseInput is a constant sparse feature matrix X (`[num_nodes, num_features]`, CSR) on a fixed
// edge list, prepared for the first layer of an aggregate-first STAG GCN: it computes
// norm(Â ⊙ Z) X without ever forming the `[num_edges, num_features]` messages.
//
// Noise on a zero feature has no effect (z · 0 = 0), so only the pairs (edge u→v, non-zero
// X[u, c]) matter: for Cora about 240k pairs instead of 19M edge × feature entries. Each pair
// gets its own draw under per-edge × per-feature noise, which is exactly STAG's distribution.
// The pairs are scattered into a dense `[num_nodes, num_features]` result, then one matmul
// applies W.
type SparseInput struct {
	el          *EdgeList
	numFeatures int
	norm        Norm
	// Per pair: destination node, feature column, edge, and the normalised value norm_e · X[u, c].
	pairDst, pairCol, pairEdge []int32
	pairVal                    []float32
	// The dense X, for transform-first layers.
	dense []float32
	// X's non-zeros (row, column, value), and for each pair the index of its source non-zero:
	// input dropout draws one mask value per non-zero.
	nzRow, nzCol []int32
	nzVal        []float32
	pairNZ       []int32
}

// NewSparseInput prepares X, given in CSR form (rowPtr has num_nodes+1 entries; col and val one
// per non-zero), for aggregation over el with normalisation norm (the GCN layer must use the same).
func NewSparseInput(el *EdgeList, numFeatures int, rowPtr, col []int32, val []float32, norm Norm) (*SparseInput, error) {
	if err := el.Validate(); err != nil {
		return nil, err
	}
	if numFeatures < 1 {
		return nil, fmt.Errorf("stagnb.NewSparseInput: numFeatures=%d, want at least 1", numFeatures)
	}
	if len(rowPtr) != el.NumNodes+1 {
		return nil, fmt.Errorf("stagnb.NewSparseInput: rowPtr has %d entries, want num_nodes+1 = %d", len(rowPtr), el.NumNodes+1)
	}
	if rowPtr[0] != 0 {
		return nil, fmt.Errorf("stagnb.NewSparseInput: rowPtr[0]=%d, want 0", rowPtr[0])
	}
	if len(col) != len(val) || int(rowPtr[el.NumNodes]) != len(col) {
		return nil, fmt.Errorf("stagnb.NewSparseInput: %d columns and %d values for rowPtr[last]=%d non-zeros", len(col), len(val), rowPtr[el.NumNodes])
	}
	for r := range el.NumNodes {
		if rowPtr[r] > rowPtr[r+1] {
			return nil, fmt.Errorf("stagnb.NewSparseInput: rowPtr decreases at row %d", r)
		}
	}
	for i, c := range col {
		if c < 0 || int(c) >= numFeatures {
			return nil, fmt.Errorf("stagnb.NewSparseInput: non-zero %d has column %d outside [0, %d)", i, c, numFeatures)
		}
	}
	din, dout := el.InDegrees(), el.OutDegrees()
	s := &SparseInput{el: el, numFeatures: numFeatures, norm: norm, dense: make([]float32, el.NumNodes*numFeatures)}
	for r := range el.NumNodes {
		for i := rowPtr[r]; i < rowPtr[r+1]; i++ {
			s.dense[r*numFeatures+int(col[i])] += val[i]
			s.nzRow = append(s.nzRow, int32(r))
		}
	}
	s.nzCol, s.nzVal = slices.Clone(col), slices.Clone(val)
	for e := range el.Src {
		u, v := el.Src[e], el.Dst[e]
		var coef float64
		switch norm {
		case NormBoth:
			coef = 1 / math.Sqrt(float64(max(dout[u], 1))*float64(max(din[v], 1)))
		case NormRight:
			coef = 1 / float64(max(din[v], 1))
		case NormLeft:
			coef = 1 / float64(max(dout[u], 1))
		case NormNone:
			coef = 1
		default:
			return nil, fmt.Errorf("stagnb.NewSparseInput: unknown normalisation %d", norm)
		}
		for i := rowPtr[u]; i < rowPtr[u+1]; i++ {
			s.pairDst = append(s.pairDst, v)
			s.pairCol = append(s.pairCol, col[i])
			s.pairEdge = append(s.pairEdge, int32(e))
			s.pairVal = append(s.pairVal, float32(coef)*val[i])
			s.pairNZ = append(s.pairNZ, i)
		}
	}
	return s, nil
}

// NumPairs is the number of (edge, non-zero feature) pairs, the number of noise draws per layer
// under per-edge × per-feature noise.
func (s *SparseInput) NumPairs() int { return len(s.pairVal) }

// NumFeatures is X's number of columns.
func (s *SparseInput) NumFeatures() int { return s.numFeatures }

// Norm is the normalisation folded into the pairs.
func (s *SparseInput) Norm() Norm { return s.norm }

// Dense returns X as a dense `Float32[num_nodes, num_features]` constant of graph g.
func (s *SparseInput) Dense(g *Graph) *Node {
	return s.denseConst(g)
}

// pairs returns the pairs' values `[P]`, edges `[P, 1]`, columns `[P, 1]` and scatter indices
// `[P, 2]` (destination, column) as constants of g, created once per graph.
func (s *SparseInput) pairs(g *Graph) (vals, edge, col, idx *Node) {
	vals = graphConst(g, s, "vals", func() *Node { return constVector(g, s.pairVal) })
	edge = graphConst(g, s, "edge", func() *Node { return constColumn(g, s.pairEdge) })
	col = graphConst(g, s, "col", func() *Node { return constColumn(g, s.pairCol) })
	idx = graphConst(g, s, "idx", func() *Node {
		return Concatenate([]*Node{constColumn(g, s.pairDst), col}, 1)
	})
	return
}

// pairsT returns the transposed pairs' indices `[P, 2]` (column, destination node): where
// the pairs scatter into Sᵀ. It is built from the host's columns, not by slicing idx in the
// graph: go-xla v0.4.5 refuses any slice of an empty axis, which idx has when there are no
// pairs ("start index 0 is out of bounds for axis 0 with size 0", measured on an H200,
// results/h200/core-tests-call15.log).
func (s *SparseInput) pairsT(g *Graph) *Node {
	return graphConst(g, s, "idxT", func() *Node {
		return Concatenate([]*Node{constColumn(g, s.pairCol), constColumn(g, s.pairDst)}, 1)
	})
}

// Aggregate returns norm(Â ⊙ Z) X as a dense `Float32[num_nodes, num_features]`: the SUM
// aggregation of the noisy input features, with edges the in-graph form of the same edge list.
// Per-edge × per-feature noise without renormalisation draws one weight per pair. Other
// structures draw their usual weights (see Noise.Weights) and pick each pair's weight. The
// combinations that would need the full `[num_edges, num_features]` noise panic: per-feature noise
// that is per source node, renormalised, shared across layers, or given (DistGiven).
func (s *SparseInput) Aggregate(scope *model.Scope, edges *Edges, noise *Noise) *Node {
	checkSparseEdges("SparseInput.Aggregate", s, edges)
	vals := s.noisyValues(scope, edges, noise)
	_, _, _, idx := s.pairs(edges.Src.Graph())
	return scatterSum(Zeros(vals.Graph(), shapes.Make(dtypes.Float32, s.el.NumNodes, s.numFeatures)), idx, vals)
}

// AggregateMatMul returns Aggregate(scope, edges, noise)·w (`[num_nodes, out]` for w
// `[num_features, out]`). Its gradient with respect to w is Sᵀ·v with Sᵀ scattered directly
// from the pairs, which on the pure-Go backend is much cheaper than transposing the dense S.
func (s *SparseInput) AggregateMatMul(scope *model.Scope, edges *Edges, noise *Noise, w *Node) *Node {
	checkSparseEdges("SparseInput.AggregateMatMul", s, edges)
	return s.aggregateMatMul(scope, edges, noise, nil, w)
}

// aggregateMatMul is AggregateMatMul with X's non-zeros scaled by keep (`[num_non_zeros]`, input
// dropout; nil for none).
func (s *SparseInput) aggregateMatMul(scope *model.Scope, edges *Edges, noise *Noise, keep, w *Node) *Node {
	g := edges.Src.Graph()
	if w.Rank() != 2 || w.Shape().Dimensions[0] != s.numFeatures || w.DType() != dtypes.Float32 {
		exceptions.Panicf("stagnb.SparseInput.AggregateMatMul: w must be Float32[num_features=%d, out], got %s", s.numFeatures, w.Shape())
	}
	vals := s.noisyValues(scope, edges, noise)
	if keep != nil {
		pairNZ := graphConst(g, s, "pairNZ", func() *Node { return constColumn(g, s.pairNZ) })
		vals = Mul(vals, Gather(keep, pairNZ))
	}
	_, _, _, idx := s.pairs(g)
	n, f := s.el.NumNodes, s.numFeatures
	agg := scatterSum(Zeros(g, shapes.Make(dtypes.Float32, n, f)), idx, vals)
	return matMulWithTransposed(agg, w, func() *Node {
		idxT := s.pairsT(g)
		return scatterSum(Zeros(g, shapes.Make(dtypes.Float32, f, n)), idxT, StopGradient(vals))
	})
}

// DenseMatMul returns X·w for the dense X (`[num_nodes, out]` for w `[num_features, out]`), with
// the gradient with respect to w computed from a constant Xᵀ, transposed once on the host, instead
// of transposing X every step.
func (s *SparseInput) DenseMatMul(w *Node) *Node {
	g := w.Graph()
	return matMulWithTransposed(s.denseConst(g), w, func() *Node { return s.denseTConst(g) })
}

// NumNonZeros is the number of non-zeros of X.
func (s *SparseInput) NumNonZeros() int { return len(s.nzVal) }

// DropoutKeep draws input dropout for X's non-zeros: `Float32[num_non_zeros]` with 0 (probability
// rate) or 1/(1−rate), through the scope's RNG. Dropping a zero feature changes nothing, so this is
// dropout on the dense X with num_non_zeros draws instead of num_nodes × num_features. It returns
// nil when not training (scope.IsTraining) or when rate is 0.
func (s *SparseInput) DropoutKeep(scope *model.Scope, g *Graph, rate float64) *Node {
	if rate <= 0 || !scope.IsTraining(g) {
		return nil
	}
	d, err := Bernoulli(rate, true)
	if err != nil {
		exceptions.Panicf("stagnb.SparseInput.DropoutKeep: %v", err)
	}
	return d.Sample(scope, g, shapes.Make(dtypes.Float32, s.NumNonZeros()))
}

// droppedMatMul returns (X ⊙ M)·w for X's non-zeros scaled by keep (`[num_non_zeros]`), with the
// gradient with respect to w scattered directly into (X ⊙ M)ᵀ.
func (s *SparseInput) droppedMatMul(keep, w *Node) *Node {
	g := w.Graph()
	n, f := s.el.NumNodes, s.numFeatures
	idx := graphConst(g, s, "nzIdx", func() *Node {
		return Concatenate([]*Node{constColumn(g, s.nzRow), constColumn(g, s.nzCol)}, 1)
	})
	idxT := graphConst(g, s, "nzIdxT", func() *Node {
		return Concatenate([]*Node{constColumn(g, s.nzCol), constColumn(g, s.nzRow)}, 1)
	})
	vals := Mul(graphConst(g, s, "nzVal", func() *Node { return constVector(g, s.nzVal) }), keep)
	xd := scatterSum(Zeros(g, shapes.Make(dtypes.Float32, n, f)), idx, vals)
	return matMulWithTransposed(xd, w, func() *Node {
		return scatterSum(Zeros(g, shapes.Make(dtypes.Float32, f, n)), idxT, StopGradient(vals))
	})
}

// matMulWithTransposed returns a·w (a `[n, f]`, w `[f, h]`, a receiving no gradient) whose gradient
// with respect to w is aT()·v, aT() building aᵀ only when the gradient is needed. On the pure-Go
// backend the autodiff form transposes a at every step, which for Cora's features costs more
// than the product itself.
func matMulWithTransposed(a, w *Node, aT func() *Node) *Node {
	if padded := padColumns(w); padded != w { // see MatMulPadded
		return Slice(matMulWithTransposed(a, padded, aT), AxisRange(), AxisRange(0, w.Shape().Dimensions[1]))
	}
	g := w.Graph()
	n, f, h := a.Shape().Dimensions[0], a.Shape().Dimensions[1], w.Shape().Dimensions[1]
	// The gradient reaches w through q, an identity whose custom gradient is aᵀ·v. q has
	// max(n, f) rows so that it can carry both w ([f, h]) and v ([n, h]).
	m := max(n, f)
	pad := func(x *Node, rows int) *Node {
		if rows == m {
			return x
		}
		return Concatenate([]*Node{x, Zeros(g, shapes.Make(w.DType(), m-rows, h))}, 0)
	}
	q := IdentityWithCustomGradient(pad(w, f), func(_, v *Node) *Node {
		return pad(MatMul(aT(), Slice(v, AxisRange(0, n))), f)
	})
	q = Slice(q, AxisRange(0, n))
	return Add(MatMul(StopGradient(a), StopGradient(w)), Sub(q, StopGradient(q)))
}

// noisyValues returns the pairs' values `[P]` multiplied by their noise weights.
func (s *SparseInput) noisyValues(scope *model.Scope, edges *Edges, noise *Noise) *Node {
	g := edges.Src.Graph()
	p := s.NumPairs()
	dtype := dtypes.Float32
	vals, edge, col, _ := s.pairs(g)
	if noise != nil && !noise.Dist.IsNone() {
		st := noise.Structure
		switch {
		case !noise.Active(scope, g) && noise.Dist.Kind != DistGiven:
			vals = MulScalar(vals, noise.EvalWeight())
		case st.Features == PerFeature && st.Edges == PerEdge && !st.Renormalize && noise.Dist.Kind != DistGiven:
			if st.Layers == SharedLayers {
				exceptions.Panicf("stagnb.SparseInput.Aggregate: per-feature noise shared across layers (%s) cannot be drawn per non-zero: the draw the later layers reuse would be the full [num_edges, %d features] one; use dense features (StochasticAggregate)", noise, s.numFeatures)
			}
			vals = Mul(vals, noise.Dist.Sample(scope, g, shapes.Make(dtype, p)))
		case st.Features == PerFeature && (st.Edges == PerSourceNode || st.Renormalize) || noise.Dist.Kind == DistGiven:
			exceptions.Panicf("stagnb.SparseInput.Aggregate: noise %s cannot be drawn per non-zero; use dense features (StochasticAggregate)", noise)
		default:
			z := noise.Weights(scope, edges, s.numFeatures, dtype) // [E,1], [1,F] or [1,1]
			rows, cols := z.Shape().Dimensions[0], z.Shape().Dimensions[1]
			switch {
			case rows == 1 && cols == 1:
				vals = Mul(vals, Reshape(z))
			case cols == 1:
				vals = Mul(vals, Reshape(Gather(z, edge), p))
			default:
				vals = Mul(vals, Reshape(Gather(Reshape(z, cols, 1), col), p))
			}
		}
	}
	return vals
}

// graphConstKey identifies a constant that an object put into a graph.
type graphConstKey struct {
	owner any
	name  string
}

// graphConst returns the constant (owner, name) of graph g, building it with build the first time,
// so that Monte-Carlo samples and layers share one copy.
func graphConst(g *Graph, owner any, name string, build func() *Node) *Node {
	const param = "/stagnb_consts"
	var cache map[graphConstKey]*Node
	if v, ok := model.GetGraphParam(g, param); ok {
		cache = v.(map[graphConstKey]*Node)
	} else {
		cache = map[graphConstKey]*Node{}
		model.SetGraphParam(g, param, cache)
	}
	key := graphConstKey{owner, name}
	if n, ok := cache[key]; ok {
		return n
	}
	n := build()
	cache[key] = n
	return n
}

// PairEdges returns a copy of each pair's edge index (length NumPairs): pair p carries the
// message along edge PairEdges()[p] of the feature column PairColumns()[p] of its source.
func (s *SparseInput) PairEdges() []int32 { return append([]int32(nil), s.pairEdge...) }

// PairColumns returns a copy of each pair's feature column (length NumPairs).
func (s *SparseInput) PairColumns() []int32 { return append([]int32(nil), s.pairCol...) }

// PairIndices returns the pairs' edges and feature columns as `Int32[P, 1]` constants of g,
// created once per graph, to gather per-edge or per-feature parameters at the pairs.
func (s *SparseInput) PairIndices(g *Graph) (edge, col *Node) {
	_, edge, col, _ = s.pairs(g)
	return edge, col
}

// AggregateWeighted returns norm(Â ⊙ Z) X as a dense `[num_nodes, num_features]` for explicit
// per-pair weights z (`[P]`, Float32 or Float64, e.g. reparameterised variational noise). Unlike
// Aggregate, the gradient flows into z.
func (s *SparseInput) AggregateWeighted(z *Node) *Node {
	vals := s.weightedValues("AggregateWeighted", z)
	_, _, _, idx := s.pairs(z.Graph())
	return scatterSum(Zeros(z.Graph(), shapes.Make(z.DType(), s.el.NumNodes, s.numFeatures)), idx, vals)
}

// AggregateWeightedMatMul returns AggregateWeighted(z)·w (`[num_nodes, out]` for w
// `[num_features, out]` of z's dtype), with gradients into both z and w. w's gradient is Sᵀ·v
// with Sᵀ scattered from the pairs (as in AggregateMatMul, no transpose of S), and pair p's is
// norm_p·X[u, c]·(v·wᵀ)[dst_p, c_p], read from one `[num_nodes, num_features]` product.
func (s *SparseInput) AggregateWeightedMatMul(z, w *Node) *Node {
	g := z.Graph()
	if w.Rank() != 2 || w.Shape().Dimensions[0] != s.numFeatures || w.DType() != z.DType() {
		exceptions.Panicf("stagnb.SparseInput.AggregateWeightedMatMul: w must be %s[num_features=%d, out], got %s", z.DType(), s.numFeatures, w.Shape())
	}
	vals := s.weightedValues("AggregateWeightedMatMul", z)
	_, _, _, idx := s.pairs(g)
	n, f, h, p := s.el.NumNodes, s.numFeatures, w.Shape().Dimensions[1], s.NumPairs()
	dtype := z.DType()
	fixed := StopGradient(vals)
	agg := scatterSum(Zeros(g, shapes.Make(dtype, n, f)), idx, fixed)
	out := matMulWithTransposed(agg, w, func() *Node {
		idxT := s.pairsT(g)
		return scatterSum(Zeros(g, shapes.Make(dtype, f, n)), idxT, fixed)
	})
	// The gradient reaches the values through c, an identity on the (padded) values whose custom
	// gradient maps v = ∂L/∂out (`[n, h]`, flattened) to ∂L/∂vals_p = (v·wᵀ)[dst_p, c_p]: one
	// matmul and a gather of P scalars, which on the pure-Go backend is much faster than gathering
	// P rows of v and of w. c has max(P, n·h) entries so that it can carry both;
	// c − StopGradient(c) adds 0 to the output.
	m := max(p, n*h)
	pad := func(x *Node, size int) *Node {
		if size == m {
			return x
		}
		return Concatenate([]*Node{x, Zeros(g, shapes.Make(dtype, m-size))}, 0)
	}
	c := IdentityWithCustomGradient(pad(vals, p), func(_, v *Node) *Node {
		dOut := Reshape(Slice(v, AxisRange(0, n*h)), n, h)
		dVals := Gather(MatMul(dOut, Transpose(StopGradient(w), 0, 1)), idx) // [P]
		return pad(dVals, p)
	})
	c = Reshape(Slice(c, AxisRange(0, n*h)), n, h)
	return Add(out, Sub(c, StopGradient(c)))
}

// weightedValues returns the pairs' values `[P]` times z, in z's dtype.
func (s *SparseInput) weightedValues(fn string, z *Node) *Node {
	if z.Rank() != 1 || z.Shape().Dimensions[0] != s.NumPairs() || !z.DType().IsFloat() {
		exceptions.Panicf("stagnb.SparseInput.%s: z must be a float vector [num_pairs=%d], got %s", fn, s.NumPairs(), z.Shape())
	}
	vals, _, _, _ := s.pairs(z.Graph())
	return Mul(ConvertDType(vals, z.DType()), z)
}
