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

// TestMatMulPadded checks x·w, ∂L/∂x and ∂L/∂w of MatMulPadded against float64 products computed
// on the host, for output widths below, at and above the SIMD column blocks, with the float32
// error bound of a k-term dot product: |fl(Σ a_i b_i) − Σ a_i b_i| ≤ γ_k Σ |a_i b_i|,
// γ_k = k·u / (1 − k·u), u = 2⁻²⁴. On the pure-Go backend it also checks that the product was
// computed on w padded to a multiple of 16 columns.
func TestMatMulPadded(t *testing.T) {
	backend := stagtest.Backend(t)
	const n, k = 37, 23
	for _, out := range []int{1, 7, 8, 15, 16, 17, 40} {
		x, w, c := pseudoRandom(n*k, 1), pseudoRandom(k*out, 2), pseudoRandom(n*out, 3)
		var paddedWidth int
		exec := model.MustNewExec(backend, model.NewStore(), func(scope *model.Scope, g *Graph) []*Node {
			xn, wn := ConstTensor(g, reshape2(x, n, k)), ConstTensor(g, reshape2(w, k, out))
			y := stagnb.MatMulPadded(xn, wn)
			for node := y; ; node = node.Inputs()[0] {
				if node.Type() == NodeTypeDotGeneral {
					paddedWidth = node.Shape().Dimensions[1]
					break
				}
				if len(node.Inputs()) == 0 {
					t.Fatalf("out=%d: no DotGeneral under MatMulPadded's output", out)
				}
			}
			loss := ReduceAllSum(Mul(y, ConstTensor(g, reshape2(c, n, out))))
			grads := Gradient(loss, xn, wn)
			return []*Node{y, grads[0], grads[1]}
		})
		outs := exec.MustCall()
		got := make([][]float32, len(outs))
		for i, o := range outs {
			got[i] = tensors.MustCopyFlatData[float32](o)
		}
		// y = x·w (k terms), ∂L/∂x = c·wᵀ (out terms), ∂L/∂w = xᵀ·c (n terms).
		checkProduct(t, "x·w", out, got[0], n, out, k, func(i, j, l int) (float64, float64) { return x[i*k+l], w[l*out+j] })
		checkProduct(t, "∂L/∂x", out, got[1], n, k, out, func(i, j, l int) (float64, float64) { return c[i*out+l], w[j*out+l] })
		checkProduct(t, "∂L/∂w", out, got[2], k, out, n, func(i, j, l int) (float64, float64) { return x[l*k+i], c[l*out+j] })

		want := out
		if backend.String() == "go" && out%16 != 0 {
			want = (out/16 + 1) * 16
		}
		if paddedWidth != want {
			t.Errorf("out=%d on backend %s: the product has %d columns, want %d", out, backend, paddedWidth, want)
		}
	}
}

// checkProduct compares got (`[rows, cols]`) with Σ_l a·b in float64 (terms(i, j, l) returns a, b),
// within γ_terms · Σ_l |a·b|.
func checkProduct(t *testing.T, name string, out int, got []float32, rows, cols, terms int, term func(i, j, l int) (float64, float64)) {
	t.Helper()
	u := math.Ldexp(1, -24)
	gamma := float64(terms) * u / (1 - float64(terms)*u)
	if len(got) != rows*cols {
		t.Fatalf("out=%d %s: %d values, want %d", out, name, len(got), rows*cols)
	}
	for i := range rows {
		for j := range cols {
			var sum, abs float64
			for l := range terms {
				a, b := term(i, j, l)
				sum += a * b
				abs += math.Abs(a * b)
			}
			if d := math.Abs(float64(got[i*cols+j]) - sum); d > gamma*abs {
				t.Fatalf("out=%d %s[%d,%d] = %g, want %g (error %g > bound %g)", out, name, i, j, got[i*cols+j], sum, d, gamma*abs)
			}
		}
	}
}

// pseudoRandom returns size values in [−1, 1) from a fixed linear congruential sequence, each
// exactly representable in float32.
func pseudoRandom(size int, seed uint64) []float64 {
	v := make([]float64, size)
	s := seed*0x9E3779B97F4A7C15 + 1
	for i := range v {
		s = s*6364136223846793005 + 1442695040888963407
		v[i] = float64(float32(float64(s>>40)/float64(1<<24)*2 - 1))
	}
	return v
}

// reshape2 returns v as a `Float32[rows, cols]` tensor.
func reshape2(v []float64, rows, cols int) *tensors.Tensor {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return tensors.FromFlatDataAndDimensions(f, rows, cols)
}
