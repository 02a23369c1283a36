package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb"
)

// runBench implements "stag bench": the training-step speed of a GCN on a citation dataset for
// each of models.BenchMethods, one JSON line per method. Each method runs in a child process of
// its own, so that peak_rss_mb is that method's peak resident memory.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usageFunc(fs, "stag bench [flags]\n\nTimes training steps and 32-sample Monte-Carlo inference of each method, each in a process of its own, one JSON line per method.")
	dataset := fs.String("dataset", "cora", "cora or citeseer")
	methods := fs.String("methods", "core", "comma-separated method names (of: "+methodNames()+") or suites: core (the STAG layers' speed targets), lightweight (Table 3's models), all")
	layers := fs.Int("layers", 2, "number of GCN layers")
	hidden := fs.Int("hidden", 128, "hidden width")
	steps := fs.Int("steps", 20, "timed steps (the median is reported)")
	warmup := fs.Int("warmup", 3, "untimed steps after the first")
	seed := fs.Int64("seed", 42, "random seed")
	selfLoops := fs.Bool("self-loops", false, "add self-loops (Ã = A + I); the paper's code ran without")
	child := fs.Int("child", -1, "internal: run method number N in this process")
	out := fs.String("out", "", "also write the JSON lines to this file (rewritten atomically as each method ends)")
	cpuProfile := fs.String("cpuprofile", "", "with -child: write a CPU profile of the method to this file")
	peer := fs.String("peer", "", "also time the PyTorch Geometric peer of the GCN methods with this Python (it needs torch and torch_geometric)")
	peerScript := fs.String("peer-script", filepath.Join("bench", "peer", "pyg_gcn.py"), "the peer script")
	peerDevice := fs.String("peer-device", "", "the peer's torch device (default: cuda when torch sees a GPU, else cpu)")
	peerThreads := fs.Int("peer-threads", 0, "the peer's torch CPU threads (0: torch's default)")
	markdown := fs.String("markdown", "", "also write a Markdown table of the results (ours beside the peer's) to this file (rewritten as each method ends)")
	from := fs.String("from", "", "time nothing: read the JSON lines of an earlier bench from this file and write its -markdown table")
	hlo := fs.String("hlo", "", "time nothing: write a Markdown table of the optimized HLO modules that XLA dumped under this folder (run with XLA_FLAGS=\"--xla_dump_to=DIR --xla_dump_hlo_as_text\"): what each call runs, by opcode")
	methodTimeout := fs.Duration("method-timeout", 0, "stop a method's process after this long (0: never) and go on with the others, as after any method that fails; the bench then exits with an error naming each")
	mcChunk := fs.Int("mc-chunk", 0, "draw the Monte-Carlo methods' 32 samples in calls of at most this many (the largest divisor not above it), each call's graph unrolling only those: the time of an inference is then all its calls', and its first call compiles the smaller graph (0: all in one graph)")
	repeat := fs.Int("repeat", 1, "time each method (and the peer) in this many processes, taking turns, and report the median of their medians: on a busy or noisy machine one process is weak evidence")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("bench: unexpected arguments %q", fs.Args()))
	}
	if *dataset != "cora" && *dataset != "citeseer" {
		return usageError(fmt.Sprintf("bench: -dataset %q: want cora or citeseer", *dataset))
	}
	if *layers < 1 || *hidden < 1 || *steps < 1 || *warmup < 0 || *repeat < 1 || *methodTimeout < 0 || *mcChunk < 0 {
		return usageError("bench: -layers, -hidden, -steps and -repeat must be ≥ 1, -warmup, -method-timeout and -mc-chunk ≥ 0")
	}
	if *from != "" {
		return benchTableFrom(*from, *markdown, stdout)
	}
	if *hlo != "" {
		return summarizeHLO(*hlo, stdout)
	}
	if *child >= 0 {
		if *cpuProfile != "" {
			f, err := os.Create(*cpuProfile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		return benchOne(*child, *dataset, *layers, *hidden, *warmup, *steps, *seed, *mcChunk, *selfLoops, stdout, stderr)
	}
	recordRevision("bench", stderr)
	if *peer != "" {
		if _, err := os.Stat(*peerScript); err != nil {
			return usageError(fmt.Sprintf("bench: -peer-script %s: %v (run from the repository root, or name the script)", *peerScript, err))
		}
	}
	picked, err := pickMethods(*methods)
	if err != nil {
		return usageError(err.Error())
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("bench: cannot find this program to run the methods: %w", err)
	}
	var all bytes.Buffer
	var lines [][]byte
	// Each line is written as soon as its method is done, and -out and -markdown are rewritten
	// (atomically) with all the lines so far: a bench stopped part-way keeps what it measured.
	emit := func(line []byte) error {
		all.Write(line)
		lines = append(lines, line)
		if _, err := stdout.Write(line); err != nil {
			return err
		}
		return writeBenchFiles(*out, *markdown, all.Bytes(), lines)
	}
	command := models.RecordedCommand(append([]string{"stag", "bench"}, args...)...)
	// The peer's counterpart of each picked method, where it has one.
	peerOf := make([]*peerMethod, len(picked))
	if *peer != "" {
		var skipped []string
		for k, i := range picked {
			pm, skip, err := peerMethods([]models.BenchMethod{models.BenchMethods[i]})
			if err != nil {
				return err
			}
			skipped = append(skipped, skip...)
			if len(pm) == 1 {
				peerOf[k] = &pm[0]
			}
		}
		if len(skipped) > 0 {
			fmt.Fprintf(stderr, "bench -peer: no PyTorch Geometric counterpart for %s\n", strings.Join(skipped, ", "))
		}
	}
	// The rounds take turns through the methods, ours then the peer's, so that a slow spell of the
	// machine falls on all of them alike and a bench stopped part-way keeps its pairs; each
	// method's line is written once its last run is done.
	runs := make([][][]byte, len(picked))
	peerRuns := make([][][]byte, len(picked))
	probe := newGPUMemoryProbe() // nil without an NVIDIA GPU
	var peerData string
	if slices.ContainsFunc(peerOf, func(m *peerMethod) bool { return m != nil }) {
		dir, err := os.MkdirTemp("", "stag-bench-peer-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if err := exportPeerData(dir, *dataset, *selfLoops); err != nil {
			return fmt.Errorf("bench -peer: exporting %s: %w", *dataset, err)
		}
		peerData = dir
	}
	// A method whose process fails (or outlives -method-timeout) is reported and dropped, and the
	// others go on: on a GPU machine's short call, one method's failure must not lose the rest.
	failed := make([]error, len(picked))
	for round := range *repeat {
		last := round == *repeat-1
		for k, i := range picked {
			if failed[k] != nil {
				continue
			}
			ctx, cancel := methodContext(*methodTimeout)
			cmd := exec.CommandContext(ctx, self, "bench", "-child", fmt.Sprint(i), "-dataset", *dataset,
				"-layers", fmt.Sprint(*layers), "-hidden", fmt.Sprint(*hidden), "-steps", fmt.Sprint(*steps),
				"-warmup", fmt.Sprint(*warmup), "-seed", fmt.Sprint(*seed), "-mc-chunk", fmt.Sprint(*mcChunk), fmt.Sprintf("-self-loops=%v", *selfLoops))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, stderr
			peakMB, source, err := probe.run(cmd)
			if ctx.Err() == context.DeadlineExceeded {
				err = fmt.Errorf("stopped after -method-timeout %v", *methodTimeout)
			}
			cancel()
			if err != nil {
				failed[k] = fmt.Errorf("bench: method %s (%s): %w", models.BenchMethods[i].Name, models.BenchMethods[i].FirstPlacement, err)
				fmt.Fprintf(stderr, "stag: %v; going on with the other methods\n", failed[k])
				continue
			}
			line, err := withDeviceMemory(out.Bytes(), peakMB, source)
			if err != nil {
				return fmt.Errorf("bench: method %s: %w", models.BenchMethods[i].Name, err)
			}
			runs[k] = append(runs[k], line)
			if last {
				line, err = combineRuns(runs[k])
				if err == nil {
					line, err = withCommand(line, command)
				}
				if err != nil {
					return fmt.Errorf("bench: method %s: %w", models.BenchMethods[i].Name, err)
				}
				if err := emit(line); err != nil {
					return err
				}
			}
			m := peerOf[k]
			if m == nil {
				continue
			}
			spec := peerSpec{Dataset: *dataset, Layers: *layers, Hidden: *hidden, Warmup: *warmup, Steps: *steps, Seed: *seed, Methods: []peerMethod{*m}}
			line, err = runPeer(*peer, *peerScript, *peerDevice, *peerThreads, peerData, spec, command, probe, stderr)
			if err != nil {
				return err
			}
			peerRuns[k] = append(peerRuns[k], line)
			if !last {
				continue
			}
			combined, err := combineRuns(peerRuns[k])
			if err != nil {
				return fmt.Errorf("bench -peer: method %s: %w", m.Name, err)
			}
			if err := emit(combined); err != nil {
				return err
			}
		}
	}
	return errors.Join(failed...)
}

// methodContext is the context of one method's process: done after timeout, or never when
// timeout is 0.
func methodContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout > 0 {
		return context.WithTimeout(context.Background(), timeout)
	}
	return context.WithCancel(context.Background())
}

