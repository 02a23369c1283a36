package smiles

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// mustMol is MolFromSMILES that fails the test on error.
func mustMol(t *testing.T, s string) *Mol {
	t.Helper()
	m, err := MolFromSMILES(s)
	if err != nil {
		t.Fatalf("MolFromSMILES(%q): %v", s, err)
	}
	return m
}

// rawAtoms writes every atom as RDKit's atom_raw in the shared reference files:
// symbol,degree,implicit valence,charge,radicals,hybridization,aromatic,total Hs.
func rawAtoms(m *Mol) string {
	parts := make([]string, m.NumAtoms())
	for i := range parts {
		a := m.Atom(i)
		arom := 0
		if a.IsAromatic {
			arom = 1
		}
		parts[i] = fmt.Sprintf("%s,%d,%d,%d,%d,%s,%d,%d", a.Symbol, a.Degree, a.ImplicitValence, a.FormalCharge,
			a.NumRadicalElectrons, a.Hybridization, arom, a.TotalNumHs)
	}
	return strings.Join(parts, " ")
}

// edgeList writes the bonds as begin-end in bond order.
func edgeList(m *Mol) string {
	parts := make([]string, m.NumBonds())
	for k := range parts {
		b := m.Bond(k)
		parts[k] = fmt.Sprintf("%d-%d", b.Begin, b.End)
	}
	return strings.Join(parts, " ")
}

