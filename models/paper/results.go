package paper

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sync"
)

//go:embed paper_results.json
var embedded []byte

// loadEmbedded parses the embedded file once; it is the package's only cache.
var loadEmbedded = sync.OnceValues(func() (Results, error) { return Parse(embedded) })

// Metric keys stored in Entry.Metric. They also choose how a value is formatted (FormatValue).
const (
	// MetricAccuracy is node-classification test accuracy in percent (Cora, Citeseer); 2 decimals.
	MetricAccuracy = "accuracy_percent"
	// MetricRMSE is graph-regression test RMSE (ESOL in log mol/L, FreeSolv in kcal/mol); 4 decimals.
	MetricRMSE = "rmse"
	// MetricParams is a parameter count, stored as a plain number and printed in thousands ("184k").
	MetricParams = "params"
	// MetricIterTime is the time of one training iteration in milliseconds; 1 decimal and " ms".
	MetricIterTime = "iter_time_ms"
	// MetricMu0 is Table 9's μ0 hyperparameter of the variational posterior.
	MetricMu0 = "mu0"
	// MetricLogSigma0 is Table 9's log σ0, the initial log standard deviation of the posterior.
	MetricLogSigma0 = "log_sigma0"
	// MetricSigmaPrior is Table 9's σ_prior, the standard deviation of the Normal(1, σ_prior) prior.
	MetricSigmaPrior = "sigma_prior"
)

// Entry is one number printed in one of the paper's result tables, with where it came from.
type Entry struct {
	// Table is the table's number in the paper (see the package doc for the numbering).
	Table int
	// Label is the LaTeX \label of the table, for example "bigtable".
	Label string
	// Dataset is "cora", "citeseer", "esol" or "freesolv".
	Dataset string
	// Row is a stable machine key of the table row: "deterministic", "normal(1,0.2)",
	// "uniform(0.8,1.2)", "bernoulli(0.2)", "de(0.2)", "gdc(0.2)", "stag_vi_r", "stag_vi_rc",
	// "stag_vi_re", "stag_vi_rec", "bbgdc", "stag_mle_best" or "bbb".
	Row string
	// RowLabel is the row's label as printed, in plain text ("Normal(1, 0.2)", "STAG_VI(R^C)").
	RowLabel string
	// Column is a machine key of the column within its dataset: "layers=2" or "layers=4".
	Column string
	// ColumnLabel is the column header as printed ("2 layers", "Cora", "#Params", "log σ0").
	ColumnLabel string
	// Metric is one of the Metric* constants.
	Metric string
	// Mean is the printed value (the mean over runs for results).
	Mean float64
	// Std is the printed standard deviation; it is meaningful only when HasStd is true.
	Std float64
	// HasStd reports whether the paper prints a standard deviation for this value.
	HasStd bool
	// Printed is the cell exactly as printed, without LaTeX markup ("79.34 ± 0.22", "184k").
	Printed string
	// Line is the 1-based line of the paper's LaTeX source on which the number is printed.
	Line int
	// Bold reports whether the paper sets the number in bold (the best of its column).
	Bold bool
	// Note explains anything odd about the number (copy typos, repeated values); usually empty.
	Note string
}

// Format returns the entry's value formatted like the paper; for every embedded entry this equals
// Printed.
func (e Entry) Format() string { return FormatMeanStd(e.Metric, e.Mean, e.Std, e.HasStd) }

// TableInfo describes one table environment of the paper's LaTeX source.
type TableInfo struct {
	// Number is the table's number: the position of its \begin{table} or \begin{table*} in the file.
	Number int
	// Label is the table's LaTeX \label.
	Label string
	// BeginLine is the line of \begin{table} (or \begin{table*}).
	BeginLine int
	// LabelLine is the line of \label; every entry of the table lies between BeginLine and LabelLine.
	LabelLine int
	// Title is the table's caption, shortened to its first sentence.
	Title string
	// Encoded reports whether the table's numbers are in the data file; Table 1 is not.
	Encoded bool
	// Note says what the table holds, how it was encoded, or why it was not.
	Note string
}

// Results is the whole data file: provenance, the tables and their entries in file order.
type Results struct {
	// Paper names the paper.
	Paper string
	// Source names the LaTeX file that the line numbers refer to.
	Source string
	// Tables lists every table environment of the paper, Table 1 first.
	Tables []TableInfo
	// Entries lists every encoded number, in file order.
	Entries []Entry
}

