package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/models"
)

// writeLossRecord writes under dir the record of spec whose model comes from epoch best and whose
// evaluations, every 100 epochs, have the given training losses and validation accuracies of 70,
// 60, 50, … %.
func writeLossRecord(t *testing.T, dir string, spec models.RunSpec, best int, losses ...float64) {
	t.Helper()
	res := &models.NodeResult{Seed: spec.Seed, BestEpoch: best}
	for i, l := range losses {
		res.Evaluations = append(res.Evaluations, models.Evaluation{Epoch: 100 * (i + 1), Loss: l, ValAcc: 0.7 - 0.1*float64(i)})
	}
	b, err := json.Marshal(models.Record{Spec: spec, Result: res})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, spec.Path())
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFindJumps(t *testing.T) {
	evals := func(losses ...float64) []models.Evaluation {
		var es []models.Evaluation
		for i, l := range losses {
			es = append(es, models.Evaluation{Epoch: 100 * (i + 1), Loss: l, ValAcc: float64(i) / 10})
		}
		return es
	}
	ev := func(i int, loss float64) models.Evaluation {
		return models.Evaluation{Epoch: 100 * (i + 1), Loss: loss, ValAcc: float64(i) / 10}
	}
	for _, tc := range []struct {
		name   string
		evals  []models.Evaluation
		after  int
		want   seedJumps
		wantOK bool
	}{
		{"none", evals(0.5, 0.01, 0.002), 100, seedJumps{}, false},
		{"high loss at the first evaluation does not count", evals(3, 0.01, 0.002), 100, seedJumps{}, false},
		{"first of two jumps", evals(0.5, 0.01, 4, 0.01, 2), 100,
			seedJumps{At: []models.Evaluation{ev(2, 4), ev(4, 2)}, Before: ev(1, 0.01), Peak: 4}, true},
		{"a jump over two evaluations counts once", evals(0.5, 0.01, 2, 7, 0.01), 100,
			seedJumps{At: []models.Evaluation{ev(2, 2)}, Before: ev(1, 0.01), Peak: 7}, true},
		{"exactly the threshold is no jump", evals(0.5, 1, 0.01), 100, seedJumps{}, false},
		{"a loss that never falls to the threshold does not jump", evals(3, 2, 4), 0, seedJumps{}, false},
		{"a loss that starts high jumps once it has fallen", evals(3, 2, 0.01, 5), 0,
			seedJumps{At: []models.Evaluation{ev(3, 5)}, Before: ev(2, 0.01), Peak: 5}, true},
		{"no evaluations", nil, 100, seedJumps{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, ok := findJumps(tc.evals, 1, tc.after)
			if !reflect.DeepEqual(j, tc.want) || ok != tc.wantOK {
				t.Errorf("findJumps = %+v, %v; want %+v, %v", j, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestLossJumps writes three Table 6 records, two on the CPU (one jumps) and one in a GPU folder,
// and checks the rows LossJumps makes of them.
func TestLossJumps(t *testing.T) {
	dir := t.TempDir()
	citeseer := func(config string, seed int64) models.RunSpec {
		return models.RunSpec{Table: "table6", Dataset: "citeseer", Config: config, Layers: 4, Seed: seed}
	}
	writeLossRecord(t, dir, citeseer("deterministic", 1), 0, 0.1, 0.01, 5, 0.01)
	writeLossRecord(t, dir, citeseer("normal(1,0.2)", 1), 0, 0.1, 0.01, 0.01, 0.01)
	writeLossRecord(t, filepath.Join(dir, "h200"), citeseer("deterministic", 2), 0, 0.1, 2, 0.01, 3)
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
	for _, table := range []string{"table9", "table4"} { // table4 is graph regression: no evaluations
		if _, err := LossJumps(dir, table, 1, 100, false); err == nil || !strings.Contains(err.Error(), table) {
			t.Errorf("LossJumps(%s) error = %v, want one naming it", table, err)
		}
	}
}

// TestLossJumpsBySeed writes two Table 6 records, one that jumps twice and one that does not, and
// checks the lines LossJumpsBySeed makes of them.
func TestLossJumpsBySeed(t *testing.T) {
	dir := t.TempDir()
	cora := func(seed int64) models.RunSpec {
		return models.RunSpec{Table: "table6", Dataset: "cora", Config: "deterministic", Layers: 4, Seed: seed}
	}
	writeLossRecord(t, dir, cora(1), 200, 0.1, 0.0015, 5.85, 0.01, 1.5)
	writeLossRecord(t, dir, cora(2), 300, 0.1, 0.01, 0.01)
	table, err := LossJumpsBySeed(dir, "table6", 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Base(dir) + "/"
	want := [][]string{
		{base, "cora", "4", "deterministic", "1", "200", "0.0015", "300: 5.85, 500: 1.5", "0.0015 → 5.85", "60.0 → 50.0", "5.85", "0.0015"},
		{base, "cora", "4", "deterministic", "2", "300", "0.01", "—", "—", "—", "—", "0.01"},
	}
	if len(table.Rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(table.Rows), len(want), table.Markdown())
	}
	for i, row := range table.Rows {
		if strings.Join(row, "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, row, want[i])
		}
	}
	if _, err := LossJumpsBySeed(dir, "table9", 1, 100); err == nil || !strings.Contains(err.Error(), "table9") {
		t.Errorf("LossJumpsBySeed(table9) error = %v, want one naming table9", err)
	}
}
