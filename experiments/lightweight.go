package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/models/paper"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// lightweightRows maps the `lightweight` bench methods to the paper's Table 3 / Table 8 rows and
// to labels.
var lightweightRows = []struct{ method, table, row, label string }{
	{"deterministic_table2", "", "", "GCN, deterministic"},
	{"stag_table2", "3", "stag_mle_best", "STAG_MLE: GCN + Normal(1, 0.8)"},
	{"stag_vi_r", "3", "stag_vi_r", "STAG_VI(R)"},
	{"stag_vi_rc", "3", "stag_vi_rc", "STAG_VI(R^C)"},
	{"stag_vi_re", "3", "stag_vi_re", "STAG_VI(R^|E|)"},
	{"stag_vi_rec", "3", "stag_vi_rec", "STAG_VI(R^|E|×C)"},
	{"bbgdc", "3", "bbgdc", "BBGDC"},
	{"bbb", "8", "bbb", "Bayes-by-Backprop"},
}

// Lightweight is the measurement behind the paper's "STAG is lightweight" section: for each
// model of its Table 3 (and Table 8's BBB) on Cora, the parameter count and the median time of a
// full-batch training step on the session's backend.
type Lightweight struct {
	// Results are models.Bench's measurements, in the order of the paper's table.
	Results []models.BenchResult
	// Quick reports whether the quick settings (few timed steps) were used.
	Quick bool
	// Recorded names the results file the measurements were read from (RecordedLightweight),
	// "" when they were just made.
	Recorded string
}

// lightweightRow is the index in lightweightRows of a bench method, or -1.
func lightweightRow(method string) int {
	for i, r := range lightweightRows {
		if r.method == method {
			return i
		}
	}
	return -1
}