// TestRDKitReferenceMolecules checks molecules taken from the shared RDKit 2022.09
// reference (esol/ and freesolv/rdkit_reference.jsonl, field atom_raw and edges), chosen to
// cover the rules that matter: lower-case rings that are not aromatic, both nitro
// spellings, [S+2], [nH], P, nitriles, stereo centres, esters, amides, fused aromatics,
// aromatic O and S, single atoms. The datasets package compares all 1770 molecules.
func TestRDKitReferenceMolecules(t *testing.T) {
	for _, c := range []struct{ name, smiles, raw, edges string }{
		{"esol 678: lower-case atoms that RDKit finds non-aromatic", `c1c(OC)c(OC)C2C(=O)OCC2c1`, "C,2,1,0,0,SP2,0,1 C,3,0,0,0,SP2,0,0 O,2,0,0,0,SP2,0,0 C,1,3,0,0,SP3,0,3 C,3,0,0,0,SP2,0,0 O,2,0,0,0,SP2,0,0 C,1,3,0,0,SP3,0,3 C,3,1,0,0,SP3,0,1 C,3,0,0,0,SP2,0,0 O,1,0,0,0,SP2,0,0 O,2,0,0,0,SP2,0,0 C,2,2,0,0,SP3,0,2 C,3,1,0,0,SP3,0,1 C,2,1,0,0,SP2,0,1", "0-1 1-2 2-3 1-4 4-5 5-6 4-7 7-8 8-9 8-10 10-11 11-12 12-13 13-0 12-7"},
		{"esol 760: lower-case atoms that RDKit finds non-aromatic", `c1cC2C(=O)NC(=O)C2cc1`, "C,2,1,0,0,SP2,0,1 C,2,1,0,0,SP2,0,1 C,3,1,0,0,SP3,0,1 C,3,0,0,0,SP2,0,0 O,1,0,0,0,SP2,0,0 N,2,1,0,0,SP2,0,1 C,3,0,0,0,SP2,0,0 O,1,0,0,0,SP2,0,0 C,3,1,0,0,SP3,0,1 C,2,1,0,0,SP2,0,1 C,2,1,0,0,SP2,0,1", "0-1 1-2 2-3 3-4 3-5 5-6 6-7 6-8 8-9 9-10 10-0 8-2"},
		{"esol 1037: lower-case atoms that RDKit finds non-aromatic", `c1c(O)C2C(=O)C3cc(O)ccC3OC2cc1(OC)`, "C,2,1,0,0,SP2,0,1 C,3,0,0,0,SP2,0,0 O,1,1,0,0,SP2,0,1 C,3,1,0,0,SP3,0,1 C,3,0,0,0,SP2,0,0 O,1,0,0,0,SP2,0,0 C,3,1,0,0,SP3,0,1 C,2,1,0,0,SP2,0,1 C,3,0,0,0,SP2,0,0 O,1,1,0,0,SP2,0,1 C,2,1,0,0,SP2,0,1 C,2,1,0,0,SP2,0,1 C,3,1,0,0,SP3,0,1 O,2,0,0,0,SP3,0,0 C,3,1,0,0,SP3,0,1 C,2,1,0,0,SP2,0,1 C,3,0,0,0,SP2,0,0 O,2,0,0,0,SP2,0,0 C,1,3,0,0,SP3,0,3", "0-1 1-2 1-3 3-4 4-5 4-6 6-7 7-8 8-9 8-10 10-11 11-12 12-13 13-14 14-15 15-16 16-17 17-18 16-0 14-3 12-6"},
		{"esol 24: nitro written pentavalent", `CCN(CC)c1c(cc(c(N)c1N(=O)=O)C(F)(F)F)N(=O)=O`, "C,1,3,0,0,SP3,0,3 C,2,2,0,0,SP3,0,2 N,3,0,0,0,SP2,0,0 C,2,2,0,0,SP3,0,2 C,1,3,0,0,SP3,0,3 C,3,0,0,0,SP2,1,0 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,3,0,0,0,SP2,1,0 N,1,2,0,0,SP2,0,2 C,3,0,0,0,SP2,1,0 N,3,0,1,0,SP2,0,0 O,1,0,-1,0,SP2,0,0 O,1,0,0,0,SP2,0,0 C,4,0,0,0,SP3,0,0 F,1,0,0,0,SP3,0,0 F,1,0,0,0,SP3,0,0 F,1,0,0,0,SP3,0,0 N,3,0,1,0,SP2,0,0 O,1,0,-1,0,SP2,0,0 O,1,0,0,0,SP2,0,0", "0-1 1-2 2-3 3-4 2-5 5-6 6-7 7-8 8-9 9-10 9-11 11-12 12-13 12-14 8-15 15-16 15-17 15-18 6-19 19-20 19-21 11-5"},
		{"freesolv 94: nitro written charge-separated", `C[N+](=O)[O-]`, "C,1,3,0,0,SP3,0,3 N,3,0,1,0,SP2,0,0 O,1,0,0,0,SP2,0,0 O,1,0,-1,0,SP2,0,0", "0-1 1-2 1-3"},
		{"freesolv 243: sulfone written [S+2]", `C1CC[S+2](C1)([O-])[O-]`, "C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 S,4,0,2,0,SP3,0,0 C,2,2,0,0,SP3,0,2 O,1,0,-1,0,SP3,0,0 O,1,0,-1,0,SP3,0,0", "0-1 1-2 2-3 3-4 3-5 3-6 4-0"},
		{"esol 21: pyrrole-type [nH]", `O=c2[nH]c1CCCc1c(=O)n2C3CCCCC3`, "O,1,0,0,0,SP2,0,0 C,3,0,0,0,SP2,1,0 N,2,0,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 C,3,0,0,0,SP2,1,0 C,3,0,0,0,SP2,1,0 O,1,0,0,0,SP2,0,0 N,3,0,0,0,SP2,1,0 C,3,1,0,0,SP3,0,1 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2", "0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 8-10 10-11 11-12 12-13 13-14 14-15 15-16 7-3 10-1 16-11"},
		{"esol 18: phosphorus", `CCOP(=S)(OCC)Oc1cc(C)nc(n1)C(C)C`, "C,1,3,0,0,SP3,0,3 C,2,2,0,0,SP3,0,2 O,2,0,0,0,SP3,0,0 P,4,0,0,0,SP3,0,0 S,1,0,0,0,SP2,0,0 O,2,0,0,0,SP3,0,0 C,2,2,0,0,SP3,0,2 C,1,3,0,0,SP3,0,3 O,2,0,0,0,SP2,0,0 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,1,3,0,0,SP3,0,3 N,2,0,0,0,SP2,1,0 C,3,0,0,0,SP2,1,0 N,2,0,0,0,SP2,1,0 C,3,1,0,0,SP3,0,1 C,1,3,0,0,SP3,0,3 C,1,3,0,0,SP3,0,3", "0-1 1-2 2-3 3-4 3-5 5-6 6-7 3-8 8-9 9-10 10-11 11-12 11-13 13-14 14-15 14-16 16-17 16-18 15-9"},
		{"esol 0: nitrile, three ring closures", `OCC3OC(OCC2OC(OC(C#N)c1ccccc1)C(O)C(O)C2O)C(O)C(O)C3O`, "O,1,1,0,0,SP3,0,1 C,2,2,0,0,SP3,0,2 C,3,1,0,0,SP3,0,1 O,2,0,0,0,SP3,0,0 C,3,1,0,0,SP3,0,1 O,2,0,0,0,SP3,0,0 C,2,2,0,0,SP3,0,2 C,3,1,0,0,SP3,0,1 O,2,0,0,0,SP3,0,0 C,3,1,0,0,SP3,0,1 O,2,0,0,0,SP3,0,0 C,3,1,0,0,SP3,0,1 C,2,0,0,0,SP,0,0 N,1,0,0,0,SP,0,0 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,1,0,0,SP3,0,1 O,1,1,0,0,SP3,0,1 C,3,1,0,0,SP3,0,1 O,1,1,0,0,SP3,0,1 C,3,1,0,0,SP3,0,1 O,1,1,0,0,SP3,0,1 C,3,1,0,0,SP3,0,1 O,1,1,0,0,SP3,0,1 C,3,1,0,0,SP3,0,1 O,1,1,0,0,SP3,0,1 C,3,1,0,0,SP3,0,1 O,1,1,0,0,SP3,0,1", "0-1 1-2 2-3 3-4 4-5 5-6 6-7 7-8 8-9 9-10 10-11 11-12 12-13 11-14 14-15 15-16 16-17 17-18 18-19 9-20 20-21 20-22 22-23 22-24 24-25 4-26 26-27 26-28 28-29 28-30 30-31 19-14 24-7 30-2"},
		{"freesolv 51: stereo centre", `CC[C@@H](C)CO`, "C,1,3,0,0,SP3,0,3 C,2,2,0,0,SP3,0,2 C,3,0,0,0,SP3,0,1 C,1,3,0,0,SP3,0,3 C,2,2,0,0,SP3,0,2 O,1,1,0,0,SP3,0,1", "0-1 1-2 2-3 2-4 4-5"},
		{"freesolv 496: stereo centre without H", `CC(=CCC[C@](C)(C=C)OC(=O)C)C`, "C,1,3,0,0,SP3,0,3 C,3,0,0,0,SP2,0,0 C,2,1,0,0,SP2,0,1 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 C,4,0,0,0,SP3,0,0 C,1,3,0,0,SP3,0,3 C,2,1,0,0,SP2,0,1 C,1,2,0,0,SP2,0,2 O,2,0,0,0,SP2,0,0 C,3,0,0,0,SP2,0,0 O,1,0,0,0,SP2,0,0 C,1,3,0,0,SP3,0,3 C,1,3,0,0,SP3,0,3", "0-1 1-2 2-3 3-4 4-5 5-6 5-7 7-8 5-9 9-10 10-11 10-12 1-13"},
		{"esol 61: ester", `CCCOC(=O)CC`, "C,1,3,0,0,SP3,0,3 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 O,2,0,0,0,SP2,0,0 C,3,0,0,0,SP2,0,0 O,1,0,0,0,SP2,0,0 C,2,2,0,0,SP3,0,2 C,1,3,0,0,SP3,0,3", "0-1 1-2 2-3 3-4 4-5 4-6 6-7"},
		{"esol 1: amide, aromatic O", `Cc1occc1C(=O)Nc2ccccc2`, "C,1,3,0,0,SP3,0,3 C,3,0,0,0,SP2,1,0 O,2,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,3,0,0,0,SP2,0,0 O,1,0,0,0,SP2,0,0 N,2,1,0,0,SP2,0,1 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1", "0-1 1-2 2-3 3-4 4-5 5-6 6-7 6-8 8-9 9-10 10-11 11-12 12-13 13-14 5-1 14-9"},
		{"esol 3: polycyclic aromatic", `c1ccc2c(c1)ccc3c2ccc4c5ccccc5ccc43`, "C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0", "0-1 1-2 2-3 3-4 4-5 4-6 6-7 7-8 8-9 9-10 10-11 11-12 12-13 13-14 14-15 15-16 16-17 17-18 18-19 19-20 20-21 5-0 9-3 21-8 21-12 18-13"},
		{"esol 4: aromatic S", `c1ccsc1`, "C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 S,2,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1", "0-1 1-2 2-3 3-4 4-0"},
		{"freesolv 61: single atom", `N`, "N,0,3,0,0,SP3,0,3", ""},
		{"freesolv 195: single atom", `S`, "S,0,2,0,0,SP3,0,2", ""},
		{"freesolv 286: single atom", `C`, "C,0,4,0,0,SP3,0,4", ""},
		{"esol 200: sulfonyl", `Nc1ccc(cc1)S(=O)(=O)c2ccc(N)cc2`, "N,1,2,0,0,SP2,0,2 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 S,4,0,0,0,SP3,0,0 O,1,0,0,0,SP2,0,0 O,1,0,0,0,SP2,0,0 C,3,0,0,0,SP2,1,0 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1 C,3,0,0,0,SP2,1,0 N,1,2,0,0,SP2,0,2 C,2,1,0,0,SP2,1,1 C,2,1,0,0,SP2,1,1", "0-1 1-2 2-3 3-4 4-5 5-6 4-7 7-8 7-9 7-10 10-11 11-12 12-13 13-14 13-15 15-16 6-1 16-10"},
		{"esol 12: alkene", `CCCC=C`, "C,1,3,0,0,SP3,0,3 C,2,2,0,0,SP3,0,2 C,2,2,0,0,SP3,0,2 C,2,1,0,0,SP2,0,1 C,1,2,0,0,SP2,0,2", "0-1 1-2 2-3 3-4"},
		{"esol 8: aliphatic polycycle", `ClC4=C(Cl)C5(Cl)C3C1CC(C2OC12)C3C4(Cl)C5(Cl)Cl`, "Cl,1,0,0,0,SP3,0,0 C,3,0,0,0,SP2,0,0 C,3,0,0,0,SP2,0,0 Cl,1,0,0,0,SP3,0,0 C,4,0,0,0,SP3,0,0 Cl,1,0,0,0,SP3,0,0 C,3,1,0,0,SP3,0,1 C,3,1,0,0,SP3,0,1 C,2,2,0,0,SP3,0,2 C,3,1,0,0,SP3,0,1 C,3,1,0,0,SP3,0,1 O,2,0,0,0,SP3,0,0 C,3,1,0,0,SP3,0,1 C,3,1,0,0,SP3,0,1 C,4,0,0,0,SP3,0,0 Cl,1,0,0,0,SP3,0,0 C,4,0,0,0,SP3,0,0 Cl,1,0,0,0,SP3,0,0 Cl,1,0,0,0,SP3,0,0", "0-1 1-2 2-3 2-4 4-5 4-6 6-7 7-8 8-9 9-10 10-11 11-12 9-13 13-14 14-15 14-16 16-17 16-18 12-7 12-10 13-6 14-1 16-4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustMol(t, c.smiles)
			if got := rawAtoms(m); got != c.raw {
				t.Errorf("atoms\n got %s\nwant %s", got, c.raw)
			}
			if got := edgeList(m); got != c.edges {
				t.Errorf("edges\n got %s\nwant %s", got, c.edges)
			}
		})
	}
}

