package datasets

import (
	"math"
	"slices"
)

// Stats are the statistics of a graph dataset, printed by `stag data stats` as one JSON object.
// Edge counts follow PyTorch Geometric's convention: directed edges count both directions of
// every undirected edge, self-loops excluded (they are counted apart).
type Stats struct {
	Dataset            string      `json:"dataset"`
	NumNodes           int         `json:"num_nodes"`
	NumDirectedEdges   int         `json:"num_directed_edges"`
	NumUndirectedEdges int         `json:"num_undirected_edges"`
	NumSelfLoops       int         `json:"num_self_loops"`
	NumIsolatedNodes   int         `json:"num_isolated_nodes"`
	NumFeatures        int         `json:"num_features"`
	NumFeatureNonzeros int         `json:"num_feature_nonzeros"`
	NumClasses         int         `json:"num_classes"`
	NumUnlabeledNodes  int         `json:"num_unlabeled_nodes"`
	SplitSizes         *SplitSizes `json:"split_sizes,omitempty"`
	ClassCounts        []int       `json:"class_counts,omitempty"`
	TrainClassCounts   []int       `json:"train_class_counts,omitempty"`
}

// SplitSizes are the sizes of a train/validation/test split.
type SplitSizes struct {
	Train int `json:"train"`
	Val   int `json:"val"`
	Test  int `json:"test"`
}

// MoleculeStats are the statistics of a molecule dataset (ESOL, FreeSolv), printed by
// `stag data stats esol|freesolv` as one JSON object. Bonds are undirected: a molecule's graph
// has two directed edges per bond.
type MoleculeStats struct {
	Dataset      string `json:"dataset"`
	Target       string `json:"target"`
	NumMolecules int    `json:"num_molecules"`
	NumSkipped   int    `json:"num_skipped"`
	NumAtoms     int    `json:"num_atoms"`
	NumBonds     int    `json:"num_bonds"`
	// MinAtoms, MeanAtoms and MaxAtoms are the molecules' sizes in heavy atoms.
	MinAtoms    int     `json:"min_atoms"`
	MeanAtoms   float64 `json:"mean_atoms"`
	MaxAtoms    int     `json:"max_atoms"`
	NumFeatures int     `json:"num_features"`
	// Label summarises the regression targets: mean, population standard deviation, range.
	Label LabelStats `json:"label"`
	// SplitSizes are those of the paper's split (PaperSplit).
	SplitSizes SplitSizes `json:"split_sizes"`
	// MeanPredictorTestRMSE is the test RMSE, on the paper's split, of predicting the mean of
	// the training labels: the bar any model must beat.
	MeanPredictorTestRMSE float64 `json:"mean_predictor_test_rmse"`
}

// LabelStats summarise regression targets.
type LabelStats struct {
	Mean float64 `json:"mean"`
	Std  float64 `json:"std"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// Stats returns the dataset's statistics (see MoleculeStats).
func (ds *MoleculeDataset) Stats() MoleculeStats {
	st := MoleculeStats{Dataset: ds.Name, Target: ds.Target, NumMolecules: len(ds.Molecules),
		NumSkipped: len(ds.Skipped), NumFeatures: NumAtomFeatures}
	labels := ds.Labels()
	for i, m := range ds.Molecules {
		st.NumAtoms += m.NumAtoms
		st.NumBonds += m.NumBonds()
		if i == 0 || m.NumAtoms < st.MinAtoms {
			st.MinAtoms = m.NumAtoms
		}
		st.MaxAtoms = max(st.MaxAtoms, m.NumAtoms)
	}
	if n := len(labels); n > 0 {
		st.MeanAtoms = float64(st.NumAtoms) / float64(n)
		st.Label = LabelStats{Mean: mean(labels), Min: slices.Min(labels), Max: slices.Max(labels)}
		for _, y := range labels {
			st.Label.Std += (y - st.Label.Mean) * (y - st.Label.Mean)
		}
		st.Label.Std = math.Sqrt(st.Label.Std / float64(n))
	}
	split := ds.PaperSplit()
	st.SplitSizes = SplitSizes{Train: len(split.Train), Val: len(split.Val), Test: len(split.Test)}
	if len(split.Train) > 0 && len(split.Test) > 0 {
		trainMean := mean(pick(labels, split.Train))
		var sq float64
		for _, y := range pick(labels, split.Test) {
			sq += (y - trainMean) * (y - trainMean)
		}
		st.MeanPredictorTestRMSE = math.Sqrt(sq / float64(len(split.Test)))
	}
	return st
}

// mean is the arithmetic mean of v (v not empty).
func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// pick returns v[i] for each i in indices.
func pick(v []float64, indices []int) []float64 {
	out := make([]float64, len(indices))
	for k, i := range indices {
		out[k] = v[i]
	}
	return out
}
