package models

import (
	"fmt"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/stagnb"
)

// NodePredictions is a node classifier's Monte-Carlo prediction for every node of a task: the
// mean over the samples of the softmax probabilities, and their standard deviation over the
// samples (zero for a deterministic model), the model's uncertainty about each probability.
type NodePredictions struct {
	NumNodes, NumClasses int
	// Mean and Std are num_nodes × num_classes, row-major.
	Mean, Std []float32
}

// Probs returns node v's mean class probabilities and their standard deviations over the samples.
func (p *NodePredictions) Probs(v int) (mean, std []float32) {
	c := p.NumClasses
	return p.Mean[v*c : (v+1)*c], p.Std[v*c : (v+1)*c]
}

// Class returns node v's predicted class, the argmax of its mean probabilities (the paper's code
// took the argmax of the mean logits, the same class for a deterministic model).
func (p *NodePredictions) Class(v int) int {
	mean, _ := p.Probs(v)
	return argmax(mean)
}

// Accuracy is the fraction of nodes whose predicted class (Class) is their label in task.
func (p *NodePredictions) Accuracy(task *NodeTask, nodes []int32) float64 {
	return accuracy(p.Mean, p.NumClasses, task.Labels, nodes)
}

// PredictNodes runs m on task `samples` times with the trained variables in store (the store
// TrainConfig.Inspect hands over, with RestoreBest the model of the reported metrics; or one that
// GoMLX's checkpoint package loaded), the noise on as at the paper's evaluation, and returns the
// samples' mean softmax probabilities and their spread. A variable of m that the store lacks is an
// error naming it.
func PredictNodes(backend compute.Backend, store *model.Store, task *NodeTask, m NodeClassifier, samples int) (*NodePredictions, error) {
	if samples < 1 {
		return nil, fmt.Errorf("models.PredictNodes: samples=%d must be ≥ 1", samples)
	}
	outs, err := predict(backend, store, samples, stagnb.MCProbs, func(scope *model.Scope, g *Graph) *Node {
		return m.Logits(scope, g, task)
	})
	if err != nil {
		return nil, fmt.Errorf("models.PredictNodes: %w", err)
	}
	return &NodePredictions{NumNodes: task.Edges.NumNodes, NumClasses: task.NumClasses, Mean: outs[0], Std: outs[1]}, nil
}

// PredictGraphs runs m on batch b `samples` times with the trained variables in store (as
// PredictNodes) and returns, per graph, the samples' mean prediction and its standard deviation.
// numFeatures is the batch's node features (GraphTask.NumFeatures).
func PredictGraphs(backend compute.Backend, store *model.Store, b *GraphBatch, numFeatures int, m GraphPredictor, samples int) (mean, std []float32, err error) {
	if samples < 1 {
		return nil, nil, fmt.Errorf("models.PredictGraphs: samples=%d must be ≥ 1", samples)
	}
	outs, err := predict(backend, store, samples, stagnb.MCMean, func(scope *model.Scope, g *Graph) *Node {
		return m.Predict(scope, g, b, numFeatures)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("models.PredictGraphs: %w", err)
	}
	return outs[0], outs[1], nil
}

// predict compiles and runs once the Monte-Carlo mean and spread of forward's reduced output on
// store's variables, and copies both to host memory.
func predict(backend compute.Backend, store *model.Store, samples int, reduce stagnb.MCReduce, forward func(scope *model.Scope, g *Graph) *Node) ([][]float32, error) {
	exec, err := model.NewExec(backend, store, func(scope *model.Scope, g *Graph) []*Node {
		mean, spread := stagnb.MonteCarlo(g, samples, reduce, func(int) *Node { return forward(scope, g) })
		return []*Node{mean, spread}
	})
	if err != nil {
		return nil, err
	}
	defer exec.Finalize()
	if _, err := exec.Compile(); err != nil {
		return nil, err
	}
	// Building the graph created the variables the store lacked, without values: they would be
	// initialized at random.
	for v := range store.IterVariables() {
		if !v.HasValue() && v.Path() != rngStatePath {
			return nil, fmt.Errorf("the store has no variable %s: it does not hold this model's trained variables", v.Path())
		}
	}
	outs, err := exec.Call()
	if err != nil {
		return nil, err
	}
	res := make([][]float32, len(outs))
	for i, t := range outs {
		res[i] = tensors.MustCopyFlatData[float32](t)
		t.FinalizeAll()
	}
	return res, nil
}
