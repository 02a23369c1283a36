package datasets

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
