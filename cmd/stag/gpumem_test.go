package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestParseComputeApps reads nvidia-smi's per-process lines: the process's memory summed over
// GPUs, other processes and "[N/A]" ignored.
func TestParseComputeApps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		out   string
		want  float64
		found bool
	}{
		{"one GPU", "4242, 1536\n77, 900\n", 1536, true},
		{"two GPUs", "4242, 1000\n4242, 24\n", 1024, true},
		{"other processes", "77, 900\n78, 100\n", 0, false},
		{"not available", "4242, [N/A]\n", 0, false},
		{"empty", "", 0, false},
		{"no processes line", "No running processes found\n", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, found := parseComputeApps([]byte(tc.out), 4242)
			if got != tc.want || found != tc.found {
				t.Errorf("parseComputeApps(%q) = %v, %v; want %v, %v", tc.out, got, found, tc.want, tc.found)
			}
		})
	}
}

// TestParseMemoryUsed sums the GPUs' memory.used and refuses anything that is not a number.
func TestParseMemoryUsed(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want float64
		ok   bool
	}{
		{"1234\n", 1234, true},
		{"1000\n24\n", 1024, true},
		{"[N/A]\n", 0, false},
		{"", 0, false},
	} {
		if got, ok := parseMemoryUsed([]byte(tc.out)); got != tc.want || ok != tc.ok {
			t.Errorf("parseMemoryUsed(%q) = %v, %v; want %v, %v", tc.out, got, ok, tc.want, tc.ok)
		}
	}
}

// fakeNvidiaSMI writes an nvidia-smi, in plain sh (PATH may hold nothing else), that lists every
// running process with processMB of GPU memory ("[N/A]" when processMB is empty) and reports the
// GPU's memory.used as 1000 MiB at its first call and 1000 + growthMB at later ones; it returns the
// folder to put on PATH.
func fakeNvidiaSMI(t *testing.T, processMB, growthMB string) string {
	t.Helper()
	dir := t.TempDir()
	if processMB == "" {
		processMB = "[N/A]"
	}
	script := `#!/bin/sh
case "$1" in
--query-compute-apps=*)
  for p in /proc/[0-9]*; do echo "${p#/proc/}, ` + processMB + `"; done ;;
--query-gpu=*)
  state="` + filepath.Join(dir, "calls") + `"
  if [ -e "$state" ]; then echo $((1000 + ` + growthMB + `)); else : > "$state"; echo 1000; fi ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestGPUMemoryProbe runs a process under the probe with a fake nvidia-smi: the process's own
// used_memory when nvidia-smi lists it, else the growth of the GPU's memory.used; without
// nvidia-smi no probe, and the process still runs.
func TestGPUMemoryProbe(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	for _, tc := range []struct {
		name, processMB, growthMB string
		want                      float64
		source                    string
	}{
		{"process listed", "321", "500", 321, deviceMemoryProcess},
		{"process not listed", "", "500", 500, deviceMemoryDelta},
		{"nothing used", "", "0", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", fakeNvidiaSMI(t, tc.processMB, tc.growthMB))
			probe := newGPUMemoryProbe()
			if probe == nil {
				t.Fatal("no probe with nvidia-smi on PATH")
			}
			mb, source, err := probe.run(exec.Command(sleep, "0.4"))
			if err != nil || mb != tc.want || source != tc.source {
				t.Errorf("run = %v MiB, %q, %v; want %v MiB, %q", mb, source, err, tc.want, tc.source)
			}
		})
	}
	t.Run("no nvidia-smi", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		probe := newGPUMemoryProbe()
		if probe != nil {
			t.Fatalf("a probe without nvidia-smi: %+v", probe)
		}
		if _, source, err := probe.run(exec.Command(sleep, "0")); err != nil || source != "" {
			t.Errorf("nil probe: source %q, error %v; want the process run and nothing measured", source, err)
		}
	})
}
