package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/models"
)

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// stagBinary returns the path of the real command, built once per test process with go build for
// the tests that run it as a user would.
func stagBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "stag-test-bin-"); binErr != nil {
			return
		}
		if out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "stag"), ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "stag")
}

// TestMain removes the binary that stagBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// stag runs the command in-process and returns its exit code, stdout and stderr.
func stag(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// needData skips when no data directory is configured; with $STAGNB_DATA set, missing data fails.
func needData(t *testing.T) {
	t.Helper()
	if os.Getenv(datasets.DataDirEnv) == "" {
		t.Skipf("$%s is not set: no dataset directory to test with", datasets.DataDirEnv)
	}
}

func TestDataStatsPlanetoid(t *testing.T) {
	needData(t)
	for _, c := range []struct {
		name                                           string
		nodes, directed, selfLoops, features, nonzeros int
		classes                                        int
		split                                          datasets.SplitSizes
	}{
		{"cora", 2708, 10556, 0, 1433, 49216, 7, datasets.SplitSizes{Train: 140, Val: 500, Test: 1000}},
		{"citeseer", 3327, 9104, 124, 3703, 105165, 6, datasets.SplitSizes{Train: 120, Val: 500, Test: 1000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := stag(t, "data", "stats", c.name)
			if code != 0 {
				t.Fatalf("exit code %d, stderr %q", code, errOut)
			}
			var st datasets.Stats
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("stdout %q is not one JSON object: %v", out, err)
			}
			if st.NumNodes != c.nodes || st.NumDirectedEdges != c.directed || st.NumSelfLoops != c.selfLoops ||
				st.NumFeatures != c.features || st.NumFeatureNonzeros != c.nonzeros || st.NumClasses != c.classes ||
				st.SplitSizes == nil || *st.SplitSizes != c.split {
				t.Errorf("stats = %s", out)
			}
		})
	}
}

func TestDataStatsMolecules(t *testing.T) {
	needData(t)
	for _, c := range []struct {
		name             string
		molecules, atoms int
		split            datasets.SplitSizes
		meanPredictor    float64 // the records' mean_baseline_rmse (models.GraphResult) rounded
	}{
		{"esol", 1128, 14991, datasets.SplitSizes{Train: 902, Val: 113, Test: 113}, 2.3320},
		{"freesolv", 642, 5600, datasets.SplitSizes{Train: 513, Val: 65, Test: 64}, 3.5904},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := stag(t, "data", "stats", c.name)
			if code != 0 {
				t.Fatalf("exit code %d, stderr %q", code, errOut)
			}
			var st datasets.MoleculeStats
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("stdout %q is not one JSON object: %v", out, err)
			}
			if st.Dataset != c.name || st.NumMolecules != c.molecules || st.NumAtoms != c.atoms || st.SplitSizes != c.split ||
				st.NumFeatures != datasets.NumAtomFeatures || math.Abs(st.MeanPredictorTestRMSE-c.meanPredictor) > 5e-5 {
				t.Errorf("stats = %s", out)
			}
		})
	}
}

func TestDataStatsGenerated(t *testing.T) {
	code, out, errOut := stag(t, "data", "stats", "rgg", "-n", "50", "-radius", "0.2", "-seed", "3")
	if code != 0 {
		t.Fatalf("rgg: exit code %d, stderr %q", code, errOut)
	}
	var rgg struct {
		datasets.Stats
		Radius float64 `json:"radius"`
	}
	if err := json.Unmarshal([]byte(out), &rgg); err != nil || rgg.NumNodes != 50 || rgg.Radius != 0.2 ||
		rgg.NumDirectedEdges != 2*rgg.NumUndirectedEdges || rgg.NumUndirectedEdges == 0 {
		t.Errorf("rgg stats %q (err %v)", out, err)
	}
	code, out, errOut = stag(t, "data", "stats", "multisets")
	if code != 0 {
		t.Fatalf("multisets: exit code %d, stderr %q", code, errOut)
	}
	var ms datasets.MultisetStats
	if err := json.Unmarshal([]byte(out), &ms); err != nil || ms.NumMultisets != 15624 || ms.MaxSize != 24 {
		t.Errorf("multisets stats %q (err %v)", out, err)
	}
}

