package experiments

import (
	"fmt"
	"io"
	"strings"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
)

// Output is one table or one plot of a paper item, as `stag reproduce <item>` writes it: a table
// is printed as Markdown, a plot is saved as <Name>.svg. Exactly one of Table and Plot is set.
type Output struct {
	// Name identifies the output within its item, e.g. "figure4-energy"; it names the plot's file.
	Name  string
	Table *figures.Table
	Plot  *plot.Plot
}

// AnalysisItems are the paper items computed live from the library, with no training records:
// the tables and plots of notebooks 01–04 and the live parts of notebook 07, in the notebooks'
// order.
var AnalysisItems = []string{"table1", "figure2", "theorem1", "figure3", "figure4", "theorem2", "table9", "learned-noise"}

// Analysis computes the tables and plots that the notebooks show for one of AnalysisItems, with
// the settings s (QuickSettings or FullSettings), by the same calls as the notebook cells:
//
//   - table1 (notebook 01): the deterministic aggregators and the closed form, the Monte-Carlo
//     estimate, the histograms of pairs 1 and 3, paper vs ours;
//   - figure2 (notebook 02): the graph's adjacency, one picture per method, the sharing table;
//   - theorem1 (notebook 03): the MGF plots of pairs 1 and 2 and their Monte-Carlo table;
//   - figure3 (notebook 03): the collision table, then trains the multiset classifier and
//     gives its accuracy curves, table and paper-vs-ours table;
//   - figure4 (notebook 04): the setup table, the energy and normalised-energy plots, paper vs
//     ours (which compares the curves of theorem2 too; the setup and each set of curves are made once);
//   - theorem2 (notebook 04): the energy plot of the noises with E z = 1 and its Monte-Carlo table;
//   - table9 (notebook 07): the STAG-VI hyperparameters, the paper's beside the models';
//   - learned-noise (notebook 07): trains STAG-VI(ℝ^C) on Cora (TrainVI) and gives the table and
//     the histograms of the μ and σ it learned.
//
// Training progress (Figure 3 trains without a bar) goes to progress.
func Analysis(backend compute.Backend, item string, s Settings, progress io.Writer) ([]Output, error) {
	var outs []Output
	table := func(name string, t figures.Table) { outs = append(outs, Output{Name: name, Table: &t}) }
	plotOf := func(name string, p *plot.Plot, err error) error {
		if err == nil {
			outs = append(outs, Output{Name: name, Plot: p})
		}
		return err
	}
	err := func() error {
		switch item {
		case "table1":
			table("table1-aggregators", Table1AggregatorTable(Table1Exact()))
			rows, err := Table1(backend, s.Table1Samples, s.Seed)
			if err != nil {
				return err
			}
			table("table1-monte-carlo", Table1MonteCarloTable(rows))
			for _, pair := range []int{1, 3} {
				p, err := Table1SumHistogram(backend, pair, s.HistogramSamples, s.HistogramBins, s.Seed)
				if err := plotOf(fmt.Sprintf("table1-histogram-pair%d", pair), p, err); err != nil {
					return err
				}
			}
			table("table1-paper-vs-ours", Table1PaperVsOurs(Table1Exact()))
		case "figure2":
			p, err := Figure2Adjacency()
			if err := plotOf("figure2-adjacency", p, err); err != nil {
				return err
			}
			for _, m := range Figure2Methods() {
				p, err := Figure2Picture(backend, m.Name, s.Seed)
				if err := plotOf("figure2-"+Slug(m.Name), p, err); err != nil {
					return err
				}
			}
			t, err := Figure2SharingTable(backend, s.Seed)
			if err != nil {
				return err
			}
			table("figure2-sharing", t)
		case "theorem1":
			for _, pair := range []int{1, 2} {
				p, err := Theorem1MGFPlot(pair, 3, 121)
				if err := plotOf(fmt.Sprintf("theorem1-mgf-pair%d", pair), p, err); err != nil {
					return err
				}
			}
			rows, err := Theorem1(backend, s.Table1Samples, s.Seed)
			if err != nil {
				return err
			}
			table("theorem1-monte-carlo", Theorem1Table(rows))
		case "figure3":
			cols, err := Figure3Collisions(datasets.ToyElements, datasets.ToyMaxMultiplicity)
			if err != nil {
				return err
			}
			table("figure3-collisions", Figure3CollisionTable(cols))
			res, err := Figure3(backend, Figure3Settings(s))
			if err != nil {
				return err
			}
			p, err := Figure3Plot(res)
			if err := plotOf("figure3-accuracy", p, err); err != nil {
				return err
			}
			table("figure3-accuracy-table", Figure3Table(res))
			table("figure3-paper-vs-ours", ExpressivenessPaperVsOurs(res))
		case "figure4":
			setup, err := Figure4Setting(s)
			if err != nil {
				return err
			}
			table("figure4-setup", Figure4SetupTable(setup))
			fig4, err := figure4Curves(backend, setup)
			if err != nil {
				return err
			}
			thm2, err := theorem2Curves(backend, setup)
			if err != nil {
				return err
			}
			p, err := figure4Plot(fig4)
			if err := plotOf("figure4-energy", p, err); err != nil {
				return err
			}
			p, err = figure4QuotientPlot(fig4)
			if err := plotOf("figure4-normalised", p, err); err != nil {
				return err
			}
			table("figure4-paper-vs-ours", figure4Table(fig4, thm2, s))
		case "theorem2":
			p, err := Theorem2Plot(backend, s)
			if err := plotOf("theorem2-energy", p, err); err != nil {
				return err
			}
			rows, err := Theorem2Rows(backend, s)
			if err != nil {
				return err
			}
			table("theorem2-monte-carlo", Theorem2Table(rows))
		case "table9":
			t, err := Table9()
			if err != nil {
				return err
			}
			table("table9", t)
		case "learned-noise":
			vi, err := trainVI(backend, s, "cora", "vi:rc", progress)
			if err != nil {
				return err
			}
			table("learned-noise", LearnedNoiseTable(vi))
			for _, param := range []string{"mu", "sigma"} {
				p, err := LearnedNoisePlot(vi, param)
				if err := plotOf("learned-noise-"+param, p, err); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("unknown item %q (want one of %s)", item, strings.Join(AnalysisItems, ", "))
		}
		return nil
	}()
	if err != nil {
		return nil, fmt.Errorf("experiments.Analysis %s: %w", item, err)
	}
	return outs, nil
}

// Slug turns a name into a file-name part: lower-case letters and digits, other runs as one "-"
// ("FastGCN (node sampling)" → "fastgcn-node-sampling").
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}