// fileJSON is the on-disk layout of paper_results.json.
type fileJSON struct {
	Paper   string      `json:"paper"`
	Source  string      `json:"source"`
	Tables  []tableJSON `json:"tables"`
	Entries []entryJSON `json:"entries"`
}

type tableJSON struct {
	Number    int    `json:"number"`
	Label     string `json:"label"`
	BeginLine int    `json:"begin_line"`
	LabelLine int    `json:"label_line"`
	Title     string `json:"title"`
	Encoded   *bool  `json:"encoded"`
	Note      string `json:"note"`
}

type entryJSON struct {
	Table       int      `json:"table"`
	Label       string   `json:"label"`
	Dataset     string   `json:"dataset"`
	Row         string   `json:"row"`
	RowLabel    string   `json:"row_label"`
	Column      string   `json:"column"`
	ColumnLabel string   `json:"column_label"`
	Metric      string   `json:"metric"`
	Mean        *float64 `json:"mean"`
	Std         *float64 `json:"std"`
	Printed     string   `json:"printed"`
	Line        int      `json:"line"`
	Bold        bool     `json:"bold"`
	Note        string   `json:"note"`
}

// knownMetric reports whether m is one of the Metric* constants.
func knownMetric(m string) bool {
	switch m {
	case MetricAccuracy, MetricRMSE, MetricParams, MetricIterTime, MetricMu0, MetricLogSigma0, MetricSigmaPrior:
		return true
	}
	return false
}

// knownDataset reports whether d is one of the paper's four datasets.
func knownDataset(d string) bool {
	switch d {
	case "cora", "citeseer", "esol", "freesolv":
		return true
	}
	return false
}

// knownColumn reports whether c is a known column key.
func knownColumn(c string) bool { return c == "layers=2" || c == "layers=4" }

