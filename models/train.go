package models

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/loss"
	"github.com/stagnb/stagnb/stagnb"
)

// TrainConfig is a training protocol for node classification. DefaultTrainConfig gives the one
// behind the paper's Table 2 as the original code ran it. TrainGraphRegressor takes it too, and
// uses all but MCVote and SelectFinal.
type TrainConfig struct {
	// LearningRate of Adam (code and the paper's main text: 5e-3; its appendix says 5e-4).
	LearningRate float64 `json:"learning_rate"`
	// WeightDecayFirst is the L2 penalty on the first layer only, as torch's Adam weight_decay
	// (gradient + wd·θ, i.e. loss + wd/2·‖θ‖²), on its weights and bias (code and main text: 5e-3;
	// the appendix says 5e-4).
	WeightDecayFirst float64 `json:"weight_decay_first"`
	// Epochs of full-batch training (code: 3000; the paper's text says 2000 with early stopping).
	Epochs int `json:"epochs"`
	// EvalEvery is the evaluation interval in epochs (code: 100). The test accuracy reported is
	// the one at the first evaluation with the best validation accuracy. We evaluate after epochs
	// EvalEvery, 2·EvalEvery, …, and after the last; the code evaluated after epochs 1, 101, …,
	// 2901 (idx_epoch % 100 == 0, counted from 0), which shifts the candidates by 99 epochs.
	EvalEvery int `json:"eval_every"`
	// MCSamples averaged at each evaluation, noise on (paper: 32).
	MCSamples int `json:"mc_samples"`
	// MCChunk > 0 draws the MCSamples of an evaluation in calls of at most MCChunk samples each
	// (the largest divisor of MCSamples not above it), so that the evaluation graph unrolls only
	// that many forward passes: XLA takes about 30 s to compile 32 of them on a GPU, while the
	// pure-Go backend does not compile. The calls draw what one graph of all the samples would,
	// in the same order (the store's random state goes on from call to call), so a node
	// classifier's evaluation changes only in the rounding of its sums; a graph regressor's
	// validation and test samples take turns by call. 0 unrolls all the samples in one graph.
	// It is how the evaluation runs, not what it computes: ProtocolDiff leaves it out.
	MCChunk int `json:"mc_chunk,omitempty"`
	// MCVote predicts each node's class by the majority vote of the samples' argmaxes (ties to the
	// lower class), as BBGDC's code did (accuracy_mrun_np), instead of the argmax of their mean
	// logits (STAG's code).
	MCVote bool `json:"mc_vote,omitempty"`
	// SelectFinal reports the metrics of the last evaluation instead of those at the best
	// validation accuracy (the paper's Figure 5: 400 epochs, no early stopping).
	SelectFinal bool `json:"select_final,omitempty"`
	// Seed of the initialisation and of the noise.
	Seed int64 `json:"seed"`
	// Progress, if set, is called after every epoch (the progress package draws it as a bar).
	Progress func(Progress) `json:"-"`
	// Inspect, if set, is called with the trained variables' store after the last epoch, before
	// the store is freed: the way to read learned parameters (for example VIGCN.LearnedNoise), to
	// predict with the trained model (PredictNodes, PredictGraphs) or to save it (GoMLX's
	// checkpoint package).
	Inspect func(store *model.Store) error `json:"-"`
	// RestoreBest puts the variables as they were at the selected evaluation (the best validation
	// score, or the last one with SelectFinal) back into the store before Inspect sees it, so that
	// the model inspected is the one whose metrics the result reports; without it Inspect sees the
	// last epoch's. It copies the variables to host memory at each better evaluation and changes
	// no result.
	RestoreBest bool `json:"-"`
}

// DefaultTrainConfig is the original code's Table 2 protocol.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{LearningRate: 5e-3, WeightDecayFirst: 5e-3, Epochs: 3000, EvalEvery: 100, MCSamples: 32, Seed: 1}
}

