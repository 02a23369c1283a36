package stagnb_test

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// fourNodes is the hand-computed test graph (messages flow src → dst):
//
//	0→1, 2→1, 3→1, 1→2, 0→3
//
// in-degrees  [0, 3, 1, 1], out-degrees [2, 1, 1, 1]. Node 0 receives nothing.
func fourNodes() *stagnb.EdgeList {
	el, err := stagnb.NewEdgeList(4, []int32{0, 2, 3, 1, 0}, []int32{1, 1, 1, 2, 3})
	if err != nil {
		panic(err)
	}
	return el
}

// fourX are the node features of fourNodes, two channels (the second has negative values).
var fourX = [][]float32{{1, -1}, {2, 5}, {4, 0}, {8, 3}}

// runGraph builds and runs fn once with a fresh store seeded with seed, returning its outputs as
// float64 slices.
func runGraph(t *testing.T, seed int64, fn func(scope *model.Scope, g *Graph) []*Node) [][]float64 {
	t.Helper()
	return runGraphCalls(t, seed, 1, fn)[0]
}

// runGraphCalls builds fn once with a fresh store seeded with seed and calls it `calls` times,
// returning each call's outputs as float64 slices. Each call draws fresh noise (the store's random
// state moves on), so a test can take many Monte-Carlo samples from a graph of few: XLA compiles a
// graph of hundreds of unrolled samples for minutes (the GPU's core tests stopped in such graphs,
// results/h200/core-tests-call13.log), the pure-Go backend does not compile.
func runGraphCalls(t *testing.T, seed int64, calls int, fn func(scope *model.Scope, g *Graph) []*Node) [][][]float64 {
	t.Helper()
	store := model.NewStore()
	if err := store.SetRNGStateFromSeed(seed); err != nil {
		t.Fatal(err)
	}
	store.SetParam(model.ParamInitialSeed, seed)
	exec := model.MustNewExec(stagtest.Backend(t), store, fn)
	res := make([][][]float64, calls)
	for i := range res {
		res[i] = flatten(t, exec.MustCall())
	}
	return res
}

// callMoments calls fn's graph `calls` times (runGraphCalls), each call one sample of its outputs,
// and returns each output element's mean and standard deviation (over calls, divided by calls as
// MonteCarlo's spread is): Monte Carlo over calls of a one-sample graph, which every backend
// compiles in a moment, instead of over samples unrolled in one graph.
func callMoments(t *testing.T, seed int64, calls int, fn func(scope *model.Scope, g *Graph) []*Node) (mean, sd [][]float64) {
	t.Helper()
	res := runGraphCalls(t, seed, calls, fn)
	mean, sd = make([][]float64, len(res[0])), make([][]float64, len(res[0]))
	for i, first := range res[0] {
		mean[i], sd[i] = make([]float64, len(first)), make([]float64, len(first))
		for j := range first {
			for _, r := range res {
				mean[i][j] += r[i][j]
			}
			mean[i][j] /= float64(calls)
			for _, r := range res {
				d := r[i][j] - mean[i][j]
				sd[i][j] += d * d
			}
			sd[i][j] = math.Sqrt(sd[i][j] / float64(calls))
		}
	}
	return mean, sd
}

// flatten converts float32 or float64 tensors to float64 slices.
func flatten(t *testing.T, outs []*tensors.Tensor) [][]float64 {
	t.Helper()
	res := make([][]float64, len(outs))
	for i, o := range outs {
		switch v := o.Value().(type) {
		case float32:
			res[i] = []float64{float64(v)}
		case float64:
			res[i] = []float64{v}
		default:
			if f, err := tensors.CopyFlatData[float32](o); err == nil {
				for _, x := range f {
					res[i] = append(res[i], float64(x))
				}
			} else if d, err := tensors.CopyFlatData[float64](o); err == nil {
				res[i] = d
			} else {
				t.Fatalf("output %d: unsupported tensor %s", i, o.Shape())
			}
		}
	}
	return res
}

// near reports whether a and b agree to a relative and absolute tolerance tol.
func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*(1+math.Abs(b))
}

// checkNear fails the test for every element of got that is not near want.
func checkNear(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Errorf("%s[%d] = %g, want %g", what, i, got[i], want[i])
		}
	}
}
