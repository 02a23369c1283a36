package experiments

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/models/paper"
	"github.com/stagnb/stagnb/progress"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
)

// VITrained is a STAG-VI model trained on Cora, with the variational posterior it learned.
type VITrained struct {
	// Spec is the Table 3 run it repeats (same model and protocol as `stag reproduce table3`).
	Spec models.RunSpec
	// Result is its training result.
	Result *models.NodeResult
	// Noise is the learned q = Normal(μ, σ) per layer.
	Noise []models.LearnedNoise
}

// TrainVI trains Table 3's STAG-VI model with posterior config ("vi:r", "vi:rc", "vi:re" or
// "vi:rec") on dataset (cora or citeseer) with the settings' protocol (quick: 100 epochs), and
// reads the posterior it learned. It trains every time (a few dozen seconds quick on a CPU):
// records keep results, not weights. Its progress bar goes to os.Stdout (the notebook).
func TrainVI(backend compute.Backend, s Settings, dataset, config string) (*VITrained, error) {
	return trainVI(backend, s, dataset, config, os.Stdout)
}

// trainVI is TrainVI with its progress bar written to progressOut.
func trainVI(backend compute.Backend, s Settings, dataset, config string, progressOut io.Writer) (*VITrained, error) {
	spec := models.RunSpec{Table: "table3", Dataset: dataset, Config: config, Layers: 2, Seed: 1, Quick: s.Quick}
	m, err := models.ModelFor(spec)
	if err != nil {
		return nil, err
	}
	vi, ok := m.(*models.VIGCN)
	if !ok {
		return nil, fmt.Errorf("experiments.TrainVI: config %q is not a STAG-VI model (want vi:r, vi:rc, vi:re or vi:rec)", config)
	}
	p, err := datasets.LoadPlanetoid(datasets.NewResolver(), dataset)
	if err != nil {
		return nil, err
	}
	task, err := models.NewNodeTask(p, false, stagnb.NormBoth)
	if err != nil {
		return nil, err
	}
	cfg := models.ProtocolFor(spec)
	bar := progress.New(progressOut, fmt.Sprintf("%s %s", dataset, config), cfg.Epochs)
	cfg.Progress = func(p models.Progress) { bar.Update(p.Epoch, p.Status()) }
	out := &VITrained{Spec: spec}
	cfg.Inspect = func(store *model.Store) error {
		out.Noise, err = vi.LearnedNoise(backend, store, task)
		return err
	}
	if out.Result, err = models.TrainNodeClassifier(backend, task, vi, cfg); err != nil {
		bar.Fail(err)
		return nil, err
	}
	bar.Done(fmt.Sprintf("test %.1f %%", 100*out.Result.TestAcc))
	return out, nil
}

// LearnedNoisePlot draws histograms of the learned μ (param "mu") or σ ("sigma") of every layer
// of a trained STAG-VI model, one histogram per layer, over the positions its posterior has.
func LearnedNoisePlot(t *VITrained, param string) (*plot.Plot, error) {
	var sets []figures.Samples
	for _, n := range t.Noise {
		vals := n.Mu
		if param == "sigma" {
			vals = n.Sigma
		} else if param != "mu" {
			return nil, fmt.Errorf("experiments.LearnedNoisePlot: param %q, want mu or sigma", param)
		}
		v := make([]float64, len(vals))
		for i, x := range vals {
			v[i] = float64(x)
		}
		sets = append(sets, figures.Samples{Name: fmt.Sprintf("layer %d: %d values, one per %s", n.Layer, len(v), n.Positions), Method: n.Layer, Values: v})
	}
	symbol := map[string]string{"mu": "μ", "sigma": "σ"}[param]
	title := fmt.Sprintf("STAG-VI(%s) on %s: learned %s of q(z)", strings.TrimPrefix(t.Spec.Config, "vi:"), t.Spec.Dataset, symbol)
	return figures.Histograms(title, "learned "+symbol, sets, 40)
}

// LearnedNoiseTable summarises the learned posterior per layer: its positions and the mean,
// spread and range of μ and σ.
func LearnedNoiseTable(t *VITrained) figures.Table {
	tab := figures.Table{
		Title:  fmt.Sprintf("STAG-VI(%s) on %s: learned q(z) = Normal(μ, σ) per layer (test accuracy %.1f %%)", strings.TrimPrefix(t.Spec.Config, "vi:"), t.Spec.Dataset, 100*t.Result.TestAcc),
		Header: []string{"layer", "one value per", "values", "μ mean ± std", "μ min … max", "σ mean ± std", "σ min … max"},
		Right:  []bool{true, false, true, true, true, true, true},
	}
	stats := func(xs []float32) (string, string) {
		v := make([]float64, len(xs))
		lo, hi := float64(xs[0]), float64(xs[0])
		for i, x := range xs {
			v[i] = float64(x)
			lo, hi = min(lo, v[i]), max(hi, v[i])
		}
		m, sd := meanStd(v)
		return fmt.Sprintf("%.3f ± %.3f", m, sd), fmt.Sprintf("%.3f … %.3f", lo, hi)
	}
	for _, n := range t.Noise {
		mu, muR := stats(n.Mu)
		sg, sgR := stats(n.Sigma)
		tab.Rows = append(tab.Rows, []string{fmt.Sprint(n.Layer), n.Positions, fmt.Sprint(len(n.Mu)), mu, muR, sg, sgR})
	}
	if t.Spec.Quick {
		tab.Footnotes = append(tab.Footnotes, "Trained with the "+QuickNote+".")
	}
	return tab
}

// Table9 shows the paper's Table 9 (the VI hyperparameters μ0, log σ0, σ_prior per dataset and
// posterior) beside the values models.VIHyperparameters gives the models, which should be equal.
func Table9() (figures.Table, error) {
	t := figures.Table{
		Title:  "Table 9 — VI hyperparameters: paper vs ours (models.VIHyperparameters)",
		Header: []string{"dataset", "posterior", "paper μ0", "ours μ0", "paper log σ0", "ours log σ0", "paper σ_prior", "ours σ_prior"},
		Right:  []bool{false, false, true, true, true, true, true, true},
	}
	for _, d := range []string{"cora", "citeseer", "esol", "freesolv"} {
		for _, name := range []string{"r", "rc", "re", "rec"} {
			post, err := models.ParsePosterior(name)
			if err != nil {
				return t, err
			}
			ours, err := models.VIHyperparameters(d, post)
			if err != nil {
				return t, err
			}
			row := []string{d, "STAG_VI(" + name + ")"}
			for _, c := range []struct {
				metric string
				v      float64
			}{{paper.MetricMu0, ours.Mu0}, {paper.MetricLogSigma0, ours.LogSigma0}, {paper.MetricSigmaPrior, ours.SigmaPrior}} {
				e, ok := paper.Lookup(9, d, "stag_vi_"+name, "layers=2", c.metric)
				if !ok {
					return t, fmt.Errorf("experiments.Table9: the paper's Table 9 has no %s for %s, %s", c.metric, d, name)
				}
				row = append(row, e.Format(), paper.FormatValue(c.metric, c.v))
			}
			t.Rows = append(t.Rows, row)
		}
	}
	return t, nil
}
