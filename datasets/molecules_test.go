package datasets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stagnb/stagnb/datasets/smiles"
)

// requireMoleculeFiles skips the test when the files of the molecule dataset name are in
// neither $STAGNB_DATA nor the cache, unless STAGNB_DATA is set: then missing data fails.
// withReference also asks for the RDKit reference JSONL.
func requireMoleculeFiles(t testing.TB, name string, withReference bool) {
	t.Helper()
	f, err := MoleculeFile(name)
	if err != nil {
		t.Fatal(err)
	}
	files := []File{f}
	if withReference {
		ref, err := RDKitReferenceFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, ref)
	}
	requireFiles(t, name, files)
}

// loadMolecules loads the real dataset name, or skips (see requireMoleculeFiles).
func loadMolecules(t testing.TB, name string) *MoleculeDataset {
	t.Helper()
	requireMoleculeFiles(t, name, false)
	ds, err := LoadMolecules(testResolver(), name, MoleculeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// referenceRecord is one line of rdkit_reference.jsonl.
type referenceRecord struct {
	Index        int      `json:"index"`
	SMILES       string   `json:"smiles"`
	Label        float64  `json:"label"`
	NumAtoms     int      `json:"n_atoms"`
	NumBonds     int      `json:"n_bonds"`
	AtomFeatures [][]int  `json:"atom_features"`
	Edges        [][2]int `json:"edges"`
	BondTypes    []string `json:"bond_types"`
	AtomRaw      [][]any  `json:"atom_raw"`
	Error        *string  `json:"error"`
}

// readReference reads the RDKit reference of name through the resolver.
func readReference(t *testing.T, name string) []referenceRecord {
	t.Helper()
	f, err := RDKitReferenceFile(name)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := testResolver().Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var recs []referenceRecord
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<26)
	for sc.Scan() {
		var r referenceRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s line %d: %v", f.Path, len(recs)+1, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// compareWithReference returns what differs between our featurization of a molecule and
// RDKit's, or "" when everything matches: atom count, every feature of every atom, every
// edge with its direction and order, the bond types, and the raw atom values.
func compareWithReference(mol *Molecule, ref *referenceRecord) string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if ref.Error != nil {
		add("RDKit failed: %s", *ref.Error)
	}
	if mol.SMILES != ref.SMILES {
		add("SMILES %q, reference %q", mol.SMILES, ref.SMILES)
	}
	if mol.Label != ref.Label {
		add("label %v, reference %v", mol.Label, ref.Label)
	}
	if mol.NumAtoms != ref.NumAtoms || len(ref.AtomFeatures) != ref.NumAtoms {
		add("%d atoms, reference %d", mol.NumAtoms, ref.NumAtoms)
		return strings.Join(diffs, "; ")
	}
	for i, want := range ref.AtomFeatures {
		got := mol.Features[i*NumAtomFeatures : (i+1)*NumAtomFeatures]
		for k, w := range want {
			if got[k] != float32(w) {
				add("atom %d feature %d = %v, reference %d", i, k, got[k], w)
				break
			}
		}
	}
	if mol.NumBonds() != ref.NumBonds || len(ref.Edges) != ref.NumBonds {
		add("%d bonds, reference %d", mol.NumBonds(), ref.NumBonds)
	} else {
		for k, e := range ref.Edges {
			if mol.Src[2*k] != int32(e[0]) || mol.Dst[2*k] != int32(e[1]) ||
				mol.Src[2*k+1] != int32(e[1]) || mol.Dst[2*k+1] != int32(e[0]) {
				add("bond %d = %d→%d, reference %v", k, mol.Src[2*k], mol.Dst[2*k], e)
			}
		}
	}
	// the raw values and bond types, for diagnostics
	m, err := smiles.MolFromSMILES(mol.SMILES)
	if err != nil {
		add("%v", err)
		return strings.Join(diffs, "; ")
	}
	for i, raw := range ref.AtomRaw {
		if i >= m.NumAtoms() {
			break
		}
		a := m.Atom(i)
		arom := 0
		if a.IsAromatic {
			arom = 1
		}
		got := fmt.Sprint([]any{a.Symbol, a.Degree, a.ImplicitValence, a.FormalCharge, a.NumRadicalElectrons,
			a.Hybridization.String(), arom, a.TotalNumHs})
		if want := fmt.Sprint(raw); got != want {
			add("atom %d raw %s, reference %s", i, got, want)
		}
	}
	for k, bt := range ref.BondTypes {
		if k < m.NumBonds() && m.Bond(k).Type.String() != bt {
			add("bond %d type %s, reference %s", k, m.Bond(k).Type, bt)
		}
	}
	return strings.Join(diffs, "; ")
}

// TestMoleculesMatchRDKitReference compares every atom feature vector and every edge of
// all ESOL and FreeSolv molecules with RDKit 2022.09's (rdkit_reference.jsonl).
func TestMoleculesMatchRDKitReference(t *testing.T) {
	for _, c := range []struct {
		name       string
		rows       int
		atoms      int
		bonds      int
		labelMean  float64
		labelMeanε float64
	}{
		{"esol", 1128, 14991, 15428, -3.0501, 1e-4},
		{"freesolv", 642, 5600, 5385, -3.8030, 1e-4},
	} {
		t.Run(c.name, func(t *testing.T) {
			requireMoleculeFiles(t, c.name, true)
			ds, err := LoadMolecules(testResolver(), c.name, MoleculeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			refs := readReference(t, c.name)
			if len(ds.Molecules) != c.rows || len(refs) != c.rows || len(ds.Skipped) != 0 {
				t.Fatalf("%d molecules (%d skipped) and %d reference lines, want %d", len(ds.Molecules), len(ds.Skipped), len(refs), c.rows)
			}
			mismatches, atoms, bonds := 0, 0, 0
			sumLabel := 0.0
			for i := range ds.Molecules {
				mol, ref := &ds.Molecules[i], &refs[i]
				atoms += mol.NumAtoms
				bonds += mol.NumBonds()
				sumLabel += mol.Label
				if mol.Row != i || ref.Index != i {
					t.Fatalf("row %d: molecule row %d, reference index %d", i, mol.Row, ref.Index)
				}
				if d := compareWithReference(mol, ref); d != "" {
					mismatches++
					if mismatches <= 20 {
						t.Errorf("%s row %d %q: %s", c.name, i, mol.SMILES, d)
					}
				}
			}
			t.Logf("%s: %d of %d molecules differ from RDKit 2022.09 (atom features, edges, raw atom values)",
				c.name, mismatches, len(ds.Molecules))
			if mismatches > 0 {
				t.Errorf("%s: %d mismatching molecules, want 0", c.name, mismatches)
			}
			if atoms != c.atoms || bonds != c.bonds {
				t.Errorf("%d atoms and %d bonds, want %d and %d", atoms, bonds, c.atoms, c.bonds)
			}
			if mean := sumLabel / float64(len(ds.Molecules)); math.Abs(mean-c.labelMean) > c.labelMeanε {
				t.Errorf("label mean %.5f, want %.4f", mean, c.labelMean)
			}
			all := ds.All()
			if all.NumNodes != atoms || len(all.Src) != 2*bonds || all.NumGraphs != c.rows {
				t.Errorf("whole-dataset batch: %d nodes, %d edges, %d graphs", all.NumNodes, len(all.Src), all.NumGraphs)
			}
		})
	}
}

func TestMoleculeFiles(t *testing.T) {
	f, err := MoleculeFile("esol")
	if err != nil || f.Path != "esol/delaney-processed.csv" || !strings.HasSuffix(f.URL, "/delaney-processed.csv") ||
		f.SHA256 != "8c06a76f0c6487d29ab0f903e6a7a7139f189ab3c1178f159c8be8964602f189" {
		t.Errorf("MoleculeFile(esol) = %+v, %v", f, err)
	}
	f, err = MoleculeFile("freesolv")
	if err != nil || f.Path != "freesolv/SAMPL.csv" || !strings.HasSuffix(f.URL, "/SAMPL.csv") || len(f.SHA256) != 64 {
		t.Errorf("MoleculeFile(freesolv) = %+v, %v", f, err)
	}
	ref, err := RDKitReferenceFile("freesolv")
	if err != nil || ref.Path != "freesolv/rdkit_reference.jsonl" || ref.URL != "" || len(ref.SHA256) != 64 {
		t.Errorf("RDKitReferenceFile(freesolv) = %+v, %v", ref, err)
	}
	_, err = MoleculeFile("lipophilicity")
	wantError(t, err, `unknown molecule dataset "lipophilicity"`, "esol, freesolv")
	_, err = LoadMolecules(testResolver(), "tox21", MoleculeOptions{})
	wantError(t, err, `unknown molecule dataset "tox21"`)
	_, err = RDKitReferenceFile("qm9")
	wantError(t, err, "qm9")
}

func TestMoleculesMissingAndCorrupt(t *testing.T) {
	r := &Resolver{Dir: t.TempDir(), CacheDir: t.TempDir(), Download: false}
	_, err := LoadESOL(r)
	wantError(t, err, "esol/delaney-processed.csv", "not found", DataDirEnv)

	dir := t.TempDir()
	p := filepath.Join(dir, "freesolv", "SAMPL.csv")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("iupac,smiles,expt,calc\r\nmethane,C,2.0,1.9\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadFreeSolv(&Resolver{Dir: dir})
	wantError(t, err, p, "checksum mismatch")
}

func TestLoadRealMolecules(t *testing.T) {
	esol := loadMolecules(t, "esol")
	if esol.Name != "esol" || esol.Target != "measured log solubility in mols per litre" || len(esol.Molecules) != 1128 {
		t.Fatalf("esol: %s %q %d", esol.Name, esol.Target, len(esol.Molecules))
	}
	m0 := esol.Molecules[0]
	if m0.ID != "Amigdalin" || m0.Label != -0.77 || m0.NumAtoms != 32 || m0.NumBonds() != 34 ||
		m0.SMILES != "OCC3OC(OCC2OC(OC(C#N)c1ccccc1)C(O)C(O)C2O)C(O)C(O)C3O" {
		t.Errorf("esol row 0 = %q %q %v %d atoms %d bonds", m0.ID, m0.SMILES, m0.Label, m0.NumAtoms, m0.NumBonds())
	}
	// quoted names with commas survive
	if got := esol.Molecules[0].ID; strings.Contains(got, `"`) {
		t.Errorf("quotes left in ID %q", got)
	}
	free := loadMolecules(t, "freesolv")
	if free.Target != "expt" || len(free.Molecules) != 642 {
		t.Fatalf("freesolv: %q %d", free.Target, len(free.Molecules))
	}
	f0 := free.Molecules[0]
	if f0.ID != "4-methoxy-N,N-dimethyl-benzamide" || f0.SMILES != "CN(C)C(=O)c1ccc(cc1)OC" || f0.Label != -11.01 {
		t.Errorf("freesolv row 0 = %q %q %v", f0.ID, f0.SMILES, f0.Label)
	}
	// CRLF: no carriage return anywhere
	for _, m := range free.Molecules {
		if strings.ContainsAny(m.SMILES+m.ID, "\r\n") {
			t.Fatalf("row %d keeps a line break: %q %q", m.Row, m.ID, m.SMILES)
		}
	}
	labels := free.Labels()
	if len(labels) != 642 || labels[0] != -11.01 {
		t.Errorf("Labels() = %v…", labels[:3])
	}
}

func TestPaperMoleculeSplit(t *testing.T) {
	for _, c := range []struct {
		n                 int
		train, test, val  int
		first             []int
		sha256OfShuffling string // sha256 of the comma-joined permutation, computed with CPython 3.11
	}{
		{1128, 902, 113, 113, []int{69, 789, 142, 178, 870, 100, 523, 557, 1041, 1024, 713, 121},
			"08e7221067c7f76ed410f793d93de454893b0bdd44fcfb36c17c15ea63807c76"},
		{642, 513, 64, 65, []int{114, 61, 617, 39, 273, 362, 153, 402, 265, 2, 305, 315},
			"dd64a1749017f914dbabe85879adc375561deaa5a314a50b2cc0128e774cdd0d"},
	} {
		s := PaperMoleculeSplit(c.n)
		if len(s.Train) != c.train || len(s.Test) != c.test || len(s.Val) != c.val {
			t.Errorf("n=%d: split sizes %d/%d/%d, want %d/%d/%d", c.n, len(s.Train), len(s.Test), len(s.Val), c.train, c.test, c.val)
		}
		if fmt.Sprint(s.Train[:len(c.first)]) != fmt.Sprint(c.first) {
			t.Errorf("n=%d: train starts %v, want %v", c.n, s.Train[:len(c.first)], c.first)
		}
		all := append(append(append([]int{}, s.Train...), s.Test...), s.Val...)
		parts := make([]string, len(all))
		seen := make([]bool, c.n)
		for i, v := range all {
			parts[i] = strconv.Itoa(v)
			if seen[v] {
				t.Fatalf("n=%d: %d twice", c.n, v)
			}
			seen[v] = true
		}
		sum := sha256.Sum256([]byte(strings.Join(parts, ",")))
		if got := hex.EncodeToString(sum[:]); got != c.sha256OfShuffling {
			t.Errorf("n=%d: permutation sha256 %s, want %s (Python's random.Random(2666).shuffle)", c.n, got, c.sha256OfShuffling)
		}
	}
}

func TestPythonRandom(t *testing.T) {
	// expected values printed by CPython 3.11
	r := NewPythonRandom(2666)
	if got := []uint32{r.Uint32(), r.Uint32(), r.Uint32()}; fmt.Sprint(got) != "[3488347617 1216195716 2358978118]" {
		t.Errorf("Random(2666).getrandbits(32)×3 = %v", got)
	}
	for _, c := range []struct {
		n    int
		seed uint64
		want string
	}{
		{10, 2666, "[0 9 3 5 2 1 6 7 8 4]"},
		{20, 1<<40 + 5, "[9 7 17 13 4 18 5 6 10 11 3 14 12 15 2 1 0 8 19 16]"},
		{20, 0, "[10 18 16 14 0 17 11 2 3 9 5 7 4 19 6 15 8 1 13 12]"},
		{1, 7, "[0]"},
		{0, 7, "[]"},
	} {
		if got := fmt.Sprint(PythonShuffle(c.n, c.seed)); got != c.want {
			t.Errorf("PythonShuffle(%d, %d) = %s, want %s", c.n, c.seed, got, c.want)
		}
	}
	r = NewPythonRandom(1)
	for range 1000 {
		if v := r.RandBelow(7); v < 0 || v >= 7 {
			t.Fatalf("RandBelow(7) = %d", v)
		}
	}
	if v := NewPythonRandom(3).GetRandBits(40); v >= 1<<40 {
		t.Errorf("GetRandBits(40) = %d", v)
	}
}

// wantPanic fails unless f panics, within 5 s, with a message containing every one of subs.
// f runs in its own goroutine so that a call that never returns fails the test instead of
// hanging it.
func wantPanic(t *testing.T, f func(), subs ...string) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case v := <-done:
		if v == nil {
			t.Fatalf("no panic, want one containing %q", subs)
		}
		msg := fmt.Sprint(v)
		for _, s := range subs {
			if !strings.Contains(msg, s) {
				t.Fatalf("panic %q does not contain %q", msg, s)
			}
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no return within 5 s, want a panic containing %q", subs)
	}
}

func TestPythonRandomBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
		want []string
	}{
		{"RandBelow(0)", func() { NewPythonRandom(1).RandBelow(0) }, []string{"RandBelow", "n = 0"}},
		{"RandBelow(-5)", func() { NewPythonRandom(1).RandBelow(-5) }, []string{"RandBelow", "n = -5"}},
		{"GetRandBits(65)", func() { NewPythonRandom(1).GetRandBits(65) }, []string{"GetRandBits", "k = 65", "≤ 64"}},
		{"GetRandBits(-1)", func() { NewPythonRandom(1).GetRandBits(-1) }, []string{"GetRandBits", "k = -1"}},
		{"PythonShuffle(-1)", func() { PythonShuffle(-1, 7) }, []string{"PythonShuffle", "n = -1"}},
		{"PaperMoleculeSplit(-1)", func() { PaperMoleculeSplit(-1) }, []string{"PythonShuffle", "n = -1"}},
	} {
		t.Run(c.name, func(t *testing.T) { wantPanic(t, c.f, c.want...) })
	}
	// the edges of the valid ranges still work
	r := NewPythonRandom(5)
	if v := r.RandBelow(1); v != 0 {
		t.Errorf("RandBelow(1) = %d, want 0", v)
	}
	if v := r.GetRandBits(0); v != 0 {
		t.Errorf("GetRandBits(0) = %d, want 0", v)
	}
	_ = r.GetRandBits(64)
	if s := PaperMoleculeSplit(0); len(s.Train)+len(s.Val)+len(s.Test) != 0 {
		t.Errorf("PaperMoleculeSplit(0) = %+v", s)
	}
}

// esolHeader is the header of delaney-processed.csv.
const esolHeader = "Compound ID,ESOL predicted log solubility in mols per litre,Minimum Degree,Molecular Weight," +
	"Number of H-Bond Donors,Number of Rings,Number of Rotatable Bonds,Polar Surface Area," +
	"measured log solubility in mols per litre,smiles"

func TestParseMoleculeCSV(t *testing.T) {
	// quoted fields, CRLF, trailing spaces, a name with a comma and a line break
	csvText := "iupac,smiles,expt,calc\r\n" +
		"\"1,2-dichloroethane\",ClCCCl ,-1.5,-1.2\r\n" +
		"\"a name\r\non two lines\",  c1ccccc1N(=O)=O\t,  -4.1 ,-3\r\n" +
		"methane,C,2.0,1.9\r\n"
	ds, err := ParseMoleculeCSV("freesolv", strings.NewReader(csvText), MoleculeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Molecules) != 3 {
		t.Fatalf("%d molecules", len(ds.Molecules))
	}
	m := ds.Molecules[1]
	if m.Row != 1 || m.ID != "a name\non two lines" || m.SMILES != "c1ccccc1N(=O)=O" || m.Label != -4.1 || m.NumAtoms != 9 {
		t.Errorf("row 1 = %+v", m)
	}
	if ds.Molecules[0].ID != "1,2-dichloroethane" || ds.Molecules[0].SMILES != "ClCCCl" || ds.Molecules[2].NumBonds() != 0 {
		t.Errorf("rows 0, 2 = %+v, %+v", ds.Molecules[0], ds.Molecules[2])
	}
	// the nitro N carries +1 and its first O -1 (features 61)
	if f := m.Features; f[6*NumAtomFeatures+61] != 1 || f[7*NumAtomFeatures+61] != -1 || f[8*NumAtomFeatures+61] != 0 {
		t.Errorf("nitro charges %v %v %v", f[6*NumAtomFeatures+61], f[7*NumAtomFeatures+61], f[8*NumAtomFeatures+61])
	}

	// the same in the ESOL layout, LF, with a BOM
	esol := "\ufeff" + esolHeader + "\n" + `"2,2,4,6,6'-PCB",-7.32,1,360.88,0,2,1,0.0,-8.71,Clc1cc(Cl)c(c(Cl)c1)c2c(Cl)cccc2Cl ` + "\n"
	ds, err = ParseMoleculeCSV("esol", strings.NewReader(esol), MoleculeOptions{})
	if err != nil || len(ds.Molecules) != 1 || ds.Molecules[0].ID != "2,2,4,6,6'-PCB" || ds.Molecules[0].Label != -8.71 ||
		ds.Molecules[0].NumAtoms != 17 {
		t.Errorf("esol layout: %+v, %v", ds, err)
	}
}

func TestParseMoleculeCSVBadInput(t *testing.T) {
	bad := "iupac,smiles,expt,calc\r\n" +
		"ok,CCO,1,1\r\n" +
		"\"unclosed, ring\",C1CC,2,2\r\n" +
		"ok too,c1ccccc1 ,3,3\r\n" +
		"valence,C(C)(C)(C)(C)C,4,4\r\n"
	_, err := ParseMoleculeCSV("freesolv", strings.NewReader(bad), MoleculeOptions{})
	wantError(t, err, "freesolv: line 3 (data row 1)", `SMILES "C1CC": position 1: unclosed ring 1`)
	var rowErr *MoleculeRowError
	var smiErr *smiles.Error
	if !errors.As(err, &rowErr) || rowErr.Line != 3 || rowErr.Row != 1 || !errors.As(err, &smiErr) || smiErr.Pos != 1 {
		t.Errorf("error %v: want a *MoleculeRowError for line 3 wrapping a *smiles.Error at position 1", err)
	}

	ds, err := ParseMoleculeCSV("freesolv", strings.NewReader(bad), MoleculeOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Molecules) != 2 || len(ds.Skipped) != 2 || ds.Molecules[1].Row != 2 {
		t.Fatalf("%d molecules, %d skipped", len(ds.Molecules), len(ds.Skipped))
	}
	if s := ds.Skipped[1]; s.Line != 5 || s.Row != 3 || s.SMILES != "C(C)(C)(C)(C)C" || !strings.Contains(s.Err.Error(), "valence") {
		t.Errorf("skipped[1] = %+v", s)
	}
	if got := ds.SkippedSummary(); got != "freesolv: skipped 2 row(s) with an invalid SMILES (lines 3, 5)" {
		t.Errorf("SkippedSummary() = %q", got)
	}
	if ds2, _ := ParseMoleculeCSV("freesolv", strings.NewReader("iupac,smiles,expt,calc\nm,C,1,1\n"), MoleculeOptions{}); ds2.SkippedSummary() != "" {
		t.Errorf("SkippedSummary() with nothing skipped = %q", ds2.SkippedSummary())
	}

	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"empty", "", []string{"freesolv: empty CSV"}},
		{"missing column", "iupac,smile,expt\nx,C,1\n", []string{`no column "smiles"`}},
		{"missing label column", "iupac,smiles\nx,C\n", []string{`no column "expt"`}},
		{"bad label", "iupac,smiles,expt,calc\nx,C,1,1\ny,CC,n/a,1\n", []string{"line 3 (data row 1)", `label "n/a"`}},
		{"short row", "iupac,smiles,expt,calc\nx,C\n", []string{"data row 0", "wrong number of fields"}},
		{"bad quote", "iupac,smiles,expt,calc\n\"x,C,1,1\n", []string{"data row 0"}},
		{"NaN label", "iupac,smiles,expt,calc\nx,C,1,1\ny,CC,NaN,1\n",
			[]string{"freesolv: line 3 (data row 1)", `label "NaN" in column "expt" is not a finite number`}},
		{"nan label", "iupac,smiles,expt,calc\nx,C, nan ,1\n", []string{"line 2 (data row 0)", `label "nan"`, "not a finite number"}},
		{"Inf label", "iupac,smiles,expt,calc\nx,C,Inf,1\n", []string{"line 2 (data row 0)", `label "Inf"`, "not a finite number"}},
		{"+Inf label", "iupac,smiles,expt,calc\r\nx,C,1,1\r\ny,CC,+Inf,1\r\n", []string{"line 3 (data row 1)", `label "+Inf"`, "not a finite number"}},
		{"-Infinity label", "iupac,smiles,expt,calc\nx,C,-Infinity,1\n", []string{"line 2 (data row 0)", `label "-Infinity"`, "not a finite number"}},
		{"overflowing label", "iupac,smiles,expt,calc\nx,C,1e999,1\n", []string{"line 2 (data row 0)", `label "1e999"`}},
		{"header only", "iupac,smiles,expt,calc\r\n", []string{"freesolv: no data rows"}},
		{"header only without newline", "iupac,smiles,expt,calc", []string{"freesolv: no data rows"}},
		{"header and blank lines", "iupac,smiles,expt,calc\n\n\n", []string{"freesolv: no data rows"}},
		{"duplicate column", "iupac,smiles,expt,smiles\nx,C,1,CC\n", []string{`freesolv: the header names column "smiles" twice (fields 2 and 4)`}},
		{"duplicate label column", "expt,iupac,smiles,calc,expt\nx,C,1,1,2\n", []string{`column "expt" twice (fields 1 and 5)`}},
		{"duplicate after trimming", "\ufeffiupac,smiles,expt, iupac \nx,C,1,y\n", []string{`column "iupac" twice (fields 1 and 4)`}},
		{"unknown dataset", "a\n", []string{"unknown molecule dataset"}},
	} {
		name := "freesolv"
		if c.name == "unknown dataset" {
			name = "nope"
		}
		_, err := ParseMoleculeCSV(name, strings.NewReader(c.data), MoleculeOptions{})
		t.Run(c.name, func(t *testing.T) { wantError(t, err, c.want...) })
	}
}

