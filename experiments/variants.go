package experiments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stagnb/stagnb/models"
)

// BesideRows returns the records of rows whose cell (table, dataset, depth and row) some record
// of variants varies, in their order, followed by variants: the rows a variant changed, then the
// variant, as a paper-vs-ours table shows them (models.Variant).
func BesideRows(rows, variants []models.Record) []models.Record {
	varied := map[cellKey]bool{}
	for _, r := range variants {
		s := r.Spec
		s.Config = s.Row()
		varied[cellOf(s)] = true
	}
	var out []models.Record
	for _, r := range rows {
		if varied[cellOf(r.Spec)] {
			out = append(out, r)
		}
	}
	return append(out, variants...)
}

// RecordedVariant is the paper-vs-ours table of a variant's recorded full-protocol runs (variant:
// models.ParseVariant's options, e.g. "reg=0.5"): for each cell of a paper table that has a record
// of the variant under ResultsDir, the row's records and then the variant's, each against the
// row's paper number, with their Agreement summary. It never trains; without a record it names
// the command that trains the variant.
func RecordedVariant(table, variant string) (string, error) {
	t, err := PaperTableByName(table)
	if err != nil {
		return "", err
	}
	v, err := models.ParseVariant(variant)
	if err != nil {
		return "", fmt.Errorf("experiments.RecordedVariant: %w", err)
	}
	if len(v) == 0 {
		return "", fmt.Errorf("experiments.RecordedVariant: no variant given (RecordedPaperVsOurs shows the paper's rows)")
	}
	specs, command := t.Specs(FullSettings())
	varied := make([]models.RunSpec, len(specs))
	for i, s := range specs {
		varied[i] = s.WithVariant(v)
	}
	variants, err := recordedRecordsIn("", varied)
	if err != nil {
		return "", err
	}
	options := strings.TrimPrefix(strings.ReplaceAll(v.String(), "+", ", "), ", ")
	title := fmt.Sprintf("Table %d, variant %s — full protocol, recorded in results/", t.Number, options)
	flag := " -variant " + strings.TrimPrefix(strings.ReplaceAll(v.String(), "+", ","), ",")
	if len(variants) == 0 {
		return fmt.Sprintf("### %s\n\nNone yet: `go run ./cmd/stag %s -configs ROW%s` trains it for a row.\n", title, command, flag), nil
	}
	rows, err := recordedRecordsIn("", specs)
	if err != nil {
		return "", err
	}
	md, err := PaperVsOurs(title, BesideRows(rows, variants))
	if err != nil {
		return "", err
	}
	var configs []string
	for _, r := range variants {
		if row := r.Spec.Row(); !slices.Contains(configs, row) {
			configs = append(configs, row)
		}
	}
	return md + fmt.Sprintf("\n`go run ./cmd/stag %s -configs %s%s -dry-run` prints this table; without `-dry-run` it trains the variant's missing seeds.\n",
		command, models.CommandLine(strings.Join(configs, ",")), flag), nil
}
