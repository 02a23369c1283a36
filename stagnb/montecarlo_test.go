package stagnb_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// TestMonteCarloLoopMatchesUnrolled checks ParamMCLoop: the samples as a While loop give exactly
// the sums and means of the unrolled samples (the same draws, in the same order, summed in the
// same order), the spread to float32 rounding (one pass instead of two), and leave the random
// state where the unrolled samples leave it, while building the forward pass twice instead of
// once per sample.
func TestMonteCarloLoopMatchesUnrolled(t *testing.T) {
	el := fourNodes()
	normal, _ := stagnb.Normal(1, 0.8)
	bern, _ := stagnb.Bernoulli(0.3, false)
	stag := stagnb.NewNoise(normal, stagnb.StructureSTAG)
	dropEdge := stagnb.NewNoise(bern, stagnb.StructureDropEdge) // one draw shared by the layers of a sample
	const samples = 5
	// Each reduction in a graph of its own, so that both ways start from the same random state.
	run := func(mode string, monteCarlo bool) (res [][]float64, built int) {
		res = runGraph(t, 7, func(scope *model.Scope, g *Graph) []*Node {
			scope.Store().SetParam(stagnb.ParamMCLoop, mode)
			x, edges := Const(g, fourX), el.Const(g)
			forward := func(int) *Node {
				built++
				h := stagnb.NewGCN(scope.At("layer_0"), x, edges, 3).Noise(stag).Done()
				h = stagnb.NewGCN(scope.At("layer_1"), Tanh(h), edges, 3).Noise(dropEdge).Done()
				return stagnb.NewGCN(scope.At("layer_2"), Tanh(h), edges, 2).Noise(dropEdge).Done()
			}
			var outs []*Node
			if monteCarlo {
				mean, spread := stagnb.MonteCarlo(g, samples, stagnb.MCProbs, forward)
				outs = []*Node{mean, spread}
			} else {
				outs = stagnb.MonteCarloSums(g, samples, forward, func(y, first *Node) []*Node {
					return []*Node{y, Softmax(y, -1), Sub(y, first)}
				})
			}
			return append(outs, scope.RandomUniform(g, x.Shape())) // the random state after the samples
		})
		return res, built
	}
	for _, monteCarlo := range []bool{false, true} {
		unrolled, builtUnrolled := run("unrolled", monteCarlo)
		loop, builtLoop := run("loop", monteCarlo)
		if builtUnrolled != samples || builtLoop != 2 {
			t.Errorf("forward built %d times unrolled, %d looped; want %d and 2", builtUnrolled, builtLoop, samples)
		}
		whats := []string{"sum of logits", "sum of probabilities", "sum of deviations from the first", "a draw after the samples"}
		if monteCarlo {
			whats = []string{"MC mean", "MC spread", "a draw after the samples"}
		}
		for i, what := range whats {
			tol := 0.0 // the pure-Go backend runs the same operations either way
			if what == "MC spread" || (stagtest.Backend(t).Name() != "go" && what != "a draw after the samples") {
				tol = 1e-5 // one pass instead of two; XLA fuses a loop's body apart from the rest
			}
			checkNear(t, what, loop[i], unrolled[i], tol)
		}
		if !monteCarlo {
			continue
		}
		var spread float64
		for _, s := range unrolled[1] {
			spread += s
		}
		if spread == 0 {
			t.Errorf("the samples do not differ: the test would not see a wrong draw")
		}
	}
}