// QuickTrainConfig shrinks the protocol to run in seconds on a CPU: 100 epochs, evaluated at 50
// and 100 with 8 Monte-Carlo samples; its results are not comparable to the paper.
func QuickTrainConfig() TrainConfig {
	c := DefaultTrainConfig()
	c.Epochs, c.EvalEvery, c.MCSamples = 100, 50, 8
	return c
}

// Progress reports one epoch of training: its loss and the accuracies of the latest evaluation
// (NaN before the first, and in graph regression), Best being the test accuracy at the best
// validation so far.
type Progress struct {
	Epoch, Epochs                         int
	Loss, TrainAcc, ValAcc, TestAcc, Best float64
	// ValRMSE and TestRMSE are, in graph regression, the RMSEs of the latest evaluation (NaN
	// before the first); zero in node classification.
	ValRMSE, TestRMSE float64
	// Evaluated is true when this epoch ran a Monte-Carlo evaluation.
	Evaluated bool
}

// Status is a short description of p for a progress bar: "loss 0.412, val 78.2 %, test 80.1 %",
// or in graph regression "loss 0.871, val RMSE 1.0342, test RMSE 1.1205".
func (p Progress) Status() string {
	s := fmt.Sprintf("loss %.4f", p.Loss)
	switch {
	case !math.IsNaN(p.ValAcc):
		s += fmt.Sprintf(", val %.1f %%, test %.1f %%", 100*p.ValAcc, 100*p.TestAcc)
	case p.ValRMSE > 0:
		s += fmt.Sprintf(", val RMSE %.4f, test RMSE %.4f", p.ValRMSE, p.TestRMSE)
	}
	return s
}

// Evaluation is the Monte-Carlo evaluation after an epoch.
type Evaluation struct {
	Epoch    int     `json:"epoch"`
	Loss     float64 `json:"loss"`
	TrainAcc float64 `json:"train_acc"`
	ValAcc   float64 `json:"val_acc"`
	TestAcc  float64 `json:"test_acc"`
}

// NodeResult is the outcome of one training run. Accuracies are fractions in [0, 1].
type NodeResult struct {
	Seed      int64   `json:"seed"`
	BestEpoch int     `json:"best_epoch"`
	TrainAcc  float64 `json:"train_acc"`
	ValAcc    float64 `json:"val_acc"`
	TestAcc   float64 `json:"test_acc"`
	// TestNLL and TestECE (15 equal-width bins) are computed from the Monte-Carlo mean of the
	// softmax probabilities at the best evaluation; the accuracies use the mean of the logits,
	// as the paper's code did (or the samples' vote, TrainConfig.MCVote).
	TestNLL     float64      `json:"test_nll"`
	TestECE     float64      `json:"test_ece"`
	FinalLoss   float64      `json:"final_loss"`
	Epochs      int          `json:"epochs"`
	WallSeconds float64      `json:"wall_seconds"`
	Evaluations []Evaluation `json:"evaluations"`
}

// NodeClassifier is a model that TrainNodeClassifier can train: GCN, and the variational and
// Bayesian models.
type NodeClassifier interface {
	// Logits builds the model in graph g and returns `Float32[num_nodes, num_classes]`. While
	// training (scope.IsTraining(g)) it may add its own regularisation terms with
	// train.AddRegularizationLoss (a variational model's KL, for example). The first message-passing
	// layer must be scoped "layer_0": TrainConfig.WeightDecayFirst applies to its variables.
	Logits(scope *model.Scope, g *Graph, task *NodeTask) *Node
}

// TrainNodeClassifier trains m on task with protocol cfg on backend and returns the test metrics
// at the best validation accuracy. A NaN or infinite loss or gradient stops the run with an error naming
// the epoch. To train several seeds of the same model, a NodeTrainer compiles its graphs once.
func TrainNodeClassifier(backend compute.Backend, task *NodeTask, m NodeClassifier, cfg TrainConfig) (*NodeResult, error) {
	t, err := NewNodeTrainer(backend, task, m, cfg)
	if err != nil {
		return nil, err
	}
	defer t.Finalize()
	return t.Train(cfg)
}

