package stagnb

import (
	. "github.com/gomlx/gomlx/core/graph"
)

// matMulColumnBlock is the output width the pure-Go backend's SIMD matmul kernels work in: 8
// float32 lanes with AVX2, 16 with AVX-512. Its small-matrix kernel computes the columns left
// over after the last full block with a scalar loop, so a [2708, 128]·[128, 7] product (Cora's
// logits) takes 14 ms where [128, 16] takes 1 ms (measured on a 2-core AVX2 host).
const matMulColumnBlock = 16

// MatMulPadded returns x·w (x `[n, k]`, w `[k, out]`) like graph.MatMul. On the pure-Go backend it
// pads w with zero columns to a multiple of 16 and slices the product back to out columns, so
// that narrow outputs (class logits) run in the SIMD kernels instead of a scalar loop, forward and
// backward; the zero columns add nothing to any result or gradient. Other backends, and operands
// that are not matrices, get graph.MatMul unchanged.
func MatMulPadded(x, w *Node) *Node {
	padded := padColumns(w)
	if padded == w || x.Rank() != 2 {
		return MatMul(x, w)
	}
	return Slice(MatMul(x, padded), AxisRange(), AxisRange(0, w.Shape().Dimensions[1]))
}

// padColumns returns the matrix w (`[k, out]`) with zero columns appended up to a multiple of
// matMulColumnBlock on the pure-Go backend, or w itself when no padding is needed.
func padColumns(w *Node) *Node {
	if w.Rank() != 2 || w.Shape().Dimensions[1]%matMulColumnBlock == 0 || w.Graph().Backend().String() != "go" {
		return w
	}
	extra := matMulColumnBlock - w.Shape().Dimensions[1]%matMulColumnBlock
	return Pad(w, ScalarZero(w.Graph(), w.DType()), PadAxis{}, PadAxis{End: extra})
}
