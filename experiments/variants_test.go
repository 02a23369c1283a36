package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/models"
)

// TestRecordedVariant reads a results folder with Table 3's four committed Cora ℝ^|E|×C records
// and, for the variant reg=0.5, two records made from them (their config changed, their accuracy
// lowered): the table shows the row's four seeds, then the variant's two, both against the row's
// paper number, and the command that prints it; another row's records are left out, and a
// variant without records names the command that trains it.
func TestRecordedVariant(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ResultsEnv, dir)
	t.Setenv(LiveEnv, "")
	copyCell := func(folder string) {
		src := filepath.Join("..", "results", "table3", "cora", "layers=2", folder)
		entries, err := os.ReadDir(src)
		if err != nil || len(entries) != 4 {
			t.Fatalf("committed records in %s: %d (%v), want 4", src, len(entries), err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, "table3", "cora", "layers=2", folder, e.Name())
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyCell("vi-rec")
	copyCell("vi-r")

	got, err := RecordedVariant("table3", "reg=0.5")
	if err != nil {
		t.Fatal(err)
	}
	if want := "None yet: `go run ./cmd/stag reproduce table3 -datasets cora,citeseer -configs ROW -variant reg=0.5` trains it for a row."; !strings.Contains(got, want) {
		t.Errorf("without variant records: want %q in\n%s", want, got)
	}

	for seed, acc := range map[int64]float64{1: 0.812, 2: 0.814} {
		spec := models.RunSpec{Table: "table3", Dataset: "cora", Config: "vi:rec", Layers: 2, Seed: seed}
		rec, err := models.ReadRecord(filepath.Join(dir, spec.Path()))
		if err != nil {
			t.Fatal(err)
		}
		rec.Spec.Config, rec.Result.TestAcc = "vi:rec+reg=0.5", acc
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, rec.Spec.Path())
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err = RecordedVariant("table3", "reg=0.5")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", got)
	for _, want := range []string{
		"### Table 3, variant reg=0.5 — full protocol, recorded in results/",
		"| Cora | STAG_VI(R^\\|E\\|×C) | 81.38 ± 0.40 | 80.28 ± 0.15 | 4 |",
		"| Cora | STAG_VI(R^\\|E\\|×C), variant reg=0.5 | 81.38 ± 0.40 | 81.30 ± 0.10 | 2 |",
		"`go run ./cmd/stag reproduce table3 -datasets cora,citeseer -configs vi:rec -variant reg=0.5 -dry-run` prints this table",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(got, "STAG_VI(R) |") {
		t.Error("the table shows a row that the variant has no record of")
	}
	for _, bad := range []string{"", "mc=8"} {
		if _, err := RecordedVariant("table3", bad); err == nil {
			t.Errorf("RecordedVariant(table3, %q): no error", bad)
		}
	}
}
