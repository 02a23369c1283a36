package notebooks_test

import (
	"maps"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/models/paper"
)

// quotedComparison matches a result quoted in prose: "79.42 ± 0.17 against the paper's 79.46 ± 0.31
// (Δ/σ −0.11)", the Δ/σ optional, whitespace already collapsed to single spaces.
var quotedComparison = regexp.MustCompile(`(\d+\.\d+ ± \d+\.\d+) against (?:the paper's |paper's )?(\d+\.\d+ ± \d+\.\d+)(?:(?:,| \() ?Δ/σ ([+−-]?\d+\.\d+))?`)

// quotedMeanStd matches any "mean ± std" quoted in prose.
var quotedMeanStd = regexp.MustCompile(`\d+\.\d+ ± \d+\.\d+`)

// quotedSeedTally matches a seed-by-seed tally quoted in prose, as experiments.TableDifferences
// prints it: "1 / 4 of 5 (−2.60 to +0.40)", better / worse of the seeds both cells have and the
// range of the differences.
var quotedSeedTally = regexp.MustCompile(`\d+ / \d+ of \d+ \([+−]?\d+\.\d+ to [+−]?\d+\.\d+\)`)

// TestDocNumbersMatchRecords checks every comparison with the paper that the READMEs, the docs
// and the notebooks' Markdown quote in prose ("ours ± σ against the paper's mean ± σ (Δ/σ d)")
// against the committed full-protocol records: each must be a recorded cell of ours beside the
// paper's number for the same cell, formatted as the tables format them, with the Δ/σ the tables
// compute. Every other "mean ± std" quoted must be a recorded cell of ours (at the tables'
// precision or rounded to one decimal) or a number of the paper, unless the prose says it comes
// from git history. Every seed-by-seed tally quoted ("1 / 4 of 5 (−2.60 to +0.40)") must be a
// cell of Table 5 against Table 2 (experiments.RecordedTableDifferences). Prose is typed by
// people; this keeps it to what the records say.
func TestDocNumbersMatchRecords(t *testing.T) {
	all, err := models.ReadRecords(filepath.Join("..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []models.Record
	for _, r := range all {
		if !r.Spec.Quick {
			recs = append(recs, r)
		}
	}
	type cell struct{ ours, paper string }
	known := map[cell][]string{} // → the Δ/σ of each recorded cell with these two numbers
	numbers := map[string]bool{} // every recorded cell of ours and every number of the paper
	for _, e := range paper.Entries() {
		numbers[e.Format()] = true
	}
	// The cells of each backend apart, and on XLA of each device: results/h100/ and results/h200/
	// hold GPU runs of cells that results/table2/ also holds from the CPU, and of one cell both,
	// and the tables never pool them.
	byBackend := map[string][]models.Record{}
	for _, r := range recs {
		key := r.Backend
		if strings.HasPrefix(key, "xla") {
			key += " on " + r.Device
		}
		byBackend[key] = append(byBackend[key], r)
	}
	var comparisons []paper.Comparison
	for _, b := range slices.Sorted(maps.Keys(byBackend)) {
		comparisons = append(comparisons, experiments.Comparisons(byBackend[b])...)
	}
	for _, c := range comparisons {
		if c.Seeds >= 2 {
			numbers[paper.FormatMeanStd(c.Metric, c.OursMean, c.OursStd, true)] = true
			numbers[strconv.FormatFloat(c.OursMean, 'f', 1, 64)+" ± "+strconv.FormatFloat(c.OursStd, 'f', 1, 64)] = true
		}
		if !c.HavePaper || c.Seeds < 2 {
			continue
		}
		k := cell{paper.FormatMeanStd(c.Metric, c.OursMean, c.OursStd, true), c.Paper.Format()}
		d, ok := c.DeltaSigma()
		if ok {
			known[k] = append(known[k], strconv.FormatFloat(d, 'f', 2, 64))
		} else {
			known[k] = append(known[k], "")
		}
	}
	if len(known) < 40 {
		t.Fatalf("only %d recorded cells with the paper's number beside them under results/: expected the committed Table 2, 3 and 8 records", len(known))
	}

	docs := markdownDocs(t)
	shared, err := experiments.RecordedTableDifferences("table5", "table2")
	if err != nil {
		t.Fatal(err)
	}
	tallies := map[string]bool{}
	for _, line := range strings.Split(shared, "\n") {
		if cells := strings.Split(line, " | "); len(cells) > 1 && quotedSeedTally.MatchString(cells[len(cells)-1]) {
			tallies[strings.TrimSuffix(cells[len(cells)-1], " |")] = true
		}
	}
	if len(tallies) < 4 {
		t.Fatalf("only %d seed-by-seed tallies in Table 5 against Table 2, expected one per recorded Table 5 row:\n%s", len(tallies), shared)
	}
	tallyQuotes := 0

	space := regexp.MustCompile(`\s+`)
	quotes := 0
	for name, text := range docs {
		text = space.ReplaceAllString(text, " ")
		for _, loc := range quotedMeanStd.FindAllStringIndex(text, -1) {
			q := text[loc[0]:loc[1]]
			if !numbers[q] && !strings.Contains(text[max(0, loc[0]-120):loc[0]], "git history") {
				t.Errorf("%s: %q: neither a recorded cell of ours nor a number of the paper", name, text[max(0, loc[0]-60):loc[1]])
			}
		}
		for _, q := range quotedSeedTally.FindAllString(text, -1) {
			tallyQuotes++
			if !tallies[q] {
				t.Errorf("%s: seed-by-seed tally %q is no row of Table 5 against Table 2 (stag reproduce table5 -out results -dry-run)", name, q)
			}
		}
		for _, m := range quotedComparison.FindAllStringSubmatch(text, -1) {
			quotes++
			k := cell{m[1], m[2]}
			deltas, ok := known[k]
			if !ok {
				t.Errorf("%s: %q: no recorded cell of ours is %s beside the paper's %s", name, m[0], m[1], m[2])
				continue
			}
			if m[3] == "" {
				continue
			}
			want := strings.TrimPrefix(strings.ReplaceAll(m[3], "−", "-"), "+")
			found := false
			for _, d := range deltas {
				found = found || d == want || (want == "0.00" && d == "-0.00")
			}
			if !found {
				t.Errorf("%s: %q: the tables compute Δ/σ %v for this cell", name, m[0], deltas)
			}
		}
	}
	if quotes < 30 {
		t.Errorf("found %d quoted comparisons in the docs, expected at least 30: has their wording changed? Update quotedComparison", quotes)
	}
	if tallyQuotes < 4 {
		t.Errorf("found %d seed-by-seed tallies quoted in the docs, expected at least 4: has their wording changed? Update quotedSeedTally", tallyQuotes)
	}
	// The README's counts of recorded runs and of cells within one and two σ are its coverage table,
	// which experiments.TestReadmeCoverage checks against the records.
}

// TestTable5NormalRecordsRepeatTable2 checks what the docs say of Table 5's two-layer Normal rows
// on the CPU: with two layers the shared draw has nothing to share (models.GCN.NormalMinChannels
// keeps Normal noise off the last layer), so each seed's result is Table 2's, field for field but
// the wall time. models.TestTable5AgainstTable2 checks the mechanism on toy data; this checks the
// committed records.
func TestTable5NormalRecordsRepeatTable2(t *testing.T) {
	all, err := models.ReadRecords(filepath.Join("..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	table2 := map[models.RunSpec]*models.NodeResult{}
	for _, r := range all {
		if r.Spec.Table == "table2" && r.Backend == "go" && r.Result != nil {
			spec := r.Spec
			spec.Table = ""
			table2[spec] = r.Result
		}
	}
	pairs := 0
	for _, r := range all {
		if r.Spec.Table != "table5" || r.Spec.Layers != 2 || !strings.HasPrefix(r.Spec.Config, "normal") ||
			r.Spec.Quick || r.Backend != "go" || r.Result == nil {
			continue
		}
		spec := r.Spec
		spec.Table = ""
		want, ok := table2[spec]
		if !ok {
			continue
		}
		pairs++
		got, wantCopy := *r.Result, *want
		got.WallSeconds, wantCopy.WallSeconds = 0, 0
		if !reflect.DeepEqual(got, wantCopy) {
			t.Errorf("%s %s seed %d: Table 5's result differs from Table 2's (test accuracy %.3f, %.3f)",
				spec.Dataset, spec.Config, spec.Seed, got.TestAcc, wantCopy.TestAcc)
		}
	}
	if pairs < 30 {
		t.Errorf("only %d two-layer Normal runs of Table 5 have a Table 2 run to compare, expected Cora's and Citeseer's three rows of five seeds", pairs)
	}
}
