package smiles

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// describeAtoms writes the parsed atoms compactly: the symbol (lower case if written
// aromatic), then [iso], H<n>, charge and :class where present, space separated.
func describeAtoms(m *Mol) string {
	parts := make([]string, len(m.atoms))
	for i, a := range m.atoms {
		s := m.symbol(i)
		if a.aromatic {
			s = strings.ToLower(s)
		}
		if a.isotope > 0 {
			s = fmt.Sprintf("%d%s", a.isotope, s)
		}
		if a.noImplicit {
			s = "[" + s
			if a.numExplicitHs > 0 {
				s += fmt.Sprintf("H%d", a.numExplicitHs)
			}
			if a.charge != 0 {
				s += fmt.Sprintf("%+d", a.charge)
			}
			if a.mapNum > 0 {
				s += fmt.Sprintf(":%d", a.mapNum)
			}
			s += "]"
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}

// bondChar is the SMILES symbol of a bond type.
var bondChar = map[BondType]string{Single: "-", Double: "=", Triple: "#", Quadruple: "$", Aromatic: ":"}

// describeBonds writes the bonds in order as begin<symbol>end.
func describeBonds(m *Mol) string {
	parts := make([]string, len(m.bonds))
	for i, b := range m.bonds {
		parts[i] = fmt.Sprintf("%d%s%d", b.begin, bondChar[b.typ], b.end)
	}
	return strings.Join(parts, " ")
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		smiles, atoms, bonds string
	}{
		{"CCO", "C C O", "0-1 1-2"},
		{"C", "C", ""},
		{"ClCBr", "Cl C Br", "0-1 1-2"},
		{"BCl", "B Cl", "0-1"},
		{"C=C#N", "C C N", "0=1 1#2"},
		{"C$C", "C C", "0$1"},
		{"CC(C)(C)C", "C C C C C", "0-1 1-2 1-3 1-4"},
		{"C(C(C))C", "C C C C", "0-1 1-2 0-3"},
		{"C(=O)(O)N", "C O O N", "0=1 0-2 0-3"},
		// ring closures come after all chain bonds, from the closing to the opening atom
		{"C1CC1C", "C C C C", "0-1 1-2 2-3 2-0"},
		{"c1ccccc1", "c c c c c c", "0:1 1:2 2:3 3:4 4:5 5:0"},
		// sorted by ring-closure number, not by the order of closing
		{"C2CC1CC1C2", "C C C C C C", "0-1 1-2 2-3 3-4 4-5 4-2 5-0"},
		{"C1CC2CC2C1", "C C C C C C", "0-1 1-2 2-3 3-4 4-5 5-0 4-2"},
		// a reused number pairs in order
		{"C1CC1C1CC1", "C C C C C C", "0-1 1-2 2-3 3-4 4-5 2-0 5-3"},
		// a bond symbol at the opening digit makes the bond run from the opening atom
		{"C=1CCC1", "C C C C", "0-1 1-2 2-3 0=3"},
		{"C-1CCC1", "C C C C", "0-1 1-2 2-3 0-3"},
		{"C1CCC=1", "C C C C", "0-1 1-2 2-3 3=0"},
		{"C/1CCC/1", "C C C C", "0-1 1-2 2-3 0-3"},
		{"C%10CC%10", "C C C", "0-1 1-2 2-0"},
		{"C%(123)CC%(123)", "C C C", "0-1 1-2 2-0"},
		{"C1.C1", "C C", "1-0"},
		{"C12CC1C2", "C C C C", "0-1 1-2 2-3 2-0 3-0"},
		{"c1ccccc1-c1ccccc1", "c c c c c c c c c c c c",
			"0:1 1:2 2:3 3:4 4:5 5-6 6:7 7:8 8:9 9:10 10:11 5:0 11:6"},
		{"c1ccccc1:c", "c c c c c c c", "0:1 1:2 2:3 3:4 4:5 5:6 5:0"},
		{"cC", "c C", "0-1"},
		{"[nH]1cccc1", "[nH1] c c c c", "0:1 1:2 2:3 3:4 4:0"},
		{"[13CH3+]", "[13CH3+1]", ""},
		{"[O-]C=O", "[O-1] C O", "0-1 1=2"},
		{"[S+2]", "[S+2]", ""},
		{"[Fe++]", "[Fe+2]", ""},
		{"[Fe+3]", "[Fe+3]", ""},
		{"[O--]", "[O-2]", ""},
		{"[Cu-2]", "[Cu-2]", ""},
		{"[NH4+]", "[NH4+1]", ""},
		{"[CH4:12]", "[CH4:12]", ""},
		{"[C@@H](F)(Cl)Br", "[CH1] F Cl Br", "0-1 0-2 0-3"},
		{"N[C@H](C)C(=O)O", "N [CH1] C C O O", "0-1 1-2 1-3 3=4 3-5"},
		{"[Pt@SP1](F)(Cl)(Br)I", "[Pt] F Cl Br I", "0-1 0-2 0-3 0-4"},
		{"[C@TH2](F)(Cl)(Br)I", "[C] F Cl Br I", "0-1 0-2 0-3 0-4"},
		{"F/C=C/F", "F C C F", "0-1 1=2 2-3"},
		{"F\\C=C/F", "F C C F", "0-1 1=2 2-3"},
		{"[Na+].[Cl-]", "[Na+1] [Cl-1]", ""},
		{"*C", "* C", "0-1"},
		{"[*]C", "[*] C", "0-1"},
		{"[2H]C", "[2H] C", "0-1"},
		{"[H][H]", "[H] [H]", "0-1"},
		{"[se]1cccc1", "[se] c c c c", "0:1 1:2 2:3 3:4 4:0"},
		{"[Co]", "[Co]", ""},
		{"[Sc]", "[Sc]", ""},
		{"OCC3OC(OCC2OC(OC(C#N)c1ccccc1)C(O)C(O)C2O)C(O)C(O)C3O",
			"O C C O C O C C O C O C C N c c c c c c C O C O C O C O C O C O",
			"0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 10-11 11-12 12#13 11-14 14:15 15:16 16:17 17:18 18:19 " +
				"9-20 20-21 20-22 22-23 22-24 24-25 4-26 26-27 26-28 28-29 28-30 30-31 19:14 24-7 30-2"},
	} {
		m, err := Parse(c.smiles)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.smiles, err)
			continue
		}
		if got := describeAtoms(m); got != c.atoms {
			t.Errorf("Parse(%q) atoms = %q, want %q", c.smiles, got, c.atoms)
		}
		if got := describeBonds(m); got != c.bonds {
			t.Errorf("Parse(%q) bonds = %q, want %q", c.smiles, got, c.bonds)
		}
	}
}

