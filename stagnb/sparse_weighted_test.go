package stagnb_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// weightedInputs returns the self-looped four-node graph's sparse features, per-pair weights z
// and a weight matrix w `[2, 3]`, all drawn from a fixed seed.
func weightedInputs(t *testing.T) (el *stagnb.EdgeList, s *stagnb.SparseInput, z []float64, w [][]float64) {
	t.Helper()
	el = fourNodes().WithSelfLoops()
	s = sparseFour(t, el, stagnb.NormBoth)
	rng := rand.New(rand.NewPCG(3, 4))
	z = make([]float64, s.NumPairs())
	for i := range z {
		z[i] = 1 + rng.NormFloat64()
	}
	w = [][]float64{{0.3, -0.2, 0.5}, {-0.4, 0.1, 0.2}}
	return el, s, z, w
}

// TestAggregateWeighted checks the per-pair weighted aggregation against a host computation
// from the pair lists: S[dst, c] = Σ_p z_p · X[src, c] / √(d_out(src)·d_in(dst)).
func TestAggregateWeighted(t *testing.T) {
	el, s, z, _ := weightedInputs(t)
	edges, cols := s.PairEdges(), s.PairColumns()
	if len(edges) != s.NumPairs() || len(cols) != s.NumPairs() {
		t.Fatalf("%d pair edges and %d columns for %d pairs", len(edges), len(cols), s.NumPairs())
	}
	din, dout := el.InDegrees(), el.OutDegrees()
	want := make([]float64, 4*2)
	for p, e := range edges {
		u, v, c := el.Src[e], el.Dst[e], cols[p]
		want[int(v)*2+int(c)] += z[p] * float64(fourX[u][c]) / math.Sqrt(float64(dout[u]*din[v]))
	}
	got := runGraph(t, 1, func(_ *model.Scope, g *Graph) []*Node {
		return []*Node{s.AggregateWeighted(Const(g, z))}
	})
	checkNear(t, "AggregateWeighted", got[0], want, 1e-6) // the pairs hold float32 values
	// With z = 1 it is the deterministic sparse aggregation.
	ones := runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
		return []*Node{s.AggregateWeighted(Ones(g, shapes.Make(dtypes.Float32, s.NumPairs()))), s.Aggregate(scope, el.Const(g), nil)}
	})
	checkNear(t, "AggregateWeighted(1) vs Aggregate", ones[0], ones[1], 1e-6)
}

// TestAggregateWeightedMatMulGradient checks AggregateWeightedMatMul's value and its custom
// gradients (into z and into w) in float64 against central finite differences of the loss
// L(z, w) = Σ tanh(S(z)·w) ⊙ R, and against autodiff of the plain MatMul(AggregateWeighted(z), w).
func TestAggregateWeightedMatMulGradient(t *testing.T) {
	_, s, z, w := weightedInputs(t)
	r := [][]float64{{1, -2, 0.5}, {0.3, 0.7, -1}, {2, 0.1, -0.4}, {-1.5, 1, 0.25}}
	lossOf := func(y *Node) *Node { return ReduceAllSum(Mul(Tanh(y), Const(y.Graph(), r))) }
	exec := MustNewExec(stagtest.Backend(t), func(zn, wn *Node) []*Node {
		y := s.AggregateWeightedMatMul(zn, wn)
		loss := lossOf(y)
		grads := Gradient(loss, zn, wn)
		ref := MatMul(s.AggregateWeighted(zn), wn)
		refGrads := Gradient(lossOf(ref), zn, wn)
		return []*Node{loss, y, ref, grads[0], grads[1], refGrads[0], refGrads[1]}
	})
	call := func(z []float64, w [][]float64) [][]float64 {
		t.Helper()
		return flatten(t, exec.MustCall(z, w))
	}
	res := call(z, w)
	checkNear(t, "value vs MatMul(AggregateWeighted)", res[1], res[2], 1e-12)
	checkNear(t, "∂L/∂z vs autodiff", res[3], res[5], 1e-10)
	checkNear(t, "∂L/∂w vs autodiff", res[4], res[6], 1e-10)

	const h = 1e-6
	fdZ := make([]float64, len(z))
	for i := range z {
		zp, zm := append([]float64(nil), z...), append([]float64(nil), z...)
		zp[i] += h
		zm[i] -= h
		fdZ[i] = (call(zp, w)[0][0] - call(zm, w)[0][0]) / (2 * h)
	}
	checkNear(t, "∂L/∂z vs finite differences", res[3], fdZ, 1e-6)
	var fdW []float64
	for i := range w {
		for j := range w[i] {
			shift := func(d float64) [][]float64 {
				c := [][]float64{append([]float64(nil), w[0]...), append([]float64(nil), w[1]...)}
				c[i][j] += d
				return c
			}
			fdW = append(fdW, (call(z, shift(h))[0][0]-call(z, shift(-h))[0][0])/(2*h))
		}
	}
	checkNear(t, "∂L/∂w vs finite differences", res[4], fdW, 1e-6)
	// A gradient that is identically zero would pass nothing above by accident, but make sure.
	nonZero := false
	for _, v := range res[3] {
		nonZero = nonZero || math.Abs(v) > 1e-3
	}
	if !nonZero {
		t.Errorf("∂L/∂z is zero everywhere: %v", res[3])
	}
}