// RecordedLightweight reads the lightweight models' measurements from a recorded `stag bench`
// run: file is its JSON lines, relative to ResultsDir (e.g. "bench/gpu-h100-xla-all.jsonl"). The
// models are put in the paper's order; those the file lacks are left out, and the peer's lines
// are skipped. It measures nothing, so a notebook can show a GPU's numbers on any machine. Where
// the file does not exist (a results folder without it), the Lightweight has no results and its
// table says so, as RecordedPaperVsOurs says "None yet".
func RecordedLightweight(file string) (*Lightweight, error) {
	dir, err := ResultsDir()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, file))
	if errors.Is(err, fs.ErrNotExist) {
		return &Lightweight{Recorded: file}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("experiments.RecordedLightweight: %w", err)
	}
	found := make([]*models.BenchResult, len(lightweightRows))
	for n, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		var r struct {
			models.BenchResult
			Impl string `json:"impl"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("experiments.RecordedLightweight: %s:%d: %w", file, n+1, err)
		}
		if i := lightweightRow(r.Method); i >= 0 && r.Impl == "" && found[i] == nil {
			found[i] = &r.BenchResult
		}
	}
	lw := &Lightweight{Recorded: file}
	for _, r := range found {
		if r != nil {
			lw.Results = append(lw.Results, *r)
		}
	}
	if len(lw.Results) == 0 {
		return nil, fmt.Errorf("experiments.RecordedLightweight: %s has none of the lightweight models", file)
	}
	return lw, nil
}

// MeasureLightweight times every model of the `lightweight` bench suite on Cora (the same as
// `stag bench -methods lightweight`, in this process): 3 timed steps after 1 warm-up step with the
// quick settings, 20 after 3 otherwise.
func MeasureLightweight(backend compute.Backend, s Settings) (*Lightweight, error) {
	p, err := datasets.LoadPlanetoid(datasets.NewResolver(), "cora")
	if err != nil {
		return nil, err
	}
	task, err := models.NewNodeTask(p, false, stagnb.NormBoth)
	if err != nil {
		return nil, err
	}
	warmup, steps := 3, 20
	if s.Quick {
		warmup, steps = 1, 3
	}
	lw := &Lightweight{Quick: s.Quick}
	for _, row := range lightweightRows {
		var method *models.BenchMethod
		for i := range models.BenchMethods {
			if models.BenchMethods[i].Name == row.method {
				method = &models.BenchMethods[i]
			}
		}
		if method == nil {
			return nil, fmt.Errorf("experiments.MeasureLightweight: no bench method %q", row.method)
		}
		res, err := models.Bench(backend, task, *method, 2, 128, warmup, steps, s.Seed)
		if err != nil {
			return nil, err
		}
		lw.Results = append(lw.Results, res)
	}
	return lw, nil
}

// paperEntry returns the paper's number of a lightweight row for a metric, if it prints one.
func paperEntry(i int, metric string) (paper.Entry, bool) {
	r := lightweightRows[i]
	switch r.table {
	case "3":
		return paper.Lookup(3, "cora", r.row, "layers=2", metric)
	case "8":
		return paper.Lookup(8, "cora", r.row, "layers=2", metric)
	}
	return paper.Entry{}, false
}

// Table is the paper-vs-ours table: parameters and iteration time per model, ours on this
// backend beside the paper's (V100 GPU), and each model's time relative to the deterministic GCN.
func (lw *Lightweight) Table() figures.Table {
	t := figures.Table{
		Title: "STAG is lightweight — paper vs ours (Cora, 2-layer GCN-128, one full-batch training step)",
		Header: []string{"model", "paper: #params", "ours: #params", "paper: iter. time (V100)", "ours: ms per step",
			"ours: × deterministic"},
		Right: []bool{false, true, true, true, true, true},
	}
	base := math.NaN()
	for _, r := range lw.Results {
		if r.Method == "deterministic_table2" {
			base = r.MSPerStep
		}
	}
	for _, r := range lw.Results {
		i := lightweightRow(r.Method)
		if i < 0 {
			continue
		}
		pp, ptime := "—", "—"
		if e, ok := paperEntry(i, paper.MetricParams); ok {
			pp = e.Format()
		}
		if e, ok := paperEntry(i, paper.MetricIterTime); ok {
			ptime = e.Format()
		}
		t.Rows = append(t.Rows, []string{lightweightRows[i].label, pp, fmt.Sprintf("%d", r.Params), ptime,
			formatMS(r.MSPerStep), fmt.Sprintf("%.2f", r.MSPerStep/base)})
	}
	if len(lw.Results) == 0 && lw.Recorded != "" {
		t.Footnotes = append(t.Footnotes, fmt.Sprintf("None recorded: results/%s is missing (`stag bench -methods lightweight -out FILE` records it).", lw.Recorded))
	}
	if len(lw.Results) > 0 {
		r := lw.Results[0]
		t.Footnotes = append(t.Footnotes, fmt.Sprintf("Ours: backend %s, device %s, GOMAXPROCS %d; median of %d steps. The paper's times are on a Tesla V100 GPU; compare the ratios, not the milliseconds.",
			r.Backend, r.Device, r.GoMaxProcs, r.Steps))
		if lw.Recorded != "" {
			t.Footnotes = append(t.Footnotes, fmt.Sprintf("Recorded in results/%s by `%s` at commit %.7s, %s.", lw.Recorded, r.Command, r.Commit, r.Time))
		}
	}
	t.Footnotes = append(t.Footnotes, "The paper: STAG adds 5.9 to 9.3 ms per iteration to the two-layer GCN on a V100 (section \"STAG is Lightweight\"). Its BBGDC count (475k) matches no Cora model; it is close to a 2-layer GCN-128 on Citeseer (474,886 parameters). Ours is the Cora GCN plus two Kumaraswamy parameters per layer.")
	if lw.Quick {
		t.Footnotes = append(t.Footnotes, "Quick settings: 3 timed steps per model.")
	}
	return t
}

// formatMS prints milliseconds per step: whole milliseconds from 10 ms up (a CPU's), two decimals
// below (a GPU's).
func formatMS(ms float64) string {
	if ms >= 10 {
		return fmt.Sprintf("%.0f", ms)
	}
	return fmt.Sprintf("%.2f", ms)
}

// Plot draws each model as a point: parameters (x, log scale) against milliseconds per training
// step (y, log scale), labelled with its name.
func (lw *Lightweight) Plot() (*plot.Plot, error) {
	if len(lw.Results) == 0 {
		return nil, fmt.Errorf("experiments.Lightweight.Plot: no results")
	}
	p := figures.New("Cost of each model: parameters against time per training step", "trainable parameters", "ms per training step")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	xys := make(plotter.XYs, len(lw.Results))
	labels := make([]string, len(lw.Results))
	for i, r := range lw.Results {
		if r.Params <= 0 || r.MSPerStep <= 0 {
			return nil, fmt.Errorf("experiments.Lightweight.Plot: %s has %d parameters and %g ms", r.Method, r.Params, r.MSPerStep)
		}
		xys[i] = plotter.XY{X: float64(r.Params), Y: r.MSPerStep}
		labels[i] = r.Method
		if row := lightweightRow(r.Method); row >= 0 {
			labels[i] = lightweightRows[row].label
		}
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color = figures.Color(0)
	sc.GlyphStyle.Radius = vg.Points(3)
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(8)
		l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
	}
	p.Add(sc, l)
	return p, nil
}
