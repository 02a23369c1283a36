package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// Environment variables that say where training records live and whether a full-mode notebook
// may train missing ones itself.
const (
	// ResultsEnv overrides the results directory (default: the repository's results/ folder).
	ResultsEnv = "STAGNB_RESULTS"
	// LiveEnv, set to anything but "" or "0", lets a full-mode notebook train the runs that have
	// no stored record (hours on a CPU); unset, it only reads `stag reproduce`'s records.
	LiveEnv = "STAGNB_LIVE"
)

// ResultsDir is where the notebooks read and write training records: $STAGNB_RESULTS, else the
// results/ folder of the repository that contains the working directory (a notebook runs in
// notebooks/), the same folder `stag reproduce` writes by default. Quick records go under its
// quick/ subfolder (models.RunSpec.Path), which git ignores.
func ResultsDir() (string, error) {
	if d := os.Getenv(ResultsEnv); d != "" {
		return d, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	if d := os.Getenv("GONB_DIR"); d != "" {
		dir = d
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/stagnb/stagnb\n") {
			return filepath.Join(dir, "results"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("experiments.ResultsDir: no stagnb repository above the working directory; set $%s", ResultsEnv)
		}
		dir = parent
	}
}

// liveAllowed reports whether $STAGNB_LIVE allows training in full mode.
func liveAllowed() bool {
	v := os.Getenv(LiveEnv)
	return v != "" && v != "0"
}

// Records returns the records of specs from ResultsDir. Missing runs are trained first (with a
// progress line per run, resuming where an earlier call stopped) when the specs are quick or
// $STAGNB_LIVE is set; otherwise a missing record is an error that names the `stag reproduce`
// command to run. Quick records made at another commit are trained again, so that a notebook shows
// what the code does now (full-protocol records are kept: they take hours); uncommitted changes
// all count as one commit, "<hash>+dirty", so run notebooks from a committed tree. The records
// come back in the order of specs.
func Records(backend compute.Backend, specs []models.RunSpec, command string) ([]models.Record, error) {
	dir, err := ResultsDir()
	if err != nil {
		return nil, err
	}
	quick := len(specs) > 0 && specs[0].Quick
	missing := 0
	for _, s := range specs {
		path, err := models.RecordFile(dir, s)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(path); err != nil {
			missing++
		}
	}
	if missing > 0 || quick {
		if !quick && !liveAllowed() {
			return nil, fmt.Errorf("%d of %d runs have no record under %s: run `go run ./cmd/stag %s` (hours on a CPU; minutes on a GPU), or set %s=1 to train them here",
				missing, len(specs), dir, command, LiveEnv)
		}
		prov := models.Provenance{Command: "notebook (experiments.Records): stag " + command, Commit: models.SourceRevision()}
		opts := models.ReproduceOptions{Progress: os.Stdout}
		if quick {
			opts.Retrain = func(r models.Record) bool { return r.Commit != prov.Commit }
		}
		if _, _, err := models.Reproduce(backend, datasets.NewResolver(), specs, dir, prov, opts); err != nil {
			return nil, err
		}
	}
	recs := make([]models.Record, 0, len(specs))
	for _, s := range specs {
		r, err := models.ReadRecord(filepath.Join(dir, s.Path()))
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// RecordsTable lists training records, one row per run: what ran (table, dataset, depth,
// configuration, seed), its test metric (accuracy, or RMSE for molecules) and selected epoch, and where it came from (wall time,
// backend, device, commit). Quick records are marked.
func RecordsTable(recs []models.Record) figures.Table {
	t := figures.Table{
		Title:  fmt.Sprintf("%d training records", len(recs)),
		Header: []string{"table", "dataset", "layers", "config", "seed", "test metric", "epoch", "wall s", "backend / device", "commit"},
		Right:  []bool{false, false, true, false, true, true, true, true, false, false},
	}
	quick := false
	for _, r := range recs {
		quick = quick || r.Spec.Quick
		commit := r.Commit
		if len(commit) >= 40 { // a full hash, perhaps with "+dirty": keep 7 digits and the suffix
			commit = commit[:7] + commit[40:]
		}
		metric, epoch, wall := "", "", 0.0
		switch {
		case r.Result != nil:
			metric, epoch, wall = fmt.Sprintf("%.1f %%", 100*r.Result.TestAcc), fmt.Sprintf("%d/%d", r.Result.BestEpoch, r.Result.Epochs), r.Result.WallSeconds
		case r.Regression != nil:
			metric, epoch, wall = fmt.Sprintf("RMSE %.4f", r.Regression.TestRMSE), fmt.Sprintf("%d/%d", r.Regression.BestEpoch, r.Regression.Epochs), r.Regression.WallSeconds
		}
		t.Rows = append(t.Rows, []string{r.Spec.Table, r.Spec.Dataset, fmt.Sprint(r.Spec.Layers), r.Spec.Config, fmt.Sprint(r.Spec.Seed),
			metric, epoch, fmt.Sprintf("%.0f", wall), r.Backend + " / " + r.Device, commit})
	}
	if quick {
		t.Footnotes = append(t.Footnotes, "Quick runs: "+QuickNote+".")
	}
	return t
}

// RecordedRecords returns the full-protocol records of a paper table (PaperTable.Specs with
// FullSettings) that `stag reproduce` has stored under ResultsDir, in the table's order, and how
// many runs the full table has. It never trains, so a quick-mode notebook can show what the full
// runs gave so far beside its own quick runs.
func RecordedRecords(table string) (recs []models.Record, runs int, err error) {
	_, recs, runs, _, err = recordedTableIn("", table)
	return recs, runs, err
}

// recordedTableIn reads the full-protocol records of a paper table under the folder sub of
// ResultsDir (ResultsDir itself when sub is ""), with the table, how many runs it has and the
// command that trains them.
func recordedTableIn(sub, table string) (t PaperTable, recs []models.Record, runs int, command string, err error) {
	t, err = PaperTableByName(table)
	if err != nil {
		return t, nil, 0, "", err
	}
	specs, command := t.Specs(FullSettings())
	recs, err = recordedRecordsIn(sub, specs)
	return t, recs, len(specs), command, err
}

// recordedRecordsIn reads the records of specs that exist under the folder sub of ResultsDir
// (ResultsDir itself when sub is ""), in their order.
func recordedRecordsIn(sub string, specs []models.RunSpec) ([]models.Record, error) {
	dir, err := ResultsDir()
	if err != nil {
		return nil, err
	}
	return recordsUnder(filepath.Join(dir, sub), specs)
}

// recordsUnder reads the records of specs that exist under the results directory dir, in their
// order.
func recordsUnder(dir string, specs []models.RunSpec) ([]models.Record, error) {
	var recs []models.Record
	for _, s := range specs {
		path, err := models.RecordFile(dir, s)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		r, err := models.ReadRecord(path)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// RecordedPaperVsOurs is the paper-vs-ours table (PaperVsOurs) of a paper table's recorded
// full-protocol runs (RecordedRecords), titled with how many of the table's runs they are and
// followed by their Agreement summary and the command that trains or resumes the rest.
func RecordedPaperVsOurs(table string) (string, error) {
	return recordedPaperVsOurs("", table)
}

// RecordedPaperVsOursOn is RecordedPaperVsOurs for the records a GPU made, kept apart from the
// CPU's under results/<device>/ (e.g. "h200"): the backends draw different random numbers, so
// each is a reproduction of its own.
func RecordedPaperVsOursOn(device, table string) (string, error) {
	if err := checkDeviceFolder("RecordedPaperVsOursOn", device); err != nil {
		return "", err
	}
	return recordedPaperVsOurs(device, table)
}

// checkDeviceFolder says whether device names a folder right under results/, as a GPU's records
// are kept (e.g. "h100"), in an error that names the function fn.
func checkDeviceFolder(fn, device string) error {
	if device == "" || filepath.IsAbs(device) || strings.Contains(filepath.ToSlash(device), "..") {
		return fmt.Errorf("experiments.%s: device %q: want a folder name under results/, e.g. h100", fn, device)
	}
	return nil
}

func recordedPaperVsOurs(sub, table string) (string, error) {
	t, recs, runs, command, err := recordedTableIn(sub, table)
	if err != nil {
		return "", err
	}
	where := "results/"
	train := fmt.Sprintf("`go run ./cmd/stag %s`", command)
	if sub != "" {
		where = "results/" + filepath.ToSlash(sub) + "/"
		train = fmt.Sprintf("on a GPU machine, `bash scripts/gpu-run.sh %s` (DEVELOPERS.md, GPU sessions)", command)
	}
	title := fmt.Sprintf("Table %d — full protocol, the %d of %d runs recorded in %s", t.Number, len(recs), runs, where)
	if len(recs) == 0 {
		return fmt.Sprintf("### %s\n\nNone yet: %s trains them.\n", title, train), nil
	}
	md, err := PaperVsOurs(title, recs)
	if err != nil {
		return "", err
	}
	md += "\n" + Agreement(recs)
	if len(recs) < runs {
		md += fmt.Sprintf("\nThe other runs: %s trains them and resumes where it stopped.\n", train)
	}
	return md, nil
}

// RecordedGains is the GainsOverDeterministic table of a paper table's recorded full-protocol
// runs (RecordedRecords): whether the noise beats the deterministic GCN in ours as in the paper.
// Like RecordedPaperVsOurs it never trains.
func RecordedGains(table string) (string, error) {
	return recordedGains("", table)
}

// RecordedGainsOn is RecordedGains for the records a GPU made under results/<device>/ (e.g.
// "h200"): each row against the Deterministic row of the same card.
func RecordedGainsOn(device, table string) (string, error) {
	if err := checkDeviceFolder("RecordedGainsOn", device); err != nil {
		return "", err
	}
	return recordedGains(device, table)
}

func recordedGains(sub, table string) (string, error) {
	t, recs, _, _, err := recordedTableIn(sub, table)
	if err != nil {
		return "", err
	}
	title := fmt.Sprintf("Table %d — full protocol, each row against the Deterministic row of its dataset and depth", t.Number)
	if sub != "" {
		title += fmt.Sprintf(", records in results/%s/", filepath.ToSlash(sub))
	}
	return GainsOverDeterministic(title, recs), nil
}

// RecordedTableDifferences is the TableDifferences table of two paper tables' recorded
// full-protocol runs (RecordedRecords), each recorded cell of table against the same cell of
// base: RecordedTableDifferences("table5", "table2") asks whether one noise draw shared by all
// layers does better than a draw per layer. Like RecordedPaperVsOurs it never trains.
func RecordedTableDifferences(table, base string) (string, error) {
	t, recs, _, _, err := recordedTableIn("", table)
	if err != nil {
		return "", err
	}
	bt, baseRecs, _, _, err := recordedTableIn("", base)
	if err != nil {
		return "", err
	}
	title := fmt.Sprintf("Table %d against Table %d — full protocol, each recorded row against the same row of Table %d", t.Number, bt.Number, bt.Number)
	return TableDifferences(title, recs, baseRecs), nil
}
