package datasets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/stagnb/stagnb/datasets/smiles"
)

// NumAtomFeatures is the width of a molecule's node features: DGL-LifeSci's
// CanonicalAtomFeaturizer (see package smiles).
const NumAtomFeatures = smiles.NumAtomFeatures

// MoleculeDatasetNames are the molecule datasets LoadMolecules knows, in the order the
// paper lists them.
var MoleculeDatasetNames = []string{"esol", "freesolv"}

// moleculeSpec describes one MoleculeNet CSV file.
type moleculeSpec struct {
	file      File
	reference File // RDKit reference featurization (made by the shared rdkit_reference.py)
	idCol     string
	smilesCol string
	labelCol  string
}

// moleculeSpecs pins the files (README of the shared datasets, sections 2, 3 and 5). The
// URLs are the MoleculeNet copies DeepChem's loaders download; whether their bytes are the pinned
// ones could not be checked offline, so the copies where the pinned bytes were found follow as
// mirrors.
var moleculeSpecs = map[string]moleculeSpec{
	"esol": {
		file: File{
			Path: "esol/delaney-processed.csv",
			URL:  "https://deepchemdata.s3-us-west-1.amazonaws.com/datasets/delaney-processed.csv",
			// The three copies in which the pinned bytes were found (shared datasets README, §2).
			Mirrors: []string{
				"https://raw.githubusercontent.com/ajia90/smilestransformer/e5c7f96af1c49e9788057f5fa82bba20fea1bf8c/delaney-processed.csv",
				"https://raw.githubusercontent.com/rohmadyudiutomo/p300/a047fa4c388f9a58f8fa04224212ae60a3fccdf6/delaney-processed.csv",
				"https://raw.githubusercontent.com/concigabry/chemoinformatica/c272cda2b305cf573fd3dd5483476ce220bb9914/delaney-processed.csv",
			},
			SHA256: "8c06a76f0c6487d29ab0f903e6a7a7139f189ab3c1178f159c8be8964602f189",
		},
		reference: File{
			Path:   "esol/rdkit_reference.jsonl",
			SHA256: "9032130799479ce59aaeb266b250c84ce2b5a74132ebfd66315c74ab95ef0dce",
		},
		idCol:     "Compound ID",
		smilesCol: "smiles",
		labelCol:  "measured log solubility in mols per litre",
	},
	"freesolv": {
		file: File{
			Path: "freesolv/SAMPL.csv",
			URL:  "https://deepchemdata.s3-us-west-1.amazonaws.com/datasets/SAMPL.csv",
			// The copy in which the pinned bytes were found (shared datasets README, §3).
			Mirrors: []string{
				"https://raw.githubusercontent.com/ajia90/smilestransformer/e5c7f96af1c49e9788057f5fa82bba20fea1bf8c/SAMPL.csv",
			},
			SHA256: "ab5895d914ee87cb563bd7b9611e869527bba45bec6b014d34dc495a0f9dcb72",
		},
		reference: File{
			Path:   "freesolv/rdkit_reference.jsonl",
			SHA256: "a031b03b376faa4469155348c47150a216c20f9dacbe27a37247b7371c3c7c6f",
		},
		idCol:     "iupac",
		smilesCol: "smiles",
		labelCol:  "expt",
	},
}

// moleculeSpecFor returns the spec of the molecule dataset name.
func moleculeSpecFor(name string) (moleculeSpec, error) {
	s, ok := moleculeSpecs[name]
	if !ok {
		return s, fmt.Errorf("unknown molecule dataset %q (valid: %s)", name, strings.Join(MoleculeDatasetNames, ", "))
	}
	return s, nil
}

// MoleculeFile returns the CSV file of the molecule dataset name ("esol" or "freesolv").
func MoleculeFile(name string) (File, error) {
	s, err := moleculeSpecFor(name)
	return s.file, err
}

// RDKitReferenceFile returns the JSONL file with RDKit 2022.09's featurization of the
// molecule dataset name, made by the shared datasets' rdkit_reference.py. It has no
// download URL: it is found in $STAGNB_DATA or the cache, or not at all.
func RDKitReferenceFile(name string) (File, error) {
	s, err := moleculeSpecFor(name)
	return s.reference, err
}

