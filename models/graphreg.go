package models

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/loss"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/stagnb"
)

// GraphBatch is a set of molecules packed into one disjoint-union graph.
type GraphBatch struct {
	Edges    *stagnb.EdgeList // with NodeGraph and NumGraphs set
	Features []float32        // num_nodes × NumFeatures
	Labels   []float32        // one per graph
}

// check panics, naming the caller fn, when b cannot be read as a batch of graphs with numFeatures
// features per node.
func (b *GraphBatch) check(fn string, numFeatures int) {
	switch {
	case b.Edges == nil:
		exceptions.Panicf("models.%s: the batch has no edge list", fn)
	case b.Edges.NodeGraph == nil || b.Edges.NumGraphs < 1:
		exceptions.Panicf("models.%s: the batch's edge list has no node → graph index: set its NodeGraph and NumGraphs (NewGraphTask does)", fn)
	case numFeatures < 1 || len(b.Features) != b.Edges.NumNodes*numFeatures:
		exceptions.Panicf("models.%s: the batch has %d feature values, want num_nodes × numFeatures = %d × %d", fn, len(b.Features), b.Edges.NumNodes, numFeatures)
	}
}

// GraphTask is a graph-regression problem: the train, validation and test batches, each
// trained or evaluated full-batch as the paper's code did.
type GraphTask struct {
	Name             string
	NumFeatures      int
	Train, Val, Test *GraphBatch
}

// NewGraphTask packs a molecule dataset into the paper's split (datasets.PaperMoleculeSplit).
func NewGraphTask(ds *datasets.MoleculeDataset) (*GraphTask, error) {
	split := ds.PaperSplit()
	task := &GraphTask{Name: ds.Name, NumFeatures: datasets.NumAtomFeatures}
	for _, part := range []struct {
		dst *(*GraphBatch)
		idx []int
	}{{&task.Train, split.Train}, {&task.Val, split.Val}, {&task.Test, split.Test}} {
		b, err := ds.Batch(part.idx)
		if err != nil {
			return nil, err
		}
		el, err := stagnb.NewEdgeList(b.NumNodes, b.Src, b.Dst)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ds.Name, err)
		}
		el.NodeGraph, el.NumGraphs = b.NodeGraph, b.NumGraphs
		*part.dst = &GraphBatch{Edges: el, Features: b.Features, Labels: b.Labels}
	}
	return task, nil
}

// GraphRegressor is the paper's molecule model: GCN layers of width Hidden, all followed by the
// activation, a SUM readout over each molecule's atoms, then Linear(Hidden, Hidden) → ReLU →
// Linear(Hidden, 1) (the MLE code's architecture).
type GraphRegressor struct {
	// Layers is the number of GCN layers (≥ 1), all Hidden wide, as the readout's hidden layer.
	Layers, Hidden int
	// Noise is the stochastic aggregation of every GCN layer (nil for the deterministic model).
	Noise *stagnb.Noise
	// Placement is where the noise sits in each GCN layer relative to its weights.
	Placement stagnb.Placement
	// Activation follows every GCN layer: "relu" (the paper) or "elu".
	Activation string
}

// Predict returns the predictions `Float32[num_graphs]` for batch b.
func (m *GraphRegressor) Predict(scope *model.Scope, g *Graph, b *GraphBatch, numFeatures int) *Node {
	checkDepth("GraphRegressor", m.Layers, m.Hidden)
	b.check("GraphRegressor.Predict", numFeatures)
	edges := b.Edges.Const(g)
	act := activationFn(m.Activation)
	h := Reshape(Const(g, b.Features), b.Edges.NumNodes, numFeatures)
	for l := range m.Layers {
		h = stagnb.NewGCN(scope.At("layer_%d", l), h, edges, m.Hidden).Noise(m.Noise).
			Placement(m.Placement).Activation(act).Done()
	}
	pooled := ScatterSum(Zeros(g, shapes.Make(dtypes.Float32, b.Edges.NumGraphs, m.Hidden)), edges.NodeGraph, h, false, false)
	r := activationFn("relu")(layers.Dense(scope.At("readout_0"), pooled, true, m.Hidden))
	return Reshape(layers.Dense(scope.At("readout_1"), r, true, 1), b.Edges.NumGraphs)
}