func TestParseAtomPositions(t *testing.T) {
	m, err := Parse("C[13CH2]c1cc(Cl)ccc1")
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 1, 8, 10, 11, 13, 16, 17, 18}
	for i, p := range want {
		if got := m.Atom(i).Pos; got != p {
			t.Errorf("atom %d at %d, want %d", i, got, p)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		smiles string
		pos    int
		msg    string
	}{
		{"", 0, "empty SMILES"},
		{"C1CC", 1, "unclosed ring 1"},
		{"C1CC2CC", 1, "unclosed ring 1"},
		{"CC2CC", 2, "unclosed ring 2"},
		{"C(C", 1, "unclosed branch"},
		{"CC)C", 2, "')' without a matching '('"},
		{"C()C", 2, "'(' followed by ')'"},
		{"(C)C", 0, "branch '(' without a preceding atom"},
		{"C((C))", 2, "'(' followed by '('"},
		{"C==C", 2, "two bond symbols in a row"},
		{"=CC", 0, "without a preceding atom"},
		{"CC=", 2, "ends with a bond symbol"},
		{"C=(C)C", 2, "bond symbol followed by '('"},
		{"C(=)C", 3, "bond symbol followed by ')'"},
		{"C.", 1, "ends with '.'"},
		{".C", 0, "'.' without a preceding atom"},
		{"C..C", 2, "'.' followed by '.'"},
		{"C.=C", 2, "right after '.'"},
		{"1CC1", 0, "ring-closure number without a preceding atom"},
		{"C(1CC1)", 2, "ring-closure number without a preceding atom"},
		{"C11", 2, "bonds an atom to itself"},
		{"C1C1", 3, "duplicates the bond between atoms 0 and 1"},
		{"C=1CC-1", 6, "conflicting bond symbols"},
		{"C%1", 1, "'%' must be followed by two digits"},
		{"C%(12", 1, "unclosed '%(' ring-closure number"},
		{"C%()", 1, "must be followed by a ring-closure number"},
		{"CXC", 1, "unexpected character 'X'"},
		{"C C", 1, "unexpected character ' '"},
		{"CC\t", 2, "unexpected character '\\t'"},
		{"Cl2", 2, "unclosed ring 2"},
		{"[", 0, "unclosed bracket atom"},
		{"[C", 0, "unclosed bracket atom"},
		{"[CH3", 0, "unclosed bracket atom"},
		{"[Xx]", 1, "unknown element \"X\""},
		{"[q]", 1, "unknown aromatic element"},
		{"[]", 1, "expected an element symbol"},
		{"[C+++]", 4, "malformed charge"},
		{"[C++2]", 4, "malformed charge"},
		{"[C+100]", 3, "charge too large"},
		{"[12345C]", 1, "isotope too large"},
		{"[CH100]", 3, "hydrogen count too large"},
		{"[C:]", 2, "atom class ':' without a number"},
		{"[C@SP]", 2, "chirality class @SP without a number"},
		{"[C@OH31](F)Cl", 5, "chirality permutation too large"},
		{"[C@TB0]", 2, "at least 1"},
		{"[CX]", 2, "unexpected character 'X' in bracket atom"},
		// a non-ASCII character is named whole, not by its first byte ('Ã' for 'Ç')
		{"CÇC", 1, "unexpected character 'Ç'"},
		{"C→", 1, "unexpected character '→'"},
		{"[CÇ]", 2, "unexpected character 'Ç' in bracket atom"},
		{"[Ç]", 1, "expected an element symbol in bracket atom, found 'Ç'"},
		{"[]", 1, "found ']'"},
		{"C\xc3C", 1, "unexpected character byte 0xc3 (invalid UTF-8)"},
		{"c1ccccc1)", 8, "')' without a matching '('"},
	} {
		m, err := Parse(c.smiles)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", c.smiles, m)
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) error %v is a %T, want *Error", c.smiles, err, err)
			continue
		}
		if e.SMILES != c.smiles || e.Pos != c.pos || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("Parse(%q) error = %+v, want position %d and a message containing %q", c.smiles, e, c.pos, c.msg)
		}
		if want := fmt.Sprintf("SMILES %q: position %d: ", c.smiles, c.pos); !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Parse(%q) error text %q does not start with %q", c.smiles, err, want)
		}
	}
}

func TestBondAndHybridizationNames(t *testing.T) {
	for typ, want := range map[BondType]string{Single: "SINGLE", Double: "DOUBLE", Triple: "TRIPLE",
		Quadruple: "QUADRUPLE", Aromatic: "AROMATIC", Unspecified: "UNSPECIFIED"} {
		if typ.String() != want {
			t.Errorf("%d.String() = %q, want %q", typ, typ, want)
		}
	}
	for h, want := range map[Hybridization]string{HybridUnspecified: "UNSPECIFIED", HybridS: "S", HybridSP: "SP",
		HybridSP2: "SP2", HybridSP2D: "SP2D", HybridSP3: "SP3", HybridSP3D: "SP3D", HybridSP3D2: "SP3D2", HybridOther: "OTHER"} {
		if h.String() != want {
			t.Errorf("%d.String() = %q, want %q", h, h, want)
		}
	}
}
