package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stagnb/stagnb/datasets/smiles"
)

// stdin is the standard input of the commands; tests replace it.
var stdin io.Reader = os.Stdin

// featurizeRecord is one output line for a SMILES that could be read: the fields of the
// shared datasets' rdkit_reference.jsonl, in the same order.
type featurizeRecord struct {
	SMILES       string                        `json:"smiles"`
	NumAtoms     int                           `json:"n_atoms"`
	AtomFeatures [][smiles.NumAtomFeatures]int `json:"atom_features"`
	Edges        [][2]int                      `json:"edges"`
}

// featurizeFailure is one output line for a SMILES that could not be read, with its line number
// in the input (blank lines counted).
type featurizeFailure struct {
	SMILES string `json:"smiles"`
	Line   int    `json:"line"`
	Error  string `json:"error"`
}

// runFeaturize implements "stag featurize [FILE|-]": one SMILES per input line (blank
// lines skipped, surrounding whitespace ignored), one JSON object per output line.
func runFeaturize(args []string, in io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("featurize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: stag featurize [FILE|-]

Reads SMILES, one per line, from FILE or standard input ("-" or no argument), and writes
one JSON object per line: {"smiles","n_atoms","atom_features","edges"}, the atom features
of DGL-LifeSci's CanonicalAtomFeaturizer (74 per atom, atoms in SMILES order) and the
bonds as [begin,end] in RDKit's order, as RDKit 2022.09 computes them. A SMILES that
cannot be read gives {"smiles","line","error"}, and the exit code is 1 at the end.
`)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError(fmt.Sprintf("featurize: want at most one input file, got %q", fs.Args()))
	}
	name := "standard input"
	if fs.NArg() == 1 && fs.Arg(0) != "-" {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		in, name = f, fs.Arg(0)
	}
	out := bufio.NewWriter(stdout)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	lineNo, lines, bad, firstBad := 0, 0, 0, 0
	for sc.Scan() {
		lineNo++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		lines++
		var rec any
		m, err := smiles.MolFromSMILES(s)
		if err != nil {
			bad++
			if firstBad == 0 {
				firstBad = lineNo
			}
			rec = featurizeFailure{SMILES: s, Line: lineNo, Error: err.Error()}
		} else {
			r := featurizeRecord{
				SMILES:       s,
				NumAtoms:     m.NumAtoms(),
				AtomFeatures: make([][smiles.NumAtomFeatures]int, m.NumAtoms()),
				Edges:        make([][2]int, m.NumBonds()),
			}
			for i := range r.AtomFeatures {
				r.AtomFeatures[i] = m.AtomFeatures(i)
			}
			for k := range r.Edges {
				b := m.Bond(k)
				r.Edges[k] = [2]int{b.Begin, b.End}
			}
			rec = r
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("featurize: reading %s: %w", name, err)
	}
	if bad > 0 {
		return fmt.Errorf("featurize: %d of %d SMILES could not be read, the first at line %d of %s", bad, lines, firstBad, name)
	}
	return nil
}
