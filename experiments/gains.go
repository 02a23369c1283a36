package experiments

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/models/paper"
	"github.com/stagnb/stagnb/stagnb/figures/table"
)

// Agreement summarises the paper-vs-ours table of recs in one Markdown paragraph: how many cells
// have a Δ/σ (a paper number with its spread, and a run of ours), how many of them lie within
// |Δ/σ| ≤ 1 and ≤ 2, and which cells lie beyond 2, with their Δ/σ. Cells of one seed are counted
// and say so: their Δ/σ has only the paper's spread.
func Agreement(recs []models.Record) string {
	a := agreementOf(recs)
	if a.cells == 0 {
		return "**Agreement:** no cell has both a run of ours and the paper's number with its spread.\n"
	}
	var b strings.Builder
	cells := "cells"
	if a.cells == 1 {
		cells = "cell"
	}
	fmt.Fprintf(&b, "**Agreement:** of %d %s with a Δ/σ", a.cells, cells)
	if a.single > 0 {
		fmt.Fprintf(&b, " (%d of them of one seed, whose Δ/σ has only the paper's spread)", a.single)
	}
	fmt.Fprintf(&b, ": %d within |Δ/σ| ≤ 1 of the paper, %d within 2", a.within1, a.within2)
	if len(a.beyond) == 0 {
		b.WriteString(", none beyond 2.\n")
	} else {
		fmt.Fprintf(&b, "; beyond 2: %s.\n", strings.Join(a.beyond, "; "))
	}
	return b.String()
}

// agreement counts the cells of a paper-vs-ours table that have a Δ/σ, those within |Δ/σ| ≤ 1
// and ≤ 2, and those of one seed, and names the cells beyond 2 with their Δ/σ.
type agreement struct {
	cells, within1, within2, single int
	beyond                          []string
}

// agreementOf is the agreement of the cells of recs (Comparisons).
func agreementOf(recs []models.Record) agreement {
	var a agreement
	for _, c := range Comparisons(recs) {
		d, ok := c.DeltaSigma()
		if !ok {
			continue
		}
		a.cells++
		if c.Seeds < 2 {
			a.single++
		}
		switch abs := math.Abs(d); {
		case abs <= 1:
			a.within1++
			a.within2++
		case abs <= 2:
			a.within2++
		default:
			ds, cfg := c.Labels()
			a.beyond = append(a.beyond, fmt.Sprintf("%s %s (%+.2f)", ds, cfg, d))
		}
	}
	return a
}

// GainsOverDeterministic renders as a Markdown table how far each recorded cell of recs lies from
// the Deterministic row of its own table, dataset and depth, ours beside the paper's: the question
// the paper's tables answer ("does the noise beat the deterministic GCN?"), which the paper-vs-ours
// table answers only across two of its rows. Accuracy differences are in points (higher is
// better), RMSE differences in RMSE (lower is better), each with its size in units of the two rows'
// combined spread (as in TableDifferences). Where the paper has no number for a cell or
// for its Deterministic row (Table 4's deterministic row is our control), the paper's difference is
// "—". Cells of a dataset and depth without a recorded Deterministic row are left out; with none
// left the table says so.
func GainsOverDeterministic(title string, recs []models.Record) string {
	type group struct {
		table, dataset string
		layers         int
	}
	cs, keys := comparisons(recs)
	det := map[group]paper.Comparison{}
	for i, c := range cs {
		if k := keys[i]; c.Seeds > 0 && k.config == "deterministic" {
			det[group{k.table, k.dataset, k.layers}] = c
		}
	}
	t := table.Table{Title: title,
		Header: []string{"dataset", "config", "paper − paper's Deterministic", "ours − our Deterministic", "seeds"},
		Right:  []bool{false, false, true, true, true}}
	var paperless []string // the tables with a row whose paper difference is "—"
	for i, c := range cs {
		k := keys[i]
		d, ok := det[group{k.table, k.dataset, k.layers}]
		if c.Seeds == 0 || k.config == "deterministic" || !ok {
			continue
		}
		m := c.Metric
		ds, cfg := c.Labels()
		paperDiff := "—"
		if c.HavePaper && d.HavePaper {
			paperDiff = signedWithSigma(m, c.Paper.Mean-d.Paper.Mean, c.Paper.Std, d.Paper.Std, c.Paper.HasStd && d.Paper.HasStd)
		} else if !slices.Contains(paperless, k.table) {
			paperless = append(paperless, k.table)
		}
		t.Rows = append(t.Rows, []string{ds, cfg, paperDiff, signedWithSigma(m, c.OursMean-d.OursMean, c.OursStd, d.OursStd, true), strconv.Itoa(c.Seeds)})
	}
	if len(t.Rows) == 0 {
		return heading(title) + "No row to compare: none but Deterministic rows, or none with a recorded Deterministic row of its dataset and depth.\n"
	}
	note := "Accuracy in points, higher is better; RMSE lower is better (a negative difference is a gain). " +
		"Each difference is between two means over seeds; in brackets, the difference over the combined spread √(σ₁² + σ₂²) " +
		"of the two rows, so that a gain within about one σ is within the run-to-run spread."
	if len(paperless) > 0 {
		note += " —: the paper prints no number for the row or for its Deterministic row"
		if slices.Contains(paperless, "table4") {
			note += " (Table 4 has no Deterministic row; ours is a control, the same model and protocol without noise)"
		}
		note += "."
	}
	t.Footnotes = []string{note}
	return t.Markdown()
}

