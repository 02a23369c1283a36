package models

import (
	"fmt"
	"math"
	"strings"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// finitePath is the store path of the scalar variable in which checkedOptimizer records, at
// every step, whether all trainable variables are finite after the update.
const finitePath = "/stagnb_checks/params_finite"

// adamEpsilon is Adam's ε in the denominator √v̂ + ε: torch's default, which the paper's code used
// (GoMLX's default is 1e-7). It matters where gradients are small, as for the weights of rare
// input features.
const adamEpsilon = 1e-8

// PaperAdam returns the optimizer of the paper's code: Adam as torch.optim.Adam has it (β₁ = 0.9,
// β₂ = 0.999, ε = 1e-8) at learning rate lr.
func PaperAdam(lr float64) optimizer.Interface {
	return optimizer.Adam().LearningRate(lr).Epsilon(adamEpsilon).Done()
}

// paperAdam is PaperAdam with the finiteness check of checkedOptimizer.
func paperAdam(lr float64) checkedOptimizer {
	return checkedOptimizer{PaperAdam(lr)}
}

// checkedOptimizer wraps an optimizer and records after each update whether every trainable
// variable is still finite. A NaN or infinite gradient always shows there: Adam's moments and
// hence the updated weights become NaN. trainStep folds the flag into the loss it returns, so the
// check costs no transfer of its own.
type checkedOptimizer struct {
	optimizer.Interface
}

// UpdateGraph runs the wrapped optimizer's update and then records the check.
func (o checkedOptimizer) UpdateGraph(scope *model.Scope, g *Graph, loss *Node) {
	o.Interface.UpdateGraph(scope, g, loss)
	check := scope.Store().VariableWithValue(finitePath, float32(1)).SetTrainable(false)
	// Read it first, so that its parameter node comes before the nodes of the check: the pure-Go
	// backend (compute v0.1.6) fails with "index out of range" on a parameter created after the
	// last node a graph needs, as it would be here, where trainStep's graph ends with the loss.
	_ = check.NodeValue(g)
	ok := Const(g, float32(1))
	for v := range scope.Store().IterVariables() {
		if !v.Trainable || !v.DType().IsFloat() {
			continue
		}
		finite := ConvertDType(ReduceAllMin(ConvertDType(IsFinite(v.NodeValue(g)), v.DType())), ok.DType())
		ok = Min(ok, finite)
	}
	check.SetNodeValue(ok)
}

// checkFinite returns an error naming the trainable variables that are not finite, if the last
// update of a checkedOptimizer found any.
func checkFinite(store *model.Store) error {
	v := store.GetVariable(finitePath)
	if v == nil {
		return nil
	}
	t, err := v.Value()
	if err != nil {
		return err
	}
	if f, _ := t.Value().(float32); f == 1 {
		return nil
	}
	var bad []string
	for v := range store.IterVariables() {
		if !v.Trainable || v.Path() == finitePath {
			continue
		}
		t, err := v.Value()
		if err != nil {
			return err
		}
		if !allFinite(t) {
			bad = append(bad, v.Path())
		}
	}
	return fmt.Errorf("the gradients are not finite (NaN or Inf reached the weights %s)", strings.Join(bad, ", "))
}

// allFinite reports whether every element of a Float32 or Float64 tensor is finite.
func allFinite(t *tensors.Tensor) bool {
	var flat []float64
	switch t.DType() {
	case dtypes.Float32:
		for _, x := range tensors.MustCopyFlatData[float32](t) {
			flat = append(flat, float64(x))
		}
	case dtypes.Float64:
		flat = tensors.MustCopyFlatData[float64](t)
	}
	for _, x := range flat {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
