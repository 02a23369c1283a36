package smiles

import "fmt"

// BondType is the order of a bond, named as RDKit names it (Bond::BondType).
type BondType uint8

// The bond types a SMILES string can produce.
const (
	// Unspecified is used only while parsing, for a bond written without a symbol.
	Unspecified BondType = iota
	// Single is a single bond ("-", "/", "\" or nothing between non-aromatic atoms).
	Single
	// Double is a double bond ("=").
	Double
	// Triple is a triple bond ("#").
	Triple
	// Quadruple is a quadruple bond ("$").
	Quadruple
	// Aromatic is an aromatic bond (":" or nothing between two aromatic atoms; set by
	// aromaticity perception after sanitization).
	Aromatic
)

// String returns RDKit's name of the bond type: "SINGLE", "DOUBLE", "TRIPLE", "QUADRUPLE",
// "AROMATIC" or "UNSPECIFIED".
func (t BondType) String() string {
	switch t {
	case Single:
		return "SINGLE"
	case Double:
		return "DOUBLE"
	case Triple:
		return "TRIPLE"
	case Quadruple:
		return "QUADRUPLE"
	case Aromatic:
		return "AROMATIC"
	}
	return "UNSPECIFIED"
}

// valenceContrib is RDKit's Bond::getValenceContrib (= getBondTypeAsDouble for the types here).
func (t BondType) valenceContrib() float64 {
	switch t {
	case Single:
		return 1
	case Double:
		return 2
	case Triple:
		return 3
	case Quadruple:
		return 4
	case Aromatic:
		return 1.5
	}
	return 0
}

// Hybridization is an atom's hybridization, named as RDKit names it (Atom::HybridizationType).
type Hybridization uint8

// The hybridization states, in RDKit's order.
const (
	// HybridUnspecified is RDKit's UNSPECIFIED (also the state before sanitization).
	HybridUnspecified Hybridization = iota
	// HybridS is RDKit's S (norbs 0 or 1, e.g. a lone ion).
	HybridS
	// HybridSP is RDKit's SP.
	HybridSP
	// HybridSP2 is RDKit's SP2.
	HybridSP2
	// HybridSP2D is RDKit's SP2D (square-planar stereo only).
	HybridSP2D
	// HybridSP3 is RDKit's SP3.
	HybridSP3
	// HybridSP3D is RDKit's SP3D.
	HybridSP3D
	// HybridSP3D2 is RDKit's SP3D2.
	HybridSP3D2
	// HybridOther is RDKit's OTHER (never produced here).
	HybridOther
)

// String returns RDKit's name of the hybridization, e.g. "SP3".
func (h Hybridization) String() string {
	switch h {
	case HybridS:
		return "S"
	case HybridSP:
		return "SP"
	case HybridSP2:
		return "SP2"
	case HybridSP2D:
		return "SP2D"
	case HybridSP3:
		return "SP3"
	case HybridSP3D:
		return "SP3D"
	case HybridSP3D2:
		return "SP3D2"
	case HybridOther:
		return "OTHER"
	}
	return "UNSPECIFIED"
}

// chiralClass is the kind of stereo mark a bracket atom carries. Stereo is otherwise
// ignored, but RDKit's hybridization takes a shortcut for marked atoms.
type chiralClass uint8

const (
	chiralNone chiralClass = iota
	chiralTetrahedral
	chiralSquarePlanar
	chiralTrigonalBipyramidal
	chiralOctahedral
	chiralAllene
)

// atom is one atom: what the SMILES said, and the values RDKit computes and caches.
type atom struct {
	z             int  // atomic number, 0 for "*"
	aromatic      bool // lower-case in the SMILES; after sanitization: perceived aromatic
	noImplicit    bool // bracket atom: no implicit hydrogens
	numExplicitHs int  // the bracket H count (later also hydrogens RDKit makes explicit)
	charge        int
	isotope       int
	mapNum        int
	chiral        chiralClass
	pos           int // byte offset of the atom in the SMILES

	// Cached values, as RDKit caches them; -1 = not computed yet.
	explicitValence int
	implicitValence int
	radicals        int
	hybrid          Hybridization
}

// bond is one bond between atoms begin and end.
type bond struct {
	begin, end  int
	typ         BondType
	aromatic    bool
	conjugated  bool
	directional bool // written "/" or "\\" (only hydrogen removal looks at it)
}

// other returns the atom of b that is not a.
func (b *bond) other(a int) int {
	if b.begin == a {
		return b.end
	}
	return b.begin
}

// Mol is a molecule read from SMILES. Atoms are numbered in the order they are written in
// the SMILES, bonds in the order RDKit's SMILES parser creates them (see Parse).
//
// Parse returns a Mol as written; MolFromSMILES returns it after RDKit's default
// sanitization, which is what the accessors describing computed properties (AtomInfo,
// AtomFeatures) need.
type Mol struct {
	smiles    string
	atoms     []atom
	bonds     []bond
	adj       [][]int // per atom, its bond indices in increasing order (RDKit's adjacency order)
	rings     ringInfo
	sanitized bool
}