// heading is a table's "### " heading for Markdown text written without its table, or "" for an
// empty title.
func heading(title string) string {
	if s := table.MarkdownText(title); s != "" {
		return "### " + s + "\n\n"
	}
	return ""
}

// signed formats a difference of metric m with its sign, at the precision of m's numbers.
func signed(m string, v float64) string {
	s := paper.FormatValue(m, math.Abs(v))
	if strings.Trim(s, "0.") == "" {
		return s
	}
	if v < 0 {
		return "−" + s
	}
	return "+" + s
}

// TableDifferences renders as a Markdown table how far each recorded cell of recs lies from the
// same cell (dataset, depth and row) of another paper table's records, base, ours beside the
// paper's: Table 5 (one noise draw for all layers) against Table 2 (a draw per layer) is the
// paper's question "does sharing the draw across layers help?", which it answers with "an
// increase in the performance on Citeseer and a decrease on Cora". Each difference is between two
// means over seeds and comes with its Δ/σ, the difference over the combined spread of the two
// cells (as in paper.Comparison.DeltaSigma). The last column pairs our runs seed by seed: of the
// seeds recorded in both cells, in how many this table's run does better than the same seed's run
// in base, in how many worse, and the range of the differences. Under the table one line per
// dataset counts the rows in which recs does better than base (accuracy higher, RMSE lower) and
// worse, in the paper and in ours (an equal row is neither), and the notes of the paper's numbers
// used (a copy typo makes a difference meaningless). Cells without a paper number, or without a
// recorded base cell, are left out; with none left the table says so.
func TableDifferences(title string, recs, base []models.Record) string {
	type cell struct {
		dataset, row, column string
	}
	type baseCell struct {
		paper.Comparison
		key cellKey
	}
	baseCells := map[cell]baseCell{}
	baseComparisons, baseKeys := comparisons(base)
	for i, c := range baseComparisons {
		if c.HavePaper && c.Seeds > 0 {
			baseCells[cell{c.Paper.Dataset, c.Paper.Row, c.Paper.Column}] = baseCell{c, baseKeys[i]}
		}
	}
	seeds, baseSeeds := seedValues(recs), seedValues(base)
	type rowTally struct {
		rows        int
		paper, ours tally
	}
	var datasets []string
	tallies := map[string]*rowTally{}
	t := table.Table{Title: title, Right: []bool{false, false, true, true, true, true}}
	var tableNumber, baseNumber int
	var notes []string
	comps, keys := comparisons(recs)
	for i, c := range comps {
		d, ok := baseCells[cell{c.Paper.Dataset, c.Paper.Row, c.Paper.Column}]
		if !c.HavePaper || c.Seeds == 0 || !ok {
			continue
		}
		if tableNumber == 0 {
			tableNumber, baseNumber = c.Paper.Table, d.Paper.Table
			t.Header = []string{"dataset", "config", fmt.Sprintf("paper: Table %d − Table %d", tableNumber, baseNumber),
				fmt.Sprintf("ours: Table %d − Table %d", tableNumber, baseNumber), "seeds",
				"ours, seed by seed: better / worse (range)"}
		}
		m := c.Paper.Metric
		paperDiff, oursDiff := c.Paper.Mean-d.Paper.Mean, c.OursMean-d.OursMean
		ds, cfg := d.Labels() // the base table's labels: Table 5 prints "Unifrom" (sic)
		t.Rows = append(t.Rows, []string{ds, cfg,
			signedWithSigma(m, paperDiff, c.Paper.Std, d.Paper.Std, c.Paper.HasStd && d.Paper.HasStd),
			signedWithSigma(m, oursDiff, c.OursStd, d.OursStd, true), fmt.Sprintf("%d / %d", c.Seeds, d.Seeds),
			seedTally(m, seeds[keys[i]], baseSeeds[d.key])})
		for _, e := range []paper.Entry{c.Paper, d.Paper} {
			if e.Note != "" {
				notes = append(notes, fmt.Sprintf("Table %d, %s, %s: %s", e.Table, ds, cfg, e.Note))
			}
		}
		n := tallies[ds]
		if n == nil {
			n = &rowTally{}
			tallies[ds] = n
			datasets = append(datasets, ds)
		}
		n.rows++
		n.paper.add(m, paperDiff)
		n.ours.add(m, oursDiff)
	}
	if tableNumber == 0 {
		return heading(title) + "No row to compare: no recorded cell with a paper number has a recorded cell of the same dataset, depth and row in the other table.\n"
	}
	var b strings.Builder
	b.WriteString(t.Markdown() + "\n")
	for _, ds := range datasets {
		n := tallies[ds]
		fmt.Fprintf(&b, "- %s, rows compared: %d. Table %d does better than Table %d in %d of them in the paper and worse in %d; in ours better in %d and worse in %d.\n",
			table.MarkdownText(ds), n.rows, tableNumber, baseNumber, n.paper.better, n.paper.worse, n.ours.better, n.ours.worse)
	}
	b.WriteString("\nAccuracy in points, higher is better; RMSE lower is better. Each difference is between two means over seeds; " +
		"in brackets, the difference over the combined spread √(σ₁² + σ₂²) of the two cells. Seeds: this table's / the other's. " +
		"Seed by seed: of the seeds recorded in both cells, in how many this table's run does better than the same seed's run in the other " +
		"and in how many worse (an equal seed is neither), and in brackets the range of the differences.\n")
	if len(notes) > 0 {
		fmt.Fprintf(&b, "\nThe paper's numbers above come with notes: %s\n", table.MarkdownText(strings.Join(notes, " ")))
	}
	return b.String()
}

