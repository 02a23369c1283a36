package models

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
)

func TestNoiseForConfig(t *testing.T) {
	for config, want := range map[string]string{
		"deterministic":    "none",
		"normal(1,0.2)":    "normal(1,0.2) stag",
		"uniform(0.8,1.2)": "uniform(0.8,1.2) stag",
		"bernoulli(0.8)":   "bernoulli(0.8) stag",
		"de(0.4)":          "bernoulli(0.4) stag+shared_features+renormalize",
		"gdc(0.2)":         "bernoulli(0.2) stag+renormalize",
	} {
		n, err := NoiseForConfig(config)
		if err != nil || n.String() != want {
			t.Errorf("%s: %v (%v), want %s", config, n, err, want)
		}
	}
	for _, bad := range []string{"gamma(1,2)", "de(x)", "gdc(1.5)"} {
		if _, err := NoiseForConfig(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if got := len(Table2Specs([]string{"cora", "citeseer"}, false)); got != 2*2*16*5 {
		t.Errorf("Table 2: %d specs, want %d", got, 2*2*16*5)
	}
}

// TestReproduceResumes runs five tiny specs (citation, molecule, and STAG-VI on molecules) two at
// a time, checks their records and progress lines, runs again (nothing is trained), checks that a
// corrupt record stops the run with an error naming it, and that after a failed run no other starts.
func TestReproduceResumes(t *testing.T) {
	coraTask(t) // skips without data
	dir := t.TempDir()
	specs := []RunSpec{
		{Table: "table2", Dataset: "cora", Config: "deterministic", Layers: 2, Seed: 1, Quick: true},
		{Table: "table2", Dataset: "cora", Config: "de(0.4)", Layers: 2, Seed: 1, Quick: true},
		{Table: "figure5", Dataset: "cora", Config: "dropout(0.5)", Layers: 3, Seed: 1, Quick: true},
		{Table: "table2", Dataset: "esol", Config: "normal(1,0.2)", Layers: 2, Seed: 1, Quick: true},
		{Table: "table4", Dataset: "esol", Config: "vi:re", Layers: 2, Seed: 1, Quick: true},
	}
	tiny := func(s RunSpec) TrainConfig {
		c := ProtocolFor(s)
		c.Epochs, c.EvalEvery, c.MCSamples = 2, 1, 2
		return c
	}
	prov := Provenance{Command: "test", Commit: "abc"}
	backend := stagtest.Backend(t)
	var bars bytes.Buffer
	trained, skipped, err := Reproduce(backend, datasets.NewResolver(), specs, dir, prov, ReproduceOptions{Protocol: tiny, Progress: &bars, Jobs: 2})
	if err != nil || trained != 5 || skipped != 0 {
		t.Fatalf("first run: trained %d skipped %d, %v", trained, skipped, err)
	}
	for i := range specs {
		if n := strings.Count(bars.String(), fmt.Sprintf("[%d/5] ", i+1)); n < 2 || strings.Contains(bars.String(), "\r") {
			t.Errorf("run %d: %d progress lines (want a line per tenth and the last), or a carriage return:\n%s", i+1, n, bars.String())
		}
	}
	recs, err := ReadRecords(dir)
	if err != nil || len(recs) != 5 {
		t.Fatalf("records: %d, %v", len(recs), err)
	}
	for _, r := range recs {
		molecule := r.Spec.Dataset == "esol"
		if r.Command != "test" || r.Commit != "abc" || r.Backend == "" || r.Device == "" || r.Time == "" ||
			!strings.Contains(r.Note, "quick") || (r.Result == nil) != molecule || (r.Regression == nil) == molecule ||
			r.Protocol.Epochs != 2 || r.Model.Hidden != map[string]int{"table2": 128, "figure5": 16, "table4": 128}[r.Spec.Table] {
			t.Errorf("record %+v lacks provenance or settings", r)
		}
		if r.Spec.Table == "table2" && molecule && (r.Protocol.LearningRate != 1e-3 || r.Regression.TestRMSE <= 0 || r.Model.Noise != "normal(1,0.2) stag") {
			t.Errorf("ESOL record: protocol %+v, result %+v, model %+v", r.Protocol, r.Regression, r.Model)
		}
		if r.Spec.Table == "table4" && (r.Model.Kind != "stag_vi_graph_regressor" || !strings.Contains(r.Model.Description, "re,") || r.Protocol.LearningRate != 1e-2) {
			t.Errorf("Table 4 record: protocol %+v, model %+v", r.Protocol, r.Model)
		}
	}
	var logged strings.Builder
	logf := func(format string, args ...any) { fmt.Fprintf(&logged, format+"\n", args...) }
	trained, skipped, err = Reproduce(backend, datasets.NewResolver(), specs, dir, prov, ReproduceOptions{Protocol: tiny, Logf: logf})
	if err != nil || trained != 0 || skipped != 5 || strings.Contains(logged.String(), "another protocol") {
		t.Fatalf("second run: trained %d skipped %d, %v; want 0 and 5, and no protocol warning:\n%s", trained, skipped, err, logged.String())
	}
	// The same records under a protocol that has changed since (3 epochs, and BBGDC's vote): kept,
	// each with a line that says how the protocols differ.
	logged.Reset()
	changed := func(s RunSpec) TrainConfig {
		c := tiny(s)
		c.Epochs, c.MCVote = 3, true
		return c
	}
	trained, skipped, err = Reproduce(backend, datasets.NewResolver(), specs, dir, prov, ReproduceOptions{Protocol: changed, Logf: logf})
	if err != nil || trained != 0 || skipped != 5 {
		t.Fatalf("run under a changed protocol: trained %d skipped %d, %v; want 0 and 5", trained, skipped, err)
	}
	if n := strings.Count(logged.String(), "another protocol than this code's (epochs 2 → 3, mc_vote unset → true)"); n != 5 {
		t.Errorf("run under a changed protocol: %d warnings naming both changes, want 5:\n%s", n, logged.String())
	}
	// Retrain picks records to train again: the new record replaces the old.
	newProv := Provenance{Command: "test", Commit: "def"}
	retrain := func(r Record) bool { return r.Spec.Config == "deterministic" }
	trained, skipped, err = Reproduce(backend, datasets.NewResolver(), specs, dir, newProv, ReproduceOptions{Protocol: tiny, Retrain: retrain})
	if err != nil || trained != 1 || skipped != 4 {
		t.Fatalf("run retraining the deterministic record: trained %d skipped %d, %v; want 1 and 4", trained, skipped, err)
	}
	for i, want := range map[int]string{0: "def", 1: "abc"} {
		if r, err := ReadRecord(filepath.Join(dir, specs[i].Path())); err != nil || r.Commit != want {
			t.Errorf("record of %s after the retraining run: commit %q (%v), want %q", specs[i].Config, r.Commit, err, want)
		}
	}
	corrupt := filepath.Join(dir, specs[1].Path())
	if err := os.WriteFile(corrupt, []byte(`{"spec":`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = Reproduce(backend, datasets.NewResolver(), specs, dir, prov, ReproduceOptions{Protocol: tiny, Logf: t.Logf})
	if err == nil || !strings.Contains(err.Error(), corrupt) {
		t.Errorf("corrupt record: error %v, want one naming %s", err, corrupt)
	}
	bad := []RunSpec{
		{Table: "table2", Dataset: "cora", Config: "normal(1", Layers: 2, Seed: 1, Quick: true},
		{Table: "table2", Dataset: "cora", Config: "deterministic", Layers: 2, Seed: 9, Quick: true},
	}
	trained, _, err = Reproduce(backend, datasets.NewResolver(), bad, t.TempDir(), prov, ReproduceOptions{Protocol: tiny})
	if err == nil || !strings.Contains(err.Error(), "normal(1") || trained != 0 {
		t.Errorf("a bad config first: trained %d, error %v; want 0 and an error naming it", trained, err)
	}
}

// TestReproduceReusesTrainers checks that the seeds of a configuration, trained one after the
// other on one trainer's graphs, are recorded with the results that fresh runs give them.
func TestReproduceReusesTrainers(t *testing.T) {
	task := coraTask(t) // skips without data
	var specs []RunSpec
	for seed := int64(1); seed <= 3; seed++ {
		specs = append(specs, RunSpec{Table: "table2", Dataset: "cora", Config: "normal(1,0.8)", Layers: 2, Seed: seed, Quick: true})
	}
	for seed := int64(1); seed <= 2; seed++ {
		specs = append(specs, RunSpec{Table: "table2", Dataset: "esol", Config: "normal(1,0.2)", Layers: 2, Seed: seed, Quick: true})
	}
	tiny := func(s RunSpec) TrainConfig {
		c := ProtocolFor(s)
		c.Epochs, c.EvalEvery, c.MCSamples = 3, 2, 2
		return c
	}
	backend := stagtest.Backend(t)
	dir := t.TempDir()
	if trained, _, err := Reproduce(backend, datasets.NewResolver(), specs, dir, Provenance{}, ReproduceOptions{Protocol: tiny}); err != nil || trained != len(specs) {
		t.Fatalf("trained %d of %d: %v", trained, len(specs), err)
	}
	molecules := moleculeTask(t, "esol")
	for _, spec := range specs {
		rec, err := ReadRecord(filepath.Join(dir, spec.Path()))
		if err != nil {
			t.Fatal(err)
		}
		if IsMoleculeDataset(spec.Dataset) {
			m, err := GraphModelFor(spec)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := TrainGraphRegressor(backend, molecules, m, tiny(spec))
			if err != nil {
				t.Fatal(err)
			}
			fresh.WallSeconds, rec.Regression.WallSeconds = 0, 0
			if !reflect.DeepEqual(fresh, rec.Regression) { // the predictions too, through JSON
				t.Errorf("%s: recorded %+v, a fresh run gives %+v", spec.Path(), rec.Regression, fresh)
			}
			continue
		}
		m, err := ModelFor(spec)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := TrainNodeClassifier(backend, task, m, tiny(spec))
		if err != nil {
			t.Fatal(err)
		}
		fresh.WallSeconds, rec.Result.WallSeconds = 0, 0
		if !reflect.DeepEqual(fresh, rec.Result) {
			t.Errorf("%s: recorded %+v, a fresh run gives %+v", spec.Path(), rec.Result, fresh)
		}
	}
}

// TestReproduceRetries checks ReproduceOptions.Retries with a training that fails on purpose (its
// Inspect hook returns an error the first times it is called): a run that fails fewer times than
// it may be retried is recorded with the result of a run that never failed, one that fails more
// often is not recorded and its error is returned, an error before training is not retried, and
// each failure ends its progress bar with the error, which the retry's log line does not repeat.
func TestReproduceRetries(t *testing.T) {
	coraTask(t) // skips without data
	good := RunSpec{Table: "table2", Dataset: "cora", Config: "normal(1,0.8)", Layers: 2, Seed: 1, Quick: true}
	bad := good
	bad.Config = "normal(1"
	backend := stagtest.Backend(t)
	var clean *NodeResult
	for _, c := range []struct {
		name                  string
		spec                  RunSpec
		fails, retries, calls int // calls: how often training reaches Inspect
		failedBars            int // progress bars ended by an error
		fail                  string
	}{
		{"no failure", good, 0, 0, 1, 0, ""},
		{"one failure, one retry", good, 1, 1, 2, 1, ""},
		{"two failures, two retries", good, 2, 2, 3, 2, ""},
		{"one failure, no retry", good, 1, 0, 1, 1, "device error 1"},
		{"two failures, one retry", good, 2, 1, 2, 2, "device error 2"},
		{"a bad configuration", bad, 0, 1, 0, 1, "normal(1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			protocol := func(s RunSpec) TrainConfig {
				cfg := ProtocolFor(s)
				cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 3, 2, 2
				cfg.Inspect = func(*model.Store) error {
					calls++
					if calls <= c.fails {
						return fmt.Errorf("device error %d", calls)
					}
					return nil
				}
				return cfg
			}
			var logged, bars strings.Builder
			logf := func(format string, args ...any) { fmt.Fprintf(&logged, format+"\n", args...) }
			dir := t.TempDir()
			trained, _, err := Reproduce(backend, datasets.NewResolver(), []RunSpec{c.spec}, dir, Provenance{},
				ReproduceOptions{Protocol: protocol, Logf: logf, Progress: &bars, Retries: c.retries})
			if n := strings.Count(bars.String(), "failed after"); n != c.failedBars {
				t.Errorf("%d progress bars ended by an error, want %d:\n%s", n, c.failedBars, bars.String())
			}
			retries := min(c.fails, c.retries)
			for i := 1; i <= retries; i++ { // each error is said once: by its bar, not again by the retry's line
				if n := strings.Count(bars.String()+logged.String(), fmt.Sprintf("device error %d", i)); n != 1 {
					t.Errorf("error %d said %d times, want once:\nbars:\n%s\nlog:\n%s", i, n, bars.String(), logged.String())
				}
			}
			if calls != c.calls || strings.Count(logged.String(), "training it again") != retries {
				t.Errorf("training reached its end %d times with %d retries logged, want %d and %d:\n%s", calls,
					strings.Count(logged.String(), "training it again"), c.calls, retries, logged.String())
			}
			path := filepath.Join(dir, c.spec.Path())
			if c.fail != "" {
				if _, statErr := os.Stat(path); err == nil || !strings.Contains(err.Error(), c.fail) || trained != 0 || statErr == nil {
					t.Errorf("trained %d, error %v, record %s: %v; want none, and an error naming %q", trained, err, path, statErr, c.fail)
				}
				return
			}
			rec, readErr := ReadRecord(path)
			if err != nil || trained != 1 || readErr != nil {
				t.Fatalf("trained %d: %v; record: %v", trained, err, readErr)
			}
			rec.Result.WallSeconds = 0
			if clean == nil {
				clean = rec.Result
			} else if !reflect.DeepEqual(rec.Result, clean) {
				t.Errorf("recorded %+v after %d retries, %+v without", rec.Result, retries, clean)
			}
		})
	}
}

// TestSeedUnits checks how Reproduce groups the seeds of a configuration, and splits the groups
// when there are more jobs than groups.
func TestSeedUnits(t *testing.T) {
	grid := func(configs, seeds int) []job {
		var jobs []job
		for c := range configs {
			for s := 1; s <= seeds; s++ {
				jobs = append(jobs, job{i: len(jobs), spec: RunSpec{Table: "table2", Dataset: "cora", Config: fmt.Sprint(c), Layers: 2, Seed: int64(s)}})
			}
		}
		return jobs
	}
	for _, tc := range []struct {
		configs, seeds, jobs int
		want                 []int // the units' sizes
	}{
		{0, 0, 4, nil},
		{2, 5, 1, []int{5, 5}},
		{2, 5, 2, []int{5, 5}},
		{2, 5, 4, []int{3, 2, 3, 2}},
		{2, 5, 10, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{1, 3, 8, []int{1, 1, 1}},
		{3, 5, 2, []int{5, 5, 5}},
	} {
		units := seedUnits(grid(tc.configs, tc.seeds), tc.jobs)
		var sizes []int
		next := 0
		for _, u := range units {
			sizes = append(sizes, len(u))
			for _, j := range u {
				if j.i != next || j.spec.Config != u[0].spec.Config {
					t.Errorf("%d configs × %d seeds, %d jobs: unit %v is out of order or mixes configurations", tc.configs, tc.seeds, tc.jobs, u)
				}
				next++
			}
		}
		if !slices.Equal(sizes, tc.want) {
			t.Errorf("%d configs × %d seeds, %d jobs: units of %v, want %v", tc.configs, tc.seeds, tc.jobs, sizes, tc.want)
		}
	}
}

// TestRunSpecPaths checks the record paths of every table's full and quick grids: each spec has
// its own file, and no path holds a character that Windows refuses in a file name (a clone of the
// committed records must check out there), so that "vi:rc" is stored under "vi-rc".
func TestRunSpecPaths(t *testing.T) {
	cites, mols := []string{"cora", "citeseer"}, []string{"esol", "freesolv"}
	var specs []RunSpec
	for _, quick := range []bool{false, true} {
		specs = slices.Concat(specs, Table2Specs(slices.Concat(cites, mols), quick), Table3Specs(cites, quick),
			Table4Specs(mols, quick), Table5Specs(cites, quick), GNNSpecs("table6", cites, quick),
			GNNSpecs("table7", cites, quick), Table8Specs(cites, quick), Figure5Specs(cites, quick))
	}
	seen := map[string]RunSpec{}
	for _, s := range specs {
		p := filepath.ToSlash(s.Path())
		if i := strings.IndexAny(p, `<>:"\|?*`); i >= 0 {
			t.Errorf("%+v: path %q holds %q", s, p, p[i])
		}
		if other, ok := seen[p]; ok {
			t.Errorf("%+v and %+v share the path %q", s, other, p)
		}
		seen[p] = s
	}
	if got, want := (RunSpec{Table: "table3", Dataset: "cora", Config: "vi:rc", Layers: 2, Seed: 1}).Path(),
		filepath.Join("table3", "cora", "layers=2", "vi-rc", "seed=1.json"); got != want {
		t.Errorf("vi:rc: path %q, want %q", got, want)
	}
	if len(seen) < 1000 {
		t.Errorf("only %d specs: the grids are incomplete", len(seen))
	}
}

// TestRecordFile checks that a record stored under the config's raw name by an earlier version
// ("vi:rc") is moved to Path's file ("vi-rc") and found there, that an existing record at Path is
// never overwritten by an old one, and that Reproduce skips a run whose record it moved.
func TestRecordFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows refuses the old names, so no such record exists there")
	}
	vi := RunSpec{Table: "table3", Dataset: "cora", Config: "vi:rc", Layers: 2, Seed: 1}
	for _, tc := range []struct {
		name            string
		spec            RunSpec
		legacy, current bool // which files exist before the call
		wantMoved       bool
	}{
		{"old name only", vi, true, false, true},
		{"both: the current one is kept", vi, true, true, false},
		{"current name only", vi, false, true, false},
		{"none", vi, false, false, false},
		{"a config without refused characters", RunSpec{Table: "table2", Dataset: "cora", Config: "normal(1,0.8)", Layers: 2, Seed: 3}, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			legacy, current := filepath.Join(dir, tc.spec.pathIn(tc.spec.Config)), filepath.Join(dir, tc.spec.Path())
			write := func(path, text string) {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.current {
				write(current, "current")
			}
			if tc.legacy {
				write(legacy, "legacy")
			}
			got, err := RecordFile(dir, tc.spec)
			if err != nil || got != current {
				t.Fatalf("RecordFile: %q, %v; want %q", got, err, current)
			}
			b, err := os.ReadFile(current)
			switch {
			case tc.wantMoved:
				if string(b) != "legacy" {
					t.Errorf("%s holds %q, %v; want the moved record", current, b, err)
				}
				if _, err := os.Stat(filepath.Dir(legacy)); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the empty old folder %s remains (%v)", filepath.Dir(legacy), err)
				}
			case tc.current && string(b) != "current":
				t.Errorf("%s holds %q, %v; want it untouched", current, b, err)
			case !tc.current && err == nil:
				t.Errorf("%s was created from nothing", current)
			}
			if tc.legacy && !tc.wantMoved {
				if b, err := os.ReadFile(legacy); string(b) != "legacy" {
					t.Errorf("the old record %s was touched: %q, %v", legacy, b, err)
				}
			}
		})
	}

	t.Run("Reproduce skips a moved record", func(t *testing.T) {
		dir := t.TempDir()
		legacy := filepath.Join(dir, vi.pathIn(vi.Config))
		if err := writeRecord(legacy, Record{Spec: vi, Result: &NodeResult{TestAcc: 0.8}}); err != nil {
			t.Fatal(err)
		}
		coraTask(t) // skips without data: if the record were not found, this would train Cora
		// The counts below tell whether it trained: Reproduce also asks the protocol of a skipped record.
		tiny := func(s RunSpec) TrainConfig {
			c := ProtocolFor(s)
			c.Epochs, c.EvalEvery, c.MCSamples = 1, 1, 1
			return c
		}
		trained, skipped, err := Reproduce(stagtest.Backend(t), datasets.NewResolver(), []RunSpec{vi}, dir, Provenance{}, ReproduceOptions{Protocol: tiny})
		if err != nil || trained != 0 || skipped != 1 {
			t.Fatalf("trained %d, skipped %d, %v; want 0, 1", trained, skipped, err)
		}
		if r, err := ReadRecord(filepath.Join(dir, vi.Path())); err != nil || r.Result.TestAcc != 0.8 {
			t.Errorf("the moved record: %+v, %v", r.Result, err)
		}
	})
}

