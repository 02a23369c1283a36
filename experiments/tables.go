package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/models/paper"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PaperTable is one of the paper's result tables as the notebooks show it: the runs of
// `stag reproduce`, in full and in a quick subset that trains in a few minutes on two CPU cores.
type PaperTable struct {
	// Name is reproduce's table name ("table2", …) and Number the paper's table number.
	Name   string
	Number int
	// Subject says in a few words what the table compares.
	Subject string
	// Datasets of the full table.
	Datasets []string
	// QuickDataset, QuickLayers and QuickConfigs select the quick subset: one dataset, one depth,
	// the listed rows, one seed.
	QuickDataset string
	QuickLayers  int
	QuickConfigs []string
}

// PaperTables are the tables that notebooks 06–08 reproduce. The quick subsets are chosen to
// keep each notebook's quick run within a few minutes on two CPU cores.
var PaperTables = []PaperTable{
	{Name: "table2", Number: 2, Subject: "GCN: STAG, DropEdge and GDC", Datasets: []string{"cora", "citeseer", "esol", "freesolv"},
		QuickDataset: "cora", QuickLayers: 2, QuickConfigs: []string{"deterministic", "normal(1,0.8)", "de(0.2)", "gdc(0.2)"}},
	{Name: "table3", Number: 3, Subject: "STAG-VI and BBGDC on citation graphs", Datasets: []string{"cora", "citeseer"},
		QuickDataset: "cora", QuickLayers: 2, QuickConfigs: []string{"vi:r", "bbgdc"}},
	{Name: "table4", Number: 4, Subject: "STAG-VI on molecules", Datasets: []string{"esol", "freesolv"},
		QuickDataset: "freesolv", QuickLayers: 2, QuickConfigs: []string{"vi:r"}},
	{Name: "table5", Number: 5, Subject: "one noise draw for all layers", Datasets: []string{"cora", "citeseer"},
		QuickDataset: "cora", QuickLayers: 2, QuickConfigs: []string{"normal(1,0.8)"}},
	{Name: "table6", Number: 6, Subject: "GraphSAGE", Datasets: []string{"cora", "citeseer"},
		QuickDataset: "cora", QuickLayers: 2, QuickConfigs: []string{"normal(1,0.8)"}},
	{Name: "table7", Number: 7, Subject: "GIN", Datasets: []string{"cora", "citeseer"},
		QuickDataset: "cora", QuickLayers: 2, QuickConfigs: []string{"normal(1,0.8)"}},
	{Name: "table8", Number: 8, Subject: "Bayes-by-Backprop", Datasets: []string{"cora", "citeseer"},
		QuickDataset: "cora", QuickLayers: 2, QuickConfigs: []string{"bbb"}},
}

// PaperTableByName returns the PaperTables entry of a reproduce table name.
func PaperTableByName(name string) (PaperTable, error) {
	for _, t := range PaperTables {
		if t.Name == name {
			return t, nil
		}
	}
	return PaperTable{}, fmt.Errorf("experiments: unknown paper table %q (want one of %s)", name, strings.Join(tableNames(), ", "))
}

// allSpecs is the table's whole grid (models' spec lists) for datasets.
func (t PaperTable) allSpecs(datasets []string, quick bool) []models.RunSpec {
	switch t.Name {
	case "table2":
		return models.Table2Specs(datasets, quick)
	case "table3":
		return models.Table3Specs(datasets, quick)
	case "table4":
		return models.Table4Specs(datasets, quick)
	case "table5":
		return models.Table5Specs(datasets, quick)
	case "table6", "table7":
		return models.GNNSpecs(t.Name, datasets, quick)
	case "table8":
		return models.Table8Specs(datasets, quick)
	}
	return nil
}

// Specs returns the runs the notebook shows and the `stag reproduce` arguments that train the
// same runs: the quick subset with the quick settings, the whole table otherwise.
func (t PaperTable) Specs(s Settings) (specs []models.RunSpec, command string) {
	if !s.Quick {
		return t.allSpecs(t.Datasets, false), models.CommandLine("reproduce", t.Name, "-datasets", strings.Join(t.Datasets, ","))
	}
	for _, spec := range t.allSpecs([]string{t.QuickDataset}, true) {
		if spec.Layers == t.QuickLayers && slices.Contains(t.QuickConfigs, spec.Config) {
			specs = append(specs, spec)
		}
	}
	args := []string{"reproduce", t.Name, "-quick", "-datasets", t.QuickDataset, "-configs", strings.Join(t.QuickConfigs, ",")}
	if t.Name != "table3" && t.Name != "table4" && t.Name != "table8" { // their grids have one depth
		args = append(args, "-layers", fmt.Sprint(t.QuickLayers))
	}
	return specs, models.CommandLine(args...)
}