// TestMonteCarloCallsDrawApart checks that two Monte-Carlo calls in one graph draw their own noise
// shared across layers, unrolled and looped: each sample of each call is a forward pass of its
// own, while within a sample the layers share one draw.
func TestMonteCarloCallsDrawApart(t *testing.T) {
	el := fourNodes()
	d, _ := stagnb.Normal(1, 1)
	dropEdge := stagnb.NewNoise(d, stagnb.StructureDropEdge)
	for _, mode := range []string{"unrolled", "loop"} {
		t.Run(mode, func(t *testing.T) {
			res := runGraph(t, 3, func(scope *model.Scope, g *Graph) []*Node {
				scope.Store().SetParam(stagnb.ParamMCLoop, mode)
				edges := el.Const(g)
				forward := func(int) *Node {
					a := dropEdge.Weights(scope, edges, 1, dtypes.Float32)
					b := dropEdge.Weights(scope, edges, 1, dtypes.Float32)
					return Concatenate([]*Node{a, b}, -1) // [edges, 2]: the two layers' draws
				}
				var outs []*Node
				for range 2 {
					outs = append(outs, stagnb.MonteCarloSums(g, 3, forward, func(y, first *Node) []*Node {
						return []*Node{first, y}
					})...)
				}
				return outs
			})
			for i, what := range []string{"call 1, first sample", "call 1, all samples", "call 2, first sample", "call 2, all samples"} {
				for e := 0; e < len(res[i]); e += 2 {
					if res[i][e] != res[i][e+1] {
						t.Errorf("%s, edge %d: the two layers' draws sum to %g and %g, want one draw", what, e/2, res[i][e], res[i][e+1])
					}
				}
			}
			if slices.Equal(res[0], res[2]) || slices.Equal(res[1], res[3]) {
				t.Errorf("the two Monte-Carlo calls reuse each other's draws: first samples %v and %v, sums %v and %v", res[0], res[2], res[1], res[3])
			}
		})
	}
}

// TestMonteCarloLoopParam checks ParamMCLoop's values and STAGNB_MC_LOOP: the pure-Go backend
// unrolls by default, XLA loops, and an unknown value is an error naming where it came from.
func TestMonteCarloLoopParam(t *testing.T) {
	count := func(mode string) (built int, err error) {
		err = exceptions.TryCatch[error](func() {
			runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
				if mode != "" {
					scope.Store().SetParam(stagnb.ParamMCLoop, mode)
				}
				mean, _ := stagnb.MonteCarlo(g, 4, stagnb.MCMean, func(int) *Node { built++; return scope.RandomUniform(g, Const(g, fourX).Shape()) })
				return []*Node{mean}
			})
		})
		return built, err
	}
	t.Setenv("STAGNB_MC_LOOP", "")
	auto := 4 // unrolled on the pure-Go backend
	if stagtest.Backend(t).Name() == "xla" {
		auto = 2
	}
	for _, tc := range []struct {
		mode  string
		built int
	}{{"", auto}, {"auto", auto}, {"unrolled", 4}, {"loop", 2}} {
		if built, err := count(tc.mode); err != nil || built != tc.built {
			t.Errorf("%s=%q: forward built %d times (%v), want %d", stagnb.ParamMCLoop, tc.mode, built, err, tc.built)
		}
	}
	if _, err := count("sometimes"); err == nil || !strings.Contains(err.Error(), stagnb.ParamMCLoop) {
		t.Errorf("an unknown mode: error %v, want one naming %s", err, stagnb.ParamMCLoop)
	}
	// Without the parameter, STAGNB_MC_LOOP decides.
	t.Setenv("STAGNB_MC_LOOP", "loop")
	if built, err := count(""); err != nil || built != 2 {
		t.Errorf("STAGNB_MC_LOOP=loop: forward built %d times (%v), want 2", built, err)
	}
	if built, err := count("unrolled"); err != nil || built != 4 {
		t.Errorf("STAGNB_MC_LOOP=loop and %s=unrolled: forward built %d times (%v), want 4", stagnb.ParamMCLoop, built, err)
	}
	t.Setenv("STAGNB_MC_LOOP", "often")
	if _, err := count(""); err == nil || !strings.Contains(err.Error(), "STAGNB_MC_LOOP") {
		t.Errorf("STAGNB_MC_LOOP=often: error %v, want one naming the variable", err)
	}
}
