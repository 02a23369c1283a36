package experiments

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/models/paper"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// TestPaperTableSpecs checks each quick subset: one dataset, one depth, one seed, exactly the
// listed rows, each a row of the full table, and a reproduce command that names them.
func TestPaperTableSpecs(t *testing.T) {
	for _, tab := range PaperTables {
		t.Run(tab.Name, func(t *testing.T) {
			full, fullCmd := tab.Specs(FullSettings())
			quick, cmd := tab.Specs(QuickSettings())
			if len(quick) != len(tab.QuickConfigs) {
				t.Fatalf("%d quick specs, want one per quick config %v", len(quick), tab.QuickConfigs)
			}
			inFull := map[string]bool{}
			for _, s := range full {
				if s.Quick {
					t.Errorf("full spec %+v is quick", s)
				}
				inFull[s.Config] = true
			}
			for i, s := range quick {
				if !s.Quick || s.Seed != 1 || s.Dataset != tab.QuickDataset || s.Layers != tab.QuickLayers || s.Config != tab.QuickConfigs[i] {
					t.Errorf("quick spec %d = %+v", i, s)
				}
				if !inFull[s.Config] {
					t.Errorf("quick config %q is not a row of the full %s", s.Config, tab.Name)
				}
				if !strings.Contains(cmd, s.Config) {
					t.Errorf("command %q does not name %q", cmd, s.Config)
				}
			}
			if configs := strings.Join(tab.QuickConfigs, ","); strings.ContainsAny(configs, "()") && !strings.Contains(cmd, "'"+configs+"'") {
				t.Errorf("command %q does not quote %s for the shell", cmd, configs)
			}
			if !strings.HasPrefix(cmd, "reproduce "+tab.Name+" -quick") || !strings.HasPrefix(fullCmd, "reproduce "+tab.Name+" -datasets") {
				t.Errorf("commands %q, %q", cmd, fullCmd)
			}
		})
	}
	if _, err := PaperTableByName("table9"); err == nil {
		t.Error("PaperTableByName(table9): no error (Table 9 lists hyperparameters, not runs)")
	}
}

// TestComparisons checks the grouping over seeds (mean and population std in the paper's units),
// the paper lookup for the config keys of Tables 2, 3 and 8, and a row without a paper number.
func TestComparisons(t *testing.T) {
	node := func(table, config string, layers int, seed int64, acc float64) models.Record {
		return models.Record{Spec: models.RunSpec{Table: table, Dataset: "cora", Config: config, Layers: layers, Seed: seed},
			Result: &models.NodeResult{TestAcc: acc}, Backend: "go"}
	}
	recs := []models.Record{
		node("table2", "normal(1,0.8)", 2, 1, 0.80), node("table2", "normal(1,0.8)", 2, 2, 0.82),
		node("table3", "vi:rc", 2, 1, 0.81),
		node("table3", "vi:rc+lr=0.01+reg=0.5", 2, 1, 0.78), // a variant: the row's paper cell, a row of its own
		node("table8", "bbb", 2, 1, 0.70),
		node("table8", "bbb(100)", 2, 1, 0.79),
		node("table2", "normal(1,0.8)", 3, 1, 0.75), // the paper has no 3-layer column
		{Spec: models.RunSpec{Table: "table2", Dataset: "esol", Config: "deterministic", Layers: 2, Seed: 1},
			Regression: &models.GraphResult{TestRMSE: 0.65}},
	}
	cs := Comparisons(recs)
	if len(cs) != 7 {
		t.Fatalf("%d comparisons, want 7", len(cs))
	}
	want := []struct {
		havePaper      bool
		row, metric    string
		mean, std      float64
		seeds          int
		datasetColumns string
	}{
		{true, "normal(1,0.8)", paper.MetricAccuracy, 81, 1, 2, ""},
		{true, "stag_vi_rc", paper.MetricAccuracy, 81, 0, 1, ""},
		{true, "stag_vi_rc", paper.MetricAccuracy, 78, 0, 1, ""},
		{true, "bbb", paper.MetricAccuracy, 70, 0, 1, ""},
		{true, "bbb", paper.MetricAccuracy, 79, 0, 1, ""},
		{false, "", paper.MetricAccuracy, 75, 0, 1, "Cora"},
		{true, "deterministic", paper.MetricRMSE, 0.65, 0, 1, ""},
	}
	for i, w := range want {
		c := cs[i]
		if c.HavePaper != w.havePaper || c.Metric != w.metric || c.Seeds != w.seeds ||
			math.Abs(c.OursMean-w.mean) > 1e-9 || math.Abs(c.OursStd-w.std) > 1e-9 || c.Dataset != w.datasetColumns {
			t.Errorf("comparison %d = %+v, want %+v", i, c, w)
		}
		if w.havePaper && c.Paper.Row != w.row {
			t.Errorf("comparison %d: paper row %q, want %q", i, c.Paper.Row, w.row)
		}
	}
	md, err := PaperVsOurs("t", recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"| dataset | config | paper (mean ± std) | ours (mean ± std) |", "81.00 ± 1.00", "| Cora | BBB |", "| Cora | BBB, prior N(0, 100²), 2 layers | 79.28 ± 1.17 | 79.00 |",
		"| Cora | STAG_VI(R^C), variant lr=0.01, reg=0.5 | 81.33 ± 0.62 | 78.00 |"} {
		if !strings.Contains(md, s) {
			t.Errorf("the Markdown has no %q:\n%s", s, md)
		}
	}
	p, err := ComparisonPlot("t", recs, paper.MetricAccuracy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := figures.SVG(p); err != nil {
		t.Fatal(err)
	}
	if ps, err := ComparisonPlots("t", recs); err != nil || len(ps) != 2 {
		t.Errorf("ComparisonPlots: %d plots, %v; want 2 (accuracy and RMSE)", len(ps), err)
	}
	if _, err := ComparisonPlot("t", recs[:1], paper.MetricRMSE); err == nil {
		t.Error("ComparisonPlot without any RMSE cell: no error")
	}
}

// TestTable9 checks that the hyperparameters the VI models use equal the paper's Table 9, cell by
// cell.
func TestTable9(t *testing.T) {
	tab, err := Table9()
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 16 {
		t.Fatalf("%d rows, want 16 (4 datasets × 4 posteriors)", len(tab.Rows))
	}
	for _, r := range tab.Rows {
		for c := 2; c < len(r); c += 2 {
			var paperV, ours float64
			if _, err := fmt.Sscan(strings.ReplaceAll(r[c], "−", "-"), &paperV); err != nil {
				t.Fatalf("row %v column %d: %v", r, c, err)
			}
			if _, err := fmt.Sscan(r[c+1], &ours); err != nil {
				t.Fatalf("row %v column %d: %v", r, c+1, err)
			}
			if paperV != ours {
				t.Errorf("%s %s: paper %s = %g, ours %g", r[0], r[1], tab.Header[c], paperV, ours)
			}
		}
	}
}