func TestDataStatsErrors(t *testing.T) {
	empty := t.TempDir()
	corrupt := t.TempDir()
	if src := os.Getenv(datasets.DataDirEnv); src != "" {
		files, err := datasets.PlanetoidFiles("cora")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(src, filepath.FromSlash(f.Path)))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(f.Path, ".tx") {
				b = b[:len(b)/2]
			}
			dst := filepath.Join(corrupt, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name    string
		dataDir string
		args    []string
		code    int
		stderr  string
	}{
		{"no command", "", nil, 2, "usage"},
		{"unknown command", "", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown dataset", "", []string{"data", "stats", "pubmed"}, 2, `unknown dataset "pubmed"`},
		{"bad flag", "", []string{"data", "stats", "rgg", "-n", "many"}, 2, "many"},
		{"bad rgg size", "", []string{"data", "stats", "rgg", "-n", "0"}, 1, "n=0"},
		{"missing data", empty, []string{"data", "stats", "cora"}, 1, "cora/raw/ind.cora."},
		{"corrupt data", corrupt, []string{"data", "stats", "cora"}, 1, "ind.cora.tx"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "corrupt data" && os.Getenv(datasets.DataDirEnv) == "" {
				t.Skipf("$%s is not set: no data to corrupt", datasets.DataDirEnv)
			}
			if c.dataDir != "" {
				t.Setenv(datasets.DataDirEnv, c.dataDir)
				// Keep the user cache and the network out of it.
				t.Setenv("XDG_CACHE_HOME", t.TempDir())
				t.Setenv("HOME", t.TempDir())
				t.Setenv(datasets.OfflineEnv, "1")
			}
			code, out, errOut := stag(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.stderr) || out != "" {
				t.Errorf("exit code %d (want %d), stdout %q, stderr %q (want it to mention %q)",
					code, c.code, out, errOut, c.stderr)
			}
		})
	}
}

// TestUsageErrors checks what a command-line mistake prints: the mistake once, then the usage of
// the command it concerns (printed by the flag package for a bad flag, pointed to for a bad value),
// the list of commands only when the command itself is unknown; exit code 2 in every case.
func TestUsageErrors(t *testing.T) {
	const commands = "commands:"
	for _, c := range []struct {
		args   []string
		want   []string
		absent []string
	}{
		{[]string{"reproduce", "table3", "-bogus"},
			[]string{"flag provided but not defined: -bogus", "usage: stag reproduce table3 [flags]", "-configs"},
			[]string{commands, "stag: "}},
		{[]string{"reproduce", "table3", "-datasets", "foo"},
			[]string{`stag: reproduce: -datasets: unknown dataset "foo"`, `Run "stag reproduce table3 -h" for its usage.`},
			[]string{commands, "-configs"}},
		{[]string{"reproduce", "tablex", "-datasets", "foo"},
			[]string{`unknown table "tablex"`, `Run "stag reproduce -h" for its usage.`},
			[]string{commands, "unknown dataset"}},
		{[]string{"data", "stats", "pubmed"},
			[]string{`unknown dataset "pubmed"`, `Run "stag data stats -h" for its usage.`},
			[]string{commands}},
		{[]string{"bench", "-methods", "bogus"},
			[]string{`"bogus" is no method or suite`, `Run "stag bench -h" for its usage.`},
			[]string{commands}},
		{[]string{"frobnicate"},
			[]string{`stag: unknown command "frobnicate"`, commands, "reproduce coverage [-out DIR]", "reproduce jumps <table>"},
			[]string{"Run \"stag frobnicate"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errOut := stag(t, c.args...)
			if code != 2 || out != "" {
				t.Errorf("exit code %d (want 2), stdout %q", code, out)
			}
			for _, w := range c.want {
				if n := strings.Count(errOut, w); n != 1 {
					t.Errorf("stderr says %q %d times, want once:\n%s", w, n, errOut)
				}
			}
			for _, a := range c.absent {
				if strings.Contains(errOut, a) {
					t.Errorf("stderr contains %q:\n%s", a, errOut)
				}
			}
		})
	}
}