// writeBenchFiles writes the JSON lines so far to out and their Markdown table to markdown,
// each atomically; an empty name is skipped.
func writeBenchFiles(out, markdown string, jsonLines []byte, lines [][]byte) error {
	if out != "" {
		if err := writeFileAtomic(out, jsonLines); err != nil {
			return err
		}
	}
	if markdown == "" {
		return nil
	}
	table, err := benchMarkdown(lines)
	if err != nil {
		return err
	}
	return writeFileAtomic(markdown, []byte(table))
}

// benchTableFrom implements "stag bench -from FILE": the Markdown table of the JSON lines that an
// earlier bench wrote (its -out file or its standard output), to markdown, or to stdout when
// markdown is empty. Lines that are not JSON objects (a log's other lines) are skipped; a file
// without any is an error naming it.
func benchTableFrom(from, markdown string, stdout io.Writer) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("bench -from: %w", err)
	}
	var lines [][]byte
	for n, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] != '{' {
			continue
		}
		var r benchRow
		if err := json.Unmarshal(l, &r); err != nil || r.Method == "" {
			return fmt.Errorf("bench -from: %s:%d: not a record of stag bench (%v)", from, n+1, err)
		}
		lines = append(lines, append(l, '\n'))
	}
	if len(lines) == 0 {
		return fmt.Errorf("bench -from: %s holds no JSON lines of stag bench", from)
	}
	table, err := benchMarkdown(lines)
	if err != nil {
		return err
	}
	if markdown == "" {
		_, err = io.WriteString(stdout, table)
		return err
	}
	return writeFileAtomic(markdown, []byte(table))
}

