package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/models/paper"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
)

// trainedTables are the items whose runs reproduce trains and records.
var trainedTables = []string{"table2", "table3", "table4", "table5", "table6", "table7", "table8", "figure5"}

// reproducible lists the items reproduce takes.
var reproducible = strings.Join(slices.Concat(experiments.AnalysisItems, trainedTables), ", ") + ", coverage or jumps"

// isReproducible reports whether reproduce takes item.
func isReproducible(item string) bool {
	return item == "coverage" || item == "jumps" || slices.Contains(experiments.AnalysisItems, item) || slices.Contains(trainedTables, item)
}

// runReproduce implements "stag reproduce <table> [flags]": it trains every (configuration, seed)
// of a paper table that has no record yet and writes one JSON record per run under -out, then
// prints the paper-vs-ours table of the selected runs (Markdown; -html FILE also writes it as HTML,
// -plots DIR saves the notebook's plots of the runs as SVG files).
func runReproduce(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprintf(stderr, "usage: stag reproduce <item> [flags]\n\nitems: %s\n\nRun \"stag reproduce <item> -h\" for an item's flags.\n", reproducible)
		return flag.ErrHelp
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError("reproduce: name a table: " + reproducible)
	}
	table := args[0]
	if slices.Contains(experiments.AnalysisItems, table) {
		return runAnalysis(table, args[1:], stdout, stderr)
	}
	if table == "coverage" {
		return runCoverage(args[1:], stdout, stderr)
	}
	if table == "jumps" {
		return runJumps(args[1:], stdout, stderr)
	}
	if !isReproducible(table) {
		return usageError(fmt.Sprintf("reproduce: unknown table %q (available: %s)", table, reproducible))
	}
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usageFunc(fs, "stag reproduce "+table+" [flags]\n\nTrains the table's runs that have no record under -out, one JSON record per run, and prints the paper-vs-ours table.")
	quick := fs.Bool("quick", false, "few epochs, one seed, 8 Monte-Carlo samples: minutes on a CPU, not comparable to the paper")
	defaultDatasets := "cora,citeseer"
	if table == "table4" {
		defaultDatasets = "esol,freesolv"
	}
	names := fs.String("datasets", defaultDatasets, "comma-separated datasets: cora, citeseer (not table4), and for table2 and table4 esol, freesolv")
	out := fs.String("out", "results", "results directory (records go under it; existing ones are kept and skipped)")
	configs := fs.String("configs", "", "only these comma-separated configurations (rows), e.g. deterministic,normal(1,0.8)")
	depths := fs.String("layers", "", "only these comma-separated depths, e.g. 2,4")
	seedList := fs.String("seeds", "", "only these comma-separated seeds, e.g. 1,2")
	variantFlag := fs.String("variant", "", "train a variant of the selected rows instead: comma-separated name=value settings, e.g. reg=0.5 ("+variantHelp()+"). Its records go in a folder of their own beside the row's (vi-rec+reg=0.5), which no paper table reads")
	htmlOut := fs.String("html", "", "also write the paper-vs-ours table as HTML to this file")
	plotDir := fs.String("plots", "", "save the plots of ours against the paper (figure5: accuracy against depth, per dataset) as SVG files in this directory")
	dryRun := fs.Bool("dry-run", false, "train nothing: say which of the selected runs are recorded under -out and which would be trained, and print the paper-vs-ours table of the recorded ones")
	jobs := fs.Int("jobs", 1, "runs trained at the same time (one run already keeps two cores of the pure-Go backend busy: on a 2-core CPU two jobs were no faster for quick runs and slower for full ones)")
	retries := fs.Int("retries", 1, "times a run whose training failed is trained again from its first epoch before the command gives up on it (for transient GPU errors; a missing dataset or a bad configuration is not retried)")
	mcChunk := fs.Int("mc-chunk", 0, "draw an evaluation's Monte-Carlo samples in calls of at most this many (the largest divisor of the samples not above it), each call's graph unrolling only those: XLA compiles 32 unrolled samples for about 30 s on a GPU (0: all in one graph; a node classifier draws the same numbers either way)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("reproduce: unexpected arguments %q", fs.Args()))
	}
	if *jobs < 1 {
		return usageError(fmt.Sprintf("reproduce: -jobs %d: want at least 1", *jobs))
	}
	if *retries < 0 {
		return usageError(fmt.Sprintf("reproduce: -retries %d: want 0 or more", *retries))
	}
	if *mcChunk < 0 {
		return usageError(fmt.Sprintf("reproduce: -mc-chunk %d: want 0 or more", *mcChunk))
	}
	var ds []string
	for _, d := range strings.Split(*names, ",") {
		d = strings.TrimSpace(d)
		switch {
		case (d == "cora" || d == "citeseer") && table == "table4":
			return usageError(fmt.Sprintf("reproduce: -datasets: table4 has the molecule datasets esol and freesolv, not %s", d))
		case d == "cora" || d == "citeseer":
		case models.IsMoleculeDataset(d) && (table == "table2" || table == "table4"):
		case models.IsMoleculeDataset(d):
			return usageError(fmt.Sprintf("reproduce: -datasets: %s is in table2 and table4 only", d))
		default:
			return usageError(fmt.Sprintf("reproduce: -datasets: unknown dataset %q (want cora, citeseer, esol or freesolv)", d))
		}
		ds = append(ds, d)
	}
	var specs []models.RunSpec
	switch table {
	case "table2":
		specs = models.Table2Specs(ds, *quick)
	case "table3":
		specs = models.Table3Specs(ds, *quick)
	case "table4":
		specs = models.Table4Specs(ds, *quick)
	case "table5":
		specs = models.Table5Specs(ds, *quick)
	case "table6", "table7":
		specs = models.GNNSpecs(table, ds, *quick)
	case "table8":
		specs = models.Table8Specs(ds, *quick)
	case "figure5":
		specs = models.Figure5Specs(ds, *quick)
	}
	specs, err := filterSpecs(specs, *configs, *depths, *seedList)
	if err != nil {
		return err
	}
	variant, err := models.ParseVariant(*variantFlag)
	if err != nil {
		return usageError("reproduce: -variant " + strings.TrimPrefix(err.Error(), "variant "))
	}
	var rows []models.RunSpec // with a variant: the paper's rows it varies, shown beside it
	if len(variant) > 0 {
		rows, specs = specs, make([]models.RunSpec, len(specs))
		for i, s := range rows {
			specs[i] = s.WithVariant(variant)
			if err := models.ValidateSpec(specs[i]); err != nil {
				return usageError("reproduce: -variant: " + err.Error())
			}
		}
	}
	if *dryRun {
		return planReproduce(stdout, table, specs, rows, *out, *htmlOut, *plotDir)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	backend, err := stagnb.NewBackend(logf)
	if err != nil {
		return err
	}
	defer backend.Finalize()
	prov := models.Provenance{Command: models.RecordedCommand(append([]string{"stag", "reproduce"}, args...)...), Commit: recordRevision("reproduce", stderr)}
	start := time.Now()
	trained, skipped, err := models.Reproduce(backend, datasets.NewResolver(), specs, *out, prov, models.ReproduceOptions{Progress: stderr, Logf: logf, Jobs: *jobs, Retries: *retries, MCChunk: *mcChunk})
	fmt.Fprintf(stdout, "%s: %d runs trained, %d already recorded, in %s; wall time %s\n", table, trained, skipped, *out, time.Since(start).Round(time.Second))
	if err != nil {
		return err
	}
	return writeComparison(stdout, table, specs, rows, *out, *htmlOut, *plotDir)
}