// field extracts one field (by index in the atom_raw layout) of every atom.
func field(m *Mol, k int) string {
	parts := strings.Split(rawAtoms(m), " ")
	for i, p := range parts {
		parts[i] = strings.Split(p, ",")[k]
	}
	return strings.Join(parts, " ")
}

func TestImplicitHydrogens(t *testing.T) {
	// implicit valence / total H per atom
	for _, c := range []struct{ smiles, want string }{
		{"C", "4/4"},
		{"CC", "3/3 3/3"},
		{"C=C", "2/2 2/2"},
		{"C#C", "1/1 1/1"},
		{"N", "3/3"},
		{"O", "2/2"},
		{"S", "2/2"},
		{"P", "3/3"},
		{"Cl", "1/1"},
		{"B", "3/3"},
		{"I", "1/1"},
		{"[CH4]", "0/4"},
		{"[CH3]", "0/3"},
		{"[C]", "0/0"},
		{"[NH4+]", "0/4"},
		{"[OH-]", "0/1"},
		{"C[NH3+]", "3/3 0/3"},
		{"C[N+](C)(C)C", "3/3 0/0 3/3 3/3 3/3"},
		{"CS(C)=O", "3/3 0/0 3/3 0/0"},
		{"CS(=O)(=O)C", "3/3 0/0 0/0 0/0 3/3"},
		{"CSC", "3/3 0/0 3/3"},
		{"S(=O)=O", "0/0 0/0 0/0"},
		{"OS(=O)O", "1/1 0/0 0/0 1/1"},
		{"CP(=O)(O)O", "3/3 0/0 0/0 1/1 1/1"},
		{"P(Cl)(Cl)(Cl)(Cl)Cl", "0/0 0/0 0/0 0/0 0/0 0/0"},
		{"IC", "0/0 3/3"},
		{"c1ccccc1", "1/1 1/1 1/1 1/1 1/1 1/1"},
		{"c1ccncc1", "1/1 1/1 1/1 0/0 1/1 1/1"},
		// a bracket atom's hydrogens are explicit: implicit valence 0
		{"c1cc[nH]c1", "1/1 1/1 1/1 0/1 1/1"},
		// hydrogens an aromatic N loses to perception are kept as explicit ones (adjustHs)
		{"C1=CC=CN1", "1/1 1/1 1/1 1/1 0/1"},
		{"O=C1NC=CC=C1", "0/0 0/0 0/1 1/1 1/1 1/1 1/1"},
		// hydrogens written as atoms are removed and counted
		{"[H]C", "3/4"},
		{"[H]C([H])([H])[H]", "0/4"},
		{"[2H]C", "0/0 3/3"},
		{"[H][H]", "0/0 0/0"},
		{"[H+]", "0/0"},
	} {
		m := mustMol(t, c.smiles)
		got := make([]string, m.NumAtoms())
		for i := range got {
			a := m.Atom(i)
			got[i] = fmt.Sprintf("%d/%d", a.ImplicitValence, a.TotalNumHs)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: implicit valence/total H = %s, want %s", c.smiles, g, c.want)
		}
	}
}

