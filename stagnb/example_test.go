package stagnb_test

import (
	"fmt"
	"math"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/stagnb"
)

// A two-layer STAG GCN on a 4-node cycle: Normal(1, 0.2) noise per edge × feature, drawn in every
// forward pass, and the mean of 32 Monte-Carlo samples of the logits.
func Example() {
	backend, err := compute.NewWithConfig("go")
	if err != nil {
		panic(err)
	}
	el, err := stagnb.UndirectedEdgeList(4, [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 0}})
	if err != nil {
		panic(err)
	}
	el = el.WithSelfLoops()
	store := model.NewStore()
	store.SetParams(map[string]any{
		stagnb.ParamNoise:     "normal(1,0.2)", // σ is the standard deviation
		stagnb.ParamStructure: "stag",          // per layer × feature × edge
	})
	x := [][]float32{{1, 0}, {0, 1}, {1, 1}, {0, 0}}
	exec := model.MustNewExec(backend, store, func(scope *model.Scope, g *Graph) *Node {
		edges := el.Const(g)
		mean, _ := stagnb.MonteCarlo(g, 32, stagnb.MCMean, func(int) *Node {
			h := stagnb.NewGCN(scope.At("layer_0"), Const(g, x), edges, 8).Activation(activation.Relu).Done()
			return stagnb.NewGCN(scope.At("layer_1"), h, edges, 3).Done()
		})
		return mean
	})
	logits := exec.MustCall()[0]
	fmt.Println(logits.Shape())
	// Output: (Float32)[4, 3]
}

// The paper's Section 5 in code: Dropout, DropEdge, node sampling and Graph DropConnect are
// sharing patterns of one noise tensor Z[L, C, N, N]. Each structure reads which of Z's axes
// draw their own weights.
func ExampleParseStructure() {
	for _, spec := range []string{"stag", "dropout", "dropedge", "node_sampling", "gdc+renormalize", "dropedge+per_layer+renormalize"} {
		s, err := stagnb.ParseStructure(spec)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-31s layers=%-6v features=%-6v edges=%-11v → %s\n", spec,
			s.Layers == stagnb.PerLayer, s.Features == stagnb.PerFeature, edgeSharingName(s.Edges), s)
	}
	_, err := stagnb.ParseStructure("dropedge+per_node")
	fmt.Println(err)
	// Output:
	// stag                            layers=true   features=true   edges=per edge    → stag
	// dropout                         layers=true   features=true   edges=all edges   → dropout
	// dropedge                        layers=false  features=false  edges=per edge    → dropedge
	// node_sampling                   layers=false  features=false  edges=per source  → node_sampling
	// gdc+renormalize                 layers=true   features=true   edges=per edge    → stag+renormalize
	// dropedge+per_layer+renormalize  layers=true   features=false  edges=per edge    → stag+shared_features+renormalize
	// noise structure "dropedge+per_node": unknown modifier "per_node" (want per_layer, shared_layers, per_feature, shared_features, per_edge, per_source_node, all_edges or renormalize)
}

// edgeSharingName names an EdgeSharing for ExampleParseStructure.
func edgeSharingName(e stagnb.EdgeSharing) string {
	return map[stagnb.EdgeSharing]string{stagnb.PerEdge: "per edge", stagnb.PerSourceNode: "per source", stagnb.AllEdges: "all edges"}[e]
}

// The deterministic aggregators on an edge list: messages flow from Src[e] to Dst[e] and are
// reduced at their destination. Node 1 receives nothing.
func ExampleAggregate() {
	backend, err := compute.NewWithConfig("go")
	if err != nil {
		panic(err)
	}
	el, err := stagnb.NewEdgeList(3, []int32{0, 1, 2}, []int32{2, 2, 0}) // 0→2, 1→2, 2→0
	if err != nil {
		panic(err)
	}
	messages := [][]float32{{1}, {3}, {5}} // one channel, one message per edge
	for _, agg := range []stagnb.Aggregator{stagnb.AggSum, stagnb.AggMean, stagnb.AggMax, stagnb.AggStd} {
		out := MustExecOnce(backend, func(g *Graph) *Node {
			return stagnb.Aggregate(Const(g, messages), el.Const(g), agg)
		})
		fmt.Printf("%-4s %v\n", agg, out.Value())
	}
	// Output:
	// sum  [[5] [0] [4]]
	// mean [[5] [0] [2]]
	// max  [[5] [0] [3]]
	// std  [[0] [0] [1]]
}