func TestFigure5Specs(t *testing.T) {
	if got := len(Figure5Specs([]string{"cora", "citeseer"}, false)); got != 2*7*2*5 {
		t.Errorf("Figure 5: %d specs, want %d", got, 2*7*2*5)
	}
	spec := RunSpec{Table: "figure5", Dataset: "cora", Config: "dropout(0.5)", Layers: 6, Seed: 3}
	m, err := GCNFor(spec)
	if err != nil || m.Dropout != 0.5 || m.Noise != nil || m.Hidden != 16 || m.Layers != 6 {
		t.Errorf("dropout(0.5): %+v, %v", m, err)
	}
	spec.Config = "normal(1,1)"
	if m, err = GCNFor(spec); err != nil || m.Dropout != 0 || m.Noise.String() != "normal(1,1) stag" || m.Hidden != 16 {
		t.Errorf("normal(1,1): %+v, %v", m, err)
	}
	cfg := ProtocolFor(spec)
	if cfg.LearningRate != 1e-2 || cfg.WeightDecayFirst != 5e-4 || cfg.Epochs != 400 || !cfg.SelectFinal || cfg.Seed != 3 {
		t.Errorf("Figure 5 protocol %+v", cfg)
	}
	if _, err := ModelFor(RunSpec{Table: "figure5", Config: "dropout(1.5)"}); err == nil {
		t.Errorf("dropout(1.5): no error")
	}
}