func TestNitroAndCleanUp(t *testing.T) {
	// formal charges and bonds after RDKit's cleanUp
	for _, c := range []struct{ smiles, charges, bonds string }{
		{"CN(=O)=O", "0 1 -1 0", "SINGLE SINGLE DOUBLE"},
		{"O=N(=O)C", "-1 1 0 0", "SINGLE DOUBLE SINGLE"},
		{"C[N+](=O)[O-]", "0 1 0 -1", "SINGLE DOUBLE SINGLE"},
		{"c1ccccc1N(=O)=O", "0 0 0 0 0 0 1 -1 0", "AROMATIC AROMATIC AROMATIC AROMATIC AROMATIC SINGLE SINGLE DOUBLE AROMATIC"},
		// azide
		{"CN=N#N", "0 0 1 -1", "SINGLE DOUBLE DOUBLE"},
		// perchloric acid
		{"OCl(=O)(=O)=O", "0 3 -1 -1 -1", "SINGLE SINGLE SINGLE SINGLE"},
		// a charged N is left alone
		{"C[N+](=O)=O", "", ""},
	} {
		m, err := MolFromSMILES(c.smiles)
		if c.charges == "" {
			if err == nil {
				t.Errorf("%s: no error, want a valence error", c.smiles)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.smiles, err)
			continue
		}
		if got := field(m, 3); got != c.charges {
			t.Errorf("%s: charges %s, want %s", c.smiles, got, c.charges)
		}
		var bonds []string
		for k := 0; k < m.NumBonds(); k++ {
			bonds = append(bonds, m.Bond(k).Type.String())
		}
		if got := strings.Join(bonds, " "); got != c.bonds {
			t.Errorf("%s: bonds %s, want %s", c.smiles, got, c.bonds)
		}
	}
}

