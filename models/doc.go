// Package models holds the full models of the STAG paper and their training protocols.
//
// Node classification (Cora, Citeseer): GCN (deterministic, STAG MLE with any stagnb noise, the
// original code's DE and GDC, feature dropout), SAGE and GIN (Tables 6 and 7), VIGCN (STAG-VI with
// the posteriors R, R^C, R^|E|, R^|E|×C and the legacy or ELBO objective, Table 3), BBGDC (Table 3)
// and BBB (Bayes-by-Backprop, Table 8). Each implements NodeClassifier and trains with
// TrainNodeClassifier (Adam, L2 on the first layer, Monte-Carlo evaluation, best-validation
// selection, NaN/Inf checks, progress callbacks). Graph regression (ESOL, FreeSolv): GraphRegressor
// and TrainGraphRegressor.
//
// Using a trained model: TrainConfig.Inspect hands over the trained variables before they are
// freed (TrainConfig.RestoreBest makes them those of the selected evaluation); PredictNodes and
// PredictGraphs predict with them, Monte-Carlo mean and spread, and GoMLX's checkpoint package
// saves and loads them (save into a new directory: checkpoint.Build on one that holds a checkpoint
// loads it over the store's variables).
//
// Reproduction: RunSpec names one (table, dataset, configuration, depth, seed); Table2Specs,
// Table3Specs, Table4Specs, Table5Specs, GNNSpecs, Table8Specs and Figure5Specs list a table's
// grid, ModelFor and ProtocolFor give each spec's model and protocol as the original code ran it
// (each choice is documented where paper and code differ), and Reproduce trains and records them
// resumably.
// Bench times training steps (the `stag bench` command).
package models
