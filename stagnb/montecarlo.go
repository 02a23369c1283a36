package stagnb

import (
	"strings"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/support/exceptions"
	"github.com/stagnb/stagnb/internal/enum"
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
	if strings.EqualFold(strings.TrimSpace(s), "logits") {
		return MCMean, nil
	}
	return enum.Parse[MCReduce]("Monte-Carlo reduction", s, mcReduceNames...)
}

var mcReduceNames = []string{"mean", "probs", "vote"}

// String returns the reduction's name as ParseMCReduce reads it.
func (r MCReduce) String() string { return enum.Name("MCReduce", int(r), mcReduceNames...) }

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

// MonteCarlo runs forward `samples` times in one graph, each with fresh noise, and returns the
// mean and the standard deviation over samples of the reduced outputs (see MCReduce), both
// shaped like forward's output.
//
// The samples are unrolled, not batched: on the pure-Go backend an unrolled graph is faster and
// needs far less memory than a [samples, E, C] batch. (A While loop over the samples, which would
// compile faster on XLA, does not compile there with go-xla v0.4.5: see MonteCarloSums.) Noise shared
// across layers (SharedLayers) is drawn once per sample. Whether noise is on at all follows each
// Noise's OffAtEval and the graph's training flag.
func MonteCarlo(g *Graph, samples int, reduce MCReduce, forward func(sample int) *Node) (mean, spread *Node) {
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
// keeping every sample.
//
// The samples are unrolled: each is a copy of the forward pass in the graph. A While loop whose
// body is one sample would compile in a fraction of the time on XLA, but go-xla v0.4.5 builds
// neither of what such a body needs: its closures cannot read a value of the enclosing function
// (the variables, the inputs, the first sample, GoMLX's cached scalars) and its reductions reuse
// one closure per builder, made in the function that asked first (measured on an H200,
// results/h200/mc-loop-tests.log). Commit 4f4eed1 has that loop, tested on the pure-Go backend.
func MonteCarloSums(g *Graph, samples int, forward func(sample int) *Node, stats func(y, first *Node) []*Node) []*Node {
	if samples < 1 {
		exceptions.Panicf("stagnb.MonteCarloSums: samples must be ≥ 1, got %d", samples)
	}
	defer keepSample(g)()
	newPass(g)
	first := forward(0)
	sums := stats(first, first)
	for k := 1; k < samples; k++ {
		newPass(g)
		for i, s := range stats(forward(k), first) {
			sums[i] = Add(sums[i], s)
		}
	}
	return sums
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
// each sample of each Monte-Carlo call in a graph draws its own.
func newPass(g *Graph) {
	v, _ := model.GetGraphParam(g, "/"+graphParamPasses)
	n, _ := v.(int)
	model.SetGraphParam(g, "/"+graphParamPasses, n+1)
	model.SetGraphParam(g, "/"+graphParamSample, n+1)
}
