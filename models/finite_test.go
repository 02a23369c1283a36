package models

import (
	"math"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/stagnb/stagnb/internal/stagtest"
)

// sqrtModel is a NodeClassifier whose loss stays finite while its gradient is not: it multiplies
// the logits of a GCN by Sqrt(w)·0 + 1 for a weight w that starts at 0, so d/dw = ∞·0 = NaN from
// the first step, with a perfectly finite loss.
type sqrtModel struct{ GCN }

func (m *sqrtModel) Logits(scope *model.Scope, g *Graph, task *NodeTask) *Node {
	logits := m.GCN.Logits(scope, g, task)
	w := scope.At("trap").VariableWithValue("w", float32(0)).NodeValue(g)
	return Mul(logits, OnePlus(MulScalar(Sqrt(w), 0)))
}

// TestNonFiniteGradientStops checks that TrainNodeClassifier stops at the first step whose
// gradient is NaN even though its loss is finite, naming the epoch and the weight.
func TestNonFiniteGradientStops(t *testing.T) {
	task := coraTask(t)
	m := &sqrtModel{GCN{Layers: 2, Hidden: 16, Activation: "relu"}}
	cfg := QuickTrainConfig()
	cfg.Epochs = 5
	_, err := TrainNodeClassifier(stagtest.Backend(t), task, m, cfg)
	if err == nil {
		t.Fatal("training with NaN gradients succeeded; want an error")
	}
	for _, want := range []string{"epoch 1:", "not finite", "/trap/w"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

// TestCheckedOptimizerFinite checks that a healthy step passes the check (so the check can fail
// only for a reason).
func TestCheckedOptimizerFinite(t *testing.T) {
	ts, err := newTrainStep(stagtest.Backend(t), 1, func(scope *model.Scope, g *Graph) *Node {
		w := scope.VariableWithValue("w", float32(2)).NodeValue(g)
		return ReduceAllMean(Square(Sub(Mul(Const(g, []float32{1}), w), Const(g, []float32{3}))))
	}, checkedOptimizer{optimizer.Adam().LearningRate(0.1).Done()})
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Finalize()
	l, err := ts.step()
	if err != nil || math.Abs(l-1) > 1e-6 {
		t.Fatalf("healthy step: loss %v, error %v; want loss 1 and no error", l, err)
	}
}

// TestPaperAdamEpsilon checks paperAdam's first steps against torch.optim.Adam's update
// w −= lr·m̂/(√v̂ + ε) with ε = 1e-8, for a gradient (1e-7) small enough that ε shows: the first
// step is lr·g/(|g| + ε) = lr/1.1, where GoMLX's default ε = 1e-7 would step lr/2.
func TestPaperAdamEpsilon(t *testing.T) {
	const lr, grad = 0.1, 1e-7
	ts, err := newTrainStep(stagtest.Backend(t), 1, func(scope *model.Scope, g *Graph) *Node {
		w := scope.VariableWithValue("w", float64(0)).NodeValue(g)
		return ReduceAllSum(Mul(Const(g, []float64{grad}), w)) // loss = g·w: the gradient is g at every step
	}, paperAdam(lr))
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Finalize()
	w := 0.0
	m, v := 0.0, 0.0
	for step := 1; step <= 3; step++ {
		l, err := ts.step()
		if err != nil {
			t.Fatal(err)
		}
		if want := grad * w; math.Abs(l-want) > 1e-20 { // the float64 loss g·w before the update
			t.Errorf("step %d: loss %g, want %g", step, l, want)
		}
		m = 0.9*m + 0.1*grad
		v = 0.999*v + 0.001*grad*grad
		mHat, vHat := m/(1-math.Pow(0.9, float64(step))), v/(1-math.Pow(0.999, float64(step)))
		w -= lr * mHat / (math.Sqrt(vHat) + 1e-8)
		got := tensors.ToScalar[float64](ts.store.GetVariable("/w").MustValue())
		if math.Abs(got-w) > 1e-9 {
			t.Errorf("step %d: w = %.12g, torch's Adam gives %.12g", step, got, w)
		}
	}
}
