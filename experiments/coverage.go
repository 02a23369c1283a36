package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// Coverage tabulates how much of each paper table's full-protocol grid (PaperTables, then Figure
// 5's) is recorded under the results directory dir, and under each GPU's folder in it (results/h100,
// results/h200, …, whose records are kept apart from the CPU's): its runs, its cells (a row on one
// dataset at one depth) with at least one run and with all their seeds, and how many of the cells
// with a Δ/σ lie within one and two σ of the paper (Agreement's counts). A GPU folder gets a row
// only for the tables it has records of. It reads the records and trains nothing; `stag reproduce
// coverage` prints it.
func Coverage(dir string) (figures.Table, error) {
	t := figures.Table{
		Title:  "Recorded full-protocol runs",
		Header: []string{"item", "what", "records", "runs", "cells with runs", "complete cells", "Δ/σ ≤ 1", "Δ/σ ≤ 2"},
		Right:  []bool{false, false, false, true, true, true, true, true},
	}
	folders, err := deviceFolders(dir)
	if err != nil {
		return t, err
	}
	folders = append([]string{""}, folders...)
	type item struct {
		label, subject string
		specs          []models.RunSpec
	}
	var items []item
	for _, pt := range PaperTables {
		specs, _ := pt.Specs(FullSettings())
		items = append(items, item{fmt.Sprintf("Table %d", pt.Number), pt.Subject, specs})
	}
	items = append(items, item{"Figure 5", "accuracy against depth", models.Figure5Specs([]string{"cora", "citeseer"}, false)})
	for _, it := range items {
		seeds := map[cellKey]int{}
		for _, s := range it.specs {
			seeds[cellOf(s)]++
		}
		for _, sub := range folders {
			recs, err := recordsUnder(filepath.Join(dir, sub), it.specs)
			if err != nil {
				return t, err
			}
			if sub != "" && len(recs) == 0 {
				continue
			}
			recorded := map[cellKey]int{}
			for _, r := range recs {
				recorded[cellOf(r.Spec)]++
			}
			complete := 0
			for c, n := range recorded {
				if n == seeds[c] {
					complete++
				}
			}
			within1, within2 := "—", "—"
			if a := agreementOf(recs); a.cells > 0 {
				within1, within2 = fmt.Sprintf("%d of %d", a.within1, a.cells), fmt.Sprintf("%d of %d", a.within2, a.cells)
			}
			t.Rows = append(t.Rows, []string{it.label, it.subject, filepath.ToSlash(filepath.Join(filepath.Base(dir), sub)) + "/",
				fmt.Sprintf("%d of %d", len(recs), len(it.specs)), fmt.Sprintf("%d of %d", len(recorded), len(seeds)),
				fmt.Sprint(complete), within1, within2})
		}
	}
	t.Footnotes = append(t.Footnotes, "A cell is one row of a table on one dataset at one depth (its seeds are its runs); "+
		"Δ/σ counts only the cells with the paper's number and spread. The top folder holds the CPU's records, each GPU's "+
		"are in a folder of their own; `stag reproduce table2 -datasets cora,citeseer,esol,freesolv -out results/h200 -dry-run` "+
		"lists the runs and cells of one table and folder.")
	return t, nil
}

// RecordedCoverage is Coverage of ResultsDir, the records the notebooks read.
func RecordedCoverage() (figures.Table, error) {
	dir, err := ResultsDir()
	if err != nil {
		return figures.Table{}, err
	}
	return Coverage(dir)
}

// deviceFolders lists, sorted, the folders right under dir that hold a paper table's records
// (a GPU's, e.g. "h200"); quick/, which holds quick runs, is not one.
func deviceFolders(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("experiments.Coverage: %w", err)
	}
	items := append(tableNames(), "figure5")
	var names []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "quick" {
			continue
		}
		for _, item := range items {
			if st, err := os.Stat(filepath.Join(dir, e.Name(), item)); err == nil && st.IsDir() {
				names = append(names, e.Name())
				break
			}
		}
	}
	slices.Sort(names)
	return names, nil
}

// tableNames are the reproduce names of PaperTables.
func tableNames() []string {
	names := make([]string, len(PaperTables))
	for i, t := range PaperTables {
		names[i] = t.Name
	}
	return names
}
