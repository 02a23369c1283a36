package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	bin := filepath.Join(dir, "stag")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	outFile := filepath.Join(dir, "bench.jsonl")
	mdFile := filepath.Join(dir, "bench.md")
	cmd := exec.Command(bin, "bench", "-methods", "deterministic,stag_normal_mc", "-steps", "2", "-warmup", "0",
		"-hidden", "16", "-out", outFile, "-markdown", mdFile)
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
	}
	if results[1].MCSamples != 32 || results[0].MCSamples != 0 {
		t.Errorf("mc_samples %d and %d, want 0 and 32", results[0].MCSamples, results[1].MCSamples)
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
	for _, want := range []string{"| deterministic | aggregate_first | ", "| stag_normal_mc | aggregate_first | "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("-markdown table lacks a row %q:\n%s", want, md)
		}
	}
}

func TestBenchErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "-methods", "nosuch"}, `-methods "nosuch" names none of`},
		{[]string{"bench", "-dataset", "pubmed"}, `-dataset "pubmed"`},
		{[]string{"bench", "-steps", "0"}, "must be ≥ 1"},
		{[]string{"bench", "extra"}, "unexpected arguments"},
		{[]string{"bench", "-peer", "python3", "-peer-script", "no/such/peer.py"}, "-peer-script no/such/peer.py"},
	} {
		code, _, stderr := stag(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("stag %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
