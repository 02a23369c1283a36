package experiments

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/datasets"
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
		// At 4 layers STAG has one seed beside Dropout's two: the seeds column says both.
		{"cora", "dropout(0.5)"}: {2: {0.80, 0.82}, 4: {0.50, 0.60}, 8: {0.30, 0.30}},
		{"cora", "normal(1,1)"}:  {2: {0.79, 0.79}, 4: {0.70}, 8: {0.60, 0.70}},
	})
	tab := Figure5Table(recs)
	if len(tab.Rows) != 3 {
		t.Fatalf("%d rows, want 3 (cora at 2, 4 and 8 layers): %v", len(tab.Rows), tab.Rows)
	}
	want := [][]string{
		{"cora", "2", "STAG alleviates the deterioration with depth", "81.0 ± 1.0", "79.0 ± 0.0", "-2.0", "2"},
		{"cora", "4", "", "55.0 ± 5.0", "70.0", "+15.0", "2 / 1"},
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

// TestFigure5Plots checks that there is one plot per dataset with records, in Figure5Datasets'
// order, and none without records.
func TestFigure5Plots(t *testing.T) {
	cora := figure5Recs(map[[2]string]map[int][]float64{{"cora", "normal(1,1)"}: {2: {0.79}}})
	citeseer := figure5Recs(map[[2]string]map[int][]float64{{"citeseer", "dropout(0.5)"}: {2: {0.70}, 4: {0.60}}})
	for _, c := range []struct {
		name string
		recs []models.Record
		want []string // the datasets in the plots' titles
	}{
		{"no records", nil, nil},
		{"citeseer only", citeseer, []string{"citeseer"}},
		{"both, citeseer first", append(slices.Clone(citeseer), cora...), []string{"cora", "citeseer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plots, err := Figure5Plots(c.recs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range plots {
				got = append(got, p.Title.Text)
			}
			if len(got) != len(c.want) || !slices.EqualFunc(got, c.want, func(title, ds string) bool { return strings.HasPrefix(title, "Figure 5 — "+ds+":") }) {
				t.Errorf("plots titled %q, want one for each of %q", got, c.want)
			}
		})
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

// TestRecordsRetrainsQuickOfAnotherCommit checks that a notebook's quick records are trained
// again when another commit made them, and reused when this one did.
func TestRecordsRetrainsQuickOfAnotherCommit(t *testing.T) {
	if os.Getenv(datasets.DataDirEnv) == "" {
		t.Skipf("$%s is not set: no dataset directory to train with", datasets.DataDirEnv)
	}
	dir := t.TempDir()
	t.Setenv(ResultsEnv, dir)
	spec := models.RunSpec{Table: "table2", Dataset: "cora", Config: "deterministic", Layers: 2, Seed: 1, Quick: true}
	path := filepath.Join(dir, spec.Path())
	old := models.Record{Spec: spec, Commit: "0123456", Result: &models.NodeResult{TestAcc: 0.5}}
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	now := models.SourceRevision()
	for i, want := range []string{"retrained", "reused"} {
		recs, err := Records(stagtest.Backend(t), []models.RunSpec{spec}, "reproduce table2 -quick")
		if err != nil || len(recs) != 1 {
			t.Fatalf("call %d: %d records, %v", i+1, len(recs), err)
		}
		if recs[0].Commit != now || recs[0].Result.TestAcc == 0.5 {
			t.Errorf("call %d: record of commit %q with test accuracy %g; want it %s at %q", i+1, recs[0].Commit, recs[0].Result.TestAcc, want, now)
		}
		if i == 0 {
			old = recs[0]
		} else if recs[0].Time != old.Time {
			t.Errorf("call 2: the record was trained again (time %s, then %s); want it reused", old.Time, recs[0].Time)
		}
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

// writeNodeRecord writes under the results folder dir the record of s with test accuracy acc.
func writeNodeRecord(t *testing.T, dir string, s models.RunSpec, acc float64) {
	t.Helper()
	b, err := json.Marshal(models.Record{Spec: s, Result: &models.NodeResult{TestAcc: acc}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, s.Path())
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRecordedFigure5Records reads Figure 5's full-protocol records from a results folder that
// also holds a quick one and a Table 2 record: only the full Figure 5 ones, in the figure's order.
func TestRecordedFigure5Records(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ResultsEnv, dir)
	for _, s := range []models.RunSpec{
		{Table: "figure5", Dataset: "cora", Config: "normal(1,1)", Layers: 4, Seed: 1},
		{Table: "figure5", Dataset: "cora", Config: "dropout(0.5)", Layers: 2, Seed: 2},
		{Table: "figure5", Dataset: "cora", Config: "dropout(0.5)", Layers: 2, Seed: 1, Quick: true},
		{Table: "table2", Dataset: "cora", Config: "deterministic", Layers: 2, Seed: 1},
	} {
		writeNodeRecord(t, dir, s, 0.7)
	}
	recs, runs, err := RecordedFigure5Records()
	if err != nil {
		t.Fatal(err)
	}
	if runs != 140 || len(recs) != 2 || recs[0].Spec.Layers != 2 || recs[1].Spec.Layers != 4 || recs[0].Spec.Quick {
		t.Errorf("got %d of %d runs, %+v; want the 2 full ones of 140, two layers first", len(recs), runs, recs)
	}
}

// TestRecordedRecords checks that the recorded full-protocol runs of a table come back in the
// table's order without training, that quick records are not among them, and that the
// paper-vs-ours text counts them and names the command for the rest.
func TestRecordedRecords(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ResultsEnv, dir)
	t.Setenv(LiveEnv, "")
	md, err := RecordedPaperVsOurs("table2")
	if err != nil || !strings.Contains(md, "the 0 of 640 runs") || !strings.Contains(md, "None yet: `go run ./cmd/stag reproduce table2 -datasets cora,citeseer,esol,freesolv`") {
		t.Fatalf("no records: %q, %v; want 0 of 640 runs and the command", md, err)
	}
	write := func(s models.RunSpec, acc float64) { writeNodeRecord(t, dir, s, acc) }
	cell := models.RunSpec{Table: "table2", Dataset: "cora", Layers: 2}
	for seed, acc := range []float64{0.80, 0.81} {
		s := cell
		s.Config, s.Seed = "normal(1,0.8)", int64(seed+1)
		write(s, acc)
	}
	det := cell
	det.Config, det.Seed = "deterministic", 1
	write(det, 0.79)
	quick := det
	quick.Quick = true
	write(quick, 0.5)

	recs, runs, err := RecordedRecords("table2")
	if err != nil {
		t.Fatal(err)
	}
	if runs != 640 || len(recs) != 3 || recs[0].Spec.Config != "deterministic" || recs[1].Spec.Seed != 1 || recs[2].Spec.Seed != 2 {
		t.Fatalf("got %d of %d runs, %+v; want 3 of 640, deterministic first (the table's order), no quick record", len(recs), runs, recs)
	}
	md, err = RecordedPaperVsOurs("table2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the 3 of 640 runs", "79.34 ± 0.22", "80.34 ± 0.45", "80.50 ± 0.50", "`go run ./cmd/stag reproduce table2 -datasets cora,citeseer,esol,freesolv` trains them"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown does not contain %q:\n%s", want, md)
		}
	}
	// Deterministic: one seed, (79 − 79.34)/0.22 = −1.55; Normal(1, 0.8): (80.5 − 80.34)/√(0.45² + 0.5²) = +0.24.
	if want := "**Agreement:** of 2 cells with a Δ/σ (1 of them of one seed, whose Δ/σ has only the paper's spread): 1 within |Δ/σ| ≤ 1 of the paper, 2 within 2"; !strings.Contains(md, want) {
		t.Errorf("RecordedPaperVsOurs does not contain %q:\n%s", want, md)
	}
	// Normal(1, 0.8) against Deterministic: paper 1.00/√(0.45² + 0.22²) = +2.00σ, ours (one Deterministic seed) 1.50/0.5 = +3.00σ.
	md, err = RecordedGains("table2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Table 2 — full protocol, each row against the Deterministic row", "| Cora | Normal(1, 0.8), 2 layers | +1.00 (+2.00σ) | +1.50 (+3.00σ) | 2 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("RecordedGains does not contain %q:\n%s", want, md)
		}
	}
	if _, err := RecordedGains("table99"); err == nil {
		t.Error("RecordedGains(table99): want an error")
	}
	if _, _, err := RecordedRecords("table99"); err == nil {
		t.Error("RecordedRecords(table99): want an error")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 { // table2/ and quick/, nothing trained
		t.Errorf("%d entries in %s, want the 2 written", len(entries), dir)
	}

	// A GPU's records, kept apart under results/<device>/: read from there only, and the rest
	// trained with the GPU machine's script.
	md, err = RecordedPaperVsOursOn("h100", "table2")
	if err != nil || !strings.Contains(md, "the 0 of 640 runs recorded in results/h100/") || !strings.Contains(md, "None yet: on a GPU machine, `bash scripts/gpu-run.sh reproduce table2 -datasets cora,citeseer,esol,freesolv`") {
		t.Errorf("no GPU records: %q, %v; want 0 of 640 runs in results/h100/ and the GPU command", md, err)
	}
	for _, bad := range []string{"", "../results", "/tmp"} {
		if _, err := RecordedPaperVsOursOn(bad, "table2"); err == nil {
			t.Errorf("RecordedPaperVsOursOn(%q): want an error", bad)
		}
		if _, err := RecordedGainsOn(bad, "table2"); err == nil {
			t.Errorf("RecordedGainsOn(%q): want an error", bad)
		}
	}
	t.Setenv(ResultsEnv, "") // the committed records: the H100's four-layer Cora Deterministic
	md, err = RecordedPaperVsOursOn("h100", "table2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the 5 of 640 runs recorded in results/h100/", "| Cora | Deterministic, 4 layers | 77.52 ± 0.33 | 77.08 ± 0.68 | 5 | -0.58 | xla:"} {
		if !strings.Contains(md, want) {
			t.Errorf("RecordedPaperVsOursOn(h100) does not contain %q:\n%s", want, md)
		}
	}
	// The H200's Table 7 (GIN): each row against the H200's own Deterministic, not the CPU's.
	md, err = RecordedGainsOn("h200", "table7")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"records in results/h200/", "| Cora | Bernoulli(0.8), 2 layers | +3.18 (+3.45σ) | +3.28 (+3.27σ) | 5 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("RecordedGainsOn(h200, table7) does not contain %q:\n%s", want, md)
		}
	}
}