// SMILES returns the string the molecule was parsed from.
func (m *Mol) SMILES() string { return m.smiles }

// NumAtoms returns the number of atoms.
func (m *Mol) NumAtoms() int { return len(m.atoms) }

// NumBonds returns the number of bonds.
func (m *Mol) NumBonds() int { return len(m.bonds) }

// Sanitized reports whether the molecule went through RDKit's sanitization (MolFromSMILES).
func (m *Mol) Sanitized() bool { return m.sanitized }

// BondInfo describes one bond.
type BondInfo struct {
	// Begin and End are the atom indices, in RDKit's order (GetBeginAtomIdx, GetEndAtomIdx).
	Begin, End int
	// Type is the bond order (after sanitization: Aromatic for aromatic bonds, the Kekulé
	// order for the others).
	Type BondType
	// IsAromatic is RDKit's GetIsAromatic.
	IsAromatic bool
	// IsConjugated is RDKit's GetIsConjugated (meaningful after sanitization).
	IsConjugated bool
}

// Bond returns bond i.
func (m *Mol) Bond(i int) BondInfo {
	b := &m.bonds[i]
	return BondInfo{Begin: b.begin, End: b.end, Type: b.typ, IsAromatic: b.aromatic, IsConjugated: b.conjugated}
}

// AppendEdges appends, for every bond k in RDKit's bond order, the directed edges
// begin→end (edge 2k) and end→begin (edge 2k+1) to src and dst, each atom index shifted by
// offset. This is DGL's bigraph layout.
func (m *Mol) AppendEdges(src, dst []int32, offset int32) ([]int32, []int32) {
	for i := range m.bonds {
		b, e := int32(m.bonds[i].begin)+offset, int32(m.bonds[i].end)+offset
		src = append(src, b, e)
		dst = append(dst, e, b)
	}
	return src, dst
}

// AtomInfo is what RDKit reports about one atom: the raw values behind the 74 features.
type AtomInfo struct {
	// Symbol is the element symbol (GetSymbol), "*" for a dummy atom.
	Symbol string
	// AtomicNum is the atomic number (0 for "*").
	AtomicNum int
	// Degree is the number of bonded neighbours (GetDegree; hydrogens are not atoms here).
	Degree int
	// ImplicitValence is GetImplicitValence: the hydrogens the valence model adds, 0 for
	// bracket atoms.
	ImplicitValence int
	// FormalCharge is GetFormalCharge.
	FormalCharge int
	// NumRadicalElectrons is GetNumRadicalElectrons.
	NumRadicalElectrons int
	// Hybridization is GetHybridization.
	Hybridization Hybridization
	// IsAromatic is GetIsAromatic.
	IsAromatic bool
	// TotalNumHs is GetTotalNumHs: explicit plus implicit hydrogens.
	TotalNumHs int
	// Pos is the byte offset of the atom in the SMILES.
	Pos int
}

// Atom returns what RDKit reports about atom i. The computed fields (implicit valence,
// hybridization, …) are meaningful only for a sanitized molecule.
func (m *Mol) Atom(i int) AtomInfo {
	a := &m.atoms[i]
	sym := "*"
	if a.z > 0 && a.z < len(elements) {
		sym = elements[a.z].symbol
	}
	return AtomInfo{
		Symbol:              sym,
		AtomicNum:           a.z,
		Degree:              len(m.adj[i]),
		ImplicitValence:     m.implicitValence(i),
		FormalCharge:        a.charge,
		NumRadicalElectrons: a.radicals,
		Hybridization:       a.hybrid,
		IsAromatic:          a.aromatic,
		TotalNumHs:          m.totalNumHs(i),
		Pos:                 a.pos,
	}
}

// String returns a short description for debugging.
func (m *Mol) String() string {
	return fmt.Sprintf("Mol(%q, %d atoms, %d bonds)", m.smiles, len(m.atoms), len(m.bonds))
}

// buildAdjacency fills m.adj from m.bonds: each atom's bonds in increasing bond index,
// which is the order RDKit iterates an atom's bonds and neighbours.
func (m *Mol) buildAdjacency() {
	counts := make([]int, len(m.atoms))
	for i := range m.bonds {
		counts[m.bonds[i].begin]++
		counts[m.bonds[i].end]++
	}
	store := make([]int, 2*len(m.bonds))
	m.adj = make([][]int, len(m.atoms))
	off := 0
	for i, c := range counts {
		m.adj[i] = store[off : off : off+c]
		off += c
	}
	for i := range m.bonds {
		b := &m.bonds[i]
		m.adj[b.begin] = append(m.adj[b.begin], i)
		m.adj[b.end] = append(m.adj[b.end], i)
	}
}

// bondBetween returns the index of the bond between atoms a and b, or -1.
func (m *Mol) bondBetween(a, b int) int {
	for _, bi := range m.adj[a] {
		if m.bonds[bi].other(a) == b {
			return bi
		}
	}
	return -1
}
