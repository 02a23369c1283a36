package experiments_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/experiments"
)

func TestNotebookIndex(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"00-start.ipynb", "01-aggregators-and-multisets.ipynb"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "02-unifying-framework.ipynb"), 0o755); err != nil {
		t.Fatal(err)
	}
	tb := experiments.NotebookIndex(dir)
	if len(tb.Rows) != len(experiments.Notebooks) {
		t.Fatalf("%d rows for %d notebooks", len(tb.Rows), len(experiments.Notebooks))
	}
	for i, r := range tb.Rows {
		want := "planned"
		if i < 2 {
			want = "available"
		}
		if r[3] != want {
			t.Errorf("%s: status %q, want %q", r[0], r[3], want)
		}
	}
}

// TestNotebookPlan checks the plan against the notebooks and paper items of the project's issue,
// in reading order.
func TestNotebookPlan(t *testing.T) {
	want := []struct{ name, covers string }{
		{"00-start", "orientation"},
		{"01-aggregators-and-multisets", "Table 1"},
		{"02-unifying-framework", "Figure 2"},
		{"03-expressiveness", "Theorem 1 and Figure 3"},
		{"04-oversmoothing", "Theorem 2 and Figure 4"},
		{"05-depth", "Figure 5"},
		{"06-benchmark", "Table 2"},
		{"07-variational", "Tables 3, 4 and 9"},
		{"08-variants", "Tables 5–8"},
		{"09-lightweight", `Section "STAG is Lightweight"`},
	}
	if len(experiments.Notebooks) != len(want) {
		t.Fatalf("%d notebooks planned, want %d", len(experiments.Notebooks), len(want))
	}
	for i, nb := range experiments.Notebooks {
		if nb.Name != want[i].name || !strings.HasPrefix(nb.Covers, want[i].covers) || nb.Section == "" {
			t.Errorf("notebook %d: %s covering %q (%s), want %s covering %q first", i, nb.Name, nb.Covers, nb.Section, want[i].name, want[i].covers)
		}
	}
}

// TestNotebookPlanListsEveryNotebook checks that every notebook in notebooks/ is in the plan, so
// that the index of 00-start is complete.
func TestNotebookPlanListsEveryNotebook(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	planned := map[string]bool{}
	for _, nb := range experiments.Notebooks {
		if planned[nb.Name] {
			t.Errorf("%s is planned twice", nb.Name)
		}
		planned[nb.Name] = true
	}
	for _, f := range files {
		if name := strings.TrimSuffix(filepath.Base(f), ".ipynb"); !planned[name] {
			t.Errorf("notebooks/%s.ipynb is not in experiments.Notebooks", name)
		}
	}
}