func TestAromaticity(t *testing.T) {
	// aromatic flag per atom (1/0), and the bond types
	for _, c := range []struct{ name, smiles, arom, bonds string }{
		{"benzene", "c1ccccc1", "1 1 1 1 1 1", "a a a a a a"},
		{"Kekulé benzene", "C1=CC=CC=C1", "1 1 1 1 1 1", "a a a a a a"},
		{"Kekulé pyrrole", "C1=CC=CN1", "1 1 1 1 1", "a a a a a"},
		{"pyridine", "n1ccccc1", "1 1 1 1 1 1", "a a a a a a"},
		{"furan", "o1cccc1", "1 1 1 1 1", "a a a a a"},
		{"Kekulé furan", "C1=COC=C1", "1 1 1 1 1", "a a a a a"},
		{"thiophene", "s1cccc1", "1 1 1 1 1", "a a a a a"},
		{"selenophene", "[se]1cccc1", "1 1 1 1 1", "a a a a a"},
		{"2-pyridone", "O=c1cccc[nH]1", "0 1 1 1 1 1 1", "= a a a a a a"},
		{"Kekulé 2-pyridone", "O=C1C=CC=CN1", "0 1 1 1 1 1 1", "= a a a a a a"},
		{"pyridine N-oxide", "[O-][n+]1ccccc1", "0 1 1 1 1 1 1", "- a a a a a a"},
		{"naphthalene", "c1ccc2ccccc2c1", "1 1 1 1 1 1 1 1 1 1", "a a a a a a a a a a a"},
		{"indole", "c1ccc2[nH]ccc2c1", "1 1 1 1 1 1 1 1 1", "a a a a a a a a a a"},
		{"indane", "C1CC2=CC=CC=C2C1", "0 0 1 1 1 1 1 1 0", "- - a a a a a - - a"},
		// only the fused 10-electron system is aromatic; the fusion bond keeps its Kekulé order
		{"azulene", "c1ccc2cccc2cc1", "1 1 1 1 1 1 1 1 1 1", "a a a a a a a a a a -"},
		{"tropone", "O=C1C=CC=CC=C1", "0 1 1 1 1 1 1 1", "= a a a a a a a"},
		{"cyclopropenyl cation", "C1=C[CH+]1", "1 1 1", "a a a"},
		{"cyclopentadiene", "C1=CC=CC1", "0 0 0 0 0", "= - = - -"},
		{"cyclooctatetraene", "C1=CC=CC=CC=C1", "0 0 0 0 0 0 0 0", "= - = - = - = -"},
		{"p-benzoquinone", "O=C1C=CC(=O)C=C1", "0 0 0 0 0 0 0 0", "= - = - = - = -"},
		{"biphenyl: the link is a single bond", "c1ccccc1c1ccccc1", "1 1 1 1 1 1 1 1 1 1 1 1", "a a a a a - a a a a a a a"},
		// lower-case input that RDKit does not find aromatic: kekulized, 4 sp2 atoms
		{"ESOL 760", "c1cC2C(=O)NC(=O)C2cc1", "0 0 0 0 0 0 0 0 0 0 0", "= - - = - - = - - = - -"},
	} {
		m := mustMol(t, c.smiles)
		if got := field(m, 6); got != c.arom {
			t.Errorf("%s %s: aromatic %s, want %s", c.name, c.smiles, got, c.arom)
		}
		short := map[BondType]string{Single: "-", Double: "=", Triple: "#", Aromatic: "a"}
		var bonds []string
		for k := 0; k < m.NumBonds(); k++ {
			bonds = append(bonds, short[m.Bond(k).Type])
		}
		if got := strings.Join(bonds, " "); got != c.bonds {
			t.Errorf("%s %s: bonds %s, want %s", c.name, c.smiles, got, c.bonds)
		}
	}
}

