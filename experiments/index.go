package experiments

import (
	"os"
	"path/filepath"

	"github.com/stagnb/stagnb/stagnb/figures"
)

// PlannedNotebook is one notebook of the plan: its file name (without .ipynb) and the item of the
// paper it reproduces.
type PlannedNotebook struct {
	// Name is the file name without ".ipynb", "NN-slug".
	Name string
	// Covers names the paper item(s), as the paper numbers them.
	Covers string
	// Section is where the item is in the paper (sections as numbered in the ICML version;
	// appendices A-C).
	Section string
}

// Notebooks is the plan of the notebooks, in reading order: one per paper item (sections as
// numbered in the ICML version, appendices A–C).
var Notebooks = []PlannedNotebook{
	{"00-start", "orientation: what STAG is, how to run the notebooks", "—"},
	{"01-aggregators-and-multisets", "Table 1: one stochastic aggregator tells apart multisets that SUM, MEAN, MAX, MIN and STD confuse", "§2.3, §6"},
	{"02-unifying-framework", "Figure 2: Dropout, node sampling, DropEdge and Graph DropConnect as sharing structures of STAG's noise Z", "§5"},
	{"03-expressiveness", "Theorem 1 and Figure 3: an MLP classifies multisets aggregated by SUM, MEAN, MAX or STAG", "§6, §9.1"},
	{"04-oversmoothing", "Theorem 2 and Figure 4: noise slows the decay of the Dirichlet energy", "§7, §9.1"},
	{"05-depth", "Figure 5: test accuracy against GCN depth on Cora and Citeseer, Dropout vs STAG", "§7, §9.1"},
	{"06-benchmark", "Table 2: STAG, DropEdge and GDC on Cora, Citeseer, ESOL and FreeSolv", "§9.2"},
	{"07-variational", "Tables 3, 4 and 9: STAG_VI on citation and molecule graphs, with its hyperparameters", "§8, §9.3, App. C.5"},
	{"08-variants", "Tables 5–8: one noise sample across layers, GraphSAGE, GIN, and stochastic weights (Bayes-by-Backprop)", "App. B.1–B.3"},
	{"09-lightweight", "Section \"STAG is Lightweight\": parameter counts and iteration time", "§10"},
}

// NotebookIndex renders the plan as a table, marking each notebook that exists as a file
// <name>.ipynb in dir.
func NotebookIndex(dir string) figures.Table {
	t := figures.Table{
		Title:  "Notebooks",
		Header: []string{"notebook", "reproduces", "paper section", "status"},
	}
	for _, nb := range Notebooks {
		status := "planned"
		if st, err := os.Stat(filepath.Join(dir, nb.Name+".ipynb")); err == nil && !st.IsDir() {
			status = "available"
		}
		t.Rows = append(t.Rows, []string{nb.Name + ".ipynb", nb.Covers, nb.Section, status})
	}
	return t
}
