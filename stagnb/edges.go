package stagnb

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/dtypes/gotype"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
)

// EdgeList is a graph held on the host as a list of directed edges: a message flows from
// Src[e] to Dst[e]. An undirected graph lists each edge in both directions.
//
// NodeGraph optionally maps each node to the graph it belongs to, for a batch of small graphs
// (molecules) packed into one disjoint union; NumGraphs is then the number of graphs.
type EdgeList struct {
	NumNodes  int
	Src, Dst  []int32
	NodeGraph []int32
	NumGraphs int
}

// NewEdgeList checks and returns the edge list of a graph with numNodes nodes.
// It returns an error naming the first edge whose end is not a node.
func NewEdgeList(numNodes int, src, dst []int32) (*EdgeList, error) {
	el := &EdgeList{NumNodes: numNodes, Src: src, Dst: dst}
	if err := el.Validate(); err != nil {
		return nil, err
	}
	return el, nil
}

// Validate checks that Src and Dst have the same length, that every edge joins two nodes
// in [0, NumNodes), and that NodeGraph, when set, has one entry per node in [0, NumGraphs).
func (el *EdgeList) Validate() error {
	if el.NumNodes <= 0 {
		return fmt.Errorf("stagnb.EdgeList: NumNodes must be > 0, got %d", el.NumNodes)
	}
	if len(el.Src) != len(el.Dst) {
		return fmt.Errorf("stagnb.EdgeList: len(Src)=%d != len(Dst)=%d", len(el.Src), len(el.Dst))
	}
	for e := range el.Src {
		if s, d := el.Src[e], el.Dst[e]; s < 0 || int(s) >= el.NumNodes || d < 0 || int(d) >= el.NumNodes {
			return fmt.Errorf("stagnb.EdgeList: edge %d (%d→%d) is outside the %d nodes", e, s, d, el.NumNodes)
		}
	}
	if el.NodeGraph != nil {
		if len(el.NodeGraph) != el.NumNodes {
			return fmt.Errorf("stagnb.EdgeList: len(NodeGraph)=%d != NumNodes=%d", len(el.NodeGraph), el.NumNodes)
		}
		for v, gi := range el.NodeGraph {
			if gi < 0 || int(gi) >= el.NumGraphs {
				return fmt.Errorf("stagnb.EdgeList: node %d belongs to graph %d, outside [0, NumGraphs=%d)", v, gi, el.NumGraphs)
			}
		}
	}
	return nil
}

// NumEdges is the number of directed edges.
func (el *EdgeList) NumEdges() int { return len(el.Src) }

// WithSelfLoops returns a copy with a self-loop added to every node that has none,
// which turns A into Ã = A + I for the GCN normalisation.
func (el *EdgeList) WithSelfLoops() *EdgeList {
	has := make([]bool, el.NumNodes)
	for e := range el.Src {
		if el.Src[e] == el.Dst[e] {
			has[el.Src[e]] = true
		}
	}
	out := &EdgeList{NumNodes: el.NumNodes, NodeGraph: el.NodeGraph, NumGraphs: el.NumGraphs}
	out.Src = append([]int32(nil), el.Src...)
	out.Dst = append([]int32(nil), el.Dst...)
	for v := range el.NumNodes {
		if !has[v] {
			out.Src = append(out.Src, int32(v))
			out.Dst = append(out.Dst, int32(v))
		}
	}
	return out
}

// InDegrees returns the number of edges arriving at each node.
func (el *EdgeList) InDegrees() []int {
	deg := make([]int, el.NumNodes)
	for _, d := range el.Dst {
		deg[d]++
	}
	return deg
}

// OutDegrees returns the number of edges leaving each node.
func (el *EdgeList) OutDegrees() []int {
	deg := make([]int, el.NumNodes)
	for _, s := range el.Src {
		deg[s]++
	}
	return deg
}

// Const puts the edge list into graph g as constants and returns its in-graph form.
// Calling it again for the same graph returns the same nodes.
func (el *EdgeList) Const(g *Graph) *Edges {
	if v, ok := model.GetGraphParam(g, "/stagnb_edges"); ok {
		if e, ok := v.(map[*EdgeList]*Edges)[el]; ok {
			return e
		}
	}
	edges := el.newConst(g)
	v, ok := model.GetGraphParam(g, "/stagnb_edges")
	if !ok {
		v = map[*EdgeList]*Edges{}
		model.SetGraphParam(g, "/stagnb_edges", v)
	}
	v.(map[*EdgeList]*Edges)[el] = edges
	return edges
}

// newConst builds the constants of Const.
func (el *EdgeList) newConst(g *Graph) *Edges {
	if err := el.Validate(); err != nil {
		exceptions.Panicf("%v", err)
	}
	src, dst := constColumn(g, el.Src), constColumn(g, el.Dst)
	in, out := el.InDegrees(), el.OutDegrees()
	inF, outF := make([]float32, el.NumNodes), make([]float32, el.NumNodes)
	for v := range el.NumNodes {
		inF[v], outF[v] = float32(in[v]), float32(out[v])
	}
	edges := &Edges{
		Src: src, Dst: dst, NumNodes: el.NumNodes,
		InDegree:  Reshape(Const(g, inF), el.NumNodes, 1),
		OutDegree: Reshape(Const(g, outF), el.NumNodes, 1),
	}
	if el.NodeGraph != nil {
		edges.NodeGraph = Reshape(Const(g, el.NodeGraph), el.NumNodes, 1)
		edges.NumGraphs = el.NumGraphs
	}
	return edges
}

