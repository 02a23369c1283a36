package stagnb_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

func TestAggregateHandComputed(t *testing.T) {
	s2, s3 := math.Sqrt2, math.Sqrt(3)
	// x = {{1,-1}, {2,5}, {4,0}, {8,3}}; node 1 receives x0, x2, x3; node 2 receives x1;
	// node 3 receives x0; node 0 receives nothing.
	tests := []struct {
		name string
		agg  stagnb.Aggregator
		norm stagnb.Norm
		want []float64 // [4, 2] row-major
	}{
		{"sum/none", stagnb.AggSum, stagnb.NormNone, []float64{
			0, 0, /* node 0: empty */
			1 + 4 + 8, -1 + 0 + 3, /* node 1 */
			2, 5, /* node 2 */
			1, -1 /* node 3 */}},
		{"mean/none", stagnb.AggMean, stagnb.NormNone, []float64{0, 0, 13.0 / 3, 2.0 / 3, 2, 5, 1, -1}},
		{"max/none", stagnb.AggMax, stagnb.NormNone, []float64{0, 0, 8, 3, 2, 5, 1, -1}},
		{"min/none", stagnb.AggMin, stagnb.NormNone, []float64{0, 0, 1, -1, 2, 5, 1, -1}},
		// Node 1: channel 0 {1,4,8}: E[x²]=27, mean 13/3 → var 74/9; channel 1 {-1,0,3}: 10/3 − 4/9 = 26/9.
		{"std/none", stagnb.AggStd, stagnb.NormNone, []float64{0, 0, math.Sqrt(74) / 3, math.Sqrt(26) / 3, 0, 0, 0, 0}},
		// both: message from u scaled by d_out(u)^-½ (d_out = 2,1,1,1), aggregate by d_in(v)^-½ (clamped ≥ 1).
		{"sum/both", stagnb.AggSum, stagnb.NormBoth, []float64{
			0, 0,
			(1/s2 + 4 + 8) / s3, (-1/s2 + 0 + 3) / s3,
			2, 5,
			1 / s2, -1 / s2}},
		// right: aggregate divided by d_in(v) — the mean.
		{"sum/right", stagnb.AggSum, stagnb.NormRight, []float64{0, 0, 13.0 / 3, 2.0 / 3, 2, 5, 1, -1}},
		// left: message divided by d_out(u).
		{"sum/left", stagnb.AggSum, stagnb.NormLeft, []float64{0, 0, 0.5 + 4 + 8, -0.5 + 0 + 3, 2, 5, 0.5, -0.5}},
		// max after left normalisation: node 1 channel 0 max(0.5, 4, 8).
		{"max/left", stagnb.AggMax, stagnb.NormLeft, []float64{0, 0, 8, 3, 2, 5, 0.5, -0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
				edges := fourNodes().Const(g)
				return []*Node{stagnb.StochasticAggregate(scope, Const(g, fourX), edges, tc.agg, tc.norm, nil)}
			})
			checkNear(t, tc.name, out[0], tc.want, 1e-6)
		})
	}
}

func TestAggregateBadInput(t *testing.T) {
	tests := []struct {
		name, want string
		fn         func(g *Graph, e *stagnb.Edges)
	}{
		{"wrong node count", "x must be shaped [num_nodes=4, C]", func(g *Graph, e *stagnb.Edges) {
			stagnb.StochasticAggregate(nil, Const(g, [][]float32{{1}, {2}}), e, stagnb.AggSum, stagnb.NormNone, nil)
		}},
		{"integer features", "must be a float type", func(g *Graph, e *stagnb.Edges) {
			stagnb.StochasticAggregate(nil, Const(g, [][]int32{{1}, {2}, {3}, {4}}), e, stagnb.AggSum, stagnb.NormNone, nil)
		}},
		{"messages not per edge", "messages must be shaped [num_edges=5, C]", func(g *Graph, e *stagnb.Edges) {
			stagnb.Aggregate(Const(g, [][]float32{{1}}), e, stagnb.AggSum)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg := fmt.Sprint(r); r == nil || !strings.Contains(msg, tc.want) {
					t.Errorf("panic %q, want one containing %q", msg, tc.want)
				}
			}()
			g := NewGraph(stagtest.Backend(t), tc.name)
			tc.fn(g, fourNodes().Const(g))
		})
	}
}