// TestTable3Specs checks the STAG-VI grid of Table 3 and that each row builds the variational
// GCN with its Table 9 hyperparameters and the VI protocol.
func TestTable3Specs(t *testing.T) {
	if got := len(Table3Specs([]string{"cora", "citeseer"}, false)); got != 2*5*4 {
		t.Errorf("Table 3: %d specs, want %d (2 datasets × (4 posteriors + BBGDC) × 4 seeds)", got, 2*5*4)
	}
	quick := Table3Specs([]string{"cora"}, true)
	if len(quick) != 4 || quick[2].Config != "vi:re" || quick[3].Config != "bbgdc" || !quick[0].Quick {
		t.Errorf("quick Table 3 specs %+v: want r, rc, re and bbgdc with seed 1", quick)
	}
	if m, err := ModelFor(RunSpec{Table: "table3", Dataset: "cora", Config: "bbgdc", Layers: 2}); err != nil || m.(*BBGDC).Layers != 2 {
		t.Errorf("bbgdc: %v, %v", m, err)
	}
	if cfg := ProtocolFor(RunSpec{Table: "table3", Config: "bbgdc", Quick: true, Seed: 2}); cfg.LearningRate != BBGDCTrainConfig().LearningRate || cfg.Epochs != QuickTrainConfig().Epochs || cfg.Seed != 2 {
		t.Errorf("quick BBGDC protocol %+v", cfg)
	}
	t8 := Table8Specs([]string{"cora", "citeseer"}, false)
	if len(t8) != 30 || t8[0].Config != "bbb" || t8[5].Config != "bbb(10)" || t8[10].Config != "bbb(100)" || t8[15].Dataset != "citeseer" {
		t.Errorf("Table 8 specs %+v: want bbb, bbb(10), bbb(100) × 5 seeds × 2 datasets", t8)
	}
	if q := Table8Specs([]string{"cora"}, true); len(q) != 1 || q[0].Config != "bbb" || q[0].Seed != 1 {
		t.Errorf("quick Table 8 specs %+v: want bbb, seed 1", q)
	}
	for _, tc := range []struct {
		config string
		prior  float64
	}{{"bbb", 1}, {"bbb(10)", 10}, {"bbb(100)", 100}, {"bbb(0.5)", 0.5}} {
		m, err := ModelFor(RunSpec{Table: "table8", Dataset: "cora", Config: tc.config, Layers: 2})
		if err != nil || m.(*BBB).Layers != 2 || m.(*BBB).PriorSigma != tc.prior {
			t.Errorf("%s: %v, %v; want a 2-layer BBB with prior σ %g", tc.config, m, err, tc.prior)
		}
	}
	for _, bad := range []string{"bbb(0)", "bbb(-1)", "bbb(x)", "bbb(1", "bbbb", "bbb(inf)"} {
		if _, err := ModelFor(RunSpec{Table: "table8", Dataset: "cora", Config: bad, Layers: 2}); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("config %q: got %v, want an error naming it", bad, err)
		}
	}
	if cfg, want := ProtocolFor(t8[0]), BBBTrainConfig(); cfg.LearningRate != want.LearningRate || cfg.Epochs != want.Epochs || cfg.MCSamples != want.MCSamples {
		t.Errorf("Table 8 protocol %+v, want BBBTrainConfig", cfg)
	}
	spec := RunSpec{Table: "table3", Dataset: "citeseer", Config: "vi:rec", Layers: 2, Seed: 4}
	m, err := ModelFor(spec)
	if err != nil {
		t.Fatal(err)
	}
	vi, ok := m.(*VIGCN)
	want, _ := VIHyperparameters("citeseer", PosteriorREC)
	if !ok || vi.Posterior != PosteriorREC || vi.Objective != VILegacy || vi.Hyper != want || vi.Layers != 2 {
		t.Errorf("vi:rec on citeseer: %+v, want R^|E|×C, legacy, %+v", m, want)
	}
	if cfg := ProtocolFor(spec); cfg.LearningRate != 1e-3 || cfg.WeightDecayFirst != 0 || cfg.Epochs != 3000 || cfg.Seed != 4 {
		t.Errorf("Table 3 protocol %+v", cfg)
	}
	for _, bad := range []string{"rc", "vi:xyz"} {
		if _, err := ModelFor(RunSpec{Table: "table3", Dataset: "cora", Config: bad, Layers: 2}); err == nil {
			t.Errorf("config %q: no error", bad)
		}
	}
}

