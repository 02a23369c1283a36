package experiments

import (
	"fmt"
	"math"
	"strings"

	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/models/paper"
)

// Agreement summarises the paper-vs-ours table of recs in one Markdown paragraph: how many cells
// have a Δ/σ (a paper number with its spread, and a run of ours), how many of them lie within
// |Δ/σ| ≤ 1 and ≤ 2, and which cells lie beyond 2, with their Δ/σ. Cells of one seed are counted
// and say so: their Δ/σ has only the paper's spread.
func Agreement(recs []models.Record) string {
	var n, within1, within2, single int
	var beyond []string
	for _, c := range Comparisons(recs) {
		d, ok := c.DeltaSigma()
		if !ok {
			continue
		}
		n++
		if c.Seeds < 2 {
			single++
		}
		switch a := math.Abs(d); {
		case a <= 1:
			within1++
			within2++
		case a <= 2:
			within2++
		default:
			ds, cfg := c.Labels()
			beyond = append(beyond, fmt.Sprintf("%s %s (%+.2f)", ds, cfg, d))
		}
	}
	if n == 0 {
		return "**Agreement:** no cell has both a run of ours and the paper's number with its spread.\n"
	}
	var b strings.Builder
	cells := "cells"
	if n == 1 {
		cells = "cell"
	}
	fmt.Fprintf(&b, "**Agreement:** of %d %s with a Δ/σ: %d within |Δ/σ| ≤ 1 of the paper, %d within 2", n, cells, within1, within2)
	if single > 0 {
		fmt.Fprintf(&b, " (%d of one seed, whose Δ/σ has only the paper's spread)", single)
	}
	if len(beyond) == 0 {
		b.WriteString(", none beyond 2.\n")
	} else {
		fmt.Fprintf(&b, "; beyond 2: %s.\n", strings.Join(beyond, "; "))
	}
	return b.String()
}

// GainsOverDeterministic renders as a Markdown table how far each recorded cell of recs lies from
// the Deterministic row of its own dataset and depth, ours beside the paper's: the question the
// paper's tables answer ("does the noise beat the deterministic GCN?"), which the paper-vs-ours
// table answers only across two of its rows. Accuracy differences are in points (higher is
// better), RMSE differences in RMSE (lower is better). Cells without a paper number, and the cells
// of a dataset and depth without a recorded Deterministic row, are left out; with none left the
// table says so.
func GainsOverDeterministic(title string, recs []models.Record) string {
	type group struct {
		table          int
		dataset, depth string
	}
	cs := Comparisons(recs)
	det := map[group]paper.Comparison{}
	for _, c := range cs {
		if c.HavePaper && c.Seeds > 0 && c.Paper.Row == "deterministic" {
			det[group{c.Paper.Table, c.Paper.Dataset, c.Paper.Column}] = c
		}
	}
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "### %s\n\n", title)
	}
	rows := 0
	for _, c := range cs {
		d, ok := det[group{c.Paper.Table, c.Paper.Dataset, c.Paper.Column}]
		if !c.HavePaper || c.Seeds == 0 || c.Paper.Row == "deterministic" || !ok {
			continue
		}
		if rows == 0 {
			b.WriteString("| dataset | config | paper − paper's Deterministic | ours − our Deterministic | seeds |\n")
			b.WriteString("| :-- | :-- | --: | --: | --: |\n")
		}
		rows++
		m := c.Paper.Metric
		ds, cfg := c.Labels()
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d |\n", ds, cfg,
			signed(m, c.Paper.Mean-d.Paper.Mean), signed(m, c.OursMean-d.OursMean), c.Seeds)
	}
	if rows == 0 {
		b.WriteString("No row to compare: none but Deterministic rows, or none with a recorded Deterministic row of its dataset and depth.\n")
		return b.String()
	}
	b.WriteString("\nAccuracy in points, higher is better; RMSE lower is better (a negative difference is a gain). " +
		"Each difference is between two means over seeds.\n")
	return b.String()
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