func TestHybridization(t *testing.T) {
	for _, c := range []struct{ name, smiles, want string }{
		{"alkane", "CC", "SP3 SP3"},
		{"alkene", "C=C", "SP2 SP2"},
		{"alkyne", "C#C", "SP SP"},
		{"nitrile", "CC#N", "SP3 SP SP"},
		{"allene", "C=C=C", "SP2 SP SP2"},
		{"carbon dioxide", "O=C=O", "SP2 SP SP2"},
		{"ketone", "CC(C)=O", "SP3 SP2 SP3 SP2"},
		// lone-pair atoms next to a pi bond are SP2 (conjugation)
		{"amide N", "CC(=O)N", "SP3 SP2 SP2 SP2"},
		{"aniline N", "Nc1ccccc1", "SP2 SP2 SP2 SP2 SP2 SP2 SP2"},
		{"phenol O", "Oc1ccccc1", "SP2 SP2 SP2 SP2 SP2 SP2 SP2"},
		{"ester O", "COC(C)=O", "SP3 SP2 SP2 SP3 SP2"},
		{"ether O", "COC", "SP3 SP3 SP3"},
		{"amine N", "CN", "SP3 SP3"},
		{"nitro", "CN(=O)=O", "SP3 SP2 SP2 SP2"},
		// P and S do not take part in conjugation
		{"phosphine on a ring", "Pc1ccccc1", "SP3 SP2 SP2 SP2 SP2 SP2 SP2"},
		{"thioether on a ring", "CSc1ccccc1", "SP3 SP3 SP2 SP2 SP2 SP2 SP2 SP2"},
		{"sulfone", "CS(C)(=O)=O", "SP3 SP3 SP3 SP2 SP2"},
		{"halogen", "Clc1ccccc1", "SP3 SP2 SP2 SP2 SP2 SP2 SP2"},
		{"stereo centre with 4 neighbours+H is SP3", "F[C@H](Cl)Br", "SP3 SP3 SP3 SP3"},
		{"ions", "[Na+].[Cl-]", "S SP3"},
		{"hydrogen molecule", "[H][H]", "S S"},
		{"carbocation", "C[CH2+]", "SP3 SP2"},
		{"carbanion", "C[CH2-]", "SP3 SP3"},
		{"dummy atom", "*C", "UNSPECIFIED SP3"},
	} {
		m := mustMol(t, c.smiles)
		if got := field(m, 5); got != c.want {
			t.Errorf("%s %s: hybridization %s, want %s", c.name, c.smiles, got, c.want)
		}
	}
}

func TestSanitizeErrors(t *testing.T) {
	for _, c := range []struct {
		smiles string
		pos    int
		msg    string
	}{
		{"C(C)(C)(C)(C)C", 0, "explicit valence for atom # 0 C, 5, is greater than permitted"},
		{"CC(C)(C)(C)(C)C", 1, "explicit valence for atom # 1 C, 6"},
		{"C[N](C)(C)C", 1, "explicit valence for atom # 1 N, 4"},
		{"O=O=O", 2, "explicit valence for atom # 1 O, 4"},
		{"FC(F)(F)(F)F", 1, "atom # 1 C, 5"},
		{"ClCl(Cl)Cl", 2, "atom # 1 Cl, 3"},
		{"[NH4]", 0, "atom # 0 N, 4"},
		{"c1cccc1", 0, "can't kekulize"},
		{"c1ccccc1c1cccc1", 8, "can't kekulize"},
		{"cc", 0, "non-ring atom 0 marked aromatic"},
		{"Cc", 1, "non-ring atom 1 marked aromatic"},
		{"[H+2]", 0, "explicit valence for atom # 0 H, 2, is greater than permitted"},
		{"C1CC", 1, "unclosed ring 1"},
	} {
		m, err := MolFromSMILES(c.smiles)
		if err == nil {
			t.Errorf("MolFromSMILES(%q) = %v, want an error", c.smiles, m)
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.SMILES != c.smiles || e.Pos != c.pos || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("MolFromSMILES(%q) error = %v, want position %d and %q", c.smiles, err, c.pos, c.msg)
		}
	}
}

