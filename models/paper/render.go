package paper

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stagnb/stagnb/stagnb/figures/table"
)

// QuickFootnote is the footnote a rendered table carries when any of its rows is quick.
const QuickFootnote = "quick CPU settings — not comparable to the paper"

// DeltaSigmaDefinition is the footnote that defines the Δ/σ column.
const DeltaSigmaDefinition = "Δ/σ = (ours − paper) / √(σ_paper² + σ_ours²), shown as — when a value or the paper's σ is missing or the denominator is 0."

// missing is written in cells without a value.
const missing = "—"

// Comparison is one row of a paper-vs-ours table: a number from the paper next to our result
// for the same configuration.
type Comparison struct {
	// Dataset is the dataset column; when empty, the paper entry's dataset is shown ("Cora").
	Dataset string
	// Config is the configuration column; when empty, the paper entry's row label is shown, with
	// its column label when that names the depth ("Normal(1, 0.8), 2 layers").
	Config string
	// Metric is one of the Metric* constants. It may be left empty when HavePaper is true (the
	// paper entry's metric is used); when both are set they must agree.
	Metric string
	// Paper is the paper's number for this configuration; it is used only when HavePaper is true.
	Paper Entry
	// HavePaper reports whether the paper prints a number for this configuration.
	HavePaper bool
	// OursMean and OursStd are the mean and standard deviation of our runs.
	OursMean, OursStd float64
	// Seeds is the number of our runs (seeds). 0 means we have no result yet: the ours cell and
	// Δ/σ show "—". With one seed only the mean is shown and OursStd (normally 0) enters Δ/σ.
	Seeds int
	// Quick marks a result produced with the quick CPU settings rather than the paper's protocol.
	Quick bool
	// Backend is the compute backend of our runs ("go", "xla:cuda"); a backend column is added
	// when any row sets it.
	Backend string
}

// DeltaSigma returns the difference between ours and the paper in units of the combined spread,
//
//	Δ/σ = (ours_mean − paper_mean) / sqrt(paper_std² + ours_std²),
//
// and true. It returns false when the paper has no number or no standard deviation for the row,
// when we have no result (Seeds == 0), when a value is not finite, or when the denominator is 0.
// The sign is that of ours − paper whatever the metric, so a positive Δ/σ is better for accuracy
// and worse for RMSE. |Δ/σ| ≲ 2 means the two results agree within their run-to-run spread.
func (c Comparison) DeltaSigma() (float64, bool) {
	if !c.HavePaper || !c.Paper.HasStd || c.Seeds <= 0 {
		return 0, false
	}
	for _, v := range []float64{c.Paper.Mean, c.Paper.Std, c.OursMean, c.OursStd} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false
		}
	}
	den := math.Hypot(c.Paper.Std, c.OursStd)
	if den == 0 {
		return 0, false
	}
	return (c.OursMean - c.Paper.Mean) / den, true
}

// metric returns the metric that formats the row's numbers.
func (c Comparison) metric() (string, error) {
	m := c.Metric
	if c.HavePaper {
		if m != "" && m != c.Paper.Metric {
			return "", fmt.Errorf("metric %q differs from the paper entry's %q", m, c.Paper.Metric)
		}
		m = c.Paper.Metric
	}
	if m == "" {
		return "", fmt.Errorf("no metric: set Metric or a paper entry")
	}
	if !knownMetric(m) {
		return "", fmt.Errorf("unknown metric %q", m)
	}
	return m, nil
}

// Labels returns the row's dataset and configuration as the tables print them: Dataset and
// Config where set, else (with a paper number) the paper entry's dataset name and row label, the
// latter followed by the column label when that names the depth ("Normal(1, 0.8), 2 layers").
func (c Comparison) Labels() (dataset, config string) {
	dataset, config = c.Dataset, c.Config
	if !c.HavePaper {
		return dataset, config
	}
	if dataset == "" {
		dataset = DatasetName(c.Paper.Dataset)
	}
	if config == "" {
		config = c.Paper.RowLabel
		if strings.HasSuffix(c.Paper.ColumnLabel, "layers") {
			config += ", " + c.Paper.ColumnLabel
		}
	}
	return dataset, config
}