// Molecule is one molecule of a dataset, featurized: a graph with one node per heavy atom
// (in SMILES order) and two directed edges per bond.
type Molecule struct {
	// Row is the 0-based data row in the CSV file.
	Row int
	// ID is the compound's name (ESOL "Compound ID", FreeSolv "iupac").
	ID string
	// SMILES is the CSV's SMILES with surrounding whitespace removed.
	SMILES string
	// Label is the regression target.
	Label float64
	// NumAtoms is the number of nodes.
	NumAtoms int
	// Features holds NumAtoms × NumAtomFeatures values, row-major.
	Features []float32
	// Src and Dst are the directed edges: for bond k in RDKit's bond order, edge 2k is
	// begin→end and edge 2k+1 end→begin (DGL-LifeSci's bigraph).
	Src, Dst []int32
}

// NumBonds returns the number of bonds (half the number of directed edges).
func (m *Molecule) NumBonds() int { return len(m.Src) / 2 }

// SkippedRow is a CSV row dropped by MoleculeOptions.SkipInvalid.
type SkippedRow struct {
	// Line is the 1-based line of the row's SMILES field in the file.
	Line int
	// Row is the 0-based data row.
	Row int
	// SMILES is the rejected SMILES.
	SMILES string
	// Err says why (a *smiles.Error).
	Err error
}

// MoleculeDataset is a featurized molecule dataset.
type MoleculeDataset struct {
	// Name is "esol" or "freesolv".
	Name string
	// Target is the CSV column of the label.
	Target string
	// Molecules are in CSV order (minus skipped rows).
	Molecules []Molecule
	// Skipped lists the rows dropped because their SMILES could not be read (only with
	// MoleculeOptions.SkipInvalid).
	Skipped []SkippedRow
}

// MoleculeOptions adjusts LoadMolecules and ParseMoleculeCSV.
type MoleculeOptions struct {
	// SkipInvalid drops rows whose SMILES cannot be read and lists them in
	// MoleculeDataset.Skipped; without it the first such row fails the load.
	SkipInvalid bool
}

// MoleculeRowError is a CSV row whose SMILES could not be read.
type MoleculeRowError struct {
	// Dataset is the dataset name.
	Dataset string
	// Line is the 1-based line of the SMILES field.
	Line int
	// Row is the 0-based data row.
	Row int
	// Err is the underlying *smiles.Error (it has the byte position inside the SMILES).
	Err error
}

// Error names the dataset, the line and row, and the SMILES error.
func (e *MoleculeRowError) Error() string {
	return fmt.Sprintf("%s: line %d (data row %d): %v", e.Dataset, e.Line, e.Row, e.Err)
}

// Unwrap returns the SMILES error.
func (e *MoleculeRowError) Unwrap() error { return e.Err }

// LoadMolecules finds (through r), verifies and featurizes the molecule dataset name
// ("esol" or "freesolv").
func LoadMolecules(r *Resolver, name string, opts MoleculeOptions) (*MoleculeDataset, error) {
	spec, err := moleculeSpecFor(name)
	if err != nil {
		return nil, err
	}
	fh, err := r.Open(spec.file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	ds, err := ParseMoleculeCSV(name, fh, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fh.Name(), err)
	}
	return ds, nil
}

// LoadESOL is LoadMolecules(r, "esol", MoleculeOptions{}): 1128 molecules, target
// "measured log solubility in mols per litre" (log10 mol/L).
func LoadESOL(r *Resolver) (*MoleculeDataset, error) {
	return LoadMolecules(r, "esol", MoleculeOptions{})
}

// LoadFreeSolv is LoadMolecules(r, "freesolv", MoleculeOptions{}): 642 molecules, target
// "expt" (hydration free energy, kcal/mol).
func LoadFreeSolv(r *Resolver) (*MoleculeDataset, error) {
	return LoadMolecules(r, "freesolv", MoleculeOptions{})
}

