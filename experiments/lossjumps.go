package experiments

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// seedJumps is a seed's training-loss jumps (LossJumps). A jump is an evaluation after the given
// epoch whose loss exceeds the threshold where the evaluation before it did not: a loss that
// never falls to the threshold does not jump. At are the jumps' evaluations, Before the
// evaluation before the first, and Peak the highest loss from a jump until the loss falls to the
// threshold again.
type seedJumps struct {
	At     []models.Evaluation
	Before models.Evaluation
	Peak   float64
}

// findJumps is the jumps of a seed's evaluations (see seedJumps); ok is false when there are none.
func findJumps(evals []models.Evaluation, above float64, after int) (j seedJumps, ok bool) {
	inside := false
	for i, e := range evals {
		switch {
		case e.Loss <= above:
			inside = false
		case inside:
			j.Peak = max(j.Peak, e.Loss)
		case i > 0 && e.Epoch > after && evals[i-1].Loss <= above:
			if !ok {
				j.Before, ok = evals[i-1], true
			}
			j.At = append(j.At, e)
			j.Peak = max(j.Peak, e.Loss)
			inside = true
		}
	}
	return j, ok
}

// eachNodeRecord calls fn with each node-classification record of the paper table named table,
// under the results directory dir and then under each GPU's folder in it, and the folder's label
// ("results/", "results/h200/", …). It fails for a table of graph regression only, whose records
// keep no evaluations to find jumps in.
func eachNodeRecord(dir, table string, fn func(folder string, r models.Record)) error {
	pt, err := PaperTableByName(table)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(pt.Datasets, func(d string) bool { return !models.IsMoleculeDataset(d) }) {
		return fmt.Errorf("experiments: %s holds graph regression only (%s), whose records keep no per-evaluation training loss to find jumps in",
			table, strings.Join(pt.Datasets, ", "))
	}
	specs, _ := pt.Specs(FullSettings())
	folders, err := deviceFolders(dir)
	if err != nil {
		return err
	}
	for _, sub := range append([]string{""}, folders...) {
		recs, err := recordsUnder(filepath.Join(dir, sub), specs)
		if err != nil {
			return err
		}
		folder := filepath.ToSlash(filepath.Join(filepath.Base(dir), sub)) + "/"
		for _, r := range recs {
			if r.Result != nil {
				fn(folder, r)
			}
		}
	}
	return nil
}

// jumpFootnote says what a jump is, under LossJumps' tables.
const jumpFootnote = "A seed jumps when the training loss at one of its evaluations (the records' `evaluations`) after the " +
	"given epoch exceeds the threshold where the evaluation before it did not; a loss that never falls to the threshold " +
	"does not jump."

// LossJumps tabulates the loss jumps in a paper table's node-classification records under the
// results directory dir and under each GPU's folder in it: a seed jumps when its training loss at
// an evaluation (the records' `evaluations`) after epoch after exceeds above where the evaluation
// before it did not. A row is one folder, dataset and depth, with its seeds, the seeds that jump
// and the range of their first jumps' epochs; byRow splits each into the table's rows
// (configurations). It reads the records and trains nothing; `stag reproduce jumps` prints it.
func LossJumps(dir, table string, above float64, after int, byRow bool) (figures.Table, error) {
	t := figures.Table{
		Title:  fmt.Sprintf("Training-loss jumps in %s's records (loss above %g after epoch %d)", table, above, after),
		Header: []string{"records", "dataset", "layers", "row", "seeds", "seeds that jump", "first jump (epochs)"},
		Right:  []bool{false, false, true, false, true, true, true},
	}
	type group struct {
		folder, dataset, config string
		layers                  int
	}
	type count struct {
		seeds int
		first []int // the epoch of each jumping seed's first jump
	}
	counts := map[group]*count{}
	var order []group
	err := eachNodeRecord(dir, table, func(folder string, r models.Record) {
		g := group{folder: folder, dataset: r.Spec.Dataset, layers: r.Spec.Layers, config: "all"}
		if byRow {
			g.config = r.Spec.Config
		}
		c := counts[g]
		if c == nil {
			c = &count{}
			counts[g] = c
			order = append(order, g)
		}
		c.seeds++
		if j, ok := findJumps(r.Result.Evaluations, above, after); ok {
			c.first = append(c.first, j.At[0].Epoch)
		}
	})
	if err != nil {
		return t, err
	}
	for _, g := range order {
		c := counts[g]
		first := "—"
		switch {
		case len(c.first) == 0:
		case slices.Min(c.first) == slices.Max(c.first):
			first = fmt.Sprint(c.first[0])
		default:
			first = fmt.Sprintf("%d–%d", slices.Min(c.first), slices.Max(c.first))
		}
		t.Rows = append(t.Rows, []string{g.folder, g.dataset, fmt.Sprint(g.layers), g.config, fmt.Sprint(c.seeds),
			fmt.Sprint(len(c.first)), first})
	}
	t.Footnotes = append(t.Footnotes, jumpFootnote+" The first jump's epoch is a seed's first such evaluation.")
	return t, nil
}