// STAG's noise is unbiased (E[z] = 1) and its structure decides what varies: with the "stag"
// structure each of 1000 feature channels gets its own weight per edge, so a node's aggregate
// differs across channels around its deterministic value 2 (standard deviation 0.2·√2); with
// "dropedge" all channels share each edge's weight (0 or 1), so they agree.
func ExampleStochasticAggregate() {
	backend, err := compute.NewWithConfig("go")
	if err != nil {
		panic(err)
	}
	el, err := stagnb.NewEdgeList(3, []int32{0, 1, 2}, []int32{2, 2, 0}) // node 2 receives two messages
	if err != nil {
		panic(err)
	}
	ones := make([][]float32, 3)
	for i := range ones {
		ones[i] = make([]float32, 1000)
		for c := range ones[i] {
			ones[i][c] = 1
		}
	}
	for _, spec := range []struct{ dist, structure string }{{"normal(1,0.2)", "stag"}, {"bernoulli(0.5)", "dropedge"}} {
		dist, err := stagnb.ParseDistribution(spec.dist)
		if err != nil {
			panic(err)
		}
		structure, err := stagnb.ParseStructure(spec.structure)
		if err != nil {
			panic(err)
		}
		noise := stagnb.NewNoise(dist, structure)
		store := model.NewStore()
		if err := store.SetRNGStateFromSeed(1); err != nil {
			panic(err)
		}
		exec := model.MustNewExec(backend, store, func(scope *model.Scope, g *Graph) *Node {
			x := Const(g, ones)
			return stagnb.StochasticAggregate(scope, x, el.Const(g), stagnb.AggSum, stagnb.NormNone, noise)
		})
		node2 := make([]float64, 0, 1000)
		distinct := map[float32]bool{}
		for _, v := range exec.MustCall()[0].Value().([][]float32)[2] {
			node2 = append(node2, float64(v))
			distinct[v] = true
		}
		fmt.Printf("%-14s %-8s node 2: %4d distinct values over 1000 channels", spec.dist, spec.structure, len(distinct))
		if len(distinct) > 1 {
			fmt.Printf(", mean %.1f, std %.1f", stagnb.MultisetMean(node2), stagnb.MultisetStd(node2))
		}
		fmt.Println()
	}
	// Output:
	// normal(1,0.2)  stag     node 2: 1000 distinct values over 1000 channels, mean 2.0, std 0.3
	// bernoulli(0.5) dropedge node 2:    1 distinct values over 1000 channels
}

// The Dirichlet energy of the paper's Definition 3.1 on the path 0 – 1 – 2. With the augmented
// Laplacian it vanishes on x = √(1+d), not on a constant; an alternating signal is rough.
func ExampleDirichletEnergy() {
	el, err := stagnb.UndirectedEdgeList(3, [][2]int32{{0, 1}, {1, 2}})
	if err != nil {
		panic(err)
	}
	for _, s := range []struct {
		name string
		x    []float64
	}{{"constant", []float64{1, 1, 1}}, {"√(1+d)", []float64{math.Sqrt2, math.Sqrt(3), math.Sqrt2}}, {"alternating", []float64{1, -1, 1}}} {
		e, err := stagnb.DirichletEnergyScalar(el, s.x)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-11s %.4f\n", s.name, e)
	}
	// Output:
	// constant    0.0337
	// √(1+d)      0.0000
	// alternating 3.2997
}

// The three layers on one graph: a GCN, a GraphSAGE layer with a max aggregator and a GIN layer
// whose inner MLP has a hidden width of 16, each with its own scope (its own weights).
func Example_layers() {
	backend, err := compute.NewWithConfig("go")
	if err != nil {
		panic(err)
	}
	el, err := stagnb.UndirectedEdgeList(4, [][2]int32{{0, 1}, {1, 2}, {2, 3}})
	if err != nil {
		panic(err)
	}
	store := model.NewStore()
	store.SetParams(map[string]any{stagnb.ParamNoise: "uniform(0.5,1.5)", stagnb.ParamStructure: "stag"})
	x := [][]float32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}}
	exec := model.MustNewExec(backend, store, func(scope *model.Scope, g *Graph) []*Node {
		edges := el.Const(g)
		gcn := stagnb.NewGCN(scope.At("gcn"), Const(g, x), edges, 8).Done()
		sage := stagnb.NewSAGE(scope.At("sage"), Const(g, x), edges, 8).Aggregator(stagnb.AggMax).Done()
		gin := stagnb.NewGIN(scope.At("gin"), Const(g, x), edges, 8).Apply(stagnb.GINHiddenApply(16, 8, nil)).Done()
		return []*Node{gcn, sage, gin}
	})
	for i, out := range exec.MustCall() {
		fmt.Println([]string{"gcn", "sage", "gin"}[i], out.Shape())
	}
	// Output:
	// gcn (Float32)[4, 8]
	// sage (Float32)[4, 8]
	// gin (Float32)[4, 8]
}

// Learned noise: μ and log σ are variables, and Given draws z = μ + σ·ε with ε ~ Normal(0, 1),
// so gradients reach both (the reparameterisation trick of STAG-VI). Here μ and σ are per
// feature channel ([1, C]); the gradient of the summed SUM aggregate with respect to μ_c is the
// sum of channel c over all messages, whatever ε was drawn; the gradient with respect to log σ
// depends on ε.
func ExampleGiven() {
	backend, err := compute.NewWithConfig("go")
	if err != nil {
		panic(err)
	}
	el, err := stagnb.NewEdgeList(3, []int32{0, 1, 2}, []int32{2, 2, 0}) // 0→2, 1→2, 2→0
	if err != nil {
		panic(err)
	}
	x := [][]float32{{1, 10}, {2, 20}, {3, 30}}
	exec := model.MustNewExec(backend, model.NewStore(), func(scope *model.Scope, g *Graph) []*Node {
		mu := scope.VariableWithValue("mu", [][]float32{{1, 1}}).NodeValue(g)
		logSigma := scope.VariableWithValue("log_sigma", [][]float32{{-1, -1}}).NodeValue(g)
		noise := stagnb.NewNoise(stagnb.Given(mu, Exp(logSigma)), stagnb.StructureSTAG)
		y := stagnb.StochasticAggregate(scope, Const(g, x), el.Const(g), stagnb.AggSum, stagnb.NormNone, noise)
		grads := Gradient(ReduceAllSum(y), mu, logSigma)
		return []*Node{grads[0], grads[1]}
	})
	outs := exec.MustCall()
	fmt.Println("∂/∂μ:", outs[0].Value())
	dLogSigma := outs[1].Value().([][]float32)[0]
	fmt.Println("∂/∂log σ is non-zero:", dLogSigma[0] != 0 && dLogSigma[1] != 0)
	// Output:
	// ∂/∂μ: [[6 60]]
	// ∂/∂log σ is non-zero: true
}
