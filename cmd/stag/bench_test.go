package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/models"
)

// TestBench builds the command and runs a short benchmark on Cora (a small hidden layer and two
// steps, to stay quick): one JSON line per method, with the fields the issue asks for and
// provenance, also written to the -out file.
func TestBench(t *testing.T) {
	needData(t)
	if testing.Short() {
		t.Skip("builds the binary and trains")
	}
	dir := t.TempDir()
	bin := stagBinary(t)
	outFile := filepath.Join(dir, "bench.jsonl")
	mdFile := filepath.Join(dir, "bench.md")
	cmd := exec.Command(bin, "bench", "-methods", "deterministic,stag_normal_mc", "-steps", "2", "-warmup", "0",
		"-hidden", "16", "-repeat", "2", "-mc-chunk", "8", "-out", outFile, "-markdown", mdFile)
	// A fake nvidia-smi that lists every process with 321 MiB of GPU memory (and no GPU for
	// `nvidia-smi -L`, so the backend stays the pure-Go one): the records carry what it measured.
	cmd.Env = append(os.Environ(), "PATH="+fakeNvidiaSMI(t, "321", "0")+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("stag bench: %v\n%s", err, stderr.String())
	}
	var results []models.BenchResult
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
	for sc.Scan() {
		var r models.BenchResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	if len(results) != 2 || results[0].Method != "deterministic" || results[1].Method != "stag_normal_mc" {
		t.Fatalf("got %d results %+v, want deterministic then stag_normal_mc", len(results), results)
	}
	for _, r := range results {
		t.Logf("%s %s: %.1f ms/step, %.0f MB, %s on %s", r.Method, r.Placement, r.MSPerStep, r.PeakRSSMB, r.Backend, r.Device)
		if r.Placement == "" || r.Backend == "" || r.Device == "" || r.MSPerStep <= 0 || r.PeakRSSMB <= 0 {
			t.Errorf("%s: missing fields in %+v", r.Method, r)
		}
		if r.Dataset != "cora" || r.Nodes != 2708 || r.Edges != 10556 || r.Hidden != 16 || r.Steps != 2 {
			t.Errorf("%s: wrong setting in %+v", r.Method, r)
		}
		if !strings.Contains(r.Command, "bench -methods") || r.Commit == "" || r.Time == "" {
			t.Errorf("%s: provenance missing: command %q commit %q time %q", r.Method, r.Command, r.Commit, r.Time)
		}
		if r.PeakDeviceMB != 321 || r.DeviceMemory != deviceMemoryProcess || r.Backend != "go" {
			t.Errorf("%s: device memory %v MiB (%q) on backend %s; want the fake nvidia-smi's 321 MiB per process on go",
				r.Method, r.PeakDeviceMB, r.DeviceMemory, r.Backend)
		}
		// Two processes: the reported time is the mean of their two medians (the median of two),
		// within the extremes of all their steps.
		if r.Repeats != 2 || len(r.MSPerStepRuns) != 2 {
			t.Errorf("%s: repeats %d, runs %v, want 2 of each", r.Method, r.Repeats, r.MSPerStepRuns)
		} else if want := (r.MSPerStepRuns[0] + r.MSPerStepRuns[1]) / 2; math.Abs(r.MSPerStep-want) > 1e-9*want ||
			r.MSMin > min(r.MSPerStepRuns[0], r.MSPerStepRuns[1]) || r.MSMax < max(r.MSPerStepRuns[0], r.MSPerStepRuns[1]) {
			t.Errorf("%s: ms_per_step %g, min %g, max %g for runs %v", r.Method, r.MSPerStep, r.MSMin, r.MSMax, r.MSPerStepRuns)
		}
	}
	// -mc-chunk 8: the inference's 32 samples in four calls; no training step is split.
	if results[1].MCSamples != 32 || results[0].MCSamples != 0 || results[1].MCCalls != 4 || results[0].MCCalls != 0 {
		t.Errorf("mc_samples %d and %d in %d and %d calls, want 0 and 32 in 0 and 4", results[0].MCSamples, results[1].MCSamples,
			results[0].MCCalls, results[1].MCCalls)
	}
	if results[0].FinalLoss <= 0 {
		t.Errorf("deterministic final loss %g, want > 0", results[0].FinalLoss)
	}
	if saved, err := os.ReadFile(outFile); err != nil || !bytes.Equal(saved, stdout.Bytes()) {
		t.Errorf("-out file differs from stdout (%v)", err)
	}
	md, err := os.ReadFile(mdFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| deterministic | aggregate_first | ", "| stag_normal_mc (ours in 4 calls) | aggregate_first | "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("-markdown table lacks a row %q:\n%s", want, md)
		}
	}
}