// ParseMoleculeCSV reads and featurizes a CSV in the layout of the molecule dataset name:
// a header row naming at least the dataset's SMILES, label and ID columns, then one
// molecule per row. Quoted fields and CRLF line ends are fine; whitespace around the
// SMILES and the label is ignored. A SMILES that cannot be read fails the load with a
// *MoleculeRowError (line, row, and the position inside the SMILES), unless
// opts.SkipInvalid is set. A header naming a wanted column twice, a label that is not a
// finite number (NaN and ±Inf are rejected), and a file without data rows are errors.
func ParseMoleculeCSV(name string, data io.Reader, opts MoleculeOptions) (*MoleculeDataset, error) {
	spec, err := moleculeSpecFor(name)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(data)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty CSV", name)
		}
		return nil, fmt.Errorf("%s: header: %w", name, err)
	}
	col := func(want string) (int, error) {
		found := -1
		for i, h := range header {
			if strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) != want {
				continue
			}
			if found >= 0 {
				return 0, fmt.Errorf("%s: the header names column %q twice (fields %d and %d)", name, want, found+1, i+1)
			}
			found = i
		}
		if found < 0 {
			return 0, fmt.Errorf("%s: the header has no column %q (columns: %q)", name, want, header)
		}
		return found, nil
	}
	smilesIdx, err := col(spec.smilesCol)
	if err != nil {
		return nil, err
	}
	labelIdx, err := col(spec.labelCol)
	if err != nil {
		return nil, err
	}
	idIdx, err := col(spec.idCol)
	if err != nil {
		return nil, err
	}
	ds := &MoleculeDataset{Name: name, Target: spec.labelCol}
	for row := 0; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: data row %d: %w", name, row, err)
		}
		line, _ := cr.FieldPos(smilesIdx)
		smi := strings.TrimSpace(rec[smilesIdx])
		labelText := strings.TrimSpace(rec[labelIdx])
		label, err := strconv.ParseFloat(labelText, 64)
		if err != nil {
			labelLine, _ := cr.FieldPos(labelIdx)
			return nil, fmt.Errorf("%s: line %d (data row %d): label %q in column %q is not a number",
				name, labelLine, row, labelText, spec.labelCol)
		}
		if math.IsNaN(label) || math.IsInf(label, 0) {
			labelLine, _ := cr.FieldPos(labelIdx)
			return nil, fmt.Errorf("%s: line %d (data row %d): label %q in column %q is not a finite number",
				name, labelLine, row, labelText, spec.labelCol)
		}
		mol, err := FeaturizeSMILES(smi)
		if err != nil {
			if opts.SkipInvalid {
				ds.Skipped = append(ds.Skipped, SkippedRow{Line: line, Row: row, SMILES: smi, Err: err})
				continue
			}
			return nil, &MoleculeRowError{Dataset: name, Line: line, Row: row, Err: err}
		}
		mol.Row, mol.ID, mol.Label = row, strings.Clone(rec[idIdx]), label
		ds.Molecules = append(ds.Molecules, mol)
	}
	if len(ds.Molecules) == 0 && len(ds.Skipped) == 0 {
		return nil, fmt.Errorf("%s: no data rows after the header", name)
	}
	return ds, nil
}

// FeaturizeSMILES reads one SMILES as RDKit's Chem.MolFromSmiles does and featurizes it
// with CanonicalAtomFeaturizer (see package smiles). Only SMILES, NumAtoms, Features, Src
// and Dst are set.
func FeaturizeSMILES(s string) (Molecule, error) {
	m, err := smiles.MolFromSMILES(s)
	if err != nil {
		return Molecule{}, err
	}
	mol := Molecule{SMILES: s, NumAtoms: m.NumAtoms()}
	mol.Features = m.AppendFeatures(make([]float32, 0, m.NumAtoms()*NumAtomFeatures))
	mol.Src, mol.Dst = m.AppendEdges(make([]int32, 0, 2*m.NumBonds()), make([]int32, 0, 2*m.NumBonds()), 0)
	return mol, nil
}

// Labels returns the labels of all molecules, in order.
func (ds *MoleculeDataset) Labels() []float64 {
	out := make([]float64, len(ds.Molecules))
	for i := range ds.Molecules {
		out[i] = ds.Molecules[i].Label
	}
	return out
}

// PaperSplitSeed is the seed of the paper's molecule split: the original code shuffles the
// DGL-LifeSci dataset with random.Random(2666).shuffle.
const PaperSplitSeed = 2666

// MoleculeSplit holds indices into MoleculeDataset.Molecules, in shuffled order.
type MoleculeSplit struct{ Train, Val, Test []int }

// PaperMoleculeSplit reproduces the paper's 80/10/10 split of n molecules exactly: the
// list 0…n-1 is shuffled as Python's random.Random(2666).shuffle shuffles it (see
// PythonShuffle), Train is the first int(0.8·n) entries, Test the next ones up to
// int(0.9·n), and Val the rest. (The original code calls the middle part "te" and the last
// "vl"; with floats as Python computes them, n = 1128 gives 902/113/113 and n = 642 gives
// 513/64/65 for train/test/val.)
//
// For ESOL the shuffled order starts 69, 789, 142, 178, 870, …; for FreeSolv 114, 61, 617,
// 39, 273, …
//
// It panics if n is negative (see PythonShuffle).
func PaperMoleculeSplit(n int) MoleculeSplit {
	perm := PythonShuffle(n, PaperSplitSeed)
	a, b := int(0.8*float64(n)), int(0.9*float64(n))
	return MoleculeSplit{Train: perm[:a:a], Test: perm[a:b:b], Val: perm[b:]}
}