// seedValues is each cell's test metric per seed.
func seedValues(recs []models.Record) map[cellKey]map[int64]float64 {
	out := map[cellKey]map[int64]float64{}
	for _, r := range recs {
		v, _, ok := metricOf(r)
		if !ok {
			continue
		}
		k := cellOf(r.Spec)
		if out[k] == nil {
			out[k] = map[int64]float64{}
		}
		out[k][r.Spec.Seed] = v
	}
	return out
}

// seedTally compares two cells' runs of metric m seed by seed. For the seeds in both it says how
// many of ours do better than base's run of the same seed and how many worse, out of how many,
// and the range of the differences: "1 / 4 of 5 (−2.64 to +0.42)".
func seedTally(m string, ours, base map[int64]float64) string {
	var n tally
	var diffs []float64
	for seed, v := range ours {
		if b, ok := base[seed]; ok {
			n.add(m, v-b)
			diffs = append(diffs, v-b)
		}
	}
	out := fmt.Sprintf("%d / %d of %d", n.better, n.worse, len(diffs))
	if len(diffs) > 0 {
		out += fmt.Sprintf(" (%s to %s)", signed(m, slices.Min(diffs)), signed(m, slices.Max(diffs)))
	}
	return out
}

// tally counts differences of one table's cells from another's that are improvements (higher
// accuracy, lower RMSE) and that are not; an equal cell is neither.
type tally struct{ better, worse int }