func TestSanitizeOnce(t *testing.T) {
	m, err := Parse("c1ccccc1O")
	if err != nil {
		t.Fatal(err)
	}
	if m.Sanitized() {
		t.Fatal("parsed molecule claims to be sanitized")
	}
	for range 2 {
		if err := m.Sanitize(); err != nil {
			t.Fatal(err)
		}
	}
	if !m.Sanitized() || rawAtoms(m) != rawAtoms(mustMol(t, "c1ccccc1O")) {
		t.Errorf("sanitizing twice changed the molecule: %s", rawAtoms(m))
	}
}

func TestFeaturesCCO(t *testing.T) {
	// DGL-LifeSci's tests/utils/test_featurizers.py::test_canonical_atom_featurizer
	hot := func(idx ...int) [NumAtomFeatures]int {
		var f [NumAtomFeatures]int
		for _, i := range idx {
			f[i] = 1
		}
		return f
	}
	want := [][NumAtomFeatures]int{
		hot(0, 44, 57, 65, 72),
		hot(0, 45, 56, 65, 71),
		hot(2, 44, 55, 65, 70),
	}
	m := mustMol(t, "CCO")
	for i, w := range want {
		if got := m.AtomFeatures(i); got != w {
			t.Errorf("atom %d: features %v, want %v", i, got, w)
		}
	}
	flat := m.AppendFeatures(nil)
	if len(flat) != 3*NumAtomFeatures || flat[NumAtomFeatures+45] != 1 || flat[2*NumAtomFeatures+2] != 1 {
		t.Errorf("AppendFeatures: %v", flat)
	}
}

func TestFeatureBlocks(t *testing.T) {
	// charges and radicals are integers; out-of-range one-hot values leave zero blocks
	m := mustMol(t, "C1CC[S+2](C1)([O-])[O-]")
	if f := m.AtomFeatures(3); f[61] != 2 || f[3] != 1 || f[43+4] != 1 || f[63+2] != 1 {
		t.Errorf("[S+2]: %v", f)
	}
	if f := m.AtomFeatures(5); f[61] != -1 {
		t.Errorf("[O-]: %v", f)
	}
	m = mustMol(t, "[CH3]")
	if f := m.AtomFeatures(0); f[62] != 1 || f[69+3] != 1 {
		t.Errorf("[CH3]: %v", f)
	}
	// Xe is not among the 43 symbols; [NH4+] has 4 H; [SiH4] has 4; a dummy has no element
	for _, c := range []struct {
		smiles string
		zeroAt []int // blocks that must be all zero: start offsets
	}{
		{"[Xe]", []int{0}},
		{"*", []int{0, 63}},
	} {
		m := mustMol(t, c.smiles)
		f := m.AtomFeatures(0)
		for _, off := range c.zeroAt {
			n := map[int]int{0: 43, 63: 5}[off]
			for k := off; k < off+n; k++ {
				if f[k] != 0 {
					t.Errorf("%s: feature %d = %d, want a zero block at %d", c.smiles, k, f[k], off)
				}
			}
		}
	}
	// total H above 4 and degree above 10 give zero blocks
	m = mustMol(t, "[SH6]")
	if f := m.AtomFeatures(0); sum(f[69:74]) != 0 || f[43] != 1 {
		t.Errorf("[SH6]: %v", f)
	}
}

// sum adds up a slice.
func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func TestAppendEdges(t *testing.T) {
	m := mustMol(t, "C1CC1O")
	src, dst := m.AppendEdges([]int32{99}, []int32{99}, 10)
	wantSrc := []int32{99, 10, 11, 11, 12, 12, 13, 12, 10}
	wantDst := []int32{99, 11, 10, 12, 11, 13, 12, 10, 12}
	if fmt.Sprint(src) != fmt.Sprint(wantSrc) || fmt.Sprint(dst) != fmt.Sprint(wantDst) {
		t.Errorf("AppendEdges = %v → %v, want %v → %v", src, dst, wantSrc, wantDst)
	}
	if b := m.Bond(3); b.Begin != 2 || b.End != 0 || b.Type != Single || b.IsAromatic {
		t.Errorf("ring-closure bond = %+v", b)
	}
	if !mustMol(t, "c1ccccc1").Bond(0).IsConjugated || mustMol(t, "CC").Bond(0).IsConjugated {
		t.Error("conjugation flags wrong")
	}
}

