package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// TestLightweightTable checks the table's rows against given measurements: our counts and times,
// the paper's Table 3 numbers beside them, and the ratio to the deterministic GCN.
func TestLightweightTable(t *testing.T) {
	lw := &Lightweight{Quick: true}
	for i, row := range lightweightRows {
		lw.Results = append(lw.Results, models.BenchResult{Method: row.method, Params: 1000 * (i + 1), MSPerStep: 10 * float64(i+1),
			Backend: "go", Device: "CPU", Steps: 3})
	}
	tab := lw.Table()
	if len(tab.Rows) != len(lightweightRows) {
		t.Fatalf("%d rows, want %d", len(tab.Rows), len(lightweightRows))
	}
	want := map[string][]string{
		"GCN, deterministic": {"—", "1000", "—", "10", "1.00"},
		"STAG_VI(R^|E|×C)":   {"1186k", "6000", "30.0 ms", "60", "6.00"},
		"Bayes-by-Backprop":  {"368k", "8000", "48.6 ms", "80", "8.00"},
	}
	for _, row := range tab.Rows {
		if w, ok := want[row[0]]; ok && strings.Join(row[1:], "|") != strings.Join(w, "|") {
			t.Errorf("row %q = %q, want %q", row[0], row[1:], w)
		}
	}
	p, err := lw.Plot()
	if err != nil {
		t.Fatal(err)
	}
	svg, err := figures.SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, "BBGDC") {
		t.Error("the plot has no BBGDC label")
	}
	lw.Results[2].Params = 0
	if _, err := lw.Plot(); err == nil {
		t.Error("a model with 0 parameters plotted on a log scale without error")
	}
}

// TestRecordedLightweight reads the lightweight models from recorded bench lines: in the paper's
// order, without the peer's lines or other methods, the missing ones left out, and bad files
// refused by name; and the committed H100 record gives the table of notebook 09.
func TestRecordedLightweight(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(ResultsEnv, dir)
	lines := strings.Join([]string{
		`{"method":"stag_vi_r","params":184457,"ms_per_step":1.15,"backend":"xla","device":"cuda:0","steps":100}`,
		`{"method":"deterministic","placement":"aggregate_first","params":184455,"ms_per_step":0.9}`,
		`{"method":"deterministic_table2","impl":"pyg","params":184455,"ms_per_step":9}`,
		`{"method":"deterministic_table2","params":184455,"ms_per_step":0.5,"backend":"xla","device":"cuda:0","steps":100,"command":"stag bench","commit":"3f4c50ff37","time":"T"}`,
		"",
	}, "\n")
	if err := os.WriteFile(filepath.Join(dir, "gpu.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	lw, err := RecordedLightweight("gpu.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, r := range lw.Results {
		methods = append(methods, r.Method)
	}
	if got := strings.Join(methods, ","); got != "deterministic_table2,stag_vi_r" {
		t.Fatalf("methods %s, want deterministic_table2,stag_vi_r (the paper's order, ours only)", got)
	}
	tab := lw.Table()
	if len(tab.Rows) != 2 || strings.Join(tab.Rows[1], "|") != "STAG_VI(R)|184k|184457|14.3 ms|1.15|2.30" {
		t.Errorf("rows %q, want the deterministic GCN and STAG_VI(R) at 1.15 ms, 2.30× the GCN", tab.Rows)
	}
	if foot := strings.Join(tab.Footnotes, " "); !strings.Contains(foot, "Recorded in results/gpu.jsonl by `stag bench` at commit 3f4c50f, T.") {
		t.Errorf("footnotes lack the record's provenance: %q", foot)
	}
	for name, text := range map[string]string{"bad.jsonl": "{\"method\": 1}\n", "none.jsonl": `{"method":"gdc"}`} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := RecordedLightweight(name); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("RecordedLightweight(%s): %v, want an error naming the file", name, err)
		}
	}
	if lw, err := RecordedLightweight("missing.jsonl"); err != nil || len(lw.Results) != 0 || !strings.Contains(strings.Join(lw.Table().Footnotes, " "), "None recorded: results/missing.jsonl is missing") {
		t.Errorf("RecordedLightweight of a missing file: %v, %v; want no results and a table that says so", lw, err)
	}

	t.Setenv(ResultsEnv, "")
	lw, err = RecordedLightweight(filepath.Join("bench", "gpu-h100-xla-all.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if tab := lw.Table(); len(tab.Rows) != 7 || !strings.HasPrefix(lw.Results[0].Backend, "xla") {
		t.Errorf("the H100 record: %d rows on %s, want the seven models it timed (all but BBB) on XLA", len(tab.Rows), lw.Results[0].Backend)
	}
	lw, err = RecordedLightweight(filepath.Join("bench", "gpu-h200-xla-lightweight.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(lw.Results); n != 8 || lw.Results[n-1].Method != "bbb" || !strings.Contains(lw.Results[0].Device, "H200") {
		t.Errorf("the H200 record: %d models, the last %q, on %q; want all eight, BBB last, on the H200", n, lw.Results[n-1].Method, lw.Results[0].Device)
	}
}
