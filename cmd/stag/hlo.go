package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// hloModule is what one optimized HLO module of an XLA dump runs: the instructions of its entry
// computation, by opcode, and those of the body of each While loop the entry runs.
type hloModule struct {
	file, name string
	ops        map[string]int
	loops      []map[string]int // per While of the entry: its body's instructions, run once per turn
}

// freeOpcodes are instructions that launch nothing on a GPU: they name buffers or views.
var freeOpcodes = map[string]bool{"parameter": true, "constant": true, "get-tuple-element": true, "tuple": true, "bitcast": true}

// launched is the number of instructions in ops that run something (each fusion, custom call,
// unfused scatter or copy is a kernel or more on a GPU).
func launched(ops map[string]int) int {
	n := 0
	for op, c := range ops {
		if !freeOpcodes[op] {
			n += c
		}
	}
	return n
}

// byOpcode lists the instructions of ops that run something, the most frequent first: "fusion 23,
// scatter 4".
func byOpcode(ops map[string]int) string {
	names := make([]string, 0, len(ops))
	for op := range ops {
		if !freeOpcodes[op] {
			names = append(names, op)
		}
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(ops[b]-ops[a], strings.Compare(a, b)) })
	parts := make([]string, len(names))
	for i, op := range names {
		parts[i] = fmt.Sprintf("%s %d", op, ops[op])
	}
	return strings.Join(parts, ", ")
}

var (
	// hloInstruction matches an instruction line "  %name = shape opcode(operands), attributes" (the
	// shape may be a tuple with spaces, "(f32[], s32[2])"; the opcode is the first word before "(").
	hloInstruction = regexp.MustCompile(`^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*.*?([a-z][a-z0-9\-]*)\(`)
	// hloComputation matches the first line of a computation, "ENTRY %main.10 (…) -> … {" or
	// "%body.3 (…) -> … {", and hloWhileBody a While's "body=%name".
	hloComputation = regexp.MustCompile(`^(ENTRY\s+)?%?([\w.\-]+)\s.*\{\s*$`)
	hloWhileBody   = regexp.MustCompile(`\bbody=%?([\w.\-]+)`)
)

// parseHLOModule reads the computations of an HLO text dump (XLA's *after_optimizations.txt).
func parseHLOModule(path string, r io.Reader) (hloModule, error) {
	m := hloModule{file: path}
	comps := map[string]map[string]int{}
	var (
		current map[string]int // the computation being read, nil between computations
		entry   string
		inEntry bool     // current is the entry computation
		bodies  []string // the bodies of the entry's While instructions
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "HloModule "):
			m.name = strings.TrimSuffix(strings.Fields(text)[1], ",")
		case current == nil:
			if match := hloComputation.FindStringSubmatch(text); match != nil {
				current = map[string]int{}
				comps[match[2]] = current
				if inEntry = match[1] != ""; inEntry {
					entry = match[2]
				}
			}
		case strings.HasPrefix(text, "}"):
			current = nil
		case strings.TrimSpace(text) == "":
		default:
			match := hloInstruction.FindStringSubmatch(text)
			if match == nil {
				return m, fmt.Errorf("%s:%d: not an HLO instruction: %q", path, line, text)
			}
			current[match[1]]++
			if body := hloWhileBody.FindStringSubmatch(text); inEntry && match[1] == "while" && body != nil {
				bodies = append(bodies, body[1])
			}
		}
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	if entry == "" {
		return m, fmt.Errorf("%s: no ENTRY computation: not an HLO text dump", path)
	}
	m.ops = comps[entry]
	for _, b := range bodies {
		ops, ok := comps[b]
		if !ok {
			return m, fmt.Errorf("%s: the While body %s is not in the module", path, b)
		}
		m.loops = append(m.loops, ops)
	}
	return m, nil
}

// summarizeHLO implements "stag bench -hlo DIR": a Markdown table of the optimized HLO modules
// that XLA dumped under dir (XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text), one row per
// module with the instructions its entry computation runs on each call, the most frequent first.
func summarizeHLO(dir string, w io.Writer) error {
	var mods []hloModule
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "after_optimizations.txt") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(dir, path)
		m, err := parseHLOModule(rel, f)
		mods = append(mods, m)
		return err
	})
	if err != nil {
		return fmt.Errorf("bench -hlo: %w", err)
	}
	if len(mods) == 0 {
		return fmt.Errorf("bench -hlo: no *after_optimizations.txt under %s: XLA dumped nothing (is the backend XLA, and XLA_FLAGS=--xla_dump_to=%s --xla_dump_hlo_as_text set?)", dir, dir)
	}
	fmt.Fprintf(w, "| module | file | instructions run per call | by opcode | While bodies: instructions run per turn |\n| :-- | :-- | --: | :-- | :-- |\n")
	for _, m := range mods {
		var loops []string
		for _, ops := range m.loops {
			loops = append(loops, fmt.Sprintf("%d (%s)", launched(ops), byOpcode(ops)))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s |\n", m.name, m.file, launched(m.ops), byOpcode(m.ops), strings.Join(loops, "; "))
	}
	fmt.Fprintf(w, "\nInstructions of each module's entry computation, and of the body of each While loop it runs (once per turn), without parameters, constants, tuples and bitcasts: on a GPU each fusion, custom call (cuBLAS), unfused scatter or copy launches one kernel or more.\n")
	return nil
}
