package models

import (
	"fmt"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/stagnb"
)

// NodeTask is a transductive node-classification problem held on the host: one graph, its
// sparse features prepared for STAG, labels and the train/val/test split.
type NodeTask struct {
	Name       string
	Edges      *stagnb.EdgeList
	Features   *stagnb.SparseInput
	Labels     []int32
	Split      datasets.Split
	NumClasses int
	SelfLoops  bool
	// RawFeatures reports that Features are the raw features, not row-normalised (NewRawNodeTask).
	RawFeatures bool
}

// NewNodeTask builds the task of a Planetoid dataset with row-normalised features (as DGL does).
// selfLoops adds Ã = A + I (the paper's formula); the paper's code ran without them, and
// Citeseer then keeps only the self-loops of its raw graph. norm is the GCN normalisation.
func NewNodeTask(p *datasets.Planetoid, selfLoops bool, norm stagnb.Norm) (*NodeTask, error) {
	return newNodeTask(p, selfLoops, norm, p.RowNormalizedFeatures(), false)
}

// NewRawNodeTask is NewNodeTask with the raw (binary bag-of-words) features, not row-normalised:
// what BBGDC's reference code trained on.
func NewRawNodeTask(p *datasets.Planetoid, selfLoops bool, norm stagnb.Norm) (*NodeTask, error) {
	return newNodeTask(p, selfLoops, norm, p.Features, true)
}

func newNodeTask(p *datasets.Planetoid, selfLoops bool, norm stagnb.Norm, x datasets.CSR, raw bool) (*NodeTask, error) {
	src, dst := p.DirectedEdges(selfLoops)
	if !selfLoops { // DGL keeps the raw graph's own self-loops (Citeseer has 124).
		src, dst = append(src, p.SelfLoops...), append(dst, p.SelfLoops...)
	}
	el, err := stagnb.NewEdgeList(p.NumNodes, src, dst)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	feats, err := stagnb.NewSparseInput(el, x.NumCols, x.RowPtr, x.ColIdx, x.Values, norm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	return &NodeTask{Name: p.Name, Edges: el, Features: feats, Labels: p.Labels, Split: p.Split,
		NumClasses: p.NumClasses, SelfLoops: selfLoops, RawFeatures: raw}, nil
}

// GCN is a stack of STAG GCN layers for node classification: Layers layers of width Hidden
// (the last one NumClasses wide, no activation), with Noise on every aggregation.
type GCN struct {
	// Layers is the number of GCN layers (≥ 1), Hidden the width of all but the last.
	Layers, Hidden int
	// Noise is the stochastic aggregation of every layer (nil for the deterministic GCN).
	Noise *stagnb.Noise
	// FirstPlacement is the first layer's placement, OtherPlacement the other layers'.
	FirstPlacement, OtherPlacement stagnb.Placement
	// Activation between layers: "relu" (the paper) or "elu" (its code's default).
	Activation string
	// NormalMinChannels > 0 skips Normal noise in layers whose messages have fewer channels: the
	// paper-era code perturbed only messages with ≥ 8 channels, so Cora's and Citeseer's last
	// layer (7 and 6 logits, transformed first) had no Normal noise (digest §6 item 13).
	NormalMinChannels int
	// Dropout > 0 applies feature dropout of that rate to every layer's input while training
	// (Kipf & Welling's GCN; the paper's Figure 5 "Dropout" curve).
	Dropout float64
}

// Logits builds the model and returns `Float32[num_nodes, num_classes]`. The layers are scoped
// "layer_0", "layer_1", … under scope.
func (m *GCN) Logits(scope *model.Scope, g *Graph, task *NodeTask) *Node {
	checkDepth("GCN", m.Layers, m.Hidden)
	edges := task.Edges.Const(g)
	act := activationFn(m.Activation)
	var h *Node
	for l := range m.Layers {
		width := m.Hidden
		if l == m.Layers-1 {
			width = task.NumClasses
		}
		var layer *stagnb.GCNConfig
		if l > 0 && m.Dropout > 0 {
			h = layers.DropoutStatic(scope, h, m.Dropout)
		}
		if l == 0 {
			// Feature dropout on the sparse input draws one mask value per non-zero feature.
			layer = stagnb.NewGCNFromSparse(scope.At("layer_%d", l), task.Features, edges, width).
				Placement(m.FirstPlacement).InputDropout(m.Dropout)
		} else {
			layer = stagnb.NewGCN(scope.At("layer_%d", l), h, edges, width).Placement(m.OtherPlacement).Norm(task.Features.Norm())
		}
		layer.Noise(m.Noise)
		if m.NormalMinChannels > 0 && m.Noise != nil && m.Noise.Dist.Kind == stagnb.DistNormal {
			in := task.Features.NumFeatures()
			if l > 0 {
				in = m.Hidden
			}
			placement := m.OtherPlacement
			if l == 0 {
				placement = m.FirstPlacement
			}
			msgWidth := in
			if placement == stagnb.TransformFirst || (placement == stagnb.DGLOrder && in > width) {
				msgWidth = width
			}
			if msgWidth < m.NormalMinChannels {
				layer.Noise(nil)
			}
		}
		if l < m.Layers-1 {
			layer.Activation(act)
		}
		h = layer.Done()
	}
	return h
}

// activationFn returns the named activation: "elu" (α = 1, torch's default, which GoMLX lacks)
// or any name of GoMLX's activation package ("relu", "tanh", "none", …). An empty name, a model
// struct's zero value, panics rather than build a silently linear network.
func activationFn(name string) func(*Node) *Node {
	if name == "" {
		exceptions.Panicf(`models: the model's Activation is empty: name one ("relu", "elu", "tanh", …, or "none" for a linear network)`)
	}
	if name == "elu" {
		return func(x *Node) *Node {
			return Where(GreaterThan(x, ZerosLike(x)), x, AddScalar(Exp(MinScalar(x, 0)), -1))
		}
	}
	act := activation.FromName(name)
	return func(x *Node) *Node { return activation.Apply(act, x) }
}