// add counts a difference v of metric m.
func (t *tally) add(m string, v float64) {
	if m == paper.MetricRMSE {
		v = -v
	}
	switch {
	case v > 0:
		t.better++
	case v < 0:
		t.worse++
	}
}

// signedWithSigma formats a difference v of metric m (signed) followed by v/√(s1² + s2²) in
// brackets, when withSigma is set and the combined spread is positive.
func signedWithSigma(m string, v, s1, s2 float64, withSigma bool) string {
	out := signed(m, v)
	if sigma := math.Hypot(s1, s2); withSigma && sigma > 0 {
		out += " (" + strings.Replace(fmt.Sprintf("%+.2f", v/sigma), "-", "−", 1) + "σ)" // the minus sign of signed
	}
	return out
}

// PaperTableDifferences renders as a Markdown table, from the paper's numbers alone, how its
// Table number compares with its Table base cell by cell (same dataset, depth and row): per
// dataset and depth, how many rows both print, in how many Table number does better than base
// (accuracy higher, RMSE lower) and in how many worse, and the median difference. It checks a
// sentence of the paper against its own tables: B.1 says Table 5 does better than Table 2 on
// Citeseer and worse on Cora.
func PaperTableDifferences(number, base int) string {
	type cell struct{ dataset, row, column string }
	type group struct{ dataset, column string }
	baseEntries := map[cell]paper.Entry{}
	for _, e := range paper.Table(base) {
		baseEntries[cell{e.Dataset, e.Row, e.Column}] = e
	}
	var order []group
	diffs := map[group][]float64{}
	labels := map[group][2]string{}
	metrics := map[group]string{}
	for _, e := range paper.Table(number) {
		d, ok := baseEntries[cell{e.Dataset, e.Row, e.Column}]
		if !ok || d.Metric != e.Metric {
			continue
		}
		g := group{e.Dataset, e.Column}
		if _, seen := diffs[g]; !seen {
			order = append(order, g)
			ds, _ := paper.Comparison{Paper: e, HavePaper: true}.Labels()
			labels[g] = [2]string{ds, e.ColumnLabel}
			metrics[g] = e.Metric
		}
		diffs[g] = append(diffs[g], e.Mean-d.Mean)
	}
	title := fmt.Sprintf("The paper's Table %d against its Table %d, row by row", number, base)
	if len(order) == 0 {
		return heading(title) + fmt.Sprintf("No row to compare: the paper's Tables %d and %d share no cell.\n", number, base)
	}
	t := table.Table{Title: title,
		Header: []string{"dataset", "column", "rows", fmt.Sprintf("Table %d better", number), fmt.Sprintf("Table %d worse", number), "median difference"},
		Right:  []bool{false, false, true, true, true, true},
		Footnotes: []string{fmt.Sprintf("Each difference is the paper's Table %d mean minus its Table %d mean for the same row; "+
			"accuracy in points, higher is better; RMSE lower is better.", number, base)}}
	for _, g := range order {
		ds := diffs[g]
		var n tally
		for _, d := range ds {
			n.add(metrics[g], d)
		}
		t.Rows = append(t.Rows, []string{labels[g][0], labels[g][1], strconv.Itoa(len(ds)), strconv.Itoa(n.better), strconv.Itoa(n.worse), signed(metrics[g], median(ds))})
	}
	return t.Markdown()
}

// median returns the median of xs (the mean of the middle two for an even count); xs is not changed.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}
