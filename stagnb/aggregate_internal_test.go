package stagnb

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestSumMessagesEqualsGatherScatter checks that sumMessages, the SUM aggregation built by hand
// for the pure-Go backend, gives bit for bit the output and the gradient with respect to x of
// autodiff through Gather → Mul(z) → ScatterSum, for weights of every shape noise structures
// produce, even and odd widths (odd ones take the plain Gather), float32 and float64.
func TestSumMessagesEqualsGatherScatter(t *testing.T) {
	b, err := NewBackend(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	if b.String() != "go" {
		// Only the pure-Go backend takes this path, and a GPU's ScatterSum may add in any order.
		t.Skipf("sumMessages is the pure-Go backend's path; this backend is %s", b)
	}
	// 7 nodes, 16 edges (node 6 receives nothing), in an order neither sorted by source nor by
	// destination.
	src := []int32{0, 3, 1, 2, 5, 4, 0, 1, 6, 2, 3, 5, 6, 4, 1, 0}
	dst := []int32{1, 0, 2, 0, 3, 5, 4, 3, 2, 1, 4, 0, 5, 3, 1, 2}
	el, err := NewEdgeList(7, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	e := len(src)
	for _, dtype := range []dtypes.DType{dtypes.Float32, dtypes.Float64} {
		for _, c := range []int{6, 7} {
			for _, zShape := range [][]int{nil, {}, {e, 1}, {1, c}, {e, c}} {
				var paths [2][]*tensors.Tensor
				var fast bool
				for i, byHand := range []bool{true, false} {
					exec := MustNewExec(b, func(x *Node) []*Node {
						g := x.Graph()
						edges := el.Const(g)
						var z *Node
						if zShape != nil {
							z = ConvertDType(Sin(AddScalar(IotaFull(g, shapes.Make(dtypes.Float64, zShape...)), 1)), dtype) // no zero weight
						}
						var out *Node
						if byHand {
							fast = fastRowGather(x)
							out = sumMessages(x, edges, z)
						} else {
							m := Gather(x, edges.Src)
							if z != nil {
								m = Mul(m, z)
							}
							out = Aggregate(m, edges, AggSum)
						}
						// A loss whose gradient differs per node and channel.
						w := Cos(IotaFull(g, out.Shape()))
						return []*Node{out, Gradient(ReduceAllSum(Mul(out, w)), x)[0]}
					})
					x := make([]float64, 7*c)
					for j := range x {
						x[j] = math.Sqrt(float64(j+1)) - 3
					}
					xt := tensors.FromFlatDataAndDimensions(x, 7, c)
					if dtype == dtypes.Float32 {
						x32 := make([]float32, len(x))
						for j, v := range x {
							x32[j] = float32(v)
						}
						xt = tensors.FromFlatDataAndDimensions(x32, 7, c)
					}
					paths[i] = exec.MustCall(xt)
				}
				wantFast := dtype == dtypes.Float32 && c%2 == 0
				if fast != wantFast {
					t.Errorf("%s, width %d: fastRowGather = %v, want %v", dtype, c, fast, wantFast)
				}
				for k, name := range []string{"sum", "∂L/∂x"} {
					got, want := paths[0][k].Value(), paths[1][k].Value()
					if !tensorsEqual(paths[0][k], paths[1][k]) {
						t.Errorf("%s, width %d, z %v: %s by hand = %v, autodiff = %v", dtype, c, zShape, name, got, want)
					}
				}
			}
		}
	}
}

// tensorsEqual reports whether a and b hold the same shape and the same bits.
func tensorsEqual(a, b *tensors.Tensor) bool {
	if !a.Shape().Equal(b.Shape()) {
		return false
	}
	equal := true
	a.ConstBytes(func(ab []byte) {
		b.ConstBytes(func(bb []byte) {
			equal = string(ab) == string(bb)
		})
	})
	return equal
}

// TestEmptyConstantsAreNoLiterals checks that the constants of an empty edge list are broadcast
// zeros, not empty literals, which XLA's CUDA plugin cannot compile at rank 2 (constShaped), and
// that they have the shapes the aggregators expect.
func TestEmptyConstantsAreNoLiterals(t *testing.T) {
	b, err := NewBackend(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	g := NewGraph(b, t.Name())
	el, err := NewEdgeList(3, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	edges := el.Const(g)
	for _, c := range []struct {
		name string
		node *Node
		want shapes.Shape
	}{
		{"Src", edges.Src, shapes.Make(dtypes.Int32, 0, 1)},
		{"Dst", edges.Dst, shapes.Make(dtypes.Int32, 0, 1)},
		{"constVector", constVector(g, []float32{}), shapes.Make(dtypes.Float32, 0)},
	} {
		if !c.node.Shape().Equal(c.want) {
			t.Errorf("%s: shape %s, want %s", c.name, c.node.Shape(), c.want)
		}
		if c.node.Type() == NodeTypeConstant {
			t.Errorf("%s: an empty literal, which XLA's CUDA plugin cannot compile at rank 2", c.name)
		}
	}
	if n := constColumn(g, []int32{4, 5}); n.Type() != NodeTypeConstant || !n.Shape().Equal(shapes.Make(dtypes.Int32, 2, 1)) {
		t.Errorf("constColumn of two values: %s %s, want the constant Int32[2, 1]", n.Type(), n.Shape())
	}
}
