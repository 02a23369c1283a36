package paper

import (
	"math"
	"strings"
	"testing"
)

func TestEmbeddedWellFormed(t *testing.T) {
	// The row keys the paper's tables use.
	knownRows := map[string]bool{
		"deterministic": true,
		"normal(1,0.2)": true, "normal(1,0.4)": true, "normal(1,0.8)": true,
		"uniform(0.8,1.2)": true, "uniform(0.6,1.4)": true, "uniform(0.2,1.8)": true,
		"bernoulli(0.2)": true, "bernoulli(0.4)": true, "bernoulli(0.8)": true,
		"de(0.2)": true, "de(0.4)": true, "de(0.8)": true,
		"gdc(0.2)": true, "gdc(0.4)": true, "gdc(0.8)": true,
		"stag_vi_r": true, "stag_vi_rc": true, "stag_vi_re": true, "stag_vi_rec": true,
		"bbgdc": true, "stag_mle_best": true, "bbb": true,
	}
	r, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if r.Paper == "" || r.Source == "" {
		t.Errorf("provenance missing: paper %q, source %q", r.Paper, r.Source)
	}
	if len(r.Entries) == 0 {
		t.Fatal("no entries")
	}
	for i, e := range r.Entries {
		if e.Label == "" || e.RowLabel == "" || e.ColumnLabel == "" || e.Printed == "" || e.Line <= 0 {
			t.Errorf("entries[%d] %+v: a required field is empty", i, e)
		}
		if !knownRows[e.Row] || !knownDataset(e.Dataset) || !knownColumn(e.Column) || !knownMetric(e.Metric) {
			t.Errorf("entries[%d]: unknown key in %s/%s/%s/%s", i, e.Dataset, e.Row, e.Column, e.Metric)
		}
		if math.IsNaN(e.Mean) || math.IsInf(e.Mean, 0) || math.IsNaN(e.Std) || math.IsInf(e.Std, 0) || e.Std < 0 {
			t.Errorf("entries[%d]: non-finite or negative number %v ± %v", i, e.Mean, e.Std)
		}
		if got := e.Format(); got != e.Printed {
			t.Errorf("entries[%d]: formats as %q, printed %q", i, got, e.Printed)
		}
		if e.Line < r.Tables[e.Table-1].BeginLine || e.Line > r.Tables[e.Table-1].LabelLine {
			t.Errorf("entries[%d]: line %d outside table %d", i, e.Line, e.Table)
		}
		// Results have a spread; hyperparameters, parameter counts and timings do not.
		wantStd := e.Metric == MetricAccuracy || e.Metric == MetricRMSE
		if e.HasStd != wantStd {
			t.Errorf("entries[%d] (%s): HasStd = %v, want %v", i, e.Metric, e.HasStd, wantStd)
		}
	}
}

func TestTableNumbering(t *testing.T) {
	// The order of \begin{table} / \begin{table*} in the LaTeX source.
	want := []struct {
		label            string
		begin, labelLine int
		encoded          bool
	}{
		{"table-multiset", 355, 403, false},
		{"bigtable", 450, 653, true},
		{"citation-performance", 689, 706, true},
		{"mol-performance", 709, 728, true},
		{"one-sample", 1105, 1167, true},
		{"sage", 1180, 1248, true},
		{"gin", 1251, 1319, true},
		{"bbb", 1324, 1338, true},
		{"tab:hyperparameters", 1402, 1450, true},
	}
	got := Tables()
	if len(got) != len(want) {
		t.Fatalf("%d tables, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Number != i+1 || g.Label != w.label || g.BeginLine != w.begin || g.LabelLine != w.labelLine || g.Encoded != w.encoded {
			t.Errorf("table %d = %+v, want %+v", i+1, g, w)
		}
	}
}

