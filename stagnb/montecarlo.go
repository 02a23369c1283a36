package stagnb

import (
	"fmt"
	"os"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
)

// MCReduce says how MonteCarlo combines its samples.
type MCReduce int

const (
	// MCMean averages the raw outputs: logits for classification (what the paper's code did)
	// or predictions for regression.
	MCMean MCReduce = iota
	// MCProbs averages the softmax probabilities over the last axis.
	MCProbs
	// MCVote counts the argmax of each sample: the mean is the fraction of votes per class
	// (majority vote, as BBGDC does).
	MCVote
)

// ParseMCReduce reads mean (or logits), probs or vote.
func ParseMCReduce(s string) (MCReduce, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "mean", "logits":
		return MCMean, nil
	case "probs":
		return MCProbs, nil
	case "vote":
		return MCVote, nil
	}
	return 0, fmt.Errorf("Monte-Carlo reduction %q: unknown (want mean, probs or vote)", s)
}

// String returns the reduction's name as ParseMCReduce reads it.
func (r MCReduce) String() string { return enumName("MCReduce", int(r), "mean", "probs", "vote") }

// Apply maps one sample's outputs y (scores on the last axis) to what MonteCarlo averages: y
// itself (MCMean), its softmax (MCProbs) or the one-hot of its argmax (MCVote).
func (r MCReduce) Apply(y *Node) *Node {
	switch r {
	case MCMean:
		return y
	case MCProbs:
		return Softmax(y, -1)
	case MCVote:
		return OneHot(ArgMax(y, -1, dtypes.Int32), y.Shape().Dimensions[y.Rank()-1], y.DType())
	}
	exceptions.Panicf("stagnb.MCReduce.Apply: unknown reduction %d (want MCMean, MCProbs or MCVote)", r)
	return nil
}

// ParamMCLoop is the store parameter that says how MonteCarlo and MonteCarloSums build their
// samples: "unrolled", one copy of the forward pass per sample; "loop", the first sample and a
// While loop whose body is one sample, two copies whatever the number of samples; or "auto" (the
// default): a loop on XLA, where compiling takes time in proportion to the graph (seconds per
// copy on a GPU), unrolled on the pure-Go backend, where an unrolled graph runs faster. Without
// the parameter, the environment variable STAGNB_MC_LOOP says the same. Both ways give the same
// draws, sums and means (on the pure-Go backend to the bit; the spread, computed in one pass
// in a loop, to float32 rounding). MonteCarloSamples always unrolls.
const ParamMCLoop = "stagnb_mc_loop"

// MonteCarlo runs forward `samples` times in one graph, each with fresh noise, and returns the
// mean and the standard deviation over samples of the reduced outputs (see MCReduce), both
// shaped like forward's output.
//
// The samples are unrolled or looped over (ParamMCLoop), not batched: on the pure-Go backend an
// unrolled graph is faster and needs far less memory than a [samples, E, C] batch. Noise shared
// across layers (SharedLayers) is drawn once per sample. Whether noise is on at all follows each
// Noise's OffAtEval and the graph's training flag.
func MonteCarlo(g *Graph, samples int, reduce MCReduce, forward func(sample int) *Node) (mean, spread *Node) {
	if mcLoop(g, samples) {
		// One pass: the deviations d from the first sample and their squares, summed; the spread is
		// √(E[d²] − E[d]²), accurate because the deviations are small numbers (see below).
		sums := MonteCarloSums(g, samples, forward, func(y, first *Node) []*Node {
			r := reduce.Apply(y)
			d := Sub(r, reduce.Apply(first))
			return []*Node{r, d, Square(d)}
		})
		k := float64(samples)
		devMean := DivScalar(sums[1], k)
		return DivScalar(sums[0], k), Sqrt(MaxScalar(Sub(DivScalar(sums[2], k), Square(devMean)), 0))
	}
	ys := MonteCarloSamples(g, samples, forward)
	for k, y := range ys {
		ys[k] = reduce.Apply(y)
	}
	sum := ys[0]
	for _, y := range ys[1:] {
		sum = Add(sum, y)
	}
	mean = DivScalar(sum, float64(samples))
	// The spread from the deviations of each sample from the first, not E[y²] − E[y]², which in
	// float32 loses the spread of outputs far from zero (±0.001 around −3 came out as 0):
	// identical samples give exactly 0, and the deviations are small numbers, summed accurately.
	var devs []*Node
	devSum := ZerosLike(ys[0])
	for _, y := range ys {
		d := Sub(y, ys[0])
		devs, devSum = append(devs, d), Add(devSum, d)
	}
	devMean := DivScalar(devSum, float64(samples))
	sumSq := ZerosLike(ys[0])
	for _, d := range devs {
		sumSq = Add(sumSq, Square(Sub(d, devMean)))
	}
	spread = Sqrt(DivScalar(sumSq, float64(samples)))
	return mean, spread
}

// MonteCarloSamples runs forward `samples` times in one graph, each with fresh noise (noise shared
// across layers is drawn once per sample), and returns the outputs, for reductions of one's own.
func MonteCarloSamples(g *Graph, samples int, forward func(sample int) *Node) []*Node {
	if samples < 1 {
		exceptions.Panicf("stagnb.MonteCarlo: samples must be ≥ 1, got %d", samples)
	}
	defer keepSample(g)()
	outs := make([]*Node, samples)
	for k := range samples {
		newPass(g)
		outs[k] = forward(k)
	}
	return outs
}

