package experiments

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// jumpCount is how many of a group's recorded seeds show a loss jump (LossJumps).
type jumpCount struct {
	Seeds, Jumped int
	// First are the epochs of each jumped seed's first jump, in the order of the records.
	First []int
}

// firstJump is the first evaluation epoch after `after` whose training loss exceeds above, and
// whether there is one.
func firstJump(evals []models.Evaluation, above float64, after int) (int, bool) {
	for _, e := range evals {
		if e.Epoch > after && e.Loss > above {
			return e.Epoch, true
		}
	}
	return 0, false
}

// LossJumps tabulates the loss jumps in a paper table's node-classification records under the
// results directory dir and under each GPU's folder in it: a seed jumps when its training loss at
// an evaluation (the records' `evaluations`) exceeds above after epoch after. A row is one folder,
// dataset and depth, with its seeds, the seeds that jump and the range of their first jumps'
// epochs; byRow splits each into the table's rows (configurations). It reads the records and
// trains nothing; `stag reproduce jumps` prints it.
func LossJumps(dir, table string, above float64, after int, byRow bool) (figures.Table, error) {
	pt, err := PaperTableByName(table)
	if err != nil {
		return figures.Table{}, err
	}
	t := figures.Table{
		Title:  fmt.Sprintf("Training-loss jumps in %s's records (loss above %g after epoch %d)", table, above, after),
		Header: []string{"records", "dataset", "layers", "row", "seeds", "seeds that jump", "first jump (epochs)"},
		Right:  []bool{false, false, true, false, true, true, true},
	}
	specs, _ := pt.Specs(FullSettings())
	folders, err := deviceFolders(dir)
	if err != nil {
		return t, err
	}
	type group struct {
		dataset, config string
		layers          int
	}
	for _, sub := range append([]string{""}, folders...) {
		recs, err := recordsUnder(filepath.Join(dir, sub), specs)
		if err != nil {
			return t, err
		}
		counts := map[group]*jumpCount{}
		var order []group
		for _, r := range recs {
			if r.Result == nil {
				continue
			}
			g := group{dataset: r.Spec.Dataset, layers: r.Spec.Layers}
			if byRow {
				g.config = r.Spec.Config
			}
			c := counts[g]
			if c == nil {
				c = &jumpCount{}
				counts[g] = c
				order = append(order, g)
			}
			c.Seeds++
			if e, ok := firstJump(r.Result.Evaluations, above, after); ok {
				c.Jumped++
				c.First = append(c.First, e)
			}
		}
		for _, g := range order {
			c := counts[g]
			first := "—"
			switch {
			case len(c.First) == 0:
			case slices.Min(c.First) == slices.Max(c.First):
				first = fmt.Sprint(c.First[0])
			default:
				first = fmt.Sprintf("%d–%d", slices.Min(c.First), slices.Max(c.First))
			}
			row := "all"
			if byRow {
				row = g.config
			}
			t.Rows = append(t.Rows, []string{filepath.ToSlash(filepath.Join(filepath.Base(dir), sub)) + "/", g.dataset,
				fmt.Sprint(g.layers), row, fmt.Sprint(c.Seeds), fmt.Sprint(c.Jumped), first})
		}
	}
	t.Footnotes = append(t.Footnotes, "A seed jumps when the training loss at one of its evaluations (the records' `evaluations`) "+
		"exceeds the threshold after the given epoch; the first jump's epoch is its first such evaluation.")
	return t, nil
}