func TestEntryCountsPerTable(t *testing.T) {
	// Counted from the LaTeX source.
	for _, tc := range []struct {
		table, want int
		why         string
	}{
		{1, 0, "symbolic multiset table, not encoded"},
		{2, 128, "16 rows (Deterministic, 3 Normal, 3 Uniform, 3 Bernoulli, 3 DE, 3 GDC) × 4 datasets × 2 depths"},
		{3, 24, "6 rows (4 STAG_VI, BBGDC, STAG_MLE) × (Cora, Citeseer, #Params, Iter. Time)"},
		{4, 10, "5 rows (4 STAG_VI, STAG_MLE) × (ESOL, FreeSolv)"},
		{5, 36, "9 rows (3 Normal, 3 Uniform, 3 Bernoulli) × 2 datasets × 2 depths"},
		{6, 40, "10 rows (Deterministic + 9 noises) × 2 datasets × 2 depths"},
		{7, 40, "10 rows (Deterministic + 9 noises) × 2 datasets × 2 depths"},
		{8, 16, "4 rows (BBB, STAG_VI(R^C), STAG_VI(R^|E|×C), STAG_MLE) × 4 columns"},
		{9, 48, "4 STAG_VI rows × 4 datasets × (μ0, log σ0, σ_prior)"},
		{10, 0, "no such table"},
	} {
		if got := len(Table(tc.table)); got != tc.want {
			t.Errorf("len(Table(%d)) = %d, want %d: %s", tc.table, got, tc.want, tc.why)
		}
	}
	if got := len(Entries()); got != 342 {
		t.Errorf("len(Entries()) = %d, want 342", got)
	}
}

func TestLookup(t *testing.T) {
	const none = -1 // std placeholder for entries without a spread
	for _, tc := range []struct {
		table                        int
		dataset, row, column, metric string
		mean, std                    float64
		bold                         bool
		line                         int
	}{
		{2, "cora", "deterministic", "layers=2", MetricAccuracy, 79.34, 0.22, false, 471},
		{2, "cora", "normal(1,0.8)", "layers=2", MetricAccuracy, 80.34, 0.45, true, 505},
		{2, "cora", "normal(1,0.2)", "layers=4", MetricAccuracy, 76.36, 0.53, false, 484},
		{2, "freesolv", "uniform(0.8,1.2)", "layers=4", MetricRMSE, 1.1317, 0.0435, true, 524},
		{2, "esol", "deterministic", "layers=2", MetricRMSE, 0.7003, 0.0638, false, 475},
		{2, "citeseer", "gdc(0.8)", "layers=4", MetricAccuracy, 57.60, 1.79, false, 643},
		{3, "cora", "stag_vi_rec", "layers=2", MetricAccuracy, 81.38, 0.40, true, 699},
		{3, "cora", "stag_vi_rec", "layers=2", MetricParams, 1186000, none, false, 699},
		{3, "cora", "stag_vi_rec", "layers=2", MetricIterTime, 30.0, none, false, 699},
		{3, "citeseer", "bbgdc", "layers=2", MetricAccuracy, 70.96, 0.72, false, 701},
		{3, "cora", "stag_mle_best", "layers=2", MetricIterTime, 9.3, none, false, 702},
		{4, "freesolv", "stag_vi_rec", "layers=2", MetricRMSE, 0.9958, 0.0768, true, 722},
		{4, "esol", "stag_vi_r", "layers=2", MetricRMSE, 0.5956, 0.0200, false, 716},
		{5, "citeseer", "bernoulli(0.8)", "layers=4", MetricAccuracy, 19.00, 0.92, false, 1161},
		{5, "cora", "uniform(0.2,1.8)", "layers=2", MetricAccuracy, 79.74, 0.48, false, 1144},
		{6, "cora", "deterministic", "layers=2", MetricAccuracy, 79.20, 0.15, false, 1193},
		{7, "cora", "bernoulli(0.8)", "layers=2", MetricAccuracy, 77.96, 0.76, false, 1312},
		{8, "citeseer", "bbb", "layers=2", MetricAccuracy, 65.12, 1.93, false, 1330},
		{8, "cora", "bbb", "layers=2", MetricParams, 368000, none, false, 1330},
		{9, "freesolv", "stag_vi_re", "layers=2", MetricLogSigma0, -2.0, none, false, 1438},
		{9, "cora", "stag_vi_rc", "layers=2", MetricMu0, 0.25, none, false, 1428},
	} {
		e, ok := Lookup(tc.table, tc.dataset, tc.row, tc.column, tc.metric)
		if !ok {
			t.Errorf("Lookup(%d, %s, %s, %s, %s): not found", tc.table, tc.dataset, tc.row, tc.column, tc.metric)
			continue
		}
		hasStd := tc.std != none
		if e.Mean != tc.mean || e.HasStd != hasStd || (hasStd && e.Std != tc.std) || e.Bold != tc.bold || e.Line != tc.line {
			t.Errorf("Lookup(%d, %s, %s, %s, %s) = %v ± %v (std %v, bold %v, line %d), want %v ± %v (bold %v, line %d)",
				tc.table, tc.dataset, tc.row, tc.column, tc.metric, e.Mean, e.Std, e.HasStd, e.Bold, e.Line, tc.mean, tc.std, tc.bold, tc.line)
		}
	}
	for _, tc := range []struct {
		table                        int
		dataset, row, column, metric string
	}{
		{3, "esol", "stag_vi_r", "layers=2", MetricRMSE},           // molecules are Table 4
		{3, "cora", "stag_vi_r", "layers=4", MetricAccuracy},       // VI is two-layer only
		{2, "Cora", "deterministic", "layers=2", MetricAccuracy},   // keys are lower case
		{1, "cora", "deterministic", "layers=2", MetricAccuracy},   // Table 1 is not encoded
		{2, "cora", "deterministic", "layers=2", MetricRMSE},       // wrong metric
		{5, "cora", "deterministic", "layers=2", MetricAccuracy},   // Table 5 has no baseline row
		{8, "citeseer", "bbb", "layers=2", MetricParams},           // params are stored under cora
		{9, "cora", "stag_mle_best", "layers=2", MetricSigmaPrior}, // MLE has no VI hyperparameters
	} {
		if e, ok := Lookup(tc.table, tc.dataset, tc.row, tc.column, tc.metric); ok {
			t.Errorf("Lookup(%d, %s, %s, %s, %s) = %+v, want not found", tc.table, tc.dataset, tc.row, tc.column, tc.metric, e)
		}
	}
}

