package models

import (
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/internal/stagtest"
)

// TestModelBadInput checks that the models refuse a zero-value or inconsistent configuration
// with a panic naming the model and the field, instead of a shape error deep in the graph or a
// silently linear network.
func TestModelBadInput(t *testing.T) {
	node := toyTask(t)
	mol := toyGraphTask(t)
	noGraphs := *mol.Train
	edges := *noGraphs.Edges
	edges.NodeGraph, edges.NumGraphs = nil, 0
	noGraphs.Edges = &edges
	for _, c := range []struct {
		name, want string
		build      func(scope *model.Scope, g *Graph) *Node
	}{
		{"GCN zero value", "models.GCN: Layers=0 and Hidden=0", func(s *model.Scope, g *Graph) *Node {
			return (&GCN{}).Logits(s, g, node)
		}},
		{"GCN without activation", "Activation is empty", func(s *model.Scope, g *Graph) *Node {
			return (&GCN{Layers: 2, Hidden: 4}).Logits(s, g, node)
		}},
		{"GraphRegressor zero value", "models.GraphRegressor: Layers=0 and Hidden=0", func(s *model.Scope, g *Graph) *Node {
			return (&GraphRegressor{}).Predict(s, g, mol.Train, mol.NumFeatures)
		}},
		{"GraphRegressor without node-graph index", "models.GraphRegressor.Predict: the batch's edge list has no node → graph index", func(s *model.Scope, g *Graph) *Node {
			return (&GraphRegressor{Layers: 2, Hidden: 4, Activation: "relu"}).Predict(s, g, &noGraphs, mol.NumFeatures)
		}},
		{"GraphRegressor wrong feature count", "the batch has 20 feature values, want num_nodes × numFeatures = 5 × 3", func(s *model.Scope, g *Graph) *Node {
			return (&GraphRegressor{Layers: 2, Hidden: 4, Activation: "relu"}).Predict(s, g, mol.Train, 3)
		}},
	} {
		err := exceptions.TryCatch[error](func() {
			store := model.NewStore()
			model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) *Node {
				return c.build(scope, g)
			}).MustCall()
		})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a panic mentioning %q", c.name, err, c.want)
		}
	}
}
