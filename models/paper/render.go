package paper

import (
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
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

// cells is one rendered row, as plain (unescaped) text.
type cells struct {
	dataset, config, paper, ours, seeds, delta, backend, mode string
}

// rendered is a whole table as plain text, shared by the Markdown and HTML writers.
type rendered struct {
	rows       []cells
	hasBackend bool
	footnotes  []string
}

// render checks the rows and formats every cell and footnote.
func render(rows []Comparison) (rendered, error) {
	var out rendered
	var tables []Entry
	anyQuick := false
	for i, c := range rows {
		m, err := c.metric()
		if err != nil {
			return rendered{}, fmt.Errorf("paper: comparison row %d (%s %s): %w", i, c.Dataset, c.Config, err)
		}
		if c.Seeds < 0 {
			return rendered{}, fmt.Errorf("paper: comparison row %d (%s %s): negative seeds %d", i, c.Dataset, c.Config, c.Seeds)
		}
		r := cells{dataset: c.Dataset, config: c.Config, paper: missing, ours: missing,
			seeds: strconv.Itoa(c.Seeds), delta: missing, backend: c.Backend}
		r.dataset, r.config = c.Labels()
		if c.HavePaper {
			r.paper = c.Paper.Format()
			if !slices.ContainsFunc(tables, func(e Entry) bool { return e.Table == c.Paper.Table }) {
				tables = append(tables, c.Paper)
			}
		}
		switch {
		case c.Seeds == 1:
			r.ours = FormatValue(m, c.OursMean)
		case c.Seeds > 1:
			r.ours = FormatMeanStd(m, c.OursMean, c.OursStd, true)
		}
		if d, ok := c.DeltaSigma(); ok {
			r.delta = strconv.FormatFloat(d, 'f', 2, 64)
			if d >= 0 {
				r.delta = "+" + r.delta
			}
		}
		if c.Quick {
			r.mode = "quick"
			anyQuick = true
		}
		out.hasBackend = out.hasBackend || c.Backend != ""
		out.rows = append(out.rows, r)
	}
	out.footnotes = append(out.footnotes, DeltaSigmaDefinition)
	if len(tables) > 0 {
		slices.SortFunc(tables, func(a, b Entry) int { return a.Table - b.Table })
		refs := make([]string, len(tables))
		for i, e := range tables {
			refs[i] = fmt.Sprintf("Table %d (%s)", e.Table, e.Label)
		}
		out.footnotes = append(out.footnotes, "Paper: Wang & Karaletsos (ICML 2021), "+strings.Join(refs, ", ")+".")
	}
	if anyQuick {
		out.footnotes = append(out.footnotes, "quick: "+QuickFootnote+".")
	}
	return out, nil
}

// header returns the column headers.
func (r rendered) header() []string {
	h := []string{"dataset", "config", "paper (mean ± std)", "ours (mean ± std)", "seeds", "Δ/σ"}
	if r.hasBackend {
		h = append(h, "backend")
	}
	return append(h, "mode")
}

// fields returns a row's cells in header order.
func (r rendered) fields(c cells) []string {
	f := []string{c.dataset, c.config, c.paper, c.ours, c.seeds, c.delta}
	if r.hasBackend {
		f = append(f, c.backend)
	}
	return append(f, c.mode)
}

// numeric reports whether column i holds numbers (paper, ours, seeds, Δ/σ), which are right-aligned.
func numeric(i int) bool { return i >= 2 && i <= 5 }

// oneLine collapses line breaks and runs of white space so a text fits in one cell or heading.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// MarkdownText escapes a text for one line of Markdown: a table cell, the heading or a footnote.
// Backslashes and pipes are escaped, and angle brackets become entities so that no text turns
// into raw HTML.
func MarkdownText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;").Replace(oneLine(s))
}

// WriteMarkdown writes rows as a GitHub-flavoured Markdown table: a "### title" heading (omitted
// when title is empty), the columns dataset, config, paper (mean ± std), ours (mean ± std),
// seeds, Δ/σ, backend (only when a row sets Backend) and mode ("quick" for quick rows), then
// footnotes: the Δ/σ definition, the paper tables the rows cite, and, when any row is quick,
// QuickFootnote. Numbers are formatted per metric (FormatValue). It returns an error, and writes
// nothing, when a row has no known metric or a negative seed count.
func WriteMarkdown(w io.Writer, title string, rows []Comparison) error {
	r, err := render(rows)
	if err != nil {
		return err
	}
	var b strings.Builder
	if t := MarkdownText(title); t != "" {
		b.WriteString("### " + t + "\n\n")
	}
	h := r.header()
	line := func(f []string) {
		b.WriteString("| " + strings.Join(f, " | ") + " |\n")
	}
	line(h)
	align := make([]string, len(h))
	for i := range h {
		align[i] = ":--"
		if numeric(i) {
			align[i] = "--:"
		}
	}
	line(align)
	for _, c := range r.rows {
		f := r.fields(c)
		for i := range f {
			f[i] = MarkdownText(f[i])
		}
		line(f)
	}
	for _, n := range r.footnotes {
		b.WriteString("\n" + MarkdownText(n) + "\n")
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// WriteHTML writes the same table as WriteMarkdown as an HTML fragment: a <table> with the title
// as <caption> (omitted when empty), numeric cells right-aligned, followed by one
// <p class="footnote"> per footnote. Every text is escaped with html.EscapeString.
func WriteHTML(w io.Writer, title string, rows []Comparison) error {
	r, err := render(rows)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("<table class=\"paper-vs-ours\">\n")
	if t := oneLine(title); t != "" {
		b.WriteString("<caption>" + html.EscapeString(t) + "</caption>\n")
	}
	h := r.header()
	b.WriteString("<thead><tr>")
	for _, s := range h {
		b.WriteString("<th>" + html.EscapeString(s) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, c := range r.rows {
		b.WriteString("<tr>")
		for i, s := range r.fields(c) {
			if numeric(i) {
				b.WriteString(`<td style="text-align:right">`)
			} else {
				b.WriteString("<td>")
			}
			b.WriteString(html.EscapeString(oneLine(s)) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	for _, n := range r.footnotes {
		b.WriteString(`<p class="footnote">` + html.EscapeString(n) + "</p>\n")
	}
	_, err = io.WriteString(w, b.String())
	return err
}