// combineRuns merges the JSON records of one method timed in several processes (ours or the
// peer's, in the order they ran): ms_per_step becomes the median of the runs' medians, which
// ms_per_step_runs lists, ms_min and ms_max the extremes over all runs, first_step_ms the median,
// the peak memories the largest, and repeats the number of runs; the other fields are the first
// run's. A single record is returned unchanged. Records of different methods are an error.
func combineRuns(lines [][]byte) ([]byte, error) {
	if len(lines) == 1 {
		return lines[0], nil
	}
	recs := make([]map[string]any, len(lines))
	for i, l := range lines {
		if err := json.Unmarshal(l, &recs[i]); err != nil {
			return nil, fmt.Errorf("reading run %d's result %q: %w", i+1, l, err)
		}
	}
	out := maps.Clone(recs[0])
	for i, r := range recs[1:] {
		for _, k := range []string{"method", "placement", "impl", "model"} {
			if fmt.Sprint(r[k]) != fmt.Sprint(out[k]) {
				return nil, fmt.Errorf("run %d has %s %v, run 1 has %v", i+2, k, r[k], out[k])
			}
		}
	}
	median := func(v []float64) float64 {
		v = slices.Sorted(slices.Values(v))
		return (v[(len(v)-1)/2] + v[len(v)/2]) / 2
	}
	for _, c := range []struct {
		key     string
		combine func([]float64) float64
	}{
		{"ms_per_step", median}, {"ms_min", slices.Min[[]float64]}, {"ms_max", slices.Max[[]float64]},
		{"first_step_ms", median}, {"peak_rss_mb", slices.Max[[]float64]}, {"peak_device_mb", slices.Max[[]float64]},
		{"torch_max_allocated_mb", slices.Max[[]float64]},
	} {
		if _, ok := out[c.key]; !ok {
			continue
		}
		vals := make([]float64, len(recs))
		for i, r := range recs {
			v, ok := r[c.key].(float64)
			if !ok {
				return nil, fmt.Errorf("run %d: %s is %v, not a number", i+1, c.key, r[c.key])
			}
			vals[i] = v
		}
		if c.key == "ms_per_step" {
			out["ms_per_step_runs"] = vals
		}
		out[c.key] = c.combine(vals)
	}
	if _, ok := out["ms_per_step_runs"]; !ok {
		return nil, fmt.Errorf("the results have no ms_per_step")
	}
	out["repeats"] = len(recs)
	b, err := json.Marshal(out)
	return append(b, '\n'), err
}