// TestBenchGoesOnAfterAFailure checks that a method whose process fails, here by outliving
// -method-timeout, is reported and the next method still runs: the bench names both failures and
// exits with an error.
func TestBenchGoesOnAfterAFailure(t *testing.T) {
	needData(t)
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out := filepath.Join(t.TempDir(), "bench.jsonl")
	cmd := exec.Command(stagBinary(t), "bench", "-methods", "deterministic,stag_normal", "-steps", "1", "-warmup", "0",
		"-hidden", "8", "-method-timeout", "1ms", "-out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("stag bench with every method stopped: exit %d (%v), want 1", code, err)
	}
	for _, m := range []string{"deterministic", "stag_normal"} {
		if want := "method " + m + " (aggregate_first): stopped after -method-timeout 1ms; going on with the other methods"; !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-out %s: %v; want no file, as no method finished", out, err)
	}
}

func TestBenchErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "-methods", "nosuch"}, `-methods "nosuch": "nosuch" is no method or suite`},
		{[]string{"bench", "-methods", "deterministic,stag"}, `-methods "deterministic,stag": "stag" is no method or suite; the methods are deterministic, stag_normal,`},
		{[]string{"bench", "-methods", " , "}, `-methods " , " names none of`},
		{[]string{"bench", "-dataset", "pubmed"}, `-dataset "pubmed"`},
		{[]string{"bench", "-steps", "0"}, "must be ≥ 1"},
		{[]string{"bench", "-repeat", "0"}, "must be ≥ 1"},
		{[]string{"bench", "-method-timeout", "-1s"}, "-method-timeout and -mc-chunk ≥ 0"},
		{[]string{"bench", "-mc-chunk", "-1"}, "-mc-chunk ≥ 0"},
		{[]string{"bench", "extra"}, "unexpected arguments"},
		{[]string{"bench", "-peer", "python3", "-peer-script", "no/such/peer.py"}, "-peer-script no/such/peer.py"},
	} {
		code, _, stderr := stag(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("stag %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestPickMethods selects bench methods by name and suite: each once, in models.BenchMethods'
// order, whatever the order and repetitions of the list.
func TestPickMethods(t *testing.T) {
	names := func(idx []int) string {
		var n []string
		for _, i := range idx {
			n = append(n, models.BenchMethods[i].Name+"/"+models.BenchMethods[i].FirstPlacement.String())
		}
		return strings.Join(n, ",")
	}
	all, err := pickMethods("all")
	if err != nil || len(all) != len(models.BenchMethods) {
		t.Fatalf("pickMethods(all) = %v, %v; want all %d methods", all, err, len(models.BenchMethods))
	}
	core, err := pickMethods("core")
	if err != nil || len(core) == 0 {
		t.Fatalf("pickMethods(core) = %v, %v", core, err)
	}
	for _, i := range core {
		if models.BenchMethods[i].Suite != "core" {
			t.Errorf("pickMethods(core) picked %s of suite %q", models.BenchMethods[i].Name, models.BenchMethods[i].Suite)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"stag_normal,deterministic", "deterministic, stag_normal"},
		{"core,deterministic", "core"},
		{"bbb,core,bbb", "core,bbb"},
	} {
		a, errA := pickMethods(tc.a)
		b, errB := pickMethods(tc.b)
		if errA != nil || errB != nil || names(a) != names(b) || !slices.IsSorted(a) {
			t.Errorf("pickMethods(%q) = %s (%v), pickMethods(%q) = %s (%v); want the same methods in order",
				tc.a, names(a), errA, tc.b, names(b), errB)
		}
	}
}

// TestCombineRuns merges one method's records from several processes: the median of the runs'
// medians (the mean of the middle two for an even count), the extremes of their steps, the largest
// memory, the runs listed in order; one run stays as it was; runs of different methods, or without
// a time, are errors.
func TestCombineRuns(t *testing.T) {
	rec := func(ms, lo, hi, first, rss float64) string {
		return fmt.Sprintf(`{"method":"stag_normal","placement":"aggregate_first","ms_per_step":%g,"ms_min":%g,"ms_max":%g,"first_step_ms":%g,"peak_rss_mb":%g,"seed":42}`, ms, lo, hi, first, rss)
	}
	for _, tc := range []struct {
		name                   string
		runs                   []string
		ms, lo, hi, first, rss float64
		runsWant               []float64
		wantErr                string
	}{
		{name: "three", runs: []string{rec(90, 80, 120, 300, 120), rec(70, 66, 75, 280, 130), rec(85, 81, 99, 310, 125)},
			ms: 85, lo: 66, hi: 120, first: 300, rss: 130, runsWant: []float64{90, 70, 85}},
		{name: "two", runs: []string{rec(90, 80, 120, 300, 120), rec(70, 66, 75, 280, 130)},
			ms: 80, lo: 66, hi: 120, first: 290, rss: 130, runsWant: []float64{90, 70}},
		{name: "other method", runs: []string{rec(90, 80, 120, 300, 120), strings.Replace(rec(70, 66, 75, 280, 130), "aggregate_first", "transform_first", 1)},
			wantErr: "run 2 has placement transform_first"},
		{name: "no time", runs: []string{`{"method":"a"}`, `{"method":"a"}`}, wantErr: "no ms_per_step"},
		{name: "not a number", runs: []string{rec(90, 80, 120, 300, 120), `{"method":"stag_normal","placement":"aggregate_first","ms_per_step":"fast"}`},
			wantErr: "run 2: ms_per_step is fast"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := make([][]byte, len(tc.runs))
			for i, r := range tc.runs {
				lines[i] = []byte(r)
			}
			out, err := combineRuns(lines)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var r models.BenchResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			if r.MSPerStep != tc.ms || r.MSMin != tc.lo || r.MSMax != tc.hi || r.FirstStepMS != tc.first || r.PeakRSSMB != tc.rss ||
				r.Repeats != len(tc.runs) || !slices.Equal(r.MSPerStepRuns, tc.runsWant) || r.Seed != 42 || r.Method != "stag_normal" {
				t.Errorf("combined %s", out)
			}
		})
	}
	one := []byte(rec(90, 80, 120, 300, 120))
	if out, err := combineRuns([][]byte{one}); err != nil || !bytes.Equal(out, one) {
		t.Errorf("one run became %s (%v)", out, err)
	}
}

// TestBenchFrom renders the committed bench records with `stag bench -from`: each Markdown table
// under results/bench/ must be what -from makes of the JSON lines beside it (the tables are made by
// the code, not typed), and bad files are refused by name and line.
func TestBenchFrom(t *testing.T) {
	mds, err := filepath.Glob(filepath.Join("..", "..", "results", "bench", "*.md"))
	if err != nil || len(mds) == 0 {
		t.Fatalf("no Markdown tables under results/bench (%v)", err)
	}
	for _, md := range mds {
		var stdout, stderr bytes.Buffer
		if err := runBench([]string{"-from", strings.TrimSuffix(md, ".md") + ".jsonl"}, &stdout, &stderr); err != nil {
			t.Errorf("stag bench -from for %s: %v", md, err)
			continue
		}
		want, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		if stdout.String() != string(want) {
			t.Errorf("%s is not what stag bench -from makes of its JSON lines:\n%s", md, stdout.String())
		}
	}

	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"method":"deterministic","placement":"dgl","backend":"go","device":"CPU","params":7,"ms_per_step":2}`
	for _, tc := range []struct{ name, text, want string }{
		{"log.txt", "stagnb: backend go\n" + good + "\n[gpu-run] done\n", "| deterministic | dgl | 7 | 2.00 |"},
		{"empty.jsonl", "stagnb: backend go\n", "empty.jsonl holds no JSON lines"},
		{"bad.jsonl", good + "\n{\"method\": 3}\n", "bad.jsonl:2: not a record"},
		{"other.jsonl", `{"table":"table2"}` + "\n", "other.jsonl:1: not a record"},
	} {
		var stdout, stderr bytes.Buffer
		err := runBench([]string{"-from", write(tc.name, tc.text)}, &stdout, &stderr)
		got := stdout.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("bench -from %s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	if err := runBench([]string{"-from", filepath.Join(dir, "missing.jsonl")}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("bench -from a missing file: %v, want an error naming it", err)
	}
}