// constVector is the constant `[len(v)]` of v, which may be empty (Const cannot tell the shape
// of an empty slice: a graph without edges, features without non-zeros).
func constVector[T gotype.Supported](g *Graph, v []T) *Node {
	return constShaped(g, v, len(v))
}

// constColumn is the constant `[len(v), 1]` of v, which may be empty.
func constColumn[T gotype.Supported](g *Graph, v []T) *Node {
	return constShaped(g, v, len(v), 1)
}

// constShaped is the constant of v shaped dims. An empty v gives a broadcast zero instead of a
// literal: XLA's CUDA plugin refuses to compile an empty literal of rank 2 ("inferred shape of
// elements literal ([0]) does not match type ([0, 1])", measured on an H200,
// results/h200/core-tests-call13.log), which a graph without edges would hold.
func constShaped[T gotype.Supported](g *Graph, v []T, dims ...int) *Node {
	if len(v) == 0 {
		return Zeros(g, shapes.Make(dtypes.FromGenericsType[T](), dims...))
	}
	return ConstTensor(g, tensors.FromFlatDataAndDimensions(v, dims...))
}

// Edges is the in-graph form of an edge list, what the aggregators and layers take.
//
//   - Src, Dst: `Int32[num_edges, 1]`, the two ends of each directed edge (messages flow Src → Dst).
//   - InDegree, OutDegree: `Float32[num_nodes, 1]`, the unweighted degrees. Noise never enters them,
//     so the normalisation stays well defined whatever the sign of the noise.
//   - NodeGraph: optional `Int32[num_nodes, 1]` node → graph index, with NumGraphs graphs.
type Edges struct {
	Src, Dst            *Node
	NumNodes            int
	InDegree, OutDegree *Node
	NodeGraph           *Node
	NumGraphs           int
}

// NewEdges builds the in-graph edges from src and dst (`Int32[num_edges]` or `Int32[num_edges, 1]`),
// computing the unweighted degrees in the graph.
func NewEdges(src, dst *Node, numNodes int) *Edges {
	if !src.DType().IsInt() || !dst.DType().IsInt() || src.Shape().Size() != dst.Shape().Size() {
		exceptions.Panicf("stagnb.NewEdges: src and dst must be integer tensors of the same size, got %s and %s", src.Shape(), dst.Shape())
	}
	if numNodes < 1 {
		exceptions.Panicf("stagnb.NewEdges: numNodes=%d, want at least 1", numNodes)
	}
	n := src.Shape().Size()
	src, dst = Reshape(ConvertDType(src, dtypes.Int32), n, 1), Reshape(ConvertDType(dst, dtypes.Int32), n, 1)
	g := src.Graph()
	ones := Ones(g, shapes.Make(dtypes.Float32, n, 1))
	zeros := Zeros(g, shapes.Make(dtypes.Float32, numNodes, 1))
	return &Edges{
		Src: src, Dst: dst, NumNodes: numNodes,
		InDegree:  scatterSum(zeros, dst, ones),
		OutDegree: scatterSum(zeros, src, ones),
	}
}

// NumEdges is the number of directed edges.
func (e *Edges) NumEdges() int { return e.Src.Shape().Dimensions[0] }

// checkNodes panics unless x is shaped `[num_nodes, C]`.
func (e *Edges) checkNodes(fn, name string, x *Node) {
	if x.Rank() != 2 || x.Shape().Dimensions[0] != e.NumNodes {
		exceptions.Panicf("stagnb.%s: %s must be shaped [num_nodes=%d, C], got %s", fn, name, e.NumNodes, x.Shape())
	}
}

// degreePow returns max(deg, 1)^p in dtype, shaped `[num_nodes, 1]`.
func degreePow(deg *Node, p float64, dtype dtypes.DType) *Node {
	d := MaxScalar(ConvertDType(deg, dtype), 1)
	switch p {
	case -1:
		return Reciprocal(d)
	case -0.5:
		return Rsqrt(d)
	}
	return Pow(d, Scalar(d.Graph(), dtype, p))
}

// UndirectedEdgeList returns the edge list of an undirected graph given by its node pairs,
// each pair listed once and turned into the two directed edges u→v and v→u (a pair {v, v}
// gives one self-loop).
func UndirectedEdgeList(numNodes int, pairs [][2]int32) (*EdgeList, error) {
	src := make([]int32, 0, 2*len(pairs))
	dst := make([]int32, 0, 2*len(pairs))
	for _, p := range pairs {
		src, dst = append(src, p[0]), append(dst, p[1])
		if p[0] != p[1] {
			src, dst = append(src, p[1]), append(dst, p[0])
		}
	}
	return NewEdgeList(numNodes, src, dst)
}
