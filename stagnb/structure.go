package stagnb

import (
	"fmt"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
)

// LayerSharing says whether the message-passing layers draw their own noise.
type LayerSharing int

const (
	// PerLayer draws fresh noise in every layer: Z[l, …] independent over l.
	PerLayer LayerSharing = iota
	// SharedLayers draws once per forward pass and reuses the draw in every layer: Z[:, …] shared.
	// Each sample of each MonteCarlo call in a graph is a pass of its own; outside them, the graph's
	// layers share one draw. Per-feature noise is drawn for the first layer's channels; a narrower later layer uses the
	// first of them (z[e, c] per edge and channel index), a wider one is an error.
	SharedLayers
)

// FeatureSharing says whether the feature channels draw their own noise.
type FeatureSharing int

const (
	// PerFeature draws one weight per feature channel: Z[l, c, …] independent over c.
	PerFeature FeatureSharing = iota
	// SharedFeatures draws one weight for all channels: Z[l, :, …] shared.
	SharedFeatures
)

// EdgeSharing says how the noise is shared among the edges.
type EdgeSharing int

const (
	// PerEdge draws one weight per edge: Z[…, u, v] independent over edges.
	PerEdge EdgeSharing = iota
	// PerSourceNode draws one weight per node and applies it to every message the node sends,
	// as node sampling does (the paper's Z[:, :, v, v]).
	PerSourceNode
	// AllEdges draws one weight for the whole graph: Z[…, :, :] shared.
	AllEdges
)

// Structure is the sharing pattern of the paper's 4-D noise tensor Z[L, C, N, N] (Section 5):
// which axes draw independently and which reuse one draw.
type Structure struct {
	// Layers says whether the layers draw their own noise or share one draw (Z's axis L).
	Layers LayerSharing
	// Features says whether each channel gets its own weight or all share one (axis C).
	Features FeatureSharing
	// Edges says whether each edge, each source node or the whole graph gets a weight (axes N×N).
	Edges EdgeSharing
	// Renormalize rescales the weights arriving at each node so that they sum to its in-degree
	// (per feature when the noise is per feature), where that sum is not zero: the original
	// code's DropEdge and Graph DropConnect baselines. Nodes whose weights are all zero get 0.
	Renormalize bool
}

// The named structures of the paper's Section 5 ("STAG as a Unifying Framework").
var (
	// StructureSTAG is per layer × feature × edge: the paper's continuous STAG, and what its code drew.
	StructureSTAG = Structure{Layers: PerLayer, Features: PerFeature, Edges: PerEdge}
	// StructureDropout is Z[l, i, :, :] ~ q with Z ∈ R^{L×C}: one weight per layer and feature,
	// shared by all edges. With Bernoulli it is (binary) Dropout on the aggregated inputs,
	// with Normal it is Gaussian Dropout.
	StructureDropout = Structure{Layers: PerLayer, Features: PerFeature, Edges: AllEdges}
	// StructureDropEdge is Z[:, :, u, v] ~ q with Z ∈ R^{|E|}: one weight per edge, shared by
	// the layers and the features.
	StructureDropEdge = Structure{Layers: SharedLayers, Features: SharedFeatures, Edges: PerEdge}
	// StructureNodeSampling is Z[:, :, v, v] ~ q with Z ∈ R^N (FastGCN-style node sampling):
	// one weight per node, applied to all its outgoing messages, shared by layers and features.
	StructureNodeSampling = Structure{Layers: SharedLayers, Features: SharedFeatures, Edges: PerSourceNode}
	// StructureGDC is Z[l, c, u, v] ~ q with Z ∈ R^{L×C×|E|} (Graph DropConnect): per layer,
	// feature and edge, StructureSTAG's pattern, used with a Bernoulli. The paper's GDC also
	// renormalises the weights to each node's in-degree (its only difference from STAG with a
	// Bernoulli): write "gdc+renormalize", or set Renormalize.
	StructureGDC = Structure{Layers: PerLayer, Features: PerFeature, Edges: PerEdge}
)

