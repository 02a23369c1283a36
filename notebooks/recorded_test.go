package notebooks_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// shown is one output of a notebook cell as the checks compare it: a stream's text ("stdout"),
// a table or Markdown text ("text/markdown") or a plot ("image/svg+xml").
type shown struct {
	kind, text string
}

// recordedCell is a committed notebook cell that shows recorded full-protocol runs (the records
// under results/, which sessions add to), with the outputs the library makes of those records now.
type recordedCell struct {
	notebook, cell string
	want           func() ([]shown, error)
}

// recordedCells lists every cell whose source calls an experiments.Recorded… function, in
// notebook order. TestRecordedCellsAreListed keeps the list complete.
var recordedCells = []recordedCell{
	{"00-start.ipynb", "start-recorded", markdowns(tableMarkdown(experiments.RecordedCoverage))},
	{"05-depth.ipynb", "2612ae66", figure5Recorded},
	{"06-benchmark.ipynb", "nb06-recorded", markdowns(recorded("table2"))},
	{"06-benchmark.ipynb", "nb06-gains", markdowns(gains("table2"))},
	{"06-benchmark.ipynb", "nb06-gpu", markdowns(recordedOn("h200", "table2"), gainsOn("h200", "table2"), recordedOn("h100", "table2"))},
	{"07-variational.ipynb", "nb07-recorded", markdowns(recorded("table3"))},
	{"07-variational.ipynb", "nb07-variant", markdowns(func() (string, error) { return experiments.RecordedVariant("table3", "reg=0.5") })},
	{"07-variational.ipynb", "nb07-gpu3", markdowns(recordedOn("h200", "table3"))},
	{"07-variational.ipynb", "52f96c98", markdowns(recorded("table4"))},
	{"07-variational.ipynb", "nb07-control", markdowns(gains("table4"))},
	{"07-variational.ipynb", "nb07-gpu4", markdowns(recordedOn("h200", "table4"), gainsOn("h200", "table4"))},
	{"08-variants.ipynb", "nb08-gnn-recorded", markdowns(recorded("table5"), recorded("table6"), recorded("table7"), gains("table6"), gains("table7"))},
	{"08-variants.ipynb", "nb08-shared", markdowns(
		func() (string, error) { return experiments.PaperTableDifferences(5, 2), nil },
		func() (string, error) { return experiments.RecordedTableDifferences("table5", "table2") })},
	{"08-variants.ipynb", "nb08-gnn-gpu", markdowns(recordedOn("h200", "table6"), gainsOn("h200", "table6"), recordedOn("h200", "table7"), gainsOn("h200", "table7"))},
	{"08-variants.ipynb", "nb08-recorded", markdowns(recorded("table8"))},
	{"09-lightweight.ipynb", "gpu-recorded-code", markdowns(lightweight("bench/gpu-h200-xla-lightweight.jsonl"), lightweight("bench/gpu-h100-xla-all.jsonl"))},
}

func recorded(table string) func() (string, error) {
	return func() (string, error) { return experiments.RecordedPaperVsOurs(table) }
}

func recordedOn(device, table string) func() (string, error) {
	return func() (string, error) { return experiments.RecordedPaperVsOursOn(device, table) }
}

func gains(table string) func() (string, error) {
	return func() (string, error) { return experiments.RecordedGains(table) }
}

func gainsOn(device, table string) func() (string, error) {
	return func() (string, error) { return experiments.RecordedGainsOn(device, table) }
}

// lightweight is the Markdown of notebook 09's table of a recorded bench file (a path relative
// to results/).
func lightweight(file string) func() (string, error) {
	return func() (string, error) {
		l, err := experiments.RecordedLightweight(file)
		if err != nil {
			return "", err
		}
		return l.Table().Markdown(), nil
	}
}

// markdowns is what a cell shows with one figures.ShowMarkdown per function, in order.
func markdowns(fns ...func() (string, error)) func() ([]shown, error) {
	return func() ([]shown, error) {
		var out []shown
		for _, fn := range fns {
			md, err := fn()
			if err != nil {
				return nil, err
			}
			out = append(out, shown{"text/markdown", md})
		}
		return out, nil
	}
}

// tableMarkdown is the Markdown of a table that a cell shows with figures.ShowTable.
func tableMarkdown(fn func() (figures.Table, error)) func() (string, error) {
	return func() (string, error) {
		t, err := fn()
		return t.Markdown(), err
	}
}

