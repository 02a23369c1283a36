package stagnb

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestSinCos2Pi compares sinCos2Pi with math.Cos and math.Sin of 2πu on a fine grid of [0, 1)
// and at its ends. The bound is the Taylor remainders, doubled by the double-angle step
// (2·((π/2)¹³/13! + (π/2)¹⁴/14!)), plus one rounding of the dtype's unit roundoff u per
// operation (24) on values of magnitude up to π²/4.
func TestSinCos2Pi(t *testing.T) {
	b, err := NewBackend(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	const n = 100_000
	us := make([]float64, 0, n+2)
	for i := range n {
		us = append(us, float64(i)/n)
	}
	us = append(us, math.Nextafter(1, 0), 0.25, 0.5, 0.75)
	truncation := 2 * (math.Pow(math.Pi/2, 13)/factorial(13) + math.Pow(math.Pi/2, 14)/factorial(14))
	for _, tc := range []struct {
		name      string
		roundoff  float64
		makeInput func([]float64) *tensors.Tensor
	}{
		{"float32", math.Ldexp(1, -24), func(v []float64) *tensors.Tensor {
			f := make([]float32, len(v))
			for i, x := range v {
				f[i] = float32(x)
			}
			return tensors.FromFlatDataAndDimensions(f, len(f))
		}},
		{"float64", math.Ldexp(1, -53), func(v []float64) *tensors.Tensor { return tensors.FromValue(v) }},
	} {
		bound := truncation + 24*tc.roundoff*math.Pi*math.Pi/4
		input := tc.makeInput(us)
		// The reference takes the input as the dtype rounded it.
		var rounded []float64
		if tc.name == "float32" {
			for _, x := range tensors.MustCopyFlatData[float32](input) {
				rounded = append(rounded, float64(x))
			}
		} else {
			rounded = us
		}
		outs := MustNewExec(b, func(u *Node) []*Node {
			cos, sin := sinCos2Pi(u)
			return []*Node{ConvertDType(cos, dtypes.Float64), ConvertDType(sin, dtypes.Float64)}
		}).MustCall(input)
		cos, sin := tensors.MustCopyFlatData[float64](outs[0]), tensors.MustCopyFlatData[float64](outs[1])
		var worst float64
		for i, u := range rounded {
			worst = max(worst, math.Abs(cos[i]-math.Cos(2*math.Pi*u)), math.Abs(sin[i]-math.Sin(2*math.Pi*u)))
		}
		if worst > bound {
			t.Errorf("%s: largest error %.3g > bound %.3g", tc.name, worst, bound)
		}
		t.Logf("%s: largest error %.3g (bound %.3g)", tc.name, worst, bound)
	}
}
