package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// figure5Recs returns records of Figure 5 with given accuracies: (dataset, config, layers) → accs.
func figure5Recs(accs map[[2]string]map[int][]float64) []models.Record {
	var recs []models.Record
	for k, byDepth := range accs {
		for l, xs := range byDepth {
			for i, a := range xs {
				recs = append(recs, models.Record{
					Spec:   models.RunSpec{Table: "figure5", Dataset: k[0], Config: k[1], Layers: l, Seed: int64(i + 1)},
					Result: &models.NodeResult{TestAcc: a},
				})
			}
		}
	}
	return recs
}

// TestFigure5Table checks the table's numbers (mean ± population std in %, the difference) and
// that the plot has one line per method.
func TestFigure5Table(t *testing.T) {
	recs := figure5Recs(map[[2]string]map[int][]float64{
		{"cora", "dropout(0.5)"}: {2: {0.80, 0.82}, 8: {0.30, 0.30}},
		{"cora", "normal(1,1)"}:  {2: {0.79, 0.79}, 8: {0.60, 0.70}},
	})
	tab := Figure5Table(recs)
	if len(tab.Rows) != 2 {
		t.Fatalf("%d rows, want 2 (cora at 2 and 8 layers): %v", len(tab.Rows), tab.Rows)
	}
	want := [][]string{
		{"cora", "2", "STAG alleviates the deterioration with depth", "81.0 ± 1.0", "79.0 ± 0.0", "-2.0", "2"},
		{"cora", "8", "", "30.0 ± 0.0", "65.0 ± 5.0", "+35.0", "2"},
	}
	for i, row := range want {
		if strings.Join(tab.Rows[i], "|") != strings.Join(row, "|") {
			t.Errorf("row %d = %q, want %q", i, tab.Rows[i], row)
		}
	}
	p, err := Figure5Plot(recs, "cora")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := figures.SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Dropout 0.5", "STAG N(1, 1)"} {
		if !strings.Contains(svg, name) {
			t.Errorf("the plot has no legend entry %q", name)
		}
	}
	if _, err := Figure5Plot(recs, "citeseer"); err == nil {
		t.Error("a plot for a dataset without records succeeded")
	}
}

// TestRecordsMissingFullMode checks that full mode without records trains nothing and names the
// command to run, and that ResultsDir honours $STAGNB_RESULTS.
func TestRecordsMissingFullMode(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ResultsEnv, dir)
	t.Setenv(LiveEnv, "")
	if d, err := ResultsDir(); err != nil || d != dir {
		t.Fatalf("ResultsDir() = %q, %v; want %q", d, err, dir)
	}
	_, err := Figure5Records(stagtest.Backend(t), FullSettings())
	if err == nil || !strings.Contains(err.Error(), "stag reproduce figure5") || !strings.Contains(err.Error(), "140 of 140") {
		t.Fatalf("error %v: want one naming `stag reproduce figure5` and 140 of 140 missing runs (2 datasets × 7 depths × 2 methods × 5 seeds)", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("full mode without records wrote %d entries into %s", len(entries), dir)
	}
}

// TestResultsDirFindsRepository checks the default: the results/ folder of the repository
// around the working directory.
func TestResultsDirFindsRepository(t *testing.T) {
	t.Setenv(ResultsEnv, "")
	t.Setenv("GONB_DIR", "")
	d, err := ResultsDir()
	if err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs("..")
	if d != filepath.Join(root, "results") {
		t.Errorf("ResultsDir() = %q, want %q", d, filepath.Join(root, "results"))
	}
}