// TestGNNSpecs checks the GraphSAGE and GIN grids of Tables 6 and 7 and their models.
func TestGNNSpecs(t *testing.T) {
	specs := GNNSpecs("table7", []string{"cora", "citeseer"}, false)
	if len(specs) != 2*2*10*5 || len(GNNConfigs) != 10 || GNNConfigs[9] != "bernoulli(0.8)" {
		t.Fatalf("Table 7: %d specs (rows %q), want 2 datasets × 2 depths × 10 rows × 5 seeds", len(specs), GNNConfigs)
	}
	m, err := ModelFor(RunSpec{Table: "table6", Dataset: "cora", Config: "normal(1,0.8)", Layers: 4})
	if sage, ok := m.(*SAGE); err != nil || !ok || sage.Layers != 4 || sage.Noise.String() != "normal(1,0.8) stag" {
		t.Errorf("table6 normal(1,0.8): %+v, %v", m, err)
	}
	m, err = ModelFor(RunSpec{Table: "table7", Dataset: "citeseer", Config: "deterministic", Layers: 2})
	if gin, ok := m.(*GIN); err != nil || !ok || gin.Noise != nil || !gin.TwoLinearApply {
		t.Errorf("table7 citeseer deterministic: %+v, %v; want the two-Linear GIN without noise", m, err)
	}
	if _, err := ModelFor(RunSpec{Table: "table6", Dataset: "cora", Config: "gamma(1)", Layers: 2}); err == nil {
		t.Error("table6 gamma(1): no error")
	}
}

