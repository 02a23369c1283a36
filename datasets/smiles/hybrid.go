package smiles

// This file ports RDKit's conjugation and hybridization rules
// (Code/GraphMol/ConjugHybrid.cpp, MolOps::setConjugation and MolOps::setHybridization,
// RDKit 2022.09).

// isAtomConjugCand is RDKit's isAtomConjugCand: first-row atoms, and heavier ones without
// five or six outer electrons (or with six and a single neighbour), that have electrons
// for a pi system.
func (m *Mol) isAtomConjugCand(i int) bool {
	z := m.atoms[i].z
	nouter := nOuterElecs(z)
	return (z <= 10 || (nouter != 5 && nouter != 6) || (nouter == 6 && m.totalDegree(i) < 2)) &&
		m.countAtomElec(i) > 0
}

// markConjAtomBonds marks the bonds around atom i conjugated when one of them is a
// multiple (or aromatic) bond and the atom at the other end of another is a candidate.
func (m *Mol) markConjAtomBonds(i int) {
	if !m.isAtomConjugCand(i) {
		return
	}
	if sbo := len(m.adj[i]) + m.totalNumHs(i); sbo < 2 || sbo > 3 {
		return
	}
	for _, b1 := range m.adj[i] {
		if m.bonds[b1].typ.valenceContrib() < 1.5 {
			continue
		}
		for _, b2 := range m.adj[i] {
			if b1 == b2 {
				continue
			}
			at2 := m.bonds[b2].other(i)
			if len(m.adj[at2])+m.totalNumHs(at2) > 3 {
				continue
			}
			if m.isAtomConjugCand(at2) {
				m.bonds[b1].conjugated = true
				m.bonds[b2].conjugated = true
			}
		}
	}
}

// setConjugation is MolOps::setConjugation: aromatic bonds, and the bonds marked by
// markConjAtomBonds.
func (m *Mol) setConjugation() {
	for i := range m.bonds {
		m.bonds[i].conjugated = m.bonds[i].aromatic
	}
	for i := range m.atoms {
		m.markConjAtomBonds(i)
	}
}

// numBondsPlusLonePairs is RDKit's numBondsPlusLonePairs: neighbours, hydrogens and lone
// pairs (and radicals below an octet).
func (m *Mol) numBondsPlusLonePairs(i int) int {
	a := &m.atoms[i]
	deg := m.totalDegree(i)
	if a.z <= 1 {
		return deg
	}
	nouter := nOuterElecs(a.z)
	totalValence := a.explicitValence + m.implicitValence(i)
	chg := a.charge
	numFree := nouter - (totalValence + chg)
	if totalValence+nouter-chg < 8 {
		return deg + (numFree-a.radicals)/2 + a.radicals
	}
	return deg + numFree/2
}

// hasConjugatedBond is MolOps::atomHasConjugatedBond.
func (m *Mol) hasConjugatedBond(i int) bool {
	for _, bi := range m.adj[i] {
		if m.bonds[bi].conjugated {
			return true
		}
	}
	return false
}

// setHybridization is MolOps::setHybridization.
func (m *Mol) setHybridization() {
	for i := range m.atoms {
		a := &m.atoms[i]
		if a.z == 0 {
			a.hybrid = HybridUnspecified
			continue
		}
		td := m.totalDegree(i)
		switch a.chiral {
		case chiralTetrahedral:
			if td == 4 {
				a.hybrid = HybridSP3
				continue
			}
		case chiralSquarePlanar:
			if td >= 2 && td <= 4 {
				a.hybrid = HybridSP2D
				continue
			}
		case chiralTrigonalBipyramidal:
			if td >= 2 && td <= 5 {
				a.hybrid = HybridSP3D
				continue
			}
		case chiralOctahedral:
			if td >= 2 && td <= 6 {
				a.hybrid = HybridSP3D2
				continue
			}
		}
		norbs := td
		if a.z < 89 {
			norbs = m.numBondsPlusLonePairs(i)
		}
		switch norbs {
		case 0, 1:
			a.hybrid = HybridS
		case 2:
			a.hybrid = HybridSP
		case 3:
			a.hybrid = HybridSP2
		case 4:
			if td > 3 || !m.hasConjugatedBond(i) {
				a.hybrid = HybridSP3
			} else {
				a.hybrid = HybridSP2
			}
		case 5:
			a.hybrid = HybridSP3D
		case 6:
			a.hybrid = HybridSP3D2
		default:
			a.hybrid = HybridUnspecified
		}
	}
}