// ParseStructure reads a preset name (stag, dropout, dropedge, node_sampling, gdc) optionally
// followed by modifiers joined with "+": per_layer or shared_layers, per_feature or
// shared_features, per_edge, per_source_node or all_edges, and renormalize.
// For example "dropedge+per_layer+renormalize" is the original code's DE baseline.
func ParseStructure(s string) (Structure, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "+")
	presets := map[string]Structure{
		"stag": StructureSTAG, "dropout": StructureDropout, "dropedge": StructureDropEdge,
		"node_sampling": StructureNodeSampling, "gdc": StructureGDC,
	}
	st, ok := presets[parts[0]]
	if !ok {
		return Structure{}, fmt.Errorf("noise structure %q: unknown preset %q (want stag, dropout, dropedge, node_sampling or gdc)", s, parts[0])
	}
	for _, m := range parts[1:] {
		switch m {
		case "per_layer":
			st.Layers = PerLayer
		case "shared_layers":
			st.Layers = SharedLayers
		case "per_feature":
			st.Features = PerFeature
		case "shared_features":
			st.Features = SharedFeatures
		case "per_edge":
			st.Edges = PerEdge
		case "per_source_node":
			st.Edges = PerSourceNode
		case "all_edges":
			st.Edges = AllEdges
		case "renormalize":
			st.Renormalize = true
		default:
			return Structure{}, fmt.Errorf("noise structure %q: unknown modifier %q (want per_layer, shared_layers, per_feature, shared_features, per_edge, per_source_node, all_edges or renormalize)", s, m)
		}
	}
	return st, nil
}

// String writes the structure in the form ParseStructure reads, naming the closest preset.
func (s Structure) String() string {
	base := s
	base.Renormalize = false
	for _, p := range []struct {
		name string
		st   Structure
	}{{"stag", StructureSTAG}, {"dropout", StructureDropout}, {"dropedge", StructureDropEdge}, {"node_sampling", StructureNodeSampling}} {
		if base == p.st {
			if s.Renormalize {
				return p.name + "+renormalize"
			}
			return p.name
		}
	}
	parts := []string{"stag"}
	if s.Layers == SharedLayers {
		parts = append(parts, "shared_layers")
	}
	if s.Features == SharedFeatures {
		parts = append(parts, "shared_features")
	}
	switch s.Edges {
	case PerSourceNode:
		parts = append(parts, "per_source_node")
	case AllEdges:
		parts = append(parts, "all_edges")
	}
	if s.Renormalize {
		parts = append(parts, "renormalize")
	}
	return strings.Join(parts, "+")
}

// Noise is a complete noise specification: the law of each weight, how the weights are shared,
// and whether the noise stays on when the graph is not training.
//
// The zero value is "no noise". A nil *Noise also means no noise.
type Noise struct {
	// Dist is the law of each weight z.
	Dist Distribution
	// Structure says which weights are drawn independently and which are shared.
	Structure Structure
	// OffAtEval replaces the weights by their mean E[z] when the graph is not a training graph
	// (weight scaling, as Dropout does at test time), renormalized to the in-degree as in training
	// when the structure says so, which makes every weight 1 (DropEdge evaluates on the whole
	// graph); see EvalWeight. The paper keeps the noise on at test time and averages Monte-Carlo
	// samples, which is the default (false).
	OffAtEval bool
}

// EvalWeight is the constant weight that stands for every draw when the noise is off at
// evaluation: E[z], or, when the structure renormalizes the weights to the in-degree, those means
// renormalized, which is 1 (0 when E[z] is 0, as a node whose weights are all 0 keeps them).
// DistGiven's mean is a graph node, MuNode, which Weights uses instead: for it EvalWeight is not
// defined (NaN, or 1 when renormalised).
func (n *Noise) EvalWeight() float64 {
	m := n.Dist.Mean()
	if n.Structure.Renormalize && m != 0 {
		return 1
	}
	return m
}

// NewNoise returns the noise with distribution d and structure s, noise on at evaluation. It
// panics when d is not valid (Distribution.Validate), as a d made by Normal, Uniform, Bernoulli
// or ParseDistribution with its error unchecked may not be.
func NewNoise(d Distribution, s Structure) *Noise {
	if err := d.Validate(); err != nil {
		exceptions.Panicf("stagnb.NewNoise: %v", err)
	}
	return &Noise{Dist: d, Structure: s}
}

// Active reports whether this noise draws anything in graph g.
func (n *Noise) Active(scope *model.Scope, g *Graph) bool {
	if n == nil || n.Dist.IsNone() {
		return false
	}
	return !n.OffAtEval || (scope != nil && scope.IsTraining(g))
}

// String describes the noise, e.g. "normal(1,0.2) stag".
func (n *Noise) String() string {
	if n == nil || n.Dist.IsNone() {
		return "none"
	}
	s := n.Dist.String() + " " + n.Structure.String()
	if n.OffAtEval {
		s += " off-at-eval"
	}
	return s
}

// graphParamSample is the graph parameter (set by the Monte-Carlo builders, see newPass) that
// numbers the current forward pass, so that noise shared across layers is drawn once per pass; 0
// outside them.
const graphParamSample = "stagnb_mc_sample"