// MonteCarloSums runs forward `samples` times in one graph, each with fresh noise, and returns the
// sums over the samples of the statistics that stats computes from each sample's output y (and
// the first sample's, first): the samples' mean logits and mean probabilities, say, without
// keeping every sample. With ParamMCLoop (on XLA by default) the samples after the first are a
// While loop, and forward is called twice, for the first sample and for the loop's body (sample
// 1), whose random draws advance the store's random state on every turn; forward must not build
// anything else that depends on its sample number.
func MonteCarloSums(g *Graph, samples int, forward func(sample int) *Node, stats func(y, first *Node) []*Node) []*Node {
	if samples < 1 {
		exceptions.Panicf("stagnb.MonteCarloSums: samples must be ≥ 1, got %d", samples)
	}
	defer keepSample(g)()
	newPass(g)
	first := forward(0)
	sums := stats(first, first)
	if !mcLoop(g, samples) {
		for k := 1; k < samples; k++ {
			newPass(g)
			for i, s := range stats(forward(k), first) {
				sums[i] = Add(sums[i], s)
			}
		}
		return sums
	}
	// The loop's state: the sample number, the store's random state (the body's draws must
	// advance it, as unrolled samples do), and the sums. The first sample, built above, created
	// the variables' parameters in the main graph, which the body then reads.
	var rng *model.Variable
	if store := model.GetStore(g); store != nil {
		rng = store.GetVariable(model.JoinPath("/", model.RNGStateVariableName))
	}
	state := []*Node{Const(g, int32(1))}
	if rng != nil {
		state = append(state, rng.NodeValue(g))
	}
	offset := len(state)
	state = append(state, sums...)
	params := func(g *Graph) []*Node {
		ps := make([]*Node, len(state))
		for i, s := range state {
			ps[i] = Parameter(g, fmt.Sprintf("mc_state_%d", i), s.Shape())
		}
		return ps
	}
	cond := NewClosure(g, func(g *Graph) []*Node {
		return []*Node{LessThan(params(g)[0], Const(g, int32(samples)))}
	})
	body := NewClosure(g, func(g *Graph) []*Node {
		ps := params(g)
		if rng != nil {
			rng.SetNodeValue(ps[1])
		}
		// The body's draws shared across layers are cached under a pass number of their own, apart
		// from the main graph's and other loops' draws, which it cannot use.
		newPass(g)
		st := stats(forward(1), first)
		// Const, not AddScalar: GoMLX (v0.28) caches Scalar nodes per graph, not per function, so
		// a scalar first made in one loop's body would be reused, and rejected, in another's or in
		// the main graph. The body's forward pass and stats make no scalar the first sample has
		// not already made (and cached) in the main graph.
		next := []*Node{Add(ps[0], Const(g, int32(1)))}
		if rng != nil {
			next = append(next, rng.NodeValue(g))
		}
		for i, s := range st {
			next = append(next, Add(ps[offset+i], s))
		}
		return next
	})
	out := While(cond, body, state...)
	if rng != nil {
		rng.SetNodeValue(out[1])
	}
	return out[offset:]
}

// keepSample returns a function that sets g's sample number (graphParamSample) back to what it
// is now (0 if unset), for Monte-Carlo builders to defer.
func keepSample(g *Graph) func() {
	prev, ok := model.GetGraphParam(g, "/"+graphParamSample)
	if !ok {
		prev = 0
	}
	return func() { model.SetGraphParam(g, "/"+graphParamSample, prev) }
}

// graphParamPasses counts the forward passes that Monte-Carlo builders numbered in a graph.
const graphParamPasses = "stagnb_mc_passes"

// newPass gives the forward pass about to be built a number that no other pass of g has (1, 2, …),
// as g's sample number (graphParamSample): noise shared across layers is drawn once per number, so
// each sample of each Monte-Carlo call in a graph, and each loop body, draws its own.
func newPass(g *Graph) {
	v, _ := model.GetGraphParam(g, "/"+graphParamPasses)
	n, _ := v.(int)
	model.SetGraphParam(g, "/"+graphParamPasses, n+1)
	model.SetGraphParam(g, "/"+graphParamSample, n+1)
}

// mcLoop reports whether MonteCarlo and MonteCarloSums loop over the samples of g (MCLoops).
func mcLoop(g *Graph, samples int) bool {
	loop, err := MCLoops(g.Backend(), model.GetStore(g), samples)
	if err != nil {
		exceptions.Panicf("%v", err)
	}
	return loop
}

// MCLoops reports whether MonteCarlo and MonteCarloSums, given `samples` samples, build them as a
// loop on backend: as ParamMCLoop in store says if it has it (store may be nil), else as
// $STAGNB_MC_LOOP says, else loop on XLA only (auto). An unknown value is an error naming where it
// came from.
func MCLoops(backend compute.Backend, store *model.Store, samples int) (bool, error) {
	mode, from := os.Getenv("STAGNB_MC_LOOP"), "STAGNB_MC_LOOP"
	if store != nil {
		if v, ok := store.GetParam("/" + ParamMCLoop); ok {
			mode, from = fmt.Sprint(v), ParamMCLoop
		}
	}
	switch mode {
	case "loop":
		return samples > 1, nil
	case "unrolled":
		return false, nil
	case "auto", "":
		return samples > 2 && backend.Name() == "xla", nil
	}
	return false, fmt.Errorf("stagnb: %s = %q: want auto, loop or unrolled", from, mode)
}