// NodeTrainer trains one model on one task with one protocol for as many seeds as asked, one
// after the other, compiling its training and evaluation graphs once: each seed starts from the
// variables a fresh run would have, and trains to the same result as TrainNodeClassifier. On a
// GPU, where XLA takes seconds to compile each graph, compiling is most of a short run's time.
type NodeTrainer struct {
	trainerCore
	task *NodeTask
}

// NewNodeTrainer builds and compiles the training step of m on task with cfg's learning rate, first-layer
// weight decay and Monte-Carlo evaluation; cfg.Seed seeds the first run. Finalize frees it.
func NewNodeTrainer(backend compute.Backend, task *NodeTask, m NodeClassifier, cfg TrainConfig) (*NodeTrainer, error) {
	if cfg.Epochs < 1 || cfg.EvalEvery < 1 || cfg.MCSamples < 1 || cfg.MCChunk < 0 {
		return nil, fmt.Errorf("models.TrainNodeClassifier: Epochs=%d, EvalEvery=%d, MCSamples=%d must be ≥ 1, MCChunk=%d ≥ 0", cfg.Epochs, cfg.EvalEvery, cfg.MCSamples, cfg.MCChunk)
	}
	created := time.Now()
	step, err := newTrainStep(backend, cfg.Seed, func(scope *model.Scope, g *Graph) *Node {
		logits := m.Logits(scope, g, task)
		if cfg.WeightDecayFirst > 0 {
			var sq *Node
			for v := range scope.At("layer_0").IterVariables() {
				s := ReduceAllSum(Square(v.NodeValue(g)))
				if sq == nil {
					sq = s
				} else {
					sq = Add(sq, s)
				}
			}
			train.AddRegularizationLoss(MulScalar(sq, cfg.WeightDecayFirst/2))
		}
		return trainLoss(g, task, logits)
	}, paperAdam(cfg.LearningRate))
	if err != nil {
		return nil, fmt.Errorf("models.NewNodeTrainer: %w", err)
	}
	t := &NodeTrainer{trainerCore: trainerCore{step: step, cfg: cfg, fresh: true, created: created}, task: task}
	perCall, _ := mcCalls(cfg.MCSamples, cfg.MCChunk)
	t.eval, err = model.NewExec(backend, step.store, func(scope *model.Scope, g *Graph) []*Node {
		scores, probs := mcScores(g, perCall, cfg.MCSamples, cfg.MCVote, func(int) *Node { return m.Logits(scope, g, task) })
		return []*Node{scores, probs}
	})
	if err != nil {
		t.Finalize()
		return nil, fmt.Errorf("models.NewNodeTrainer: %w", err)
	}
	return t, nil
}