// writeComparison prints the paper-vs-ours Markdown table of the specs' records under dir, with
// its agreement summary and, where a Deterministic row is recorded, each row against it; writes
// it as HTML to htmlPath when that is set, and saves the notebook's plots of the records in
// plotDir when that is set. When the specs are a variant's, rows are the paper rows they vary
// (nil otherwise): the table shows the records of those recorded under dir whose cells the
// variant has records of, then the variant's (experiments.BesideRows), so that each variant is
// read beside its row.
func writeComparison(stdout io.Writer, table string, specs, rows []models.RunSpec, dir, htmlPath, plotDir string) error {
	var recs []models.Record
	for _, s := range specs {
		rec, err := models.ReadRecord(filepath.Join(dir, s.Path()))
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	if len(recs) == 0 {
		return nil
	}
	if rows != nil {
		var rowRecs []models.Record
		for _, s := range rows {
			rec, _, err := models.FindRecord(dir, s)
			if err != nil {
				return err
			}
			if rec != nil {
				rowRecs = append(rowRecs, *rec)
			}
		}
		recs = experiments.BesideRows(rowRecs, recs)
	}
	title := "Paper vs ours: " + table
	t, err := paper.ComparisonTable(title, experiments.Comparisons(recs))
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(stdout, "\n%s\n%s", t.Markdown(), experiments.Agreement(recs)); err != nil {
		return err
	}
	if slices.ContainsFunc(recs, func(r models.Record) bool { return r.Spec.Config == "deterministic" }) {
		if _, err := fmt.Fprintf(stdout, "\n%s", experiments.GainsOverDeterministic("Against the Deterministic row: "+table, recs)); err != nil {
			return err
		}
	}
	if table == "table5" {
		if err := writeAgainstTable2(stdout, specs, dir, recs); err != nil {
			return err
		}
	}
	if htmlPath != "" {
		if err := writeFileAtomic(htmlPath, []byte(t.HTML())); err != nil {
			return err
		}
	}
	if plotDir == "" {
		return nil
	}
	var plots []*plot.Plot
	if table == "figure5" {
		plots, err = experiments.Figure5Plots(recs)
	} else {
		plots, err = experiments.ComparisonPlots(title, recs)
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(plotDir, 0o755); err != nil {
		return fmt.Errorf("reproduce %s: -plots: %w", table, err)
	}
	for _, p := range plots {
		if err := savePlot(stdout, plotDir, experiments.Slug(p.Title.Text), p); err != nil {
			return fmt.Errorf("reproduce %s: %w", table, err)
		}
	}
	return nil
}

// writeAgainstTable2 prints the question Table 5 asks, whether one noise draw shared by all
// layers does better than Table 2's draw per layer: the paper's answer, from its two tables, and
// ours, Table 5's records against the same cells of Table 2 recorded under dir, when any are.
// Table 2's cells are read for the specs' datasets, depths, configs and seeds.
func writeAgainstTable2(stdout io.Writer, specs []models.RunSpec, dir string, recs []models.Record) error {
	if _, err := fmt.Fprintf(stdout, "\n%s", experiments.PaperTableDifferences(5, 2)); err != nil {
		return err
	}
	var base []models.Record
	for _, s := range specs {
		s.Table = "table2"
		rec, _, err := models.FindRecord(dir, s)
		if err != nil {
			return err
		}
		if rec != nil {
			base = append(base, *rec)
		}
	}
	if len(base) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(stdout, "\n%s", experiments.TableDifferences("One draw for all layers (table5) against a draw per layer (table2)", recs, base))
	return err
}

// savePlot writes p as the SVG file <name>.svg in the existing directory dir, atomically, and
// says so on stdout.
func savePlot(stdout io.Writer, dir, name string, p *plot.Plot) error {
	svg, err := figures.SVG(p)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, name+".svg")
	if err := writeFileAtomic(path, []byte(svg)); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "\nplot %s: %q saved as %s\n", name, p.Title.Text, path)
	return err
}

