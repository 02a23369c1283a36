package stagnb_test

import (
	"math"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

// TestInputDropout checks GCNConfig.InputDropout on a graph of self-loops with one non-zero
// feature per node, where a layer's output row r is x_r · m_r · W[c_r] for the mask value m_r:
// each row is 0 or x_r/(1−p) · W[c_r] while training (about a fraction p of zeros, within five
// standard errors), exactly x_r · W[c_r] at evaluation, for both placements; and the gradient with
// respect to W is Σ_r x_r m_r at row c_r.
func TestInputDropout(t *testing.T) {
	const n, f, out, p = 400, 3, 2, 0.3
	src := make([]int32, n)
	rowPtr := make([]int32, n+1)
	col := make([]int32, n)
	val := make([]float32, n)
	for r := range n {
		src[r], rowPtr[r+1], col[r], val[r] = int32(r), int32(r+1), int32(r%f), float32(1+r%7)
	}
	el, err := stagnb.NewEdgeList(n, src, src)
	if err != nil {
		t.Fatal(err)
	}
	x, err := stagnb.NewSparseInput(el, f, rowPtr, col, val, stagnb.NormNone)
	if err != nil {
		t.Fatal(err)
	}
	for _, placement := range []stagnb.Placement{stagnb.TransformFirst, stagnb.AggregateFirst} {
		for _, training := range []bool{true, false} {
			store := model.NewStore()
			if err := store.SetRNGStateFromSeed(7); err != nil {
				t.Fatal(err)
			}
			exec := model.MustNewExec(stagtest.Backend(t), store, func(scope *model.Scope, g *Graph) []*Node {
				scope.Store().SetTraining(g, training)
				layer := scope.At("layer")
				h := stagnb.NewGCNFromSparse(layer, x, el.Const(g), out).Norm(stagnb.NormNone).Placement(placement).
					UseBias(false).InputDropout(p).Done()
				var w *Node
				for v := range layer.IterVariables() {
					w = v.NodeValue(g)
				}
				return []*Node{h, w, Gradient(ReduceAllSum(h), w)[0]}
			})
			outs := exec.MustCall()
			res := make([][]float64, 3)
			for i, o := range outs {
				for _, v := range o.Value().([][]float32) {
					for _, e := range v {
						res[i] = append(res[i], float64(e))
					}
				}
			}
			h, w, grad := res[0], res[1], res[2]
			zeros := 0
			wantGrad := make([]float64, f)
			for r := range n {
				c := r % f
				keep := float64(val[r]) * w[c*out] // x_r · W[c_r, 0]
				got := h[r*out]
				switch {
				case training && math.Abs(got) < 1e-9:
					zeros++
				case training && math.Abs(got-keep/(1-p)) < 1e-4*math.Abs(keep)/(1-p):
				case !training && math.Abs(got-keep) < 1e-5*math.Abs(keep):
				default:
					t.Fatalf("%s, training %v: row %d = %g, want 0 or %g (x·W = %g)", placement, training, r, got, keep/(1-p), keep)
				}
				wantGrad[c] += got / w[c*out]
			}
			for c := range f {
				for j := range out {
					if g := grad[c*out+j]; math.Abs(g-wantGrad[c]) > 1e-3*math.Abs(wantGrad[c]) {
						t.Errorf("%s, training %v: ∂ΣH/∂W[%d,%d] = %g, want Σ x·m = %g", placement, training, c, j, g, wantGrad[c])
					}
				}
			}
			if se := math.Sqrt(p * (1 - p) / n); training && math.Abs(float64(zeros)/n-p) > 5*se {
				t.Errorf("%s: %d of %d rows dropped, want a fraction %g ± %.3f", placement, zeros, n, p, 5*se)
			}
			if !training && zeros != 0 {
				t.Errorf("%s at evaluation: %d rows dropped", placement, zeros)
			}
		}
	}
}