func TestParseMoleculeCSVEdgeCases(t *testing.T) {
	// a column the dataset does not use may repeat
	ds, err := ParseMoleculeCSV("freesolv", strings.NewReader("iupac,calc,smiles,expt,calc\nx,1,C,-1.5,2\n"), MoleculeOptions{})
	if err != nil || len(ds.Molecules) != 1 || ds.Molecules[0].Label != -1.5 {
		t.Errorf("repeated unused column: %+v, %v", ds, err)
	}
	// rows that are all skipped are reported as skipped, not as a file without data rows
	ds, err = ParseMoleculeCSV("freesolv", strings.NewReader("iupac,smiles,expt,calc\nx,C1,1,1\n"), MoleculeOptions{SkipInvalid: true})
	if err != nil || len(ds.Molecules) != 0 || len(ds.Skipped) != 1 {
		t.Errorf("all rows skipped: %+v, %v", ds, err)
	}
}

// TestLoadMoleculesBadFile checks that a file-level error names the file: the file is put
// in a data directory and the freesolv spec is pointed at its checksum for the test.
func TestLoadMoleculesBadFile(t *testing.T) {
	saved := moleculeSpecs["freesolv"]
	t.Cleanup(func() { moleculeSpecs["freesolv"] = saved })
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"header only", "iupac,smiles,expt,calc\r\n", []string{"no data rows"}},
		{"duplicate column", "iupac,smiles,expt,expt\r\nx,C,1,2\r\n", []string{`column "expt" twice`}},
		{"infinite label", "iupac,smiles,expt,calc\r\nx,C,-inf,2\r\n", []string{"line 2 (data row 0)", "not a finite number"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "freesolv", "SAMPL.csv")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			spec := saved
			spec.file.SHA256 = sha256Hex(c.data)
			moleculeSpecs["freesolv"] = spec
			_, err := LoadFreeSolv(&Resolver{Dir: dir})
			wantError(t, err, append([]string{p + ": freesolv: "}, c.want...)...)
		})
	}
}