// TableRecords returns the records of a paper table (PaperTable.Specs): in quick mode it trains
// the missing quick runs here (with a progress line) and keeps them under ResultsDir()/quick; in
// full mode it reads `stag reproduce`'s records, and trains missing ones only when $STAGNB_LIVE
// is set (see Records).
func TableRecords(backend compute.Backend, s Settings, table string) ([]models.Record, error) {
	t, err := PaperTableByName(table)
	if err != nil {
		return nil, err
	}
	specs, command := t.Specs(s)
	return Records(backend, specs, command)
}

// paperRow is the paper's row key of a reproduce config: Table 3's "vi:rc" is "stag_vi_rc", and
// Table 8's runs with another prior, "bbb(σ)", compare with the paper's "bbb", whose prior was
// tuned and not reported; the other configs are the paper's keys already.
func paperRow(config string) string {
	if p, ok := strings.CutPrefix(config, "vi:"); ok {
		return "stag_vi_" + p
	}
	if strings.HasPrefix(config, "bbb(") {
		return "bbb"
	}
	return config
}

// priorLabel names the prior of a "bbb(σ)" config ("BBB, prior N(0, 100²)"), which the paper's
// row label would not tell apart from "bbb".
func priorLabel(config string) (string, bool) {
	sigma, ok := strings.CutPrefix(config, "bbb(")
	if !ok {
		return "", false
	}
	return fmt.Sprintf("BBB, prior N(0, %s²)", strings.TrimSuffix(sigma, ")")), true
}

// metricOf returns a record's test metric in the paper's units (accuracy in %, or RMSE) and
// the metric's name, or false when the record holds no result.
func metricOf(r models.Record) (float64, string, bool) {
	switch {
	case r.Result != nil:
		return 100 * r.Result.TestAcc, paper.MetricAccuracy, true
	case r.Regression != nil:
		return r.Regression.TestRMSE, paper.MetricRMSE, true
	}
	return 0, "", false
}

// Comparisons groups records by table, dataset, depth and config (in the records' order), averages
// each group's test metric over its seeds (population std), and sets the paper's number for the
// same cell beside it. A variant of a row (models.Variant: "vi:rc+reg=0.5") gets its row's paper
// number and a label that names its options ("…, variant reg=0.5").
func Comparisons(recs []models.Record) []paper.Comparison {
	cs, _ := comparisons(recs)
	return cs
}

// cellKey is a cell of a reproduced table: its table, dataset, config and depth.
type cellKey struct {
	table, dataset, config string
	layers                 int
}

// cellOf is the cell of a run.
func cellOf(s models.RunSpec) cellKey { return cellKey{s.Table, s.Dataset, s.Config, s.Layers} }

// comparisons is Comparisons with each comparison's cell.
func comparisons(recs []models.Record) ([]paper.Comparison, []cellKey) {
	var order []cellKey
	values := map[cellKey][]float64{}
	metrics := map[cellKey]string{}
	quick := map[cellKey]bool{}
	backends := map[cellKey]string{}
	for _, r := range recs {
		v, metric, ok := metricOf(r)
		if !ok {
			continue
		}
		k := cellOf(r.Spec)
		if _, seen := values[k]; !seen {
			order = append(order, k)
		}
		values[k] = append(values[k], v)
		metrics[k] = metric
		quick[k] = quick[k] || r.Spec.Quick
		backends[k] = r.Backend
	}
	out := make([]paper.Comparison, 0, len(order))
	for _, k := range order {
		mean, std := meanStd(values[k])
		c := paper.Comparison{Metric: metrics[k], OursMean: mean, OursStd: std, Seeds: len(values[k]), Quick: quick[k], Backend: backends[k]}
		var number int
		if _, err := fmt.Sscanf(k.table, "table%d", &number); err == nil {
			spec := models.RunSpec{Config: k.config}
			if e, ok := paper.Lookup(number, k.dataset, paperRow(spec.Row()), fmt.Sprintf("layers=%d", k.layers), metrics[k]); ok {
				c.Paper, c.HavePaper = e, true
				if label, ok := priorLabel(spec.Row()); ok {
					c.Config = fmt.Sprintf("%s, %d layers", label, k.layers)
				}
				if variant := strings.TrimPrefix(k.config, spec.Row()); variant != "" {
					_, label := c.Labels()
					c.Config = fmt.Sprintf("%s, variant %s", label, strings.ReplaceAll(variant[1:], "+", ", "))
				}
			}
		}
		if !c.HavePaper {
			label := k.config
			switch label {
			case "deterministic":
				label = "Deterministic (not in the paper)"
			case "deterministic(table2)":
				label = "Table 2's Deterministic model (not in the paper)"
			}
			c.Dataset, c.Config = paper.DatasetName(k.dataset), fmt.Sprintf("%s, %d layers", label, k.layers)
		}
		out = append(out, c)
	}
	return out, order
}

