package models

import (
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/stagnb"
)

// SAGE is a stack of STAG GraphSAGE layers (mean aggregator) for node classification, the network
// of the paper's Table 6: Layers layers of width Hidden (the last one NumClasses wide, no
// activation), with Noise on the neighbours' input features in every layer, as DGL's
// SAGEConv("mean") under the original code's patched copy_src:
//
//	h'_v = act( h_v·W_self + MEAN_{u→v}(z_uv ⊙ h_u)·W_neigh + b )
//
// The first layer reads the task's sparse features without forming the
// `[num_edges, num_features]` messages (stagnb.NewSAGEFromSparse).
type SAGE struct {
	// Layers is the depth (≥ 1), Hidden the width of every layer but the last.
	Layers, Hidden int
	// Noise multiplies every layer's neighbour features (nil: deterministic).
	Noise *stagnb.Noise
	// Activation between layers: "relu" (the paper) or "elu" (its code's default).
	Activation string
}

// Logits builds the model and returns `Float32[num_nodes, num_classes]`. The layers are scoped
// "layer_0", "layer_1", … under scope.
func (m *SAGE) Logits(scope *model.Scope, g *Graph, task *NodeTask) *Node {
	checkDepth("SAGE", m.Layers, m.Hidden)
	edges := task.Edges.Const(g)
	act := activationFn(m.Activation)
	var h *Node
	for l := range m.Layers {
		last := l == m.Layers-1
		width := m.Hidden
		if last {
			width = task.NumClasses
		}
		s := scope.At("layer_%d", l)
		if l == 0 {
			layer := stagnb.NewSAGEFromSparse(s, task.Features, edges, width).Noise(m.Noise)
			if !last {
				layer.Activation(act)
			}
			h = layer.Done()
			continue
		}
		layer := stagnb.NewSAGE(s, h, edges, width).Noise(m.Noise)
		if !last {
			layer.Activation(act)
		}
		h = layer.Done()
	}
	return h
}

// GIN is a stack of STAG GIN layers (sum aggregator, ε = 0 fixed) for node classification, the
// network of the paper's Table 7: Layers layers of width Hidden (the last one NumClasses wide),
// with Noise on the neighbours' messages (not on the self term) in every layer, as DGL's
// GINConv("sum") under the original code's patched copy_src:
//
//	h'_v = apply( h_v + Σ_{u→v} z_uv ⊙ h_u )
//
// apply is Linear(in, out) followed by the activation (none in the last layer), as the Cora
// script; with TwoLinearApply it is Linear(in, in) → act → Linear(in, out) → act, as the Citeseer
// script. The first layer reads the task's sparse features without forming the
// `[num_edges, num_features]` messages (stagnb.NewGINFromSparse).
type GIN struct {
	// Layers is the depth (≥ 1), Hidden the width of every layer but the last.
	Layers, Hidden int
	// Noise multiplies every layer's neighbour messages (nil: deterministic).
	Noise *stagnb.Noise
	// Activation inside apply: "relu" (the paper) or "elu" (its code's default).
	Activation string
	// TwoLinearApply makes apply two linear layers, the first one as wide as the layer's input
	// (the original Citeseer script; on Citeseer's 3703 features its first layer alone has
	// 3703² + 3703 + 3703·Hidden + Hidden parameters).
	TwoLinearApply bool
}

// Logits builds the model and returns `Float32[num_nodes, num_classes]`. The layers are scoped
// "layer_0", "layer_1", … under scope.
func (m *GIN) Logits(scope *model.Scope, g *Graph, task *NodeTask) *Node {
	checkDepth("GIN", m.Layers, m.Hidden)
	edges := task.Edges.Const(g)
	act := activationFn(m.Activation)
	var h *Node
	for l := range m.Layers {
		last := l == m.Layers-1
		width := m.Hidden
		layerAct := act
		if last {
			width, layerAct = task.NumClasses, nil
		}
		s := scope.At("layer_%d", l)
		if l == 0 {
			layer := stagnb.NewGINFromSparse(s, task.Features, edges, width).Noise(m.Noise).Epsilon(0, false)
			if m.TwoLinearApply {
				layer.Hidden(task.Features.NumFeatures(), layerAct)
			}
			if layerAct != nil {
				layer.Activation(layerAct)
			}
			h = layer.Done()
			continue
		}
		layer := stagnb.NewGIN(s, h, edges, width).Noise(m.Noise).Epsilon(0, false)
		if m.TwoLinearApply {
			layer.Apply(stagnb.GINHiddenApply(m.Hidden, width, layerAct))
		}
		if layerAct != nil {
			layer.Activation(layerAct)
		}
		h = layer.Done()
	}
	return h
}

// checkDepth panics unless the network has at least one layer and a positive width.
func checkDepth(name string, layers, hidden int) {
	if layers < 1 || hidden < 1 {
		exceptions.Panicf("models.%s: Layers=%d and Hidden=%d must be ≥ 1", name, layers, hidden)
	}
}

// Table6Model is the GraphSAGE network of the paper's Table 6 as the original code built it
// (scripts/cora_gnn/run_cora.py): DGL SAGEConv("mean") layers, 128 hidden units, ELU (the
// script's default; the paper says ReLU), noise on the neighbours' input features in every
// layer. Train it with the Table 2 protocol (DefaultTrainConfig).
//
// Parameters on Cora (1433 features, 7 classes): 368,775 with 2 layers
// (2·1433·128 + 128 + 2·128·7 + 7) and 434,567 with 4 layers (+ 2·(2·128·128 + 128)). DGL 0.5's
// SAGEConv had a bias in both of its linear layers, hence 128 + 7 (2 layers) or 3·128 + 7
// (4 layers) more parameters for the same function class; here each layer has one bias.
func Table6Model(layers int, noise *stagnb.Noise) *SAGE {
	return &SAGE{Layers: layers, Hidden: 128, Noise: noise, Activation: "elu"}
}

// Table7Model is the GIN network of the paper's Table 7 as the original code built it: DGL
// GINConv("sum") layers with ε = 0 fixed, 128 hidden units, ELU (the scripts' default; the paper
// says ReLU), noise on the neighbours' messages in every layer. On Cora (scripts/cora_gnn) apply
// is one linear layer; on "citeseer" (scripts/citeseer) it is two, the first as wide as the
// layer's input. Train it with the Table 2 protocol (DefaultTrainConfig).
//
// Parameters on Cora: 184,455 with 2 layers (1433·128 + 128 + 128·7 + 7, the same as the GCN)
// and 217,479 with 4 layers (+ 2·(128·128 + 128)). On Citeseer (3703 features, 6 classes) with the
// two-linear apply: 14,207,310 with 2 layers (3703² + 3703 + 3703·128 + 128 for the first,
// 128² + 128 + 128·6 + 6 for the last) and 14,273,358 with 4 layers (+ 2·2·(128² + 128)).
func Table7Model(layers int, noise *stagnb.Noise, dataset string) *GIN {
	return &GIN{Layers: layers, Hidden: 128, Noise: noise, Activation: "elu", TwoLinearApply: dataset == "citeseer"}
}