// sharedDrawKey identifies a draw reused across layers within one forward pass. The noise is
// keyed by value, so that layers which each built their own *Noise from the same
// hyperparameters (NoiseFromScope) share the draw too.
type sharedDrawKey struct {
	noise  Noise
	sample int
	rows   int
	cols   int
	dtype  dtypes.DType
}

// Weights draws the noise weights for the messages of edges, `width` channels each, and returns
// them shaped to multiply the `[num_edges, width]` messages: `[num_edges, width]`,
// `[num_edges, 1]`, `[1, width]` or `[1, 1]` depending on the structure.
// It returns nil when the noise is not active (see Active); when it is off at evaluation it
// returns the constant EvalWeight, or for DistGiven its mean MuNode (not renormalised).
func (n *Noise) Weights(scope *model.Scope, edges *Edges, width int, dtype dtypes.DType) *Node {
	g := edges.Src.Graph()
	if n == nil || n.Dist.IsNone() {
		return nil
	}
	if err := n.Dist.Validate(); err != nil {
		exceptions.Panicf("stagnb.Noise.Weights: %v", err)
	}
	if !n.Active(scope, g) {
		if n.Dist.Kind == DistGiven {
			return ConvertDType(n.Dist.MuNode, dtype)
		}
		return Scalar(g, dtype, n.EvalWeight())
	}
	rows := edges.NumEdges()
	switch n.Structure.Edges {
	case PerSourceNode:
		rows = edges.NumNodes
	case AllEdges:
		rows = 1
	}
	cols := width
	if n.Structure.Features == SharedFeatures {
		cols = 1
	}
	draw := func() *Node {
		z := n.Dist.Sample(scope, g, shapes.Make(dtype, rows, cols))
		if n.Structure.Edges == PerSourceNode {
			z = Gather(z, edges.Src)
		}
		if n.Structure.Renormalize {
			z = renormalizeToInDegree(z, edges)
		}
		return z
	}
	if n.Structure.Layers == PerLayer {
		return draw()
	}
	sample, _ := model.GetGraphParam(g, "/"+graphParamSample)
	si, _ := sample.(int)
	key := sharedDrawKey{noise: *n, sample: si, rows: rows, cols: cols, dtype: dtype}
	cache := sharedDraws(g)
	if z, ok := cache[key]; ok {
		return z
	}
	for k, z := range cache {
		if k.noise == *n && k.sample == si && k.rows == rows && k.dtype == dtype && k.cols != cols {
			if k.cols < cols {
				exceptions.Panicf("stagnb.Noise.Weights: noise shared across layers (%s) was drawn for %d channels and cannot serve a wider layer of %d channels (the first layer must be the widest)", n, k.cols, cols)
			}
			// A narrower layer reuses the first channels of the same draw: z[e, c] is one draw
			// per edge and channel index for all the layers (renormalisation is per channel, so
			// the prefix of a renormalised draw is renormalised too). Without edges there is
			// nothing to slice, and go-xla v0.4.5 refuses a slice of an empty axis.
			if z.Shape().Dimensions[0] == 0 {
				return Zeros(g, shapes.Make(dtype, 0, cols))
			}
			return Slice(z, AxisRange(), AxisRange(0, cols))
		}
	}
	z := draw()
	cache[key] = z
	return z
}

// sharedDraws returns the per-graph cache of draws shared across layers.
func sharedDraws(g *Graph) map[sharedDrawKey]*Node {
	const name = "/stagnb_shared_draws"
	if v, ok := model.GetGraphParam(g, name); ok {
		return v.(map[sharedDrawKey]*Node)
	}
	m := map[sharedDrawKey]*Node{}
	model.SetGraphParam(g, name, m)
	return m
}

// renormalizeToInDegree rescales z (`[num_edges, C']`, or `[1, C']` broadcast to all edges) so that
// the weights arriving at each node sum to its in-degree, per column; where they sum to 0 the
// weights stay 0.
func renormalizeToInDegree(z *Node, edges *Edges) *Node {
	g := z.Graph()
	dtype := z.DType()
	e, cols := edges.NumEdges(), z.Shape().Dimensions[1]
	if z.Shape().Dimensions[0] != e {
		z = BroadcastToDims(z, e, cols)
	}
	sums := scatterSum(Zeros(g, shapes.Make(dtype, edges.NumNodes, cols)), edges.Dst, z)
	deg := ConvertDType(edges.InDegree, dtype)
	nonZero := NotEqual(sums, ZerosLike(sums))
	safe := Where(nonZero, sums, OnesLike(sums))
	factor := Where(nonZero, Div(BroadcastToDims(deg, edges.NumNodes, cols), safe), ZerosLike(sums))
	return Mul(z, Gather(factor, edges.Dst))
}
