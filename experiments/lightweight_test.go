package experiments

import (
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