// PaperVsOurs renders the records' Comparisons as a Markdown table (paper.WriteMarkdown), to be
// shown with figures.ShowMarkdown.
func PaperVsOurs(title string, recs []models.Record) (string, error) {
	var b strings.Builder
	if err := paper.WriteMarkdown(&b, title, Comparisons(recs)); err != nil {
		return "", err
	}
	return b.String(), nil
}

// ComparisonPlots returns one ComparisonPlot per metric the records have paper numbers for:
// accuracy (citation graphs), then RMSE (molecules).
func ComparisonPlots(title string, recs []models.Record) ([]*plot.Plot, error) {
	var plots []*plot.Plot
	cs := Comparisons(recs)
	for _, m := range []struct{ metric, what string }{{paper.MetricAccuracy, "accuracy"}, {paper.MetricRMSE, "RMSE"}} {
		if !slices.ContainsFunc(cs, func(c paper.Comparison) bool { return c.HavePaper && c.Paper.Metric == m.metric }) {
			continue
		}
		p, err := ComparisonPlot(title+" ("+m.what+")", recs, m.metric)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	if len(plots) == 0 {
		return nil, fmt.Errorf("experiments.ComparisonPlots %q: no record has a number in the paper", title)
	}
	return plots, nil
}

// ComparisonPlot draws ours against the paper for every compared cell of one metric (accuracy
// in %, or RMSE), one point per cell with ± one std (over seeds) as error bars, and the
// diagonal ours = paper dashed: points on the diagonal match the paper. Cells without a paper
// number are left out; it is an error when none is left.
func ComparisonPlot(title string, recs []models.Record, metric string) (*plot.Plot, error) {
	var pts plotter.XYs
	var yerr plotter.YErrors
	var xerr plotter.XErrors
	for _, c := range Comparisons(recs) {
		if !c.HavePaper || c.Paper.Metric != metric || c.Seeds == 0 {
			continue
		}
		pts = append(pts, plotter.XY{X: c.Paper.Mean, Y: c.OursMean})
		yerr = append(yerr, struct{ Low, High float64 }{c.OursStd, c.OursStd})
		xerr = append(xerr, struct{ Low, High float64 }{c.Paper.Std, c.Paper.Std})
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("experiments.ComparisonPlot %q: no record has a paper number of metric %q", title, metric)
	}
	label := "test accuracy (%)"
	if metric == paper.MetricRMSE {
		label = "test RMSE"
	}
	p := figures.New(title, "paper: "+label, "ours: "+label)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, pt := range pts {
		lo = math.Min(lo, math.Min(pt.X-xerr[i].Low, pt.Y-yerr[i].Low))
		hi = math.Max(hi, math.Max(pt.X+xerr[i].High, pt.Y+yerr[i].High))
	}
	pad := math.Max(0.05*(hi-lo), 0.5)
	if metric == paper.MetricRMSE {
		pad = math.Max(0.05*(hi-lo), 0.02)
	}
	lo, hi = lo-pad, hi+pad
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Color = figures.Color(1)
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(diag)
	p.Legend.Add("ours = paper", diag)
	type errPoints struct {
		plotter.XYs
		plotter.YErrors
		plotter.XErrors
	}
	data := errPoints{pts, yerr, xerr}
	ye, err := plotter.NewYErrorBars(data)
	if err != nil {
		return nil, err
	}
	xe, err := plotter.NewXErrorBars(data)
	if err != nil {
		return nil, err
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.Color = figures.Color(0)
	sc.Shape = draw.CircleGlyph{}
	sc.Radius = vg.Points(3)
	ye.Color, xe.Color = figures.Color(0), figures.Color(0)
	p.Add(ye, xe, sc)
	p.Legend.Add("one table cell (± std)", sc)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	// Above the diagonal (ours better than the paper for accuracy) is the emptier corner.
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}