// withCommand adds the command line to a child's JSON line.
func withCommand(line []byte, command string) ([]byte, error) {
	var r models.BenchResult
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, fmt.Errorf("reading the child's result %q: %w", line, err)
	}
	r.Command = command
	b, err := json.Marshal(r)
	return append(b, '\n'), err
}

// writeFileAtomic writes data to a temporary file next to path and renames it into place, so a
// crash never leaves a half-written file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return os.Rename(tmp.Name(), path)
}

// benchOne runs method number i in this process and writes its JSON line.
func benchOne(i int, dataset string, layers, hidden, warmup, steps int, seed int64, mcChunk int, selfLoops bool, stdout, stderr io.Writer) error {
	if i >= len(models.BenchMethods) {
		return usageError(fmt.Sprintf("bench: -child %d: there are %d methods", i, len(models.BenchMethods)))
	}
	_, task, err := benchTask(dataset, selfLoops)
	if err != nil {
		return err
	}
	backend, err := stagnb.NewBackend(func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) })
	if err != nil {
		return err
	}
	defer backend.Finalize()
	method := models.BenchMethods[i]
	method.MCChunk = mcChunk
	res, err := models.Bench(backend, task, method, layers, hidden, warmup, steps, seed)
	if err != nil {
		return err
	}
	res.PeakRSSMB = peakRSSMB()
	res.Commit = models.SourceRevision()
	res.Time = time.Now().UTC().Format(time.RFC3339)
	return writeJSON(stdout, res)
}

// benchTask loads a Planetoid dataset and builds the benchmark's node task (row-normalised
// features, symmetric normalisation, self-loops only if asked).
func benchTask(dataset string, selfLoops bool) (*datasets.Planetoid, *models.NodeTask, error) {
	p, err := datasets.LoadPlanetoid(datasets.NewResolver(), dataset)
	if err != nil {
		return nil, nil, err
	}
	task, err := models.NewNodeTask(p, selfLoops, stagnb.NormBoth)
	return p, task, err
}

// peakRSSMB is this process's peak resident set size in MiB (getrusage ru_maxrss, which Linux
// reports in KiB and macOS in bytes).
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	kb := float64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		kb /= 1024
	}
	return kb / 1024
}

// methodNames lists the distinct benchmark method names.
func methodNames() string {
	var names []string
	for _, m := range models.BenchMethods {
		if !slices.Contains(names, m.Name) {
			names = append(names, m.Name)
		}
	}
	return strings.Join(names, ", ")
}

// pickMethods returns the indices in models.BenchMethods of the methods that list (the -methods
// flag) names, by name or suite ("all": every method); a name that is neither is an error.
func pickMethods(list string) ([]int, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("bench: -methods %q names none of %s", list, methodNames())
	}
	var picked []int
	for _, n := range names {
		known := false
		for i, m := range models.BenchMethods {
			if n == "all" || n == m.Suite || n == m.Name {
				known = true
				if !slices.Contains(picked, i) {
					picked = append(picked, i)
				}
			}
		}
		if !known {
			return nil, fmt.Errorf("bench: -methods %q: %q is no method or suite; the methods are %s", list, n, methodNames())
		}
	}
	slices.Sort(picked)
	return picked, nil
}