// planReproduce is reproduce's -dry-run: it reads which of specs have a record under dir (a
// corrupt one is an error naming it), lists the missing runs a configuration per line with their
// seeds and the records made with another protocol than today's, and prints the paper-vs-ours
// table of the recorded ones (with a variant's rows, as writeComparison). It trains nothing.
func planReproduce(stdout io.Writer, table string, specs, rows []models.RunSpec, dir, htmlPath, plotDir string) error {
	var recorded []models.RunSpec
	var missing []string           // "dataset layers=L config", in the specs' order
	seeds := map[string][]string{} // of each missing configuration
	var stale []string             // records of another protocol, with how it differs
	for _, s := range specs {
		rec, path, err := models.FindRecord(dir, s)
		switch {
		case err != nil:
			return err
		case rec != nil:
			recorded = append(recorded, s)
			if diff := models.ProtocolDiff(rec.Protocol, models.ProtocolFor(s)); diff != "" {
				stale = append(stale, fmt.Sprintf("%s (%s)", path, diff))
			}
		default:
			key := fmt.Sprintf("%s layers=%d %s", s.Dataset, s.Layers, s.Config)
			if _, ok := seeds[key]; !ok {
				missing = append(missing, key)
			}
			seeds[key] = append(seeds[key], strconv.FormatInt(s.Seed, 10))
		}
	}
	fmt.Fprintf(stdout, "%s (dry run): %d of %d runs recorded in %s; %d would be trained\n", table, len(recorded), len(specs), dir, len(specs)-len(recorded))
	for _, key := range missing {
		fmt.Fprintf(stdout, "  to train: %s, seeds %s\n", key, strings.Join(seeds[key], ","))
	}
	for _, s := range stale {
		fmt.Fprintf(stdout, "  recorded with another protocol than this code's: %s\n", s)
	}
	return writeComparison(stdout, table, recorded, rows, dir, htmlPath, plotDir)
}

