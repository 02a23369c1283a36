package smiles

// NumAtomFeatures is the length of one atom's feature vector from DGL-LifeSci's
// CanonicalAtomFeaturizer: 43 + 11 + 7 + 1 + 1 + 5 + 1 + 5.
const NumAtomFeatures = 74

// AtomTypeSymbols are the 43 element symbols of CanonicalAtomFeaturizer's one-hot block, in
// order. Other elements (and "*") get an all-zero block: there is no "unknown" slot.
var AtomTypeSymbols = [43]string{
	"C", "N", "O", "S", "F", "Si", "P", "Cl", "Br", "Mg", "Na", "Ca",
	"Fe", "As", "Al", "I", "B", "V", "K", "Tl", "Yb", "Sb", "Sn",
	"Ag", "Pd", "Co", "Se", "Ti", "Zn", "H", "Li", "Ge", "Cu", "Au",
	"Ni", "Cd", "In", "Mn", "Zr", "Cr", "Pt", "Hg", "Pb",
}

// Offsets of the blocks of the feature vector.
const (
	offAtomType     = 0
	offDegree       = 43 // 0…10
	offImplicitVal  = 54 // 0…6
	offFormalCharge = 61
	offRadicals     = 62
	offHybrid       = 63 // SP, SP2, SP3, SP3D, SP3D2
	offAromatic     = 68
	offTotalHs      = 69 // 0…4
)

// atomTypeIndex maps an atomic number to its slot in AtomTypeSymbols (-1: none).
var atomTypeIndex = func() [len(elements)]int8 {
	var t [len(elements)]int8
	for i := range t {
		t[i] = -1
	}
	for k, sym := range AtomTypeSymbols {
		t[elementBySymbol[sym]] = int8(k)
	}
	return t
}()

// AtomFeatures returns atom i's feature vector, laid out as DGL-LifeSci's
// CanonicalAtomFeaturizer (encode_unknown=False) lays it out:
//
//	[0,43)  element one-hot (AtomTypeSymbols)
//	[43,54) degree one-hot, 0…10
//	[54,61) implicit valence one-hot, 0…6
//	61      formal charge (an integer, not one-hot)
//	62      number of radical electrons (an integer)
//	[63,68) hybridization one-hot: SP, SP2, SP3, SP3D, SP3D2
//	68      aromatic, 0 or 1
//	[69,74) total hydrogen count one-hot, 0…4
//
// A value outside a one-hot block's range leaves the block all zero. The molecule must be
// sanitized (MolFromSMILES).
func (m *Mol) AtomFeatures(i int) [NumAtomFeatures]int {
	var f [NumAtomFeatures]int
	a := &m.atoms[i]
	if a.z >= 0 && a.z < len(atomTypeIndex) {
		if k := atomTypeIndex[a.z]; k >= 0 {
			f[offAtomType+int(k)] = 1
		}
	}
	oneHot(&f, offDegree, 11, len(m.adj[i]))
	oneHot(&f, offImplicitVal, 7, m.implicitValence(i))
	f[offFormalCharge] = a.charge
	f[offRadicals] = a.radicals
	switch a.hybrid {
	case HybridSP:
		f[offHybrid] = 1
	case HybridSP2:
		f[offHybrid+1] = 1
	case HybridSP3:
		f[offHybrid+2] = 1
	case HybridSP3D:
		f[offHybrid+3] = 1
	case HybridSP3D2:
		f[offHybrid+4] = 1
	}
	if a.aromatic {
		f[offAromatic] = 1
	}
	oneHot(&f, offTotalHs, 5, m.totalNumHs(i))
	return f
}

// oneHot sets f[off+v] when 0 ≤ v < n.
func oneHot(f *[NumAtomFeatures]int, off, n, v int) {
	if v >= 0 && v < n {
		f[off+v] = 1
	}
}

// AppendFeatures appends the feature vectors of all atoms, row by row, to dst as float32
// (DGL-LifeSci's dtype) and returns the extended slice: NumAtoms()×NumAtomFeatures values.
func (m *Mol) AppendFeatures(dst []float32) []float32 {
	for i := range m.atoms {
		f := m.AtomFeatures(i)
		for _, v := range f {
			dst = append(dst, float32(v))
		}
	}
	return dst
}