func TestMoleculeBatch(t *testing.T) {
	csvText := "iupac,smiles,expt,calc\n" +
		"ethanol,CCO,1.5,0\n" +
		"methane,C,-2,0\n" +
		"cyclopropane,C1CC1,3.25,0\n"
	ds, err := ParseMoleculeCSV("freesolv", strings.NewReader(csvText), MoleculeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ds.Batch([]int{2, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := MoleculeBatch{
		NumGraphs:   3,
		NumNodes:    7,
		Src:         []int32{0, 1, 1, 2, 2, 0, 3, 4, 4, 5},
		Dst:         []int32{1, 0, 2, 1, 0, 2, 4, 3, 5, 4},
		NodeGraph:   []int32{0, 0, 0, 1, 1, 1, 2},
		NodeOffsets: []int32{0, 3, 6, 7},
		Labels:      []float32{3.25, 1.5, -2},
	}
	if b.NumGraphs != want.NumGraphs || b.NumNodes != want.NumNodes || fmt.Sprint(b.Src) != fmt.Sprint(want.Src) ||
		fmt.Sprint(b.Dst) != fmt.Sprint(want.Dst) || fmt.Sprint(b.NodeGraph) != fmt.Sprint(want.NodeGraph) ||
		fmt.Sprint(b.NodeOffsets) != fmt.Sprint(want.NodeOffsets) || fmt.Sprint(b.Labels) != fmt.Sprint(want.Labels) {
		t.Errorf("Batch = %+v\nwant %+v", *b, want)
	}
	if len(b.Features) != 7*NumAtomFeatures {
		t.Fatalf("%d feature values", len(b.Features))
	}
	// node 6 is methane's C: element C, degree 0, implicit valence 4, SP3, 4 H
	row := b.Features[6*NumAtomFeatures : 7*NumAtomFeatures]
	for k, v := range row {
		hot := k == 0 || k == 43 || k == 54+4 || k == 63+2 || k == 69+4
		if (v == 1) != hot || (v != 0 && v != 1) {
			t.Errorf("methane feature %d = %v", k, v)
		}
	}
	if !bytes.Equal(f32bytes(b.Features[:3*NumAtomFeatures]), f32bytes(ds.Molecules[2].Features)) {
		t.Error("first molecule's features not copied first")
	}
	if _, err := ds.Batch([]int{0, 3}); err == nil || !strings.Contains(err.Error(), "batch index 3 out of range [0, 3)") {
		t.Errorf("Batch out of range: %v", err)
	}
	empty := BatchMolecules(nil)
	if empty.NumGraphs != 0 || empty.NumNodes != 0 || fmt.Sprint(empty.NodeOffsets) != "[0]" {
		t.Errorf("empty batch %+v", empty)
	}

	split := MoleculeSplit{Train: []int{0, 1}, Val: []int{2}, Test: nil}
	tr, vl, te, err := ds.SplitBatches(split)
	if err != nil || tr.NumGraphs != 2 || vl.NumGraphs != 1 || te.NumGraphs != 0 || tr.NumNodes != 4 {
		t.Errorf("SplitBatches: %v %v %v %v", tr, vl, te, err)
	}
	if _, _, _, err := ds.SplitBatches(MoleculeSplit{Val: []int{-1}}); err == nil {
		t.Error("SplitBatches with a bad index: no error")
	}
	if p := ds.PaperSplit(); len(p.Train)+len(p.Val)+len(p.Test) != 3 {
		t.Errorf("PaperSplit of 3 = %+v", p)
	}
}

// f32bytes returns the bytes of xs for comparison.
func f32bytes(xs []float32) []byte {
	var b bytes.Buffer
	for _, x := range xs {
		fmt.Fprintf(&b, "%08x", math.Float32bits(x))
	}
	return b.Bytes()
}

func TestFeaturizeSMILES(t *testing.T) {
	m, err := FeaturizeSMILES("C1CC1")
	if err != nil || m.NumAtoms != 3 || m.NumBonds() != 3 || len(m.Features) != 3*NumAtomFeatures {
		t.Errorf("FeaturizeSMILES(C1CC1) = %+v, %v", m, err)
	}
	_, err = FeaturizeSMILES("C1CC")
	var e *smiles.Error
	if !errors.As(err, &e) || e.Pos != 1 {
		t.Errorf("FeaturizeSMILES(C1CC) error %v", err)
	}
}

// BenchmarkFeaturizeESOL reads and featurizes all of ESOL (1128 molecules) from the CSV
// bytes in memory: CSV parsing, SMILES parsing, RDKit's sanitization, 74 features per atom.
func BenchmarkFeaturizeESOL(b *testing.B) {
	requireMoleculeFiles(b, "esol", false)
	f, _ := MoleculeFile("esol")
	data, _, err := testResolver().ReadFile(f)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var n int
	start := time.Now()
	for b.Loop() {
		ds, err := ParseMoleculeCSV("esol", bytes.NewReader(data), MoleculeOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n += len(ds.Molecules)
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "molecules/s")
}

func TestMoleculeStats(t *testing.T) {
	// Expected values computed in Python from rdkit_reference.jsonl (atoms, bonds, labels) and
	// random.Random(2666).shuffle (the paper's split), apart from this package's code.
	for _, c := range []struct {
		name                    string
		molecules, atoms, bonds int
		minAtoms, maxAtoms      int
		meanAtoms               float64
		label                   LabelStats
		split                   SplitSizes
		meanPredictorTestRMSE   float64
	}{
		{"esol", 1128, 14991, 15428, 1, 55, 13.2899, LabelStats{Mean: -3.0501, Std: 2.0955, Min: -11.6, Max: 1.58},
			SplitSizes{Train: 902, Val: 113, Test: 113}, 2.3320},
		{"freesolv", 642, 5600, 5385, 1, 24, 8.7227, LabelStats{Mean: -3.8030, Std: 3.8448, Min: -25.47, Max: 3.43},
			SplitSizes{Train: 513, Val: 65, Test: 64}, 3.5904},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := loadMolecules(t, c.name).Stats()
			near := func(a, b float64) bool { return math.Abs(a-b) < 5e-5 }
			if st.Dataset != c.name || st.NumMolecules != c.molecules || st.NumSkipped != 0 || st.NumAtoms != c.atoms ||
				st.NumBonds != c.bonds || st.MinAtoms != c.minAtoms || st.MaxAtoms != c.maxAtoms ||
				!near(st.MeanAtoms, c.meanAtoms) || st.NumFeatures != NumAtomFeatures || st.SplitSizes != c.split {
				t.Errorf("stats %+v", st)
			}
			if !near(st.Label.Mean, c.label.Mean) || !near(st.Label.Std, c.label.Std) || st.Label.Min != c.label.Min ||
				st.Label.Max != c.label.Max {
				t.Errorf("label stats %+v, want %+v", st.Label, c.label)
			}
			if !near(st.MeanPredictorTestRMSE, c.meanPredictorTestRMSE) {
				t.Errorf("mean predictor's test RMSE %.5f, want %.4f", st.MeanPredictorTestRMSE, c.meanPredictorTestRMSE)
			}
		})
	}
}