// Parse decodes and validates a data file in the format of paper_results.json. Unknown fields,
// missing fields, unknown datasets, metrics or column keys, non-finite or negative spreads,
// line numbers outside their table, duplicated keys, and a Printed text that the stored numbers
// do not reproduce are all errors that name the offending entry.
func Parse(data []byte) (Results, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f fileJSON
	if err := dec.Decode(&f); err != nil {
		return Results{}, fmt.Errorf("paper: decoding results: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Results{}, errors.New("paper: decoding results: trailing data after the top-level object")
	}
	if f.Paper == "" || f.Source == "" {
		return Results{}, errors.New("paper: results: \"paper\" and \"source\" must be set")
	}
	r := Results{Paper: f.Paper, Source: f.Source}
	for i, t := range f.Tables {
		switch {
		case t.Number != i+1:
			return Results{}, fmt.Errorf("paper: tables[%d]: number is %d, want %d (tables are listed in file order)", i, t.Number, i+1)
		case t.Label == "" || t.Title == "" || t.Note == "":
			return Results{}, fmt.Errorf("paper: table %d: label, title and note must be set", t.Number)
		case t.Encoded == nil:
			return Results{}, fmt.Errorf("paper: table %d: \"encoded\" must be set", t.Number)
		case t.BeginLine <= 0 || t.LabelLine <= t.BeginLine:
			return Results{}, fmt.Errorf("paper: table %d: bad lines begin_line=%d label_line=%d", t.Number, t.BeginLine, t.LabelLine)
		case i > 0 && t.BeginLine <= f.Tables[i-1].LabelLine:
			return Results{}, fmt.Errorf("paper: table %d: begins on line %d, before table %d ends", t.Number, t.BeginLine, t.Number-1)
		}
		r.Tables = append(r.Tables, TableInfo{Number: t.Number, Label: t.Label, BeginLine: t.BeginLine,
			LabelLine: t.LabelLine, Title: t.Title, Encoded: *t.Encoded, Note: t.Note})
	}
	rowKey := regexp.MustCompile(`^[a-z][a-z0-9_]*(\([0-9.]+(,[0-9.]+)*\))?$`)
	type key struct {
		table                        int
		dataset, row, column, metric string
	}
	seen := make(map[key]int)
	count := make([]int, len(r.Tables)+1)
	for i, j := range f.Entries {
		where := fmt.Sprintf("paper: entries[%d] (table %d, line %d)", i, j.Table, j.Line)
		if j.Table < 1 || j.Table > len(r.Tables) {
			return Results{}, fmt.Errorf("%s: no table %d", where, j.Table)
		}
		t := r.Tables[j.Table-1]
		switch {
		case !t.Encoded:
			return Results{}, fmt.Errorf("%s: table %d is marked as not encoded", where, t.Number)
		case j.Label != t.Label:
			return Results{}, fmt.Errorf("%s: label %q, want %q", where, j.Label, t.Label)
		case !knownDataset(j.Dataset):
			return Results{}, fmt.Errorf("%s: unknown dataset %q", where, j.Dataset)
		case !rowKey.MatchString(j.Row):
			return Results{}, fmt.Errorf("%s: malformed row key %q", where, j.Row)
		case j.RowLabel == "" || j.ColumnLabel == "" || j.Printed == "":
			return Results{}, fmt.Errorf("%s: row_label, column_label and printed must be set", where)
		case !knownColumn(j.Column):
			return Results{}, fmt.Errorf("%s: unknown column key %q", where, j.Column)
		case !knownMetric(j.Metric):
			return Results{}, fmt.Errorf("%s: unknown metric %q", where, j.Metric)
		case j.Mean == nil:
			return Results{}, fmt.Errorf("%s: missing mean", where)
		case math.IsNaN(*j.Mean) || math.IsInf(*j.Mean, 0):
			return Results{}, fmt.Errorf("%s: mean %v is not finite", where, *j.Mean)
		case j.Std != nil && (math.IsNaN(*j.Std) || math.IsInf(*j.Std, 0) || *j.Std < 0):
			return Results{}, fmt.Errorf("%s: std %v is not a finite non-negative number", where, *j.Std)
		case j.Line < t.BeginLine || j.Line > t.LabelLine:
			return Results{}, fmt.Errorf("%s: line outside table %d (lines %d-%d)", where, t.Number, t.BeginLine, t.LabelLine)
		}
		e := Entry{Table: j.Table, Label: j.Label, Dataset: j.Dataset, Row: j.Row, RowLabel: j.RowLabel,
			Column: j.Column, ColumnLabel: j.ColumnLabel, Metric: j.Metric, Mean: *j.Mean,
			Printed: j.Printed, Line: j.Line, Bold: j.Bold, Note: j.Note}
		if j.Std != nil {
			e.Std, e.HasStd = *j.Std, true
		}
		if got := e.Format(); got != e.Printed {
			return Results{}, fmt.Errorf("%s: the stored numbers format as %q, but printed is %q", where, got, e.Printed)
		}
		k := key{e.Table, e.Dataset, e.Row, e.Column, e.Metric}
		if prev, dup := seen[k]; dup {
			return Results{}, fmt.Errorf("%s: same table, dataset, row, column and metric as entries[%d]", where, prev)
		}
		seen[k] = i
		count[e.Table]++
		r.Entries = append(r.Entries, e)
	}
	for _, t := range r.Tables {
		if t.Encoded && count[t.Number] == 0 {
			return Results{}, fmt.Errorf("paper: table %d is marked as encoded but has no entries", t.Number)
		}
	}
	return r, nil
}

// Load returns the embedded data file, parsed on first use. The returned slices are copies, so
// callers may modify them freely.
func Load() (Results, error) {
	r, err := loadEmbedded()
	if err != nil {
		return Results{}, err
	}
	r.Tables = append([]TableInfo(nil), r.Tables...)
	r.Entries = append([]Entry(nil), r.Entries...)
	return r, nil
}

// mustLoad is Load for the convenience accessors. The embedded file is part of the binary and
// TestEmbeddedWellFormed proves it parses, so an error here is a broken build, not bad input.
func mustLoad() Results {
	r, err := Load()
	if err != nil {
		panic(err)
	}
	return r
}

// Entries returns every encoded number of the paper, in file order. It panics only if the
// embedded file is malformed (see Load for the error instead), which the package tests rule out.
func Entries() []Entry { return mustLoad().Entries }

// Tables returns every table of the paper in numbering order, Table 1 first, including the
// ones that are not encoded.
func Tables() []TableInfo { return mustLoad().Tables }

// Table returns the entries of table n in file order, or nil when n is not a table number or the
// table is not encoded (Table 1).
func Table(n int) []Entry {
	var out []Entry
	for _, e := range mustLoad().Entries {
		if e.Table == n {
			out = append(out, e)
		}
	}
	return out
}

// Lookup returns the entry of the given table, dataset, row key, column key and metric, all
// matched exactly (keys are lower case, for example Lookup(2, "cora", "normal(1,0.8)",
// "layers=2", MetricAccuracy)). The boolean is false when the paper prints no such number.
func Lookup(table int, dataset, row, column, metric string) (Entry, bool) {
	for _, e := range mustLoad().Entries {
		if e.Table == table && e.Dataset == dataset && e.Row == row && e.Column == column && e.Metric == metric {
			return e, true
		}
	}
	return Entry{}, false
}
