package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/models"
)

func TestFirstJump(t *testing.T) {
	evals := func(losses ...float64) []models.Evaluation {
		var es []models.Evaluation
		for i, l := range losses {
			es = append(es, models.Evaluation{Epoch: 100 * (i + 1), Loss: l})
		}
		return es
	}
	for _, tc := range []struct {
		name      string
		evals     []models.Evaluation
		wantEpoch int
		wantOK    bool
	}{
		{"none", evals(0.5, 0.01, 0.002), 0, false},
		{"high loss at the first evaluation does not count", evals(3, 0.01, 0.002), 0, false},
		{"first of two jumps", evals(0.5, 0.01, 4, 0.01, 2), 300, true},
		{"exactly the threshold is no jump", evals(0.5, 1, 0.01), 0, false},
		{"no evaluations", nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := firstJump(tc.evals, 1, 100)
			if e != tc.wantEpoch || ok != tc.wantOK {
				t.Errorf("firstJump = %d, %v; want %d, %v", e, ok, tc.wantEpoch, tc.wantOK)
			}
		})
	}
}

// TestLossJumps writes three Table 6 records, two on the CPU (one jumps) and one in a GPU folder,
// and checks the rows LossJumps makes of them.
func TestLossJumps(t *testing.T) {
	dir := t.TempDir()
	write := func(sub, config string, seed int64, losses ...float64) {
		spec := models.RunSpec{Table: "table6", Dataset: "citeseer", Config: config, Layers: 4, Seed: seed}
		res := &models.NodeResult{Seed: seed}
		for i, l := range losses {
			res.Evaluations = append(res.Evaluations, models.Evaluation{Epoch: 100 * (i + 1), Loss: l})
		}
		b, err := json.Marshal(models.Record{Spec: spec, Result: res})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, sub, spec.Path())
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("", "deterministic", 1, 0.1, 0.01, 5, 0.01)
	write("", "normal(1,0.2)", 1, 0.1, 0.01, 0.01, 0.01)
	write("h200", "deterministic", 2, 0.1, 2, 0.01, 3)
	base := filepath.Base(dir)
	for _, tc := range []struct {
		name  string
		byRow bool
		want  [][]string
	}{
		{"by depth", false, [][]string{
			{base + "/", "citeseer", "4", "all", "2", "1", "300"},
			{base + "/h200/", "citeseer", "4", "all", "1", "1", "200"},
		}},
		{"by row", true, [][]string{
			{base + "/", "citeseer", "4", "deterministic", "1", "1", "300"},
			{base + "/", "citeseer", "4", "normal(1,0.2)", "1", "0", "—"},
			{base + "/h200/", "citeseer", "4", "deterministic", "1", "1", "200"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			table, err := LossJumps(dir, "table6", 1, 100, tc.byRow)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(table.Rows), len(tc.want); got != want {
				t.Fatalf("%d rows, want %d:\n%s", got, want, table.Markdown())
			}
			for i, row := range table.Rows {
				if strings.Join(row, "|") != strings.Join(tc.want[i], "|") {
					t.Errorf("row %d = %q, want %q", i, row, tc.want[i])
				}
			}
		})
	}
	if _, err := LossJumps(dir, "table9", 1, 100, false); err == nil || !strings.Contains(err.Error(), "table9") {
		t.Errorf("LossJumps(table9) error = %v, want one naming table9", err)
	}
}