// TestTable5 checks Table 5's grid and that its noise is drawn once for all layers, and trains a
// tiny run of the shared-noise GCN (the first layer's 128 channels serve the 7-wide last layer).
func TestTable5(t *testing.T) {
	if got := len(Table5Specs([]string{"cora", "citeseer"}, false)); got != 2*2*9*5 {
		t.Errorf("Table 5: %d specs, want %d", got, 2*2*9*5)
	}
	m, err := ModelFor(RunSpec{Table: "table5", Dataset: "cora", Config: "uniform(0.6,1.4)", Layers: 4})
	gcn, ok := m.(*GCN)
	if err != nil || !ok || gcn.Noise.Structure.Layers != stagnb.SharedLayers || gcn.Noise.Structure.Features != stagnb.PerFeature {
		t.Fatalf("table5 uniform(0.6,1.4): %+v, %v", m, err)
	}
	if _, err := ModelFor(RunSpec{Table: "table5", Config: "deterministic", Layers: 2}); err == nil {
		t.Error("table5 deterministic: no error")
	}
	task := coraTask(t)
	cfg := QuickTrainConfig()
	cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 3, 3, 2
	if _, err := TrainNodeClassifier(stagtest.Backend(t), task, gcn, cfg); err != nil {
		t.Fatalf("training the shared-noise GCN: %v", err)
	}
}

