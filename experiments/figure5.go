package experiments

import (
	"fmt"
	"math"
	"sort"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
)

// Figure5Datasets are the datasets of the paper's Figure 5.
var Figure5Datasets = []string{"cora", "citeseer"}

// figure5Labels names Figure 5's curves.
var figure5Labels = map[string]string{"dropout(0.5)": "Dropout 0.5", "normal(1,1)": "STAG N(1, 1)"}

// Figure5Records returns the records of Figure 5 (models.Figure5Specs): with the quick settings it
// trains the missing quick runs (2, 4 and 8 layers, one seed, models.QuickTrainConfig's epochs) and stores them under
// ResultsDir()/quick; in full mode it reads `stag reproduce figure5`'s records, and trains the
// missing ones only when $STAGNB_LIVE is set.
func Figure5Records(backend compute.Backend, s Settings) ([]models.Record, error) {
	cmd := "reproduce figure5"
	if s.Quick {
		cmd += " -quick"
	}
	return Records(backend, models.Figure5Specs(Figure5Datasets, s.Quick), cmd)
}

// RecordedFigure5Records returns the full-protocol records of Figure 5 that `stag reproduce
// figure5` has stored under ResultsDir, in models.Figure5Specs' order, and how many runs the
// figure has. It never trains, so a quick-mode notebook can show the full runs beside its own.
func RecordedFigure5Records() (recs []models.Record, runs int, err error) {
	specs := models.Figure5Specs(Figure5Datasets, false)
	recs, err = recordedRecordsIn("", specs)
	return recs, len(specs), err
}

// accuracyPoint is the mean and population std of the test accuracy over seeds, in %.
type accuracyPoint struct {
	mean, std float64
	seeds     int
}

// figure5Points groups the records: dataset → config → layers → accuracy over seeds.
func figure5Points(recs []models.Record) map[string]map[string]map[int]accuracyPoint {
	acc := map[string]map[string]map[int][]float64{}
	for _, r := range recs {
		d, c := r.Spec.Dataset, r.Spec.Config
		if acc[d] == nil {
			acc[d] = map[string]map[int][]float64{}
		}
		if acc[d][c] == nil {
			acc[d][c] = map[int][]float64{}
		}
		acc[d][c][r.Spec.Layers] = append(acc[d][c][r.Spec.Layers], 100*r.Result.TestAcc)
	}
	out := map[string]map[string]map[int]accuracyPoint{}
	for d, byConfig := range acc {
		out[d] = map[string]map[int]accuracyPoint{}
		for c, byDepth := range byConfig {
			out[d][c] = map[int]accuracyPoint{}
			for l, xs := range byDepth {
				m, sd := meanStd(xs)
				out[d][c][l] = accuracyPoint{m, sd, len(xs)}
			}
		}
	}
	return out
}

// meanStd is the mean and population standard deviation (ddof 0, as the paper's code).
func meanStd(xs []float64) (mean, std float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

// sortedDepths returns the depths of a config's points, increasing.
func sortedDepths(points map[int]accuracyPoint) []int {
	var ls []int
	for l := range points {
		ls = append(ls, l)
	}
	sort.Ints(ls)
	return ls
}

// Figure5Plot draws Figure 5 for one dataset: test accuracy against the number of GCN layers, one
// line per method (Dropout 0.5, STAG N(1, 1)) with a band of ± one standard deviation over seeds.
func Figure5Plot(recs []models.Record, dataset string) (*plot.Plot, error) {
	return figure5Plot(figure5Points(recs)[dataset], dataset)
}

// figure5Plot is Figure5Plot from one dataset's points: config → layers → accuracy over seeds.
func figure5Plot(points map[string]map[int]accuracyPoint, dataset string) (*plot.Plot, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("experiments.Figure5Plot: no records for %q", dataset)
	}
	var series []figures.Series
	for i, c := range models.Figure5Configs {
		byDepth := points[c]
		if len(byDepth) == 0 {
			continue
		}
		s := figures.Series{Name: figure5Labels[c], Method: i}
		for _, l := range sortedDepths(byDepth) {
			s.X = append(s.X, float64(l))
			s.Y = append(s.Y, byDepth[l].mean)
			s.Std = append(s.Std, byDepth[l].std)
		}
		series = append(series, s)
	}
	title := fmt.Sprintf("Figure 5 — %s: test accuracy against depth (mean ± std over seeds)", dataset)
	return figures.Lines(title, "GCN layers", "test accuracy (%)", series)
}

// Figure5Plots draws Figure5Plot for each of Figure5Datasets that has records, in that order: none
// for no records.
func Figure5Plots(recs []models.Record) ([]*plot.Plot, error) {
	var plots []*plot.Plot
	points := figure5Points(recs)
	for _, ds := range Figure5Datasets {
		if len(points[ds]) == 0 {
			continue
		}
		p, err := figure5Plot(points[ds], ds)
		if err != nil {
			return nil, err
		}
		plots = append(plots, p)
	}
	return plots, nil
}

// Figure5Table is the paper-vs-ours table of Figure 5: per dataset and depth, our test accuracy
// with Dropout and with STAG and their difference. The paper's figure image is not in its LaTeX
// source, so the paper column quotes the claim of its caption.
func Figure5Table(recs []models.Record) figures.Table {
	t := figures.Table{
		Title:  "Figure 5 — paper vs ours (test accuracy %, mean ± std over seeds)",
		Header: []string{"dataset", "layers", "paper (caption)", "ours: Dropout 0.5", "ours: STAG N(1, 1)", "STAG − Dropout", "seeds"},
		Right:  []bool{false, true, false, true, true, true, true},
	}
	points := figure5Points(recs)
	quick := false
	for _, d := range Figure5Datasets {
		drop, stag := points[d]["dropout(0.5)"], points[d]["normal(1,1)"]
		for i, l := range sortedDepths(drop) {
			claim := ""
			if i == 0 {
				claim = "STAG alleviates the deterioration with depth"
			}
			dp, sp := drop[l], stag[l]
			diff := "—"
			if sp.seeds > 0 {
				diff = fmt.Sprintf("%+.1f", sp.mean-dp.mean)
			}
			t.Rows = append(t.Rows, []string{d, fmt.Sprint(l), claim, pct(dp), pct(sp), diff, seedCounts(dp.seeds, sp.seeds)})
		}
	}
	for _, r := range recs {
		quick = quick || r.Spec.Quick
	}
	t.Footnotes = append(t.Footnotes, "The paper's Figure 5 is an image missing from its LaTeX source; only the caption's claim can be compared.")
	if quick {
		t.Footnotes = append(t.Footnotes, fmt.Sprintf("Ours: %s (%d epochs, one seed).", QuickNote, models.QuickTrainConfig().Epochs))
	}
	return t
}

// seedCounts is the seeds column of Figure5Table: one count when both methods have the same
// number of seeds at a depth, else "Dropout / STAG".
func seedCounts(dropout, stag int) string {
	if dropout == stag {
		return fmt.Sprint(dropout)
	}
	return fmt.Sprintf("%d / %d", dropout, stag)
}

// pct formats an accuracy point as "80.1 ± 0.4", or "—" when there is none.
func pct(p accuracyPoint) string {
	if p.seeds == 0 {
		return "—"
	}
	if p.seeds == 1 {
		return fmt.Sprintf("%.1f", p.mean)
	}
	return fmt.Sprintf("%.1f ± %.1f", p.mean, p.std)
}