// LossJumpsBySeed is LossJumps with one line per record: the seed, the epoch its model comes from
// and the training loss there, the epoch and training loss of each of its jumps, the training
// loss and the validation accuracy at the evaluation before its first jump and at it, the highest
// loss in its jumps and the lowest at any evaluation. It reads the records and trains nothing;
// `stag reproduce jumps -seeds` prints it.
func LossJumpsBySeed(dir, table string, above float64, after int) (figures.Table, error) {
	t := figures.Table{
		Title: fmt.Sprintf("Training-loss jumps in %s's records, by seed (loss above %g after epoch %d)", table, above, after),
		Header: []string{"records", "dataset", "layers", "row", "seed", "model from (epoch)", "loss there", "jumps (epoch: loss)",
			"first jump: loss (before → at)", "first jump: validation % (before → at)", "highest loss in a jump", "lowest loss"},
		Right: []bool{false, false, true, false, true, true, true, true, true, true, true, true},
	}
	loss := func(l float64) string { return fmt.Sprintf("%.3g", l) }
	err := eachNodeRecord(dir, table, func(folder string, r models.Record) {
		evals := r.Result.Evaluations
		atModel, lowest := "—", "—"
		if i := slices.IndexFunc(evals, func(e models.Evaluation) bool { return e.Epoch == r.Result.BestEpoch }); i >= 0 {
			atModel = loss(evals[i].Loss)
		}
		if len(evals) > 0 {
			lowest = loss(slices.MinFunc(evals, func(a, b models.Evaluation) int { return cmp.Compare(a.Loss, b.Loss) }).Loss)
		}
		row := []string{folder, r.Spec.Dataset, fmt.Sprint(r.Spec.Layers), r.Spec.Config, fmt.Sprint(r.Spec.Seed),
			fmt.Sprint(r.Result.BestEpoch), atModel}
		j, ok := findJumps(evals, above, after)
		if !ok {
			t.Rows = append(t.Rows, append(row, "—", "—", "—", "—", lowest))
			return
		}
		at := make([]string, len(j.At))
		for i, e := range j.At {
			at[i] = fmt.Sprintf("%d: %s", e.Epoch, loss(e.Loss))
		}
		first := j.At[0]
		t.Rows = append(t.Rows, append(row, strings.Join(at, ", "), loss(j.Before.Loss)+" → "+loss(first.Loss),
			fmt.Sprintf("%.1f → %.1f", 100*j.Before.ValAcc, 100*first.ValAcc), loss(j.Peak), lowest))
	})
	if err != nil {
		return t, err
	}
	t.Footnotes = append(t.Footnotes, jumpFootnote+" \"model from\" is the epoch whose model the record's test accuracy "+
		"comes from (its `best_epoch`), \"loss there\" the training loss at that evaluation; \"before\" is the evaluation "+
		"before a seed's first jump and \"at\" the first jump's; \"highest loss in a jump\" is the highest from a jump until "+
		"the loss falls to the threshold again, \"lowest loss\" the lowest at any of the seed's evaluations.")
	return t, nil
}