// filterSpecs keeps the specs whose configuration is in configs, whose depth is in depths and
// whose seed is in seeds (comma-separated lists; empty keeps all). Configurations are compared
// without case and spaces, so "Normal(1, 0.8)" (the paper's spelling) selects normal(1,0.8). An
// item that matches no spec is a usage error that names it, so that a typo in a long list does
// not silently drop its rows, and so is a selection that matches nothing.
func filterSpecs(specs []models.RunSpec, configs, depths, seeds string) ([]models.RunSpec, error) {
	var have [3][]string // configs, depths, seeds of specs, in their order
	for _, s := range specs {
		for i, v := range []string{s.Config, fmt.Sprint(s.Layers), fmt.Sprint(s.Seed)} {
			if !slices.Contains(have[i], v) {
				have[i] = append(have[i], v)
			}
		}
	}
	noRun := func(what string) error {
		return usageError(fmt.Sprintf("reproduce: %s (the selected datasets have the configs %s; layers %s; seeds %s)",
			what, strings.Join(have[0], ", "), strings.Join(have[1], ", "), strings.Join(have[2], ", ")))
	}
	var lists [3][]string // the selected configs, depths and seeds; nil keeps all
	for i, list := range []string{configs, depths, seeds} {
		if strings.TrimSpace(list) == "" {
			continue
		}
		for _, x := range splitList(list) {
			if i == 0 {
				x = strings.ToLower(strings.ReplaceAll(x, " ", ""))
			}
			if !slices.Contains(have[i], x) {
				return nil, noRun(fmt.Sprintf("%s item %q matches no run", []string{"-configs", "-layers", "-seeds"}[i], x))
			}
			lists[i] = append(lists[i], x)
		}
	}
	keep := func(list []string, v string) bool { return list == nil || slices.Contains(list, v) }
	var out []models.RunSpec
	for _, s := range specs {
		if keep(lists[0], s.Config) && keep(lists[1], fmt.Sprint(s.Layers)) && keep(lists[2], fmt.Sprint(s.Seed)) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, noRun(fmt.Sprintf("-configs %q -layers %q -seeds %q select no run", configs, depths, seeds))
	}
	return out, nil
}

// variantHelp lists the settings a -variant may change, "epochs (training epochs), lr (…), …".
func variantHelp() string {
	var opts []string
	for _, o := range models.VariantOptions {
		opts = append(opts, fmt.Sprintf("%s: %s", o.Name, o.Doc))
	}
	return strings.Join(opts, "; ")
}

// splitList splits a comma-separated list at the commas outside parentheses, so that
// "normal(1,0.8),de(0.2)" gives two items.
func splitList(s string) []string {
	var items []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(items, strings.TrimSpace(s[start:]))
}

