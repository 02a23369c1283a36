// Package models holds the full models of the STAG paper and their training
// protocols: deterministic GCN, STAG (MLE), DropEdge, GDC, BBGDC, STAG-VI and
// Bayes-by-Backprop, for node classification and graph regression.
package models