func TestBoldMarksColumnBest(t *testing.T) {
	// In Tables 2-4 the bold number of each column is the best one: the highest accuracy or the
	// lowest RMSE. The other tables print nothing in bold.
	type col struct {
		table                   int
		dataset, column, metric string
	}
	best := map[col]float64{}
	for _, e := range Entries() {
		if e.Metric != MetricAccuracy && e.Metric != MetricRMSE {
			continue
		}
		k := col{e.Table, e.Dataset, e.Column, e.Metric}
		b, ok := best[k]
		if !ok || (e.Metric == MetricAccuracy && e.Mean > b) || (e.Metric == MetricRMSE && e.Mean < b) {
			best[k] = e.Mean
		}
	}
	bolds := map[int]int{}
	for _, e := range Entries() {
		if e.Bold {
			bolds[e.Table]++
		}
		if e.Table < 2 || e.Table > 4 || (e.Metric != MetricAccuracy && e.Metric != MetricRMSE) {
			continue
		}
		isBest := e.Mean == best[col{e.Table, e.Dataset, e.Column, e.Metric}]
		if e.Bold != isBest {
			t.Errorf("table %d %s %s %s: bold %v but column best %v", e.Table, e.Dataset, e.Row, e.Column, e.Bold, isBest)
		}
	}
	want := map[int]int{2: 8, 3: 2, 4: 2}
	for tab := 1; tab <= 9; tab++ {
		if bolds[tab] != want[tab] {
			t.Errorf("table %d: %d bold entries, want %d", tab, bolds[tab], want[tab])
		}
	}
}