// GraphResult is the outcome of one graph-regression run.
type GraphResult struct {
	Seed      int64   `json:"seed"`
	BestEpoch int     `json:"best_epoch"`
	ValRMSE   float64 `json:"val_rmse"`
	TestRMSE  float64 `json:"test_rmse"`
	// TestPredStd is the mean over test molecules of the Monte-Carlo standard deviation of the
	// prediction (the model's predictive spread), at the best evaluation.
	TestPredStd float64 `json:"test_pred_std"`
	// ValPredictions and TestPredictions are the Monte-Carlo mean predictions at the best
	// evaluation, one per molecule in the split's order (GraphTask.Val, GraphTask.Test), so that
	// a reader can tell which molecules carry a difference between two rows. Records written before
	// they were kept lack them.
	ValPredictions  []float32 `json:"val_predictions,omitempty"`
	TestPredictions []float32 `json:"test_predictions,omitempty"`
	// MeanBaselineRMSE is the test RMSE of predicting the training labels' mean.
	MeanBaselineRMSE float64 `json:"mean_baseline_rmse"`
	FinalLoss        float64 `json:"final_loss"`
	Epochs           int     `json:"epochs"`
	WallSeconds      float64 `json:"wall_seconds"`
}

// TrainGraphRegressor trains m on task full-batch with MSE and Adam (cfg.LearningRate; L2 on the
// first layer when cfg.WeightDecayFirst > 0), evaluates the cfg.MCSamples-sample mean prediction
// every cfg.EvalEvery epochs (and after the last; the code's first evaluation came after epoch 1, see
// TrainConfig.EvalEvery), and reports the test RMSE at the lowest validation RMSE. To train several
// seeds of the same model, a GraphTrainer compiles its graphs once.
func TrainGraphRegressor(backend compute.Backend, task *GraphTask, m GraphPredictor, cfg TrainConfig) (*GraphResult, error) {
	t, err := NewGraphTrainer(backend, task, m, cfg)
	if err != nil {
		return nil, err
	}
	defer t.Finalize()
	return t.Train(cfg)
}

// GraphTrainer is NodeTrainer's counterpart for graph regression: it trains one model on one
// task with one protocol for as many seeds as asked, compiling its graphs once, each seed to the
// result TrainGraphRegressor gives it.
type GraphTrainer struct {
	trainerCore
	task *GraphTask
}

// NewGraphTrainer builds and compiles the training step of m on task with cfg's learning rate,
// first-layer weight decay and Monte-Carlo evaluation. Finalize frees it.
func NewGraphTrainer(backend compute.Backend, task *GraphTask, m GraphPredictor, cfg TrainConfig) (*GraphTrainer, error) {
	if cfg.Epochs < 1 || cfg.EvalEvery < 1 || cfg.MCSamples < 1 || cfg.MCChunk < 0 {
		return nil, fmt.Errorf("models.TrainGraphRegressor: Epochs=%d, EvalEvery=%d, MCSamples=%d must be ≥ 1, MCChunk=%d ≥ 0", cfg.Epochs, cfg.EvalEvery, cfg.MCSamples, cfg.MCChunk)
	}
	created := time.Now()
	labels := tensors.FromFlatDataAndDimensions(slices.Clone(task.Train.Labels), len(task.Train.Labels))
	step, err := newTrainStep(backend, cfg.Seed, func(scope *model.Scope, g *Graph) *Node {
		pred := m.Predict(scope, g, task.Train, task.NumFeatures)
		if cfg.WeightDecayFirst > 0 {
			for v := range scope.At("layer_0").IterVariables() {
				train.AddRegularizationLoss(MulScalar(ReduceAllSum(Square(v.NodeValue(g))), cfg.WeightDecayFirst/2))
			}
		}
		return ReduceAllMean(loss.MeanSquaredError([]*Node{Const(g, labels)}, []*Node{pred}))
	}, paperAdam(cfg.LearningRate))
	if err != nil {
		return nil, fmt.Errorf("models.NewGraphTrainer: %w", err)
	}
	t := &GraphTrainer{trainerCore: trainerCore{step: step, cfg: cfg, fresh: true, created: created}, task: task}
	perCall, _ := mcCalls(cfg.MCSamples, cfg.MCChunk)
	t.eval, err = model.NewExec(backend, step.store, func(scope *model.Scope, g *Graph) []*Node {
		var outs []*Node
		for _, b := range []*GraphBatch{task.Val, task.Test} {
			mean, spread := stagnb.MonteCarlo(g, perCall, stagnb.MCMean, func(int) *Node {
				return m.Predict(scope, g, b, task.NumFeatures)
			})
			outs = append(outs, mean, spread)
		}
		return outs
	})
	if err != nil {
		t.Finalize()
		return nil, fmt.Errorf("models.NewGraphTrainer: %w", err)
	}
	return t, nil
}