// DatasetName returns the display name of a dataset key ("freesolv" → "FreeSolv"), or the key.
func DatasetName(key string) string {
	switch key {
	case "cora":
		return "Cora"
	case "citeseer":
		return "Citeseer"
	case "esol":
		return "ESOL"
	case "freesolv":
		return "FreeSolv"
	}
	return key
}

// ComparisonTable returns rows as a table (package table renders it as Markdown or HTML): the
// title, the columns dataset, config, paper (mean ± std), ours (mean ± std), seeds, Δ/σ,
// backend (only when a row sets Backend) and mode ("quick" for quick rows), the numbers
// right-aligned, then footnotes: the Δ/σ definition, the paper tables the rows cite, and, when any
// row is quick, QuickFootnote. Numbers are formatted per metric (FormatValue). It returns an
// error when a row has no known metric or a negative seed count.
func ComparisonTable(title string, rows []Comparison) (table.Table, error) {
	hasBackend := slices.ContainsFunc(rows, func(c Comparison) bool { return c.Backend != "" })
	t := table.Table{Title: title,
		Header: []string{"dataset", "config", "paper (mean ± std)", "ours (mean ± std)", "seeds", "Δ/σ"},
		Right:  []bool{false, false, true, true, true, true}}
	if hasBackend {
		t.Header = append(t.Header, "backend")
	}
	t.Header = append(t.Header, "mode")
	var tables []Entry
	anyQuick := false
	for i, c := range rows {
		m, err := c.metric()
		if err != nil {
			return table.Table{}, fmt.Errorf("paper: comparison row %d (%s %s): %w", i, c.Dataset, c.Config, err)
		}
		if c.Seeds < 0 {
			return table.Table{}, fmt.Errorf("paper: comparison row %d (%s %s): negative seeds %d", i, c.Dataset, c.Config, c.Seeds)
		}
		dataset, config := c.Labels()
		paperCell, ours, delta, mode := missing, missing, missing, ""
		if c.HavePaper {
			paperCell = c.Paper.Format()
			if !slices.ContainsFunc(tables, func(e Entry) bool { return e.Table == c.Paper.Table }) {
				tables = append(tables, c.Paper)
			}
		}
		switch {
		case c.Seeds == 1:
			ours = FormatValue(m, c.OursMean)
		case c.Seeds > 1:
			ours = FormatMeanStd(m, c.OursMean, c.OursStd, true)
		}
		if d, ok := c.DeltaSigma(); ok {
			delta = strconv.FormatFloat(d, 'f', 2, 64)
			if d >= 0 {
				delta = "+" + delta
			}
		}
		if c.Quick {
			mode = "quick"
			anyQuick = true
		}
		row := []string{dataset, config, paperCell, ours, strconv.Itoa(c.Seeds), delta}
		if hasBackend {
			row = append(row, c.Backend)
		}
		t.Rows = append(t.Rows, append(row, mode))
	}
	t.Footnotes = append(t.Footnotes, DeltaSigmaDefinition)
	if len(tables) > 0 {
		slices.SortFunc(tables, func(a, b Entry) int { return a.Table - b.Table })
		refs := make([]string, len(tables))
		for i, e := range tables {
			refs[i] = fmt.Sprintf("Table %d (%s)", e.Table, e.Label)
		}
		t.Footnotes = append(t.Footnotes, "Paper: Wang & Karaletsos (ICML 2021), "+strings.Join(refs, ", ")+".")
	}
	if anyQuick {
		t.Footnotes = append(t.Footnotes, "quick: "+QuickFootnote+".")
	}
	return t, nil
}

// WriteMarkdown writes ComparisonTable(title, rows) as a GitHub-flavoured Markdown table, the title
// as a "### " heading (omitted when empty) and the footnotes as paragraphs after it. It returns
// ComparisonTable's error, and writes nothing, when a row has no known metric or a negative seed
// count.
func WriteMarkdown(w io.Writer, title string, rows []Comparison) error {
	t, err := ComparisonTable(title, rows)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, t.Markdown())
	return err
}
