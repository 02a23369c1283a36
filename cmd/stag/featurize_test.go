package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/datasets"
)

// withStdin makes the commands read s as standard input for the rest of the test.
func withStdin(t *testing.T, s string) {
	t.Helper()
	old := stdin
	stdin = strings.NewReader(s)
	t.Cleanup(func() { stdin = old })
}

// featurizeLine is one output line, either kind.
type featurizeLine struct {
	SMILES       string   `json:"smiles"`
	NumAtoms     int      `json:"n_atoms"`
	AtomFeatures [][]int  `json:"atom_features"`
	Edges        [][2]int `json:"edges"`
	Line         int      `json:"line"`
	Error        string   `json:"error"`
}

// decodeLines decodes every stdout line, checking the key order of each.
func decodeLines(t *testing.T, out string) []featurizeLine {
	t.Helper()
	var res []featurizeLine
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var l featurizeLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		var keys []string
		dec := json.NewDecoder(strings.NewReader(line))
		dec.Token() // {
		for dec.More() {
			k, _ := dec.Token()
			keys = append(keys, k.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		want := "smiles n_atoms atom_features edges"
		if l.Error != "" {
			want = "smiles line error"
		}
		if got := strings.Join(keys, " "); got != want {
			t.Errorf("keys of %q = %s, want %s", line, got, want)
		}
		res = append(res, l)
	}
	return res
}

func TestFeaturize(t *testing.T) {
	withStdin(t, "CCO\r\n\n  c1ccccc1N(=O)=O  \r\nC1CC\nC\nCC(C)(C)(C)(C)C\n")
	code, out, errOut := stag(t, "featurize")
	if code != 1 || !strings.Contains(errOut, "featurize: 2 of 5 SMILES could not be read, the first at line 4 of standard input") {
		t.Errorf("exit code %d, stderr %q; want 1, a count of the failures and the first one's line", code, errOut)
	}
	lines := decodeLines(t, out)
	if len(lines) != 5 {
		t.Fatalf("%d output lines, want 5 (blank lines skipped): %s", len(lines), out)
	}
	if !strings.HasPrefix(out, `{"smiles":"CCO","n_atoms":3,"atom_features":[[1,0,0,`) {
		t.Errorf("first line %q", strings.SplitN(out, "\n", 2)[0])
	}
	cco := lines[0]
	if cco.NumAtoms != 3 || len(cco.AtomFeatures) != 3 || len(cco.AtomFeatures[0]) != 74 ||
		cco.AtomFeatures[0][44] != 1 || cco.AtomFeatures[0][57] != 1 || cco.AtomFeatures[2][2] != 1 ||
		len(cco.Edges) != 2 || cco.Edges[1] != [2]int{1, 2} {
		t.Errorf("CCO = %+v", cco)
	}
	nitro := lines[1]
	if nitro.SMILES != "c1ccccc1N(=O)=O" || nitro.NumAtoms != 9 || nitro.AtomFeatures[6][61] != 1 ||
		nitro.AtomFeatures[7][61] != -1 || nitro.Edges[8] != [2]int{5, 0} {
		t.Errorf("nitrobenzene = %+v", nitro)
	}
	if l := lines[2]; l.SMILES != "C1CC" || l.Line != 4 || l.Error != `SMILES "C1CC": position 1: unclosed ring 1` {
		t.Errorf("invalid line = %+v", l)
	}
	if l := lines[3]; l.NumAtoms != 1 || l.Edges == nil || len(l.Edges) != 0 || !strings.Contains(out, `"edges":[]`) {
		t.Errorf("methane = %+v (edges must be [] not null)", l)
	}
	if l := lines[4]; l.Line != 6 || !strings.Contains(l.Error, "position 1: explicit valence for atom # 1 C, 6, is greater than permitted") {
		t.Errorf("valence error line = %+v", l)
	}
}

func TestFeaturizeAllValid(t *testing.T) {
	withStdin(t, "O=C=O\n[Na+].[Cl-]\n")
	code, out, errOut := stag(t, "featurize", "-")
	if code != 0 || errOut != "" || len(decodeLines(t, out)) != 2 {
		t.Errorf("exit code %d, stdout %q, stderr %q", code, out, errOut)
	}
	withStdin(t, "")
	code, out, errOut = stag(t, "featurize")
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("empty input: exit code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestFeaturizeFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "in.smi")
	if err := os.WriteFile(p, []byte("CC#N\r\nc1ccsc1\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := stag(t, "featurize", p)
	lines := decodeLines(t, out)
	if code != 0 || errOut != "" || len(lines) != 2 || lines[1].SMILES != "c1ccsc1" || lines[1].AtomFeatures[3][68] != 1 {
		t.Errorf("exit code %d, stderr %q, lines %+v", code, errOut, lines)
	}
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"featurize", filepath.Join(t.TempDir(), "nosuch.smi")}, 1, "nosuch.smi"},
		{[]string{"featurize", "a", "b"}, 2, "at most one input file"},
		{[]string{"featurize", "-bogus"}, 2, "bogus"},
	} {
		code, out, errOut := stag(t, c.args...)
		if code != c.code || out != "" || !strings.Contains(errOut, c.stderr) {
			t.Errorf("%q: exit code %d (want %d), stdout %q, stderr %q (want %q)", c.args, code, c.code, out, errOut, c.stderr)
		}
	}
	code, _, errOut = stag(t, "featurize", "-h")
	if code != 0 || !strings.Contains(errOut, "usage: stag featurize [FILE|-]") {
		t.Errorf("-h: exit code %d, stderr %q", code, errOut)
	}
	if code, out, _ := stag(t, "help"); code != 0 || !strings.Contains(out, "featurize [FILE|-]") {
		t.Errorf("help does not list featurize: %q", out)
	}
}

// TestFeaturizeMatchesReference runs all ESOL and FreeSolv SMILES through the command and
// compares its output with RDKit's reference lines.
func TestFeaturizeMatchesReference(t *testing.T) {
	needData(t)
	for _, name := range datasets.MoleculeDatasetNames {
		t.Run(name, func(t *testing.T) {
			f, err := datasets.RDKitReferenceFile(name)
			if err != nil {
				t.Fatal(err)
			}
			r := datasets.NewResolver()
			r.Download = false
			data, _, err := r.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var refs []featurizeLine
			var input strings.Builder
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<26)
			for sc.Scan() {
				var l featurizeLine
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatal(err)
				}
				refs = append(refs, l)
				input.WriteString(l.SMILES + "\n")
			}
			withStdin(t, input.String())
			code, out, errOut := stag(t, "featurize")
			if code != 0 || errOut != "" {
				t.Fatalf("exit code %d, stderr %q", code, errOut)
			}
			got := decodeLines(t, out)
			if len(got) != len(refs) {
				t.Fatalf("%d lines, want %d", len(got), len(refs))
			}
			bad := 0
			for i := range refs {
				g, w := got[i], refs[i]
				gj, _ := json.Marshal([]any{g.SMILES, g.NumAtoms, g.AtomFeatures, g.Edges})
				wj, _ := json.Marshal([]any{w.SMILES, w.NumAtoms, w.AtomFeatures, w.Edges})
				if !bytes.Equal(gj, wj) {
					bad++
					if bad <= 5 {
						t.Errorf("line %d %q differs from the reference", i+1, w.SMILES)
					}
				}
			}
			t.Logf("%s: %d of %d lines differ from rdkit_reference.jsonl", name, bad, len(refs))
		})
	}
}