// Train trains one run with protocol cfg (its Seed, Epochs, EvalEvery, Progress, RestoreBest and
// Inspect) and returns the test RMSE at the lowest validation RMSE. cfg's LearningRate,
// WeightDecayFirst and MCSamples must be those the trainer was built with.
func (t *GraphTrainer) Train(cfg TrainConfig) (*GraphResult, error) {
	start, err := t.begin(cfg)
	if err != nil {
		return nil, fmt.Errorf("models.GraphTrainer.Train: %w", err)
	}
	task := t.task
	var trainMean float64
	for _, y := range task.Train.Labels {
		trainMean += float64(y)
	}
	trainMean /= float64(len(task.Train.Labels))
	res := &GraphResult{Seed: cfg.Seed, Epochs: cfg.Epochs, BestEpoch: -1,
		MeanBaselineRMSE: rmse(constant(len(task.Test.Labels), float32(trainMean)), task.Test.Labels)}
	var best snapshot // with cfg.RestoreBest, the variables at the lowest validation RMSE
	defer func() { best.Finalize() }()
	lastVal, lastTest := math.NaN(), math.NaN() // the latest evaluation's RMSEs, for cfg.Progress
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		res.FinalLoss, err = t.step.step()
		if err != nil {
			return nil, fmt.Errorf("models.TrainGraphRegressor: epoch %d: %w", epoch, err)
		}
		if epoch%cfg.EvalEvery != 0 && epoch != cfg.Epochs {
			if cfg.Progress != nil {
				cfg.Progress(regressionProgress(epoch, cfg.Epochs, res.FinalLoss, lastVal, lastTest, false))
			}
			continue
		}
		outs, err := t.evaluate()
		if err != nil {
			return nil, fmt.Errorf("models.TrainGraphRegressor: evaluation at epoch %d: %w", epoch, err)
		}
		pooled := poolMeanSpread(outs)
		val, test, spread := pooled[0], pooled[2], pooled[3]
		v := rmse(val, task.Val.Labels)
		if math.IsNaN(v) {
			return nil, fmt.Errorf("models.TrainGraphRegressor: evaluation at epoch %d: NaN predictions", epoch)
		}
		lastVal, lastTest = v, rmse(test, task.Test.Labels)
		if res.BestEpoch < 0 || v < res.ValRMSE {
			res.BestEpoch, res.ValRMSE, res.TestRMSE = epoch, v, lastTest
			res.ValPredictions, res.TestPredictions = val, test
			var s float64
			for _, x := range spread {
				s += float64(x)
			}
			res.TestPredStd = s / float64(len(spread))
			if err := t.keepBest(cfg, &best); err != nil {
				return nil, fmt.Errorf("models.TrainGraphRegressor: evaluation at epoch %d: %w", epoch, err)
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(regressionProgress(epoch, cfg.Epochs, res.FinalLoss, lastVal, lastTest, true))
		}
	}
	res.WallSeconds = time.Since(start).Seconds()
	if err := t.finish(cfg, best); err != nil {
		return nil, fmt.Errorf("models.TrainGraphRegressor: %w", err)
	}
	return res, nil
}

// poolMeanSpread combines the calls' outputs, pairs of a mean and a spread (population standard
// deviation) over each call's equally many samples, outs[call][output], into the mean and spread
// over all the samples (one call: its outputs): the mean of the means, and the root of the mean
// over calls of spread² + (mean − overall mean)².
func poolMeanSpread(outs [][][]float32) [][]float32 {
	if len(outs) == 1 {
		return outs[0]
	}
	k := float64(len(outs))
	pooled := make([][]float32, len(outs[0]))
	for i := 0; i+1 < len(pooled); i += 2 {
		pooled[i], pooled[i+1] = make([]float32, len(outs[0][i])), make([]float32, len(outs[0][i]))
		for j := range pooled[i] {
			var mean, sq float64
			for _, call := range outs {
				mean += float64(call[i][j])
			}
			mean /= k
			for _, call := range outs {
				s, d := float64(call[i+1][j]), float64(call[i][j])-mean
				sq += s*s + d*d
			}
			pooled[i][j], pooled[i+1][j] = float32(mean), float32(math.Sqrt(sq/k))
		}
	}
	return pooled
}

// regressionProgress is the Progress of a regression epoch: the loss and the latest evaluation's
// RMSEs (accuracies are NaN).
func regressionProgress(epoch, epochs int, loss, valRMSE, testRMSE float64, evaluated bool) Progress {
	nan := math.NaN()
	return Progress{Epoch: epoch, Epochs: epochs, Loss: loss, TrainAcc: nan, ValAcc: nan, TestAcc: nan, Best: nan,
		ValRMSE: valRMSE, TestRMSE: testRMSE, Evaluated: evaluated}
}

// rmse is the root mean squared difference of pred and want.
func rmse(pred, want []float32) float64 {
	var s float64
	for i := range pred {
		d := float64(pred[i]) - float64(want[i])
		s += d * d
	}
	return math.Sqrt(s / float64(len(pred)))
}

// constant returns n copies of v.
func constant(n int, v float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = v
	}
	return out
}