// TestHelp checks that every command answers -h with its usage (and its flags) on stderr and
// exit code 0, runs nothing, and that a help flag before a command's required argument works too.
func TestHelp(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string // in stderr
	}{
		{[]string{"data", "-h"}, []string{"usage: stag data stats <cora|citeseer|esol|freesolv|rgg|multisets>", "-radius"}},
		{[]string{"data", "stats", "-h"}, []string{"usage: stag data stats", "-max-multiplicity"}},
		{[]string{"data", "stats", "rgg", "-help"}, []string{"usage: stag data stats", "-seed"}},
		{[]string{"backend", "-h"}, []string{"usage: stag backend"}},
		{[]string{"bench", "-h"}, []string{"usage: stag bench [flags]", "-peer", "-repeat"}},
		{[]string{"featurize", "-h"}, []string{"usage: stag featurize [FILE|-]"}},
		{[]string{"reproduce", "-h"}, []string{"usage: stag reproduce <item>", "table2", "figure4", `"stag reproduce <item> -h"`}},
		{[]string{"reproduce", "table2", "-h"}, []string{"usage: stag reproduce table2 [flags]", "-configs", "-seeds", "-dry-run", "-html"}},
		{[]string{"reproduce", "figure4", "--help"}, []string{"usage: stag reproduce figure4 [flags]", "-quick", "-plots", "-html"}},
		{[]string{"reproduce", "coverage", "-h"}, []string{"usage: stag reproduce coverage [flags]", "-out"}},
		{[]string{"reproduce", "jumps", "-h"}, []string{"usage: stag reproduce jumps <table> [flags]", "-loss-above", "-rows", "-seeds"}},
	} {
		code, out, errOut := stag(t, c.args...)
		if code != 0 || out != "" {
			t.Errorf("%q: exit code %d (want 0), stdout %q (want none)", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%q: stderr does not mention %q:\n%s", c.args, w, errOut)
			}
		}
		if strings.Contains(errOut, "stag:") {
			t.Errorf("%q: help reported as an error:\n%s", c.args, errOut)
		}
	}
}

// TestBinary builds the real command and runs it, as a user would.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := stagBinary(t)
	out, err := exec.Command(bin, "data", "stats", "multisets").Output()
	if err != nil || !strings.Contains(string(out), `"num_multisets":15624`) {
		t.Errorf("stag data stats multisets: %v, stdout %q", err, out)
	}
	cmd := exec.Command(bin, "data", "stats", "nosuch")
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 2 {
		t.Errorf("stag data stats nosuch: %v, exit code %d, want 2", err, cmd.ProcessState.ExitCode())
	}
}

// TestRecordRevision checks that a run whose records could not name their commit says so, with
// the fix, and that a run inside the checkout (test binaries carry no VCS stamp) says nothing.
func TestRecordRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	var stderr bytes.Buffer
	if rev := recordRevision("reproduce", &stderr); rev == models.UnknownRevision || stderr.Len() != 0 {
		t.Errorf("inside the checkout: %q, stderr %q; want a commit and no warning", rev, stderr.String())
	}
	outside := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(outside))
	t.Chdir(outside)
	if rev := recordRevision("reproduce", &stderr); rev != models.UnknownRevision || !strings.Contains(stderr.String(), "stag reproduce: warning") || !strings.Contains(stderr.String(), "-buildvcs=true") {
		t.Errorf("outside a checkout: %q, stderr %q; want %q and a warning naming -buildvcs=true", rev, stderr.String(), models.UnknownRevision)
	}
}