// runAnalysis implements "stag reproduce <item>" for the items computed live, without records
// (experiments.AnalysisItems: Table 1, Figure 2, Theorem 1, Figures 3 and 4, Theorem 2, Table 9
// and STAG-VI's learned noise): it prints
// a provenance line and every table of the item as Markdown, as the notebooks show them, and saves
// the plots as SVG files with -plots (written atomically; -html writes the tables as HTML).
func runAnalysis(item string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reproduce "+item, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usageFunc(fs, "stag reproduce "+item+" [flags]\n\nComputes the item live and prints its tables as Markdown, after a line with the settings, backend and commit.")
	quick := fs.Bool("quick", false, "the notebooks' quick settings (fewer Monte-Carlo samples and training steps): seconds to a minute or two on a CPU, not comparable to the paper")
	plotDir := fs.String("plots", "", "save the plots as SVG files in this directory (created if missing)")
	htmlOut := fs.String("html", "", "also write the tables as HTML to this file")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("reproduce %s: unexpected arguments %q", item, fs.Args()))
	}
	settings := experiments.FullSettings()
	if *quick {
		settings = experiments.QuickSettings()
	}
	// Fail before the computation, which may take long, not after it.
	if *plotDir != "" {
		if err := os.MkdirAll(*plotDir, 0o755); err != nil {
			return fmt.Errorf("reproduce %s: -plots: %w", item, err)
		}
	}
	if *htmlOut != "" {
		if st, err := os.Stat(filepath.Dir(*htmlOut)); err != nil || !st.IsDir() {
			return fmt.Errorf("reproduce %s: -html %s: its folder %s is not a directory (%v)", item, *htmlOut, filepath.Dir(*htmlOut), err)
		}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) }
	backend, err := stagnb.NewBackend(logf)
	if err != nil {
		return err
	}
	defer backend.Finalize()
	fmt.Fprintf(stdout, "%s: %s settings %+v; backend %s, device %s; commit %s\n",
		models.RecordedCommand(append([]string{"stag", "reproduce", item}, args...)...), settings.Mode(), settings,
		stagnb.BackendName(backend), stagnb.DeviceName(backend), recordRevision("reproduce", stderr))
	start := time.Now()
	outs, err := experiments.Analysis(backend, item, settings, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s computed in %s\n", item, time.Since(start).Round(time.Second))
	var html strings.Builder
	for _, o := range outs {
		if o.Table != nil {
			fmt.Fprintf(stdout, "\n%s", o.Table.Markdown())
			html.WriteString(o.Table.HTML() + "\n")
			continue
		}
		if *plotDir == "" {
			fmt.Fprintf(stdout, "\nplot %s: %q (not saved: -plots DIR saves it as %s.svg)\n", o.Name, o.Plot.Title.Text, o.Name)
			continue
		}
		if err := savePlot(stdout, *plotDir, o.Name, o.Plot); err != nil {
			return fmt.Errorf("reproduce %s: %w", item, err)
		}
	}
	if *htmlOut == "" {
		return nil
	}
	return writeFileAtomic(*htmlOut, []byte(html.String()))
}

// runCoverage implements "stag reproduce coverage [-out DIR]": it prints as Markdown how much of
// each paper table's full-protocol grid is recorded under -out and its GPU folders
// (experiments.Coverage), training nothing.
func runCoverage(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reproduce coverage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usageFunc(fs, "stag reproduce coverage [flags]\n\nPrints how many of each paper table's full-protocol runs are recorded under -out and under each GPU's folder in it, and how many of their cells lie within one and two σ of the paper. Trains nothing.")
	out := fs.String("out", "results", "results directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("reproduce coverage: unexpected arguments %q", fs.Args()))
	}
	t, err := experiments.Coverage(*out)
	if err != nil {
		return fmt.Errorf("reproduce coverage: -out %s: %w", *out, err)
	}
	_, err = io.WriteString(stdout, t.Markdown())
	return err
}

// runJumps implements "stag reproduce jumps <table> [flags]": it prints as Markdown how many of a
// paper table's recorded seeds show a training-loss jump (experiments.LossJumps), or with -seeds
// each seed's jumps (experiments.LossJumpsBySeed), training nothing.
func runJumps(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("reproduce jumps", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usageFunc(fs, "stag reproduce jumps <table> [flags]\n\nPrints, for each folder, dataset and depth of a paper table's records under -out, how many seeds' training loss at an evaluation after epoch -after jumps above -loss-above from at most it at the evaluation before, and the epochs of their first such evaluation; -seeds prints each seed's jumps instead. Trains nothing.")
	out := fs.String("out", "results", "results directory")
	above := fs.Float64("loss-above", 1, "a seed jumps when its training loss at an evaluation exceeds this where the evaluation before did not")
	after := fs.Int("after", 100, "only evaluations after this epoch count")
	byRow := fs.Bool("rows", false, "one line per row (configuration) instead of per dataset and depth")
	bySeed := fs.Bool("seeds", false, "one line per seed: the epoch its model comes from, each jump's epoch and loss, the training loss and validation accuracy before and at the first, its highest and lowest loss")
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if len(args) > 0 && isHelp(args[0]) {
			fs.Usage()
			return flag.ErrHelp
		}
		return usageError("reproduce jumps: name a table: " + strings.Join(trainedTables[:len(trainedTables)-1], ", "))
	}
	table := args[0]
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("reproduce jumps: unexpected arguments %q", fs.Args()))
	}
	if *byRow && *bySeed {
		return usageError("reproduce jumps: -rows and -seeds exclude each other")
	}
	var t figures.Table
	var err error
	if *bySeed {
		t, err = experiments.LossJumpsBySeed(*out, table, *above, *after)
	} else {
		t, err = experiments.LossJumps(*out, table, *above, *after, *byRow)
	}
	if err != nil {
		return fmt.Errorf("reproduce jumps: %w", err)
	}
	_, err = io.WriteString(stdout, t.Markdown())
	return err
}
