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
// computation, by opcode.
type hloModule struct {
	file, name string
	ops        map[string]int
}

// freeOpcodes are instructions that launch nothing on a GPU: they name buffers or views.
var freeOpcodes = map[string]bool{"parameter": true, "constant": true, "get-tuple-element": true, "tuple": true, "bitcast": true}

// launched is the number of the module's entry instructions that run something (each fusion,
// custom call, unfused scatter or copy is a kernel or more on a GPU).
func (m hloModule) launched() int {
	n := 0
	for op, c := range m.ops {
		if !freeOpcodes[op] {
			n += c
		}
	}
	return n
}

// hloInstruction matches an instruction line "  %name = shape opcode(operands), attributes" (the
// shape may be a tuple with spaces, "(f32[], s32[2])"; the opcode is the first word before "(").
var hloInstruction = regexp.MustCompile(`^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*.*?([a-z][a-z0-9\-]*)\(`)

// parseHLOModule reads the entry computation of an HLO text dump (XLA's *after_optimizations.txt).
func parseHLOModule(path string, r io.Reader) (hloModule, error) {
	m := hloModule{file: path, ops: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	inEntry, sawEntry := false, false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "HloModule "):
			m.name = strings.TrimSuffix(strings.Fields(text)[1], ",")
		case strings.HasPrefix(text, "ENTRY "):
			inEntry, sawEntry = true, true
		case inEntry && strings.HasPrefix(text, "}"):
			inEntry = false
		case inEntry && strings.TrimSpace(text) == "":
		case inEntry:
			match := hloInstruction.FindStringSubmatch(text)
			if match == nil {
				return m, fmt.Errorf("%s:%d: not an HLO instruction: %q", path, line, text)
			}
			m.ops[match[1]]++
		}
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	if !sawEntry {
		return m, fmt.Errorf("%s: no ENTRY computation: not an HLO text dump", path)
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
	fmt.Fprintf(w, "| module | file | instructions run per call | by opcode |\n| :-- | :-- | --: | :-- |\n")
	for _, m := range mods {
		ops := make([]string, 0, len(m.ops))
		for op := range m.ops {
			if !freeOpcodes[op] {
				ops = append(ops, op)
			}
		}
		slices.SortFunc(ops, func(a, b string) int { return cmp.Or(m.ops[b]-m.ops[a], strings.Compare(a, b)) })
		var parts []string
		for _, op := range ops {
			parts = append(parts, fmt.Sprintf("%s %d", op, m.ops[op]))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s |\n", m.name, m.file, m.launched(), strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "\nInstructions of each module's entry computation, without parameters, constants, tuples and bitcasts: on a GPU each fusion, custom call (cuBLAS), unfused scatter or copy launches one kernel or more, once per call.\n")
	return nil
}
