package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/internal/stagtest"
)

// TestGPURunScript runs scripts/gpu-run.sh, the GPU machine's runner, here as it runs there: with
// binaries built beforehand (STAGNB_BIN) and no Go on PATH, on whatever backend this machine
// chooses. The all stage runs check, bench and reproduce in one call, and nothing when its budget
// is too short (exit 75): check must report the backend, pass the core tests and pack two quick
// Cora records, and stop (exit 3) where nvidia-smi lists a GPU that the backend does not use; bench
// must write its JSON lines and Markdown table. The reproduce stage must train into its own folder,
// pack it into $OUT, start the next call from the archive of the last, and exit 75 when stopped at
// its time limit; tables must run one reproduce stage per table into one folder; usage errors exit
// 2. After every stage, $OUT must hold only what the device tool brings back: at most 8 plain
// files, no folders, with plain names.
func TestGPURunScript(t *testing.T) {
	needData(t)
	if testing.Short() {
		t.Skip("builds the core tests and trains: not in -short")
	}
	for _, cmd := range []string{"bash", "timeout"} {
		if _, err := exec.LookPath(cmd); err != nil {
			t.Skipf("%s is not on PATH", cmd)
		}
	}
	root := stagtest.RepoRoot(t)
	bin := t.TempDir() // the script's bin/: the command and the core tests
	if err := os.Symlink(stagBinary(t), filepath.Join(bin, "stag")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("go", "test", "-c", "-o", filepath.Join(bin, "stagnb.test"), "../../stagnb").CombinedOutput(); err != nil {
		t.Fatalf("go test -c ../../stagnb: %v\n%s", err, out)
	}
	out := t.TempDir()
	noGo := stagtest.PathWithout("go") // the GPU machine has no Go
	runStageOn := func(pathEnv string, env []string, args ...string) (int, string) {
		cmd := exec.Command("bash", append([]string{filepath.Join(root, "scripts", "gpu-run.sh")}, args...)...)
		cmd.Dir = t.TempDir() // the script finds the checkout from its own path
		cmd.Env = append(append(os.Environ(), "PATH="+pathEnv, "GOMLX_BACKEND=",
			"STAGNB_BIN="+bin, "OUT="+out, "STAGNB_PEER_PYTHON=/nonexistent/python3"), env...)
		b, err := cmd.CombinedOutput()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("gpu-run.sh %v: %v", args, err)
		}
		return cmd.ProcessState.ExitCode(), string(b)
	}
	runStage := func(args ...string) (int, string) { return runStageOn(noGo, nil, args...) }

	// A machine whose nvidia-smi lists a GPU, but with no CUDA plugin to use it: check must stop.
	fake := t.TempDir()
	smi := "#!/bin/sh\ncase \"$1\" in\n-L) echo 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-fake)' ;;\n*) echo 'NVIDIA H100 80GB HBM3, 550.54, 81559 MiB' ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(fake, "nvidia-smi"), []byte(smi), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"check", "all"} {
		if code, log := runStageOn(fake+string(os.PathListSeparator)+noGo, nil, stage); code != 3 || !strings.Contains(log, "an NVIDIA GPU is here but the backend is not XLA") || strings.Contains(log, "stag bench") {
			t.Errorf("gpu-run.sh %s with a GPU and no plugin: exit %d, want 3 and the reason, and nothing run after check\n%s", stage, code, log)
		}
	}

	// A quick training that fails (a corrupt Cora file here; a graph that XLA cannot compile on the
	// GPU): check still runs the core tests, for what they show, then exits with the training's
	// status, not 0 or 75.
	bad := t.TempDir()
	if err := os.CopyFS(filepath.Join(bad, "cora"), os.DirFS(filepath.Join(os.Getenv(datasets.DataDirEnv), "cora"))); err != nil {
		t.Fatal(err)
	}
	allx := filepath.Join(bad, "cora", "raw", "ind.cora.allx")
	if err := os.Chmod(allx, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(allx, []byte("not the file"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The core tests that an earlier call's log shows passing are skipped (TestEdgeListValidate).
	passed := filepath.Join(t.TempDir(), "core-tests.log")
	if err := os.WriteFile(passed, []byte("=== RUN   TestEdgeListValidate\n--- PASS: TestEdgeListValidate (0.00s)\n--- FAIL: TestEnumNames (0.00s)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	qcode, qlog := runStageOn(noGo, []string{"STAGNB_DATA=" + bad, "STAGNB_CORE_TEST_RUN=^(TestEnumNames|TestEdgeListValidate)$", "STAGNB_CORE_TESTS_PASSED=" + passed}, "check")
	tests, _ := os.ReadFile(filepath.Join(out, "core-tests.log"))
	if qcode == 0 || qcode == 75 || !strings.Contains(qlog, "the quick training failed") || !strings.Contains(string(tests), "--- PASS: TestEnumNames") {
		t.Errorf("gpu-run.sh check with a failing quick training: exit %d, want its failure, after the core tests:\n%s\ncore-tests.log:\n%s", qcode, qlog, tests)
	}
	if strings.Contains(string(tests), "TestEdgeListValidate") {
		t.Errorf("gpu-run.sh check ran TestEdgeListValidate, which STAGNB_CORE_TESTS_PASSED names as passed:\n%s", tests)
	}

	// A budget too short for anything: all runs nothing and exits 75 (run again), not 124, which
	// the device tool would read as its own time-out.
	if code, log := runStageOn(noGo, []string{"STAGNB_CALL_SECONDS=1"}, "all"); code != 75 || !strings.Contains(log, "no time left for check") || strings.Contains(log, "stag backend") {
		t.Errorf("gpu-run.sh all with a 1 s budget: exit %d, want 75 and no stage run\n%s", code, log)
	}

	// The whole measurement in one call: check, bench, and reproduce with the flags given (one
	// quick run here).
	allResults := t.TempDir()
	allEnv := []string{"STAGNB_GPU_RESULTS=" + allResults, "STAGNB_BENCH_FLAGS=-methods deterministic -steps 2 -warmup 0",
		"STAGNB_CORE_TEST_RUN=TestMonteCarlo|TestEnumNames", "STAGNB_CORE_TEST_FLAGS=-test.skip TestMonteCarloSpreadFarFromZero", "STAGNB_CORE_TEST_SHARDS=2"}
	code, log := runStageOn(noGo, allEnv, "all", "-quick", "-datasets", "cora", "-configs", "deterministic", "-layers", "2")
	if code != 0 || strings.Count(log, "host: ") != 1 {
		t.Fatalf("gpu-run.sh all: exit %d, want 0, and the environment probed once\n%s", code, log)
	}
	checkReturnable(t, out)
	if packed := tarFiles(t, filepath.Join(out, "results.tar.gz")); !packed["quick/table2/cora/layers=2/deterministic/seed=1.json"] {
		t.Errorf("gpu-run.sh all: results.tar.gz lacks the reproduce record; it has %v", packed)
	}
	var backend struct{ Backend, Check, Device string }
	if b, err := os.ReadFile(filepath.Join(out, "backend.json")); err != nil || json.Unmarshal(b, &backend) != nil || backend.Check != "ok" || backend.Device == "" {
		t.Errorf("backend.json: %+v (%v); want a passed check naming the device", backend, err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "core-tests.log")); err != nil || !strings.Contains(string(b), "\nPASS\n") || strings.Contains(string(b), "--- FAIL") {
		t.Errorf("core-tests.log (%v) does not show the core tests passing:\n%s", err, b)
	} else if log := string(b); strings.Count(log, "--- PASS: TestMonteCarloReductions") != 1 || strings.Count(log, "--- PASS: TestEnumNames") != 1 ||
		strings.Count(log, "=== core tests, process ") != 2 || strings.Contains(log, "TestMonteCarloSpreadFarFromZero") || strings.Contains(log, "TestAggregateHandComputed") {
		t.Errorf("core-tests.log: want the tests that STAGNB_CORE_TEST_RUN and _FLAGS pick and only those, in two processes:\n%s", b)
	}
	quick := tarFiles(t, filepath.Join(out, "quick.tar.gz"))
	for _, c := range []string{"deterministic", "normal(1,0.8)"} {
		if name := "quick/table2/cora/layers=2/" + c + "/seed=1.json"; !quick[name] {
			t.Errorf("check stage: quick.tar.gz has no %s; it has %v", name, quick)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "env.txt")); err != nil || !strings.Contains(string(b), "python3: cannot run") {
		t.Errorf("env.txt (%v) does not say that the peer's Python cannot run:\n%s", err, b)
	}

	if !strings.Contains(log, "timing ours only") {
		t.Errorf("gpu-run.sh bench without the peer: no warning that it times ours only\n%s", log)
	}
	// The bench's lines are in bench.jsonl as each method ends: run alone, with its own flags.
	os.Remove(filepath.Join(out, "bench.jsonl"))
	if code, log := runStage("bench", "-methods", "deterministic", "-steps", "2", "-warmup", "0"); code != 0 {
		t.Errorf("gpu-run.sh bench: exit %d\n%s", code, log)
	}
	if md, err := os.ReadFile(filepath.Join(out, "bench.md")); err != nil || !strings.Contains(string(md), "| deterministic | aggregate_first | ") {
		t.Errorf("bench.md (%v) lacks the deterministic row:\n%s", err, md)
	}
	if b, err := os.ReadFile(filepath.Join(out, "bench.jsonl")); err != nil || strings.Count(string(b), "\n") != 1 {
		t.Errorf("bench.jsonl (%v): want one record:\n%s", err, b)
	} else if rec := string(b); strings.Count(rec, "-methods") != 1 || strings.Count(rec, "-steps") != 1 {
		t.Errorf("bench.jsonl: the recorded command should name -methods and -steps once each, the caller's, not the stage's defaults too:\n%s", rec)
	}

	// xla-flags, in a call of its own (a fresh $OUT): a bench of two methods under each XLA_FLAGS
	// setting, into xla-flags-N.jsonl.
	xout := t.TempDir()
	if code, log := runStageOn(noGo, []string{"OUT=" + xout, "STAGNB_BENCH_FLAGS=-steps 1 -warmup 0 -hidden 8"}, "xla-flags", "", "--xla_gpu_autotune_level=0"); code != 0 || strings.Count(log, "| stag_normal_mc |") != 2 {
		t.Errorf("gpu-run.sh xla-flags: exit %d, want 0 and a table for each of the two settings\n%s", code, log)
	}
	for _, n := range []string{"1", "2"} {
		if b, err := os.ReadFile(filepath.Join(xout, "xla-flags-"+n+".jsonl")); err != nil || strings.Count(string(b), "\n") != 2 {
			t.Errorf("xla-flags-%s.jsonl (%v): want the two methods' records:\n%s", n, err, b)
		}
	}
	checkReturnable(t, xout)

	// hlo, in a call of its own: the benches run, and with a backend that is not XLA nothing is
	// dumped, which the stage says (exit 1) instead of packing an empty archive.
	hout := t.TempDir()
	if code, log := runStageOn(noGo, []string{"OUT=" + hout, "STAGNB_BENCH_FLAGS=-steps 1 -warmup 0 -hidden 8"}, "hlo"); code != 1 || !strings.Contains(log, "XLA dumped nothing") || !strings.Contains(log, "| deterministic |") {
		t.Errorf("gpu-run.sh hlo on the pure-Go backend: exit %d, want 1, the bench table and a word that XLA dumped nothing\n%s", code, log)
	}
	if b, err := os.ReadFile(filepath.Join(hout, "hlo-bench.jsonl")); err != nil || strings.Count(string(b), "\n") < 2 {
		t.Errorf("hlo-bench.jsonl (%v): want the two methods' records:\n%s", err, b)
	}
	checkReturnable(t, hout)

	// reproduce trains into its own folder ($STAGNB_GPU_RESULTS), not the checkout's results/, whose
	// CPU records it would skip, and packs that folder into $OUT/results.tar.gz.
	gpuResults := t.TempDir()
	inGPUResults := []string{"STAGNB_GPU_RESULTS=" + gpuResults}
	rec := "quick/table2/cora/layers=2/deterministic/seed=1.json"
	if code, log := runStageOn(noGo, inGPUResults, "reproduce", "table2", "-quick", "-datasets", "cora", "-configs", "deterministic", "-layers", "2"); code != 0 {
		t.Errorf("gpu-run.sh reproduce: exit %d\n%s", code, log)
	}
	if _, err := os.Stat(filepath.Join(gpuResults, rec)); err != nil {
		t.Errorf("reproduce stage: no record in its folder: %v", err)
	}
	if packed := tarFiles(t, filepath.Join(out, "results.tar.gz")); !packed[rec] {
		t.Errorf("reproduce stage: results.tar.gz has no %s; it has %v", rec, packed)
	}
	checkReturnable(t, out)
	// The next call, on a fresh machine: no records folder, only the last call's archive carried
	// beside it, which the stage unpacks first. Stopped at its time limit (1 s: too short to train
	// anything), it exits 75 and still packs what it has: the carried record.
	fresh := filepath.Join(t.TempDir(), "gpu-results")
	archive, err := os.ReadFile(filepath.Join(out, "results.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fresh+".tar.gz", archive, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(out, "results.tar.gz"))
	stopped := []string{"STAGNB_GPU_RESULTS=" + fresh, "STAGNB_STAGE_SECONDS=1"}
	if code, log := runStageOn(noGo, stopped, "reproduce", "table2", "-quick", "-datasets", "cora", "-configs", "deterministic,normal(1,0.8)", "-layers", "2"); code != 75 || !strings.Contains(log, "stopped at the time limit") {
		t.Errorf("gpu-run.sh reproduce with a 1 s limit: exit %d, want 75 and a word on the limit\n%s", code, log)
	}
	if _, err := os.Stat(filepath.Join(fresh, rec)); err != nil {
		t.Errorf("reproduce did not unpack the carried archive into its folder: %v", err)
	}
	if packed := tarFiles(t, filepath.Join(out, "results.tar.gz")); !packed[rec] {
		t.Errorf("reproduce stopped at its limit: results.tar.gz lacks the carried record %s; it has %v", rec, packed)
	}

	// tables: the reproduce stages of its tables at the same time in one call, into one records
	// folder, packed once, so that the archive holds both tables' records; each stage's log is a file
	// of its own; the flags after -- go to every table.
	tout, tresults := t.TempDir(), t.TempDir()
	tablesEnv := []string{"OUT=" + tout, "STAGNB_GPU_RESULTS=" + tresults}
	code, log = runStageOn(noGo, tablesEnv, "tables", "table2", "table7", "--", "-quick", "-datasets", "cora", "-configs", "deterministic", "-layers", "2", "-jobs", "1")
	if code != 0 || strings.Count(log, "stag reproduce ") != 2 {
		t.Errorf("gpu-run.sh tables table2 table7: exit %d, want 0 and two reproduce stages\n%s", code, log)
	}
	packed := tarFiles(t, filepath.Join(tout, "results.tar.gz"))
	for _, name := range []string{rec, "quick/table7/cora/layers=2/deterministic/seed=1.json"} {
		if !packed[name] {
			t.Errorf("gpu-run.sh tables: results.tar.gz lacks %s; it has %v", name, packed)
		}
	}
	for _, table := range []string{"table2", "table7"} {
		if b, err := os.ReadFile(filepath.Join(tout, table+".log")); err != nil || !strings.Contains(string(b), "stag reproduce "+table) {
			t.Errorf("gpu-run.sh tables: %s.log (%v) does not hold its stage's log:\n%s", table, err, b)
		}
	}
	checkReturnable(t, tout)
	// With no time left for a table, it says so and exits 75: run again.
	if code, log := runStageOn(noGo, append(tablesEnv, "STAGNB_CALL_SECONDS=1"), "tables", "table6"); code != 75 || !strings.Contains(log, "no time left for table6") || strings.Contains(log, "stag reproduce ") {
		t.Errorf("gpu-run.sh tables with a 1 s budget: exit %d, want 75 and table6 not run\n%s", code, log)
	}

	// Only check runs the core tests: without them, the other stages run (a call may leave them
	// behind for room) and check says what is missing.
	stagOnly := t.TempDir()
	if err := os.Symlink(stagBinary(t), filepath.Join(stagOnly, "stag")); err != nil {
		t.Fatal(err)
	}
	withoutTests := append(tablesEnv, "STAGNB_BIN="+stagOnly)
	if code, log := runStageOn(noGo, withoutTests, "reproduce", "table2", "-quick", "-datasets", "cora", "-configs", "deterministic", "-layers", "2", "-dry-run"); code != 0 || !strings.Contains(log, "1 of 1 runs recorded") {
		t.Errorf("gpu-run.sh reproduce without bin/stagnb.test: exit %d, want 0 and the recorded run\n%s", code, log)
	}
	if code, log := runStageOn(noGo, withoutTests, "check"); code != 2 || !strings.Contains(log, "stagnb.test is missing") || strings.Contains(log, "stag backend") {
		t.Errorf("gpu-run.sh check without bin/stagnb.test: exit %d, want 2 and what is missing, before anything runs\n%s", code, log)
	}

	for _, args := range [][]string{{}, {"nosuch"}, {"reproduce"}, {"tables"}, {"tables", "--", "-quick"},
		{"tables", "table2", "table3", "table4", "table5", "table6", "table7", "table8"}} {
		if code, log := runStage(args...); code != 2 {
			t.Errorf("gpu-run.sh %v: exit %d, want 2\n%s", args, code, log)
		}
	}
}

// returnableName is a name the device tool brings back from $OUT: letters, digits, '.', '_', '-'.
var returnableName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// checkReturnable fails unless dir holds only what the device tool brings back whole: at most 8
// plain files with plain names, and no folders (the tool returns no tree of records).
func checkReturnable(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > 8 {
		t.Errorf("$OUT holds %d entries; the device returns at most 8 files", len(entries))
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !returnableName.MatchString(e.Name()) {
			t.Errorf("$OUT/%s (%v) would not come back from the device: only plain files with plain names do", e.Name(), e.Type())
		}
	}
}

// tarFiles lists the regular files of a .tar.gz, without a leading "./".
func tarFiles(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	names := map[string]bool{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Typeflag == tar.TypeReg {
			names[strings.TrimPrefix(h.Name, "./")] = true
		}
	}
}