// Train trains one run with protocol cfg (its Seed, Epochs, EvalEvery, SelectFinal, Progress,
// RestoreBest and Inspect) and returns the test metrics at the best validation accuracy. cfg's
// LearningRate, WeightDecayFirst, MCSamples and MCVote must be those the trainer was built with.
func (t *NodeTrainer) Train(cfg TrainConfig) (*NodeResult, error) {
	start, err := t.begin(cfg)
	if err != nil {
		return nil, fmt.Errorf("models.NodeTrainer.Train: %w", err)
	}
	task := t.task
	res := &NodeResult{Seed: cfg.Seed, Epochs: cfg.Epochs, BestEpoch: -1}
	var bestProbs []float32
	var best snapshot // with cfg.RestoreBest, the variables at the selected evaluation
	defer func() { best.Finalize() }()
	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		var err error
		res.FinalLoss, err = t.step.step()
		if err != nil {
			return nil, fmt.Errorf("models.TrainNodeClassifier: epoch %d: %w", epoch, err)
		}
		if epoch%cfg.EvalEvery != 0 && epoch != cfg.Epochs {
			if cfg.Progress != nil {
				cfg.Progress(Progress{Epoch: epoch, Epochs: cfg.Epochs, Loss: res.FinalLoss, TrainAcc: res.lastTrain(),
					ValAcc: res.lastVal(), TestAcc: res.lastTest(), Best: res.TestAcc})
			}
			continue
		}
		outs, err := t.evaluate()
		if err != nil {
			return nil, fmt.Errorf("models.TrainNodeClassifier: evaluation at epoch %d: %w", epoch, err)
		}
		sums := sumCalls(outs)
		scores, meanProbs := sums[0], sums[1]
		c := task.NumClasses
		ev := Evaluation{Epoch: epoch, Loss: res.FinalLoss,
			TrainAcc: accuracy(scores, c, task.Labels, task.Split.Train),
			ValAcc:   accuracy(scores, c, task.Labels, task.Split.Val),
			TestAcc:  accuracy(scores, c, task.Labels, task.Split.Test)}
		for _, p := range meanProbs {
			if math.IsNaN(float64(p)) {
				return nil, fmt.Errorf("models.TrainNodeClassifier: evaluation at epoch %d: NaN predictions", epoch)
			}
		}
		res.Evaluations = append(res.Evaluations, ev)
		if res.BestEpoch < 0 || ev.ValAcc > res.ValAcc || cfg.SelectFinal {
			res.BestEpoch, res.TrainAcc, res.ValAcc, res.TestAcc = epoch, ev.TrainAcc, ev.ValAcc, ev.TestAcc
			bestProbs = meanProbs
			if err := t.keepBest(cfg, &best); err != nil {
				return nil, fmt.Errorf("models.TrainNodeClassifier: evaluation at epoch %d: %w", epoch, err)
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(Progress{Epoch: epoch, Epochs: cfg.Epochs, Loss: ev.Loss, TrainAcc: ev.TrainAcc,
				ValAcc: ev.ValAcc, TestAcc: ev.TestAcc, Best: res.TestAcc, Evaluated: true})
		}
	}
	res.TestNLL, res.TestECE = nllAndECE(bestProbs, task.NumClasses, task.Labels, task.Split.Test, 15)
	res.WallSeconds = time.Since(start).Seconds()
	if err := t.finish(cfg, best); err != nil {
		return nil, fmt.Errorf("models.TrainNodeClassifier: %w", err)
	}
	return res, nil
}

// trainLoss is node classification's main loss: the mean cross-entropy of logits on the task's
// training nodes, which the graph holds as constants.
func trainLoss(g *Graph, task *NodeTask, logits *Node) *Node {
	idx := task.Split.Train
	labels := make([]int32, len(idx))
	for i, v := range idx {
		labels[i] = task.Labels[v]
	}
	nodes := Const(g, tensors.FromFlatDataAndDimensions(slices.Clone(idx), len(idx), 1))
	y := Const(g, tensors.FromFlatDataAndDimensions(labels, len(labels), 1))
	return ReduceAllMean(loss.SparseCategoricalCrossEntropyLogits([]*Node{y}, []*Node{Gather(logits, nodes)}))
}

// graphConfigDiff names the fields of a protocol that shape a trainer's graphs and differ between
// built and asked ("" if none).
func graphConfigDiff(built, asked TrainConfig) string {
	var diffs []string
	if built.LearningRate != asked.LearningRate {
		diffs = append(diffs, fmt.Sprintf("LearningRate (%v, built with %v)", asked.LearningRate, built.LearningRate))
	}
	if built.WeightDecayFirst != asked.WeightDecayFirst {
		diffs = append(diffs, fmt.Sprintf("WeightDecayFirst (%v, built with %v)", asked.WeightDecayFirst, built.WeightDecayFirst))
	}
	if built.MCSamples != asked.MCSamples {
		diffs = append(diffs, fmt.Sprintf("MCSamples (%d, built with %d)", asked.MCSamples, built.MCSamples))
	}
	if built.MCChunk != asked.MCChunk {
		diffs = append(diffs, fmt.Sprintf("MCChunk (%d, built with %d)", asked.MCChunk, built.MCChunk))
	}
	if built.MCVote != asked.MCVote {
		diffs = append(diffs, fmt.Sprintf("MCVote (%t, built with %t)", asked.MCVote, built.MCVote))
	}
	return strings.Join(diffs, ", ")
}