func TestRepeatedValuesHaveNotes(t *testing.T) {
	// Within a table, two cells printing the same mean ± std for one dataset are suspicious
	// (usually a copy typo) and must carry a note.
	type cell struct {
		table            int
		dataset, printed string
	}
	seen := map[cell][]Entry{}
	for _, e := range Entries() {
		if e.HasStd {
			k := cell{e.Table, e.Dataset, e.Printed}
			seen[k] = append(seen[k], e)
		}
	}
	repeated := 0
	for k, es := range seen {
		if len(es) < 2 {
			continue
		}
		repeated++
		for _, e := range es {
			if e.Note == "" {
				t.Errorf("table %d %s %s %s prints %s like another cell, but has no note", k.table, e.Dataset, e.Row, e.Column, k.printed)
			}
		}
	}
	if repeated != 4 {
		t.Errorf("%d repeated cells, want 4 (two in Table 2, two in Table 5)", repeated)
	}
	for _, tc := range []struct {
		table                        int
		dataset, row, column, metric string
		noteHas                      string
	}{
		{2, "cora", "normal(1,0.2)", "layers=2", MetricAccuracy, "§6 item 16"},
		{5, "cora", "bernoulli(0.2)", "layers=4", MetricAccuracy, "§6 item 16"},
		{3, "citeseer", "stag_mle_best", "layers=2", MetricAccuracy, "GDC(0.2)"},
		{5, "citeseer", "uniform(0.2,1.8)", "layers=4", MetricAccuracy, "Unifrom"},
		{8, "cora", "stag_vi_rec", "layers=2", MetricAccuracy, "Repeats Table 3"},
		{9, "cora", "stag_vi_r", "layers=2", MetricMu0, "§6 item 3"},
	} {
		e, _ := Lookup(tc.table, tc.dataset, tc.row, tc.column, tc.metric)
		if !strings.Contains(e.Note, tc.noteHas) {
			t.Errorf("table %d %s %s %s note %q, want it to mention %q", tc.table, tc.dataset, tc.row, tc.column, e.Note, tc.noteHas)
		}
	}
}

func TestAccessorsReturnCopies(t *testing.T) {
	a := Table(2)
	a[0].Mean = -1
	Entries()[0].Mean = -1
	Tables()[0].Label = "changed"
	if e := Table(2)[0]; e.Mean != 79.34 {
		t.Errorf("Table(2)[0].Mean = %v after modifying a returned slice, want 79.34", e.Mean)
	}
	if l := Tables()[0].Label; l != "table-multiset" {
		t.Errorf("Tables()[0].Label = %q after modifying a returned slice", l)
	}
}

func TestParseErrors(t *testing.T) {
	const head = `{"paper": "p", "source": "s", "tables": [
		{"number": 1, "label": "one", "begin_line": 10, "label_line": 20, "title": "t", "encoded": true, "note": "n"}],
		"entries": [`
	const good = `{"table": 1, "label": "one", "dataset": "cora", "row": "normal(1,0.2)", "row_label": "Normal(1, 0.2)",
		"column": "layers=2", "column_label": "2 layers", "metric": "accuracy_percent", "mean": 79.34, "std": 0.22,
		"printed": "79.34 ± 0.22", "line": 12}`
	entry := func(old, new string) string { return head + strings.Replace(good, old, new, 1) + "]}" }
	if _, err := Parse([]byte(head + good + "]}")); err != nil {
		t.Fatalf("Parse(valid file): %v", err)
	}
	for _, tc := range []struct {
		name, data, wantErr string
	}{
		{"not JSON", `{"paper": `, "decoding"},
		{"trailing data", head + good + "]} {}", "trailing data"},
		{"unknown field", entry(`"line": 12`, `"line": 12, "colour": "red"`), "unknown field"},
		{"missing mean", entry(`"mean": 79.34, `, ""), "missing mean"},
		{"number out of range", entry(`79.34,`, `1e999,`), "decoding"},
		{"negative std", entry(`0.22`, `-0.22`), "std"},
		{"unknown dataset", entry(`"cora"`, `"pubmed"`), "unknown dataset"},
		{"unknown metric", entry(`"accuracy_percent"`, `"f1"`), "unknown metric"},
		{"unknown column", entry(`"layers=2"`, `"layers=3"`), "unknown column"},
		{"malformed row key", entry(`"normal(1,0.2)"`, `"Normal(1, 0.2)"`), "row key"},
		{"empty printed", entry(`"79.34 ± 0.22"`, `""`), "printed must be set"},
		{"printed disagrees", entry(`"79.34 ± 0.22"`, `"79.43 ± 0.22"`), "format as"},
		{"line outside table", entry(`"line": 12`, `"line": 30`), "outside table"},
		{"no such table", entry(`"table": 1`, `"table": 2`), "no table 2"},
		{"label mismatch", entry(`"label": "one"`, `"label": "two"`), "label"},
		{"duplicate", head + good + "," + good + "]}", "same table"},
		{"encoded table without entries", head + "]}", "no entries"},
		{"tables out of order", `{"paper": "p", "source": "s", "tables": [
			{"number": 2, "label": "x", "begin_line": 1, "label_line": 2, "title": "t", "encoded": false, "note": "n"}], "entries": []}`, "number is 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse: error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