// TestTable5AgainstTable2 trains Table 2's and Table 5's models side by side on toy data with the
// same seed: with Bernoulli noise, which perturbs every layer, the shared draw must change the
// run; with Normal noise, which the paper-era code (NormalMinChannels) leaves off the narrow last
// layer, two layers have nothing to share and the two runs must be the same, bit for bit, while
// four layers share one draw among the first three and must differ.
func TestTable5AgainstTable2(t *testing.T) {
	backend := stagtest.Backend(t)
	task := toyWideTask(t)
	for _, tc := range []struct {
		config string
		layers int
		same   bool
	}{
		{"normal(1,0.8)", 2, true},
		{"bernoulli(0.4)", 2, false},
		{"normal(1,0.8)", 4, false},
	} {
		t.Run(fmt.Sprintf("%s/layers=%d", tc.config, tc.layers), func(t *testing.T) {
			losses := map[string]float64{}
			for _, table := range []string{"table2", "table5"} {
				spec := RunSpec{Table: table, Dataset: "cora", Config: tc.config, Layers: tc.layers, Seed: 3}
				m, err := ModelFor(spec)
				if err != nil {
					t.Fatal(err)
				}
				cfg := DefaultTrainConfig()
				cfg.Epochs, cfg.EvalEvery, cfg.MCSamples, cfg.Seed = 4, 4, 2, spec.Seed
				res, err := TrainNodeClassifier(backend, task, m, cfg)
				if err != nil {
					t.Fatal(err)
				}
				losses[table] = res.FinalLoss
			}
			if same := losses["table2"] == losses["table5"]; same != tc.same {
				t.Errorf("final loss %v (one draw per layer) and %v (one draw for all layers): same = %v, want %v",
					losses["table2"], losses["table5"], same, tc.same)
			}
		})
	}
}