// mcScores reduces `samples` Monte-Carlo samples of the logits `[num_nodes, num_classes]` that
// forward builds to the scores whose argmax is the prediction, the samples' mean logits or, with
// vote, their argmaxes' vote fractions; and to the mean of their softmax probabilities. Both are
// divided by total, the samples of all the calls of an evaluation (mcCalls), whose outputs add up
// to the means over all of them.
func mcScores(g *Graph, samples, total int, vote bool, forward func(sample int) *Node) (scores, probs *Node) {
	reduce := stagnb.MCMean
	if vote {
		reduce = stagnb.MCVote
	}
	sums := stagnb.MonteCarloSums(g, samples, forward, func(y, _ *Node) []*Node {
		return []*Node{reduce.Apply(y), stagnb.MCProbs.Apply(y)}
	})
	k := float64(total)
	return DivScalar(sums[0], k), DivScalar(sums[1], k)
}

// mcCalls splits an evaluation's `samples` Monte-Carlo samples into calls of equal size, at most
// chunk each (TrainConfig.MCChunk): the largest divisor of samples not above chunk, or all of
// them in one call when chunk is 0 or not below samples.
func mcCalls(samples, chunk int) (perCall, calls int) {
	perCall = samples
	if chunk > 0 && chunk < samples {
		perCall = chunk
		for samples%perCall != 0 {
			perCall--
		}
	}
	return perCall, samples / perCall
}

// sumCalls adds the calls' outputs element by element: outs[call][output] (one call: its outputs).
func sumCalls(outs [][][]float32) [][]float32 {
	sums := outs[0]
	for _, call := range outs[1:] {
		for i, out := range call {
			for j, x := range out {
				sums[i][j] += x
			}
		}
	}
	return sums
}

// lastTrain, lastVal and lastTest are the accuracies of the latest evaluation, NaN before the first.
func (r *NodeResult) lastTrain() float64 {
	return r.lastEval(func(e Evaluation) float64 { return e.TrainAcc })
}
func (r *NodeResult) lastVal() float64 {
	return r.lastEval(func(e Evaluation) float64 { return e.ValAcc })
}
func (r *NodeResult) lastTest() float64 {
	return r.lastEval(func(e Evaluation) float64 { return e.TestAcc })
}

func (r *NodeResult) lastEval(f func(Evaluation) float64) float64 {
	if len(r.Evaluations) == 0 {
		return math.NaN()
	}
	return f(r.Evaluations[len(r.Evaluations)-1])
}

// accuracy is the fraction of nodes whose argmax of scores (`[N, c]`, row-major) is their label.
func accuracy(scores []float32, c int, labels, nodes []int32) float64 {
	if len(nodes) == 0 {
		return math.NaN()
	}
	right := 0
	for _, v := range nodes {
		row := scores[int(v)*c : int(v+1)*c]
		if int32(argmax(row)) == labels[v] {
			right++
		}
	}
	return float64(right) / float64(len(nodes))
}

func argmax(row []float32) int {
	best := 0
	for i, x := range row {
		if x > row[best] {
			best = i
		}
	}
	return best
}

// nllAndECE returns the mean negative log-likelihood of the labels and the expected calibration
// error (equal-width confidence bins) of the probabilities probs (`[N, c]`) on nodes.
func nllAndECE(probs []float32, c int, labels, nodes []int32, bins int) (nll, ece float64) {
	if len(nodes) == 0 || probs == nil {
		return math.NaN(), math.NaN()
	}
	conf := make([]float64, bins)
	acc := make([]float64, bins)
	count := make([]float64, bins)
	for _, v := range nodes {
		row := probs[int(v)*c : int(v+1)*c]
		nll -= math.Log(math.Max(float64(row[labels[v]]), 1e-12))
		k := argmax(row)
		p := float64(row[k])
		b := min(int(p*float64(bins)), bins-1)
		conf[b] += p
		count[b]++
		if int32(k) == labels[v] {
			acc[b]++
		}
	}
	n := float64(len(nodes))
	for b := range bins {
		if count[b] > 0 {
			ece += math.Abs(acc[b]-conf[b]) / n
		}
	}
	return nll / n, ece
}
