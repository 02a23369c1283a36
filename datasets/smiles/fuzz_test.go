package smiles

import (
	"errors"
	"testing"
)

// FuzzParse feeds arbitrary strings to Parse and to the whole pipeline (MolFromSMILES,
// features, edges). Nothing may panic, every error must be an *Error with a position
// inside the string, and a parsed molecule must be well-formed.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"CCO", "c1ccccc1", "C1CC1C", "OCC3OC(OCC2OC(OC(C#N)c1ccccc1)C(O)C(O)C2O)C(O)C(O)C3O",
		"CN(=O)=O", "[nH]1cccc1", "[13CH3][C@@H](N)C(=O)[O-]", "C%12CC%12", "C%(123)CC%(123)",
		"c1ccc2ccccc2c1", "O=c1cccccc1", "[Na+].[Cl-]", "C/C=C\\C", "[S+2]([O-])([O-])", "C1=CC=CN1",
		"c1cC2C(=O)NC(=O)C2cc1", "[Pt@SP1](F)(Cl)(Br)I", "[2H]C([H])([H])[H]", "*c1ccccc1", "C=1CCC1",
		"C12C3C4C1C5C2C3C45", "c1cccc1", "(", "C(", "[", "C1", "%", "[C+++]", "C==C",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 256 {
			return // long inputs only slow the fuzzer down; the code has no length limit
		}
		m, err := Parse(s)
		if err != nil {
			checkError(t, s, err)
			return
		}
		for i := range m.bonds {
			b := m.bonds[i]
			if b.begin == b.end || b.begin < 0 || b.end < 0 || b.begin >= len(m.atoms) || b.end >= len(m.atoms) {
				t.Fatalf("%q: bad bond %+v", s, b)
			}
		}
		m, err = MolFromSMILES(s)
		if err != nil {
			checkError(t, s, err)
			return
		}
		for i := 0; i < m.NumAtoms(); i++ {
			_ = m.AtomFeatures(i)
			_ = m.Atom(i)
		}
		src, dst := m.AppendEdges(nil, nil, 0)
		if len(src) != 2*m.NumBonds() || len(dst) != len(src) {
			t.Fatalf("%q: %d edges for %d bonds", s, len(src), m.NumBonds())
		}
	})
}

// checkError fails unless err is an *Error about s with a position inside s.
func checkError(t *testing.T, s string, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %v is a %T, not an *Error", s, err, err)
	}
	if e.SMILES != s || e.Pos < 0 || (e.Pos >= len(s) && len(s) > 0) || e.Msg == "" {
		t.Fatalf("%q: malformed error %+v", s, e)
	}
}