// PaperSplit is PaperMoleculeSplit(len(ds.Molecules)). It is the paper's split only if no
// rows were skipped.
func (ds *MoleculeDataset) PaperSplit() MoleculeSplit {
	return PaperMoleculeSplit(len(ds.Molecules))
}

// MoleculeBatch is many molecules packed into one graph, their disjoint union, for a
// readout that sums over each molecule's nodes.
type MoleculeBatch struct {
	// NumGraphs is the number of molecules.
	NumGraphs int
	// NumNodes is the total number of atoms.
	NumNodes int
	// Features holds NumNodes × NumAtomFeatures values, row-major, molecule after molecule.
	Features []float32
	// Src and Dst are the directed edges, with each molecule's node indices shifted by the
	// number of nodes before it.
	Src, Dst []int32
	// NodeGraph gives each node's molecule (0…NumGraphs-1).
	NodeGraph []int32
	// NodeOffsets has NumGraphs+1 entries: molecule g owns nodes NodeOffsets[g] …
	// NodeOffsets[g+1]-1.
	NodeOffsets []int32
	// Labels holds one label per molecule.
	Labels []float32
}

// Batch packs the molecules with the given indices, in that order, into one MoleculeBatch.
func (ds *MoleculeDataset) Batch(indices []int) (*MoleculeBatch, error) {
	mols := make([]*Molecule, len(indices))
	for k, i := range indices {
		if i < 0 || i >= len(ds.Molecules) {
			return nil, fmt.Errorf("%s: batch index %d out of range [0, %d)", ds.Name, i, len(ds.Molecules))
		}
		mols[k] = &ds.Molecules[i]
	}
	return BatchMolecules(mols), nil
}

// BatchMolecules packs molecules, in order, into one MoleculeBatch.
func BatchMolecules(mols []*Molecule) *MoleculeBatch {
	nodes, edges := 0, 0
	for _, m := range mols {
		nodes += m.NumAtoms
		edges += len(m.Src)
	}
	b := &MoleculeBatch{
		NumGraphs:   len(mols),
		NumNodes:    nodes,
		Features:    make([]float32, 0, nodes*NumAtomFeatures),
		Src:         make([]int32, 0, edges),
		Dst:         make([]int32, 0, edges),
		NodeGraph:   make([]int32, 0, nodes),
		NodeOffsets: make([]int32, 0, len(mols)+1),
		Labels:      make([]float32, 0, len(mols)),
	}
	off := int32(0)
	for g, m := range mols {
		b.NodeOffsets = append(b.NodeOffsets, off)
		b.Features = append(b.Features, m.Features...)
		for k := range m.Src {
			b.Src = append(b.Src, m.Src[k]+off)
			b.Dst = append(b.Dst, m.Dst[k]+off)
		}
		for range m.NumAtoms {
			b.NodeGraph = append(b.NodeGraph, int32(g))
		}
		b.Labels = append(b.Labels, float32(m.Label))
		off += int32(m.NumAtoms)
	}
	b.NodeOffsets = append(b.NodeOffsets, off)
	return b
}

// SplitBatches returns the train, val and test batches of a split.
func (ds *MoleculeDataset) SplitBatches(s MoleculeSplit) (train, val, test *MoleculeBatch, err error) {
	if train, err = ds.Batch(s.Train); err != nil {
		return nil, nil, nil, err
	}
	if val, err = ds.Batch(s.Val); err != nil {
		return nil, nil, nil, err
	}
	if test, err = ds.Batch(s.Test); err != nil {
		return nil, nil, nil, err
	}
	return train, val, test, nil
}

// indicesOf returns 0…n-1 (a helper for callers that batch a whole dataset).
func indicesOf(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// All returns the whole dataset as one batch, in CSV order.
func (ds *MoleculeDataset) All() *MoleculeBatch {
	b, _ := ds.Batch(indicesOf(len(ds.Molecules)))
	return b
}

// sortedSkippedLines returns the lines of the skipped rows (for messages).
func (ds *MoleculeDataset) sortedSkippedLines() []int {
	lines := make([]int, len(ds.Skipped))
	for i, s := range ds.Skipped {
		lines[i] = s.Line
	}
	slices.Sort(lines)
	return lines
}

// SkippedSummary says how many rows were skipped and on which lines, or "" if none.
func (ds *MoleculeDataset) SkippedSummary() string {
	if len(ds.Skipped) == 0 {
		return ""
	}
	lines := ds.sortedSkippedLines()
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	return fmt.Sprintf("%s: skipped %d row(s) with an invalid SMILES (lines %s)", ds.Name, len(ds.Skipped), strings.Join(parts, ", "))
}
