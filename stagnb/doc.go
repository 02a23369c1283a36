// Package stagnb implements stochastic aggregation (STAG) for graph neural networks on GoMLX.
//
// STAG (Wang & Karaletsos, "Stochastic Aggregation in Graph Neural Networks", ICML 2021)
// multiplies each message of a GNN's neighbourhood aggregation by random noise, drawn from a
// distribution (Normal, Uniform, Bernoulli or a learned one) with a chosen sharing structure
// over layers, features, edges and nodes. Dropout, DropEdge, node sampling and Graph
// DropConnect are special cases. The noise makes aggregators more expressive (Theorem 1) and
// slows over-smoothing (Theorem 2); at test time predictions average Monte-Carlo samples.
//
// # Pieces
//
//   - Graphs are edge lists (EdgeList on the host, Edges in a graph): Gather and Scatter over the
//     edges, never an N×N matrix. Degrees are unweighted, so the noise never enters the
//     normalisation (Norm: both, right, left, none).
//   - Noise = Distribution (NoNoise, Normal, Uniform, Bernoulli, Given for learned parameters) ×
//     Structure (the sharing pattern of the paper's Z[L, C, N, N]; presets StructureSTAG,
//     StructureDropout, StructureDropEdge, StructureNodeSampling, StructureGDC; optional
//     renormalisation to the in-degree). See Noise.Weights for the shapes drawn.
//   - StochasticAggregate applies a noise and an Aggregator (AggSum, AggMean, AggMax, AggMin,
//     AggStd). SparseInput does the same for a constant sparse input matrix while drawing noise
//     only for its non-zeros.
//   - Layers: NewGCN / NewGCNFromSparse, NewSAGE (mean), NewGIN (sum, ε), builders configured from
//     the scope's Param* hyperparameters (ParamNoise, ParamStructure, ParamPlacement, ParamNorm, …).
//   - MonteCarlo runs a forward function K times in one graph, each sample a forward pass with
//     noise of its own, and returns the mean and spread of logits, probabilities or votes
//     (MonteCarloSums for sums of one's own statistics), the samples unrolled in the graph.
//   - Theory helpers: DirichletEnergy (NewDirichlet for many signals on one graph),
//     NormalizedLaplacian (dense, for analysis) and its Spectrum, ExpSumUniformExpectation (Table
//     1's closed form) and the deterministic multiset aggregators.
//   - NewBackend chooses the compute backend: $GOMLX_BACKEND, else XLA with a CUDA PJRT plugin when
//     an NVIDIA GPU is present, else the pure-Go backend ("go:parallelism=-1").
//   - MatMulPadded is graph.MatMul for weights with few output columns (class logits), which the
//     pure-Go backend would otherwise multiply in a scalar loop; the layers use it.
//
// # Where the noise sits (Placement)
//
// The paper-era GCN runs (Tables 2 and 5) used DGL's GraphConv, which multiplies by W first when
// a layer narrows (C_in > C_out): on Cora the first layer's noise was on the 128 transformed
// channels and the last layer's on the 7 logits (DGLOrder). Its GraphSAGE and GIN runs (Tables 6
// and 7: SAGEConv, GINConv), the variational models (Tables 3, 4) and the authors' 2022 code
// aggregate first, with noise on the input features (AggregateFirst).
//
// # When noise is drawn
//
// Noise is drawn in training graphs and, unless Noise.OffAtEval is set, in evaluation graphs
// too, as in the paper, which averages 32 Monte-Carlo samples at test time. Every draw comes from
// the model store's RNG, so the same seed on the same backend gives the same numbers.
package stagnb