func TestMolAccessors(t *testing.T) {
	m := mustMol(t, "[Na+].[Cl-]")
	if m.SMILES() != "[Na+].[Cl-]" || m.NumAtoms() != 2 || m.NumBonds() != 0 || !m.Sanitized() {
		t.Errorf("accessors: %v", m)
	}
	if a := m.Atom(1); a.Symbol != "Cl" || a.AtomicNum != 17 || a.FormalCharge != -1 || a.Pos != 6 {
		t.Errorf("Atom(1) = %+v", a)
	}
	if !strings.Contains(m.String(), "2 atoms") {
		t.Errorf("String() = %q", m.String())
	}
}

func TestRemoveHs(t *testing.T) {
	// atoms left after MolFromSMILES, as symbols, and each one's total H count
	for _, c := range []struct{ smiles, want string }{
		{"[H]C([H])([H])[H]", "C4"},
		{"[H]OC", "O1 C3"},
		{"C[H]", "C4"},
		{"[H-]C", "C4"},
		{"[H]c1ccccc1", "C1 C1 C1 C1 C1 C1"},
		// kept: isotopes, H2, a lone H, H next to a dummy or a non-tetrahedral centre
		{"[2H]C", "H0 C3"},
		{"[H][H]", "H0 H0"},
		{"[H]", "H0"},
		{"[H]*", "H0 *0"},
		{"[H][Pt@SP1](F)(Cl)Br", "H0 Pt0 F0 Cl0 Br0"},
		// kept when it defines double-bond stereo, removed otherwise
		{"[H]/C=C/F", "H0 C1 C1 F0"},
		{"[H]C=CF", "C2 C1 F0"},
		{"[H]/C(C)=C/F", "C1 C3 C1 F0"},
	} {
		m := mustMol(t, c.smiles)
		var got []string
		for i := 0; i < m.NumAtoms(); i++ {
			a := m.Atom(i)
			got = append(got, fmt.Sprintf("%s%d", a.Symbol, a.TotalNumHs))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: atoms %s, want %s", c.smiles, g, c.want)
		}
	}
}

func TestRings(t *testing.T) {
	// ring counts of the SSSR and of RDKit's symmetrized SSSR (what aromaticity uses)
	for _, c := range []struct {
		name, smiles string
		sssr, symm   int
		sizes        string
	}{
		{"benzene", "c1ccccc1", 1, 1, "6"},
		{"naphthalene", "c1ccc2ccccc2c1", 2, 2, "6 6"},
		{"pyrene", "c1cc2ccc3cccc4ccc(c1)c2c34", 4, 4, "6 6 6 6"},
		{"spiro[5.5]undecane", "C1CCC2(CC1)CCCCC2", 2, 2, "6 6"},
		{"spiropentane", "C1CC11CC1", 2, 2, "3 3"},
		{"bicyclo[2.2.2]octane", "C1CC2CCC1CC2", 2, 3, "6 6 6"},
		{"adamantane", "C1C2CC3CC1CC(C2)C3", 3, 4, "6 6 6 6"},
		{"cubane", "C12C3C4C1C5C2C3C45", 5, 6, "4 4 4 4 4 4"},
		{"two fragments", "C1CC1.C1CCC1", 2, 2, "3 4"},
		{"chain", "CCCC", 0, 0, ""},
	} {
		m, err := Parse(c.smiles)
		if err != nil {
			t.Fatal(err)
		}
		sssr, _, err := m.findSSSR()
		if err != nil {
			t.Fatal(err)
		}
		if err := m.findRings(); err != nil {
			t.Fatal(err)
		}
		var sizes []string
		for _, r := range m.rings.atomRings {
			sizes = append(sizes, fmt.Sprint(len(r)))
		}
		if len(sssr) != c.sssr || len(m.rings.atomRings) != c.symm || strings.Join(sizes, " ") != c.sizes {
			t.Errorf("%s: %d SSSR rings, %d symmetrized of sizes %q; want %d, %d, %q",
				c.name, len(sssr), len(m.rings.atomRings), sizes, c.sssr, c.symm, c.sizes)
		}
	}
	// the approximate ring finder RDKit falls back to
	m, err := Parse("C12C3C4C1C5C2C3C45")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m.fastFindRings()); got != 5 {
		t.Errorf("fastFindRings(cubane) found %d rings, want 5 (one per back edge)", got)
	}
}