func TestEdgeListValidate(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		src, dst []int32
	}{
		{"no nodes", 0, nil, nil},
		{"lengths differ", 3, []int32{0, 1}, []int32{1}},
		{"dst out of range", 3, []int32{0}, []int32{3}},
		{"negative src", 3, []int32{-1}, []int32{0}},
	}
	for _, tc := range tests {
		if _, err := stagnb.NewEdgeList(tc.n, tc.src, tc.dst); err == nil {
			t.Errorf("%s: no error", tc.name)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	loops := fourNodes().WithSelfLoops()
	if got, want := loops.NumEdges(), 5+4; got != want {
		t.Errorf("WithSelfLoops: %d edges, want %d", got, want)
	}
	if again := loops.WithSelfLoops(); again.NumEdges() != loops.NumEdges() {
		t.Errorf("WithSelfLoops twice added %d edges", again.NumEdges()-loops.NumEdges())
	}
}

// TestNewEdgesMatchesConst checks that edges built in the graph (NewEdges, for edge lists that are
// computed rather than known up front) have the degrees of EdgeList.Const and aggregate alike,
// from `[E]` and `[E, 1]` indices; and that bad indices are refused.
func TestNewEdgesMatchesConst(t *testing.T) {
	el := fourNodes()
	for _, shape := range [][]int{{5}, {5, 1}} {
		res := runGraph(t, 1, func(scope *model.Scope, g *Graph) []*Node {
			want := el.Const(g)
			got := stagnb.NewEdges(Reshape(Const(g, el.Src), shape...), Reshape(Const(g, el.Dst), shape...), el.NumNodes)
			x := Const(g, fourX)
			return []*Node{got.InDegree, want.InDegree, got.OutDegree, want.OutDegree,
				stagnb.StochasticAggregate(scope, x, got, stagnb.AggSum, stagnb.NormBoth, nil),
				stagnb.StochasticAggregate(scope, x, want, stagnb.AggSum, stagnb.NormBoth, nil)}
		})
		what := fmt.Sprintf("indices %v", shape)
		checkNear(t, what+": in-degrees", res[0], res[1], 0)
		checkNear(t, what+": out-degrees", res[2], res[3], 0)
		checkNear(t, what+": aggregate", res[4], res[5], 1e-6)
		checkNear(t, what+": in-degrees by hand", res[0], []float64{0, 3, 1, 1}, 0)
	}
	// Int64 indices (what ArgMax and Iota give by default) are taken as the documented Int32.
	g := NewGraph(stagtest.Backend(t), "int64")
	src64, dst64 := make([]int64, len(el.Src)), make([]int64, len(el.Dst))
	for i := range el.Src {
		src64[i], dst64[i] = int64(el.Src[i]), int64(el.Dst[i])
	}
	if e := stagnb.NewEdges(Const(g, src64), Const(g, dst64), el.NumNodes); e.Src.DType() != dtypes.Int32 || e.Dst.DType() != dtypes.Int32 {
		t.Errorf("NewEdges from Int64 indices: Src %s, Dst %s, want Int32", e.Src.Shape(), e.Dst.Shape())
	}
	for _, tc := range []struct {
		name     string
		src, dst any
		nodes    int
	}{
		{"float indices", []float32{0, 1}, []float32{1, 0}, 2},
		{"sizes differ", []int32{0, 1}, []int32{1}, 2},
		{"no nodes", []int32{0, 1}, []int32{1, 0}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if msg := fmt.Sprint(recover()); !strings.Contains(msg, "stagnb.NewEdges") {
					t.Errorf("panic %q, want one naming stagnb.NewEdges", msg)
				}
			}()
			g := NewGraph(stagtest.Backend(t), tc.name)
			stagnb.NewEdges(Const(g, tc.src), Const(g, tc.dst), tc.nodes)
		})
	}
}