// figure5Recorded is what notebook 05's recorded cell shows: how many runs are recorded, the
// paper-vs-ours table and a plot per dataset.
func figure5Recorded() ([]shown, error) {
	recs, runs, err := experiments.RecordedFigure5Records()
	if err != nil {
		return nil, err
	}
	out := []shown{
		{"stdout", fmt.Sprintf("%d of Figure 5's %d full-protocol runs are recorded.\n", len(recs), runs)},
		{"text/markdown", experiments.Figure5Table(recs).Markdown()},
	}
	plots, err := experiments.Figure5Plots(recs)
	if err != nil {
		return nil, err
	}
	for _, p := range plots {
		svg, err := figures.SVG(p)
		if err != nil {
			return nil, err
		}
		out = append(out, shown{"image/svg+xml", svg})
	}
	return out, nil
}

// committedShown is what a committed cell shows, in the terms of shown: its stdout streams
// (joined, as Jupyter shows them) and each display output's Markdown or SVG.
func committedShown(c cell) []shown {
	var out []shown
	for _, o := range c.Outputs {
		switch {
		case o.OutputType == "stream" && o.Name == "stdout":
			if n := len(out); n > 0 && out[n-1].kind == "stdout" {
				out[n-1].text += string(o.Text)
				continue
			}
			out = append(out, shown{"stdout", string(o.Text)})
		case o.Data["text/markdown"] != nil:
			out = append(out, shown{"text/markdown", text(o.Data["text/markdown"])})
		case o.Data["image/svg+xml"] != nil:
			out = append(out, shown{"image/svg+xml", text(o.Data["image/svg+xml"])})
		}
	}
	return out
}

// name names an output in a message: its kind and, but for a plot, its first line.
func name(s shown) string {
	if s.kind == "image/svg+xml" {
		return "a plot"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(s.text), "\n")
	return fmt.Sprintf("%s %q", s.kind, line)
}

// TestCommittedRecordedCellsAreCurrent checks that each committed cell that shows recorded
// full-protocol runs (recordedCells) shows what the committed records make now, so that new
// records are not left out of the notebooks a reader opens. After adding records, re-execute the
// notebooks it names (DEVELOPERS.md, "Recording full-protocol results").
func TestCommittedRecordedCellsAreCurrent(t *testing.T) {
	results, err := filepath.Abs(filepath.Join("..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(experiments.ResultsEnv, results)
	for _, rc := range recordedCells {
		t.Run(strings.TrimSuffix(rc.notebook, ".ipynb")+"/"+rc.cell, func(t *testing.T) {
			nb, err := readNotebook(rc.notebook)
			if err != nil {
				t.Fatal(err)
			}
			c := nb.Cells[cellIndices(t, rc.notebook, rc.cell)[0]]
			want, err := rc.want()
			if err != nil {
				t.Fatal(err)
			}
			got := committedShown(c)
			if len(got) != len(want) {
				t.Fatalf("cell %s of %s shows %d outputs, the records make %d: re-execute notebooks/%s", rc.cell, rc.notebook, len(got), len(want), rc.notebook)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("cell %s of %s, output %d (%s) is not what the records make now: re-execute notebooks/%s\ncommitted:\n%s\nrecords:\n%s",
						rc.cell, rc.notebook, i+1, name(want[i]), rc.notebook, abbreviate(got[i]), abbreviate(want[i]))
				}
			}
		})
	}
}

// abbreviate is an output's text for a failure message: an SVG's size, other text in full.
func abbreviate(s shown) string {
	if s.kind == "image/svg+xml" {
		return fmt.Sprintf("<svg of %d bytes>", len(s.text))
	}
	return s.text
}

// TestRecordedCellsAreListed checks that recordedCells names every code cell of the notebooks
// whose source reads recorded runs (an experiments.Recorded… call), and nothing else, so that a
// new cell of recorded results is kept current too.
func TestRecordedCellsAreListed(t *testing.T) {
	files, err := filepath.Glob("*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range files {
		nb, err := readNotebook(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range nb.Cells {
			if c.CellType == "code" && strings.Contains(string(c.Source), "experiments.Recorded") {
				found = append(found, f+" "+c.ID)
			}
		}
	}
	var listed []string
	for _, rc := range recordedCells {
		listed = append(listed, rc.notebook+" "+rc.cell)
	}
	sort.Strings(found)
	sort.Strings(listed)
	if strings.Join(found, "\n") != strings.Join(listed, "\n") {
		t.Errorf("cells that call experiments.Recorded…:\n%s\nrecordedCells lists:\n%s", strings.Join(found, "\n"), strings.Join(listed, "\n"))
	}
}
