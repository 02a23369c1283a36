package smiles

import "slices"

// This file ports RDKit's default aromaticity model (Code/GraphMol/Aromaticity.cpp,
// MolOps::setAromaticity with AROMATICITY_RDKIT, RDKit 2022.09): every ring of the
// symmetrized SSSR whose atoms can all take part is a candidate; each atom donates 0, 1
// or 2 pi electrons (or is a vacant acceptor); a ring, or a fused system of up to six
// candidate rings, with 4n+2 electrons is aromatic. In a fused system only the bonds on
// its outside are marked aromatic by that system (a fusion bond becomes aromatic when one
// of the single rings it belongs to is).

// maxFusedAromaticRingSize is RDKit's limit on the ring size for fused-ring aromaticity.
const maxFusedAromaticRingSize = 24

// maxHuckelSubsystems caps the ring combinations tried per fused system. RDKit has no such
// cap (only a halt for systems of more than 300 rings); it is reached only by huge
// artificial ring systems, never by molecules, and keeps hostile input from hanging.
const maxHuckelSubsystems = 1 << 20

// donorType is RDKit's ElectronDonorType.
type donorType uint8

const (
	vacantDonor donorType = iota
	oneDonor
	twoDonor
	oneOrTwoDonor
	anyDonor
	noDonor
)

// minMaxElecs is getMinMaxAtomElecs.
func minMaxElecs(d donorType) (lo, hi int) {
	switch d {
	case anyDonor, oneOrTwoDonor:
		return 1, 2
	case oneDonor:
		return 1, 1
	case twoDonor:
		return 2, 2
	}
	return 0, 0
}

// countAtomElec is MolOps::countAtomElec: the electrons atom i can give to a pi system,
// or -1 if it cannot take part.
func (m *Mol) countAtomElec(i int) int {
	a := &m.atoms[i]
	dv := defaultValence(a.z)
	if dv <= 1 {
		return -1
	}
	degree := len(m.adj[i]) + m.totalNumHs(i)
	for _, bi := range m.adj[i] {
		if roundHalfAway(m.bonds[bi].typ.valenceContrib()) == 0 {
			degree--
		}
	}
	if degree > 3 {
		return -1
	}
	nlp := max(nOuterElecs(a.z)-dv-a.charge, 0)
	res := (dv - degree) + nlp - a.radicals
	if res > 1 {
		if a.explicitValence-len(m.adj[i]) > 1 {
			res = 1
		}
	}
	return res
}

// incidentNonCyclicMultipleBond returns the other atom of a non-ring double or triple
// bond of atom i, or -1.
func (m *Mol) incidentNonCyclicMultipleBond(i int) int {
	for _, bi := range m.adj[i] {
		if m.rings.numBondRings[bi] == 0 && m.bonds[bi].typ.valenceContrib() >= 2 {
			return m.bonds[bi].other(i)
		}
	}
	return -1
}

// incidentCyclicMultipleBond reports whether atom i has a ring double or triple bond.
func (m *Mol) incidentCyclicMultipleBond(i int) bool {
	for _, bi := range m.adj[i] {
		if m.rings.numBondRings[bi] > 0 && m.bonds[bi].typ.valenceContrib() >= 2 {
			return true
		}
	}
	return false
}

// incidentMultipleBond reports whether atom i has any multiple bond.
func (m *Mol) incidentMultipleBond(i int) bool {
	deg := len(m.adj[i]) + m.atoms[i].numExplicitHs
	for _, bi := range m.adj[i] {
		if roundHalfAway(m.bonds[bi].typ.valenceContrib()) == 0 {
			deg--
		}
	}
	return m.atoms[i].explicitValence != deg
}

// donorTypeArom is getAtomDonorTypeArom (exocyclic bonds to more electronegative atoms
// steal an electron).
func (m *Mol) donorTypeArom(i int) donorType {
	a := &m.atoms[i]
	if a.z == 0 {
		if m.incidentCyclicMultipleBond(i) {
			return oneDonor
		}
		return anyDonor
	}
	nelec := m.countAtomElec(i)
	switch {
	case nelec < 0:
		return noDonor
	case nelec == 0:
		if m.incidentNonCyclicMultipleBond(i) >= 0 {
			return vacantDonor
		}
		if m.incidentCyclicMultipleBond(i) {
			return oneDonor
		}
		return noDonor
	case nelec == 1:
		if who := m.incidentNonCyclicMultipleBond(i); who >= 0 {
			if moreElectroNegative(m.atoms[who].z, a.z) {
				return vacantDonor
			}
			return oneDonor
		}
		if m.incidentMultipleBond(i) {
			return oneDonor
		}
		if a.charge == 1 {
			return vacantDonor
		}
		return noDonor
	default:
		if who := m.incidentNonCyclicMultipleBond(i); who >= 0 && moreElectroNegative(m.atoms[who].z, a.z) {
			nelec--
		}
		if nelec%2 == 1 {
			return oneDonor
		}
		return twoDonor
	}
}

// isAtomCandForArom is isAtomCandForArom with RDKit's default arguments.
func (m *Mol) isAtomCandForArom(i int, d donorType) bool {
	a := &m.atoms[i]
	if a.z > 18 && a.z != 34 && a.z != 52 {
		return false
	}
	if d == noDonor {
		return false
	}
	if defaultValence(a.z) > 0 && m.totalValence(i) > defaultValence(a.z-a.charge) {
		return false
	}
	if a.radicals != 0 && (a.z != 6 || a.charge != 0) {
		return false
	}
	if a.explicitValence-len(m.adj[i]) > 1 {
		nMult := 0
		for _, bi := range m.adj[i] {
			if t := m.bonds[bi].typ; t == Double || t == Triple {
				nMult++
			}
			if nMult > 1 {
				return false
			}
		}
	}
	return true
}

// setAromaticity is MolOps::setAromaticity(mol, AROMATICITY_RDKIT).
func (m *Mol) setAromaticity() {
	n := len(m.atoms)
	acands := make([]bool, n)
	aseen := make([]bool, n)
	edon := make([]donorType, n)
	var cRings [][]int
	for _, ring := range m.rings.atomRings {
		allAromatic, allDummy := true, true
		for _, ai := range ring {
			if m.atoms[ai].z != 0 {
				allDummy = false
			}
			if aseen[ai] {
				if !acands[ai] {
					allAromatic = false
				}
				continue
			}
			aseen[ai] = true
			edon[ai] = m.donorTypeArom(ai)
			acands[ai] = m.isAtomCandForArom(ai, edon[ai])
			if !acands[ai] {
				allAromatic = false
			}
		}
		if allAromatic && !allDummy {
			cRings = append(cRings, ring)
		}
	}
	brings := make([][]int, len(cRings))
	for k, r := range cRings {
		brings[k] = m.ringBonds(r)
	}
	neigh := ringNeighborMap(brings, maxFusedAromaticRingSize, 1)
	fusDone := make([]bool, len(cRings))
	for curr := 0; curr < len(cRings); {
		var fused []int
		pickFusedRings(curr, neigh, &fused, fusDone)
		m.applyHuckelToFused(cRings, brings, fused, edon, neigh, 6)
		next := -1
		for rix := range cRings {
			if !fusDone[rix] {
				next = rix
				break
			}
		}
		if next < 0 {
			break
		}
		curr = next
	}
}

// applyHuckel is RDKit's applyHuckel: can the ring's atoms hold 4n+2 pi electrons?
func applyHuckel(ring []int, edon []donorType) bool {
	rlw, rup, nAny := 0, 0, 0
	for _, idx := range ring {
		if edon[idx] == anyDonor {
			nAny++
			if nAny > 1 {
				return false
			}
		}
		lo, hi := minMaxElecs(edon[idx])
		rlw += lo
		rup += hi
	}
	if rup >= 6 {
		for rie := rlw; rie <= rup; rie++ {
			if (rie-2)%4 == 0 {
				return true
			}
		}
		return false
	}
	return rup == 2
}

// nextCombination is RDKit's nextCombination: the next k-subset of 0…tot-1 in
// lexicographic order, or -1 after the last.
func nextCombination(comb []int, tot int) int {
	nelem := len(comb)
	celem := nelem - 1
	for comb[celem] == tot-nelem+celem {
		celem--
		if celem < 0 {
			return -1
		}
	}
	comb[celem]++
	for i := celem + 1; i < nelem; i++ {
		comb[i] = comb[i-1] + 1
	}
	return celem
}

// checkFused is RingUtils::checkFused: are the rings rids connected through ring
// neighbours among themselves?
func checkFused(rids []int, neigh [][]int) bool {
	done := make([]bool, len(neigh))
	for r := range neigh {
		if !slices.Contains(rids, r) {
			done[r] = true
		}
	}
	var fused []int
	pickFusedRings(rids[0], neigh, &fused, done)
	return len(fused) == len(rids)
}

// applyHuckelToFused is RDKit's applyHuckelToFused: single rings first, then fused
// subsystems of 2, 3, … rings (at most maxNumFusedRings), until every bond of the fused
// system is aromatic.
func (m *Mol) applyHuckelToFused(srings, brings [][]int, fused []int, edon []donorType, neigh [][]int, maxNumFusedRings int) {
	nrings := len(fused)
	fusedBonds := make([]bool, len(m.bonds))
	nRingBonds := 0
	for _, r := range fused {
		for _, b := range brings[r] {
			if !fusedBonds[b] {
				fusedBonds[b] = true
				nRingBonds++
			}
		}
	}
	doneBonds := make([]bool, len(m.bonds))
	nDoneBonds := 0
	atsInRingSystem := make([]int, len(m.atoms))
	var comb, curRs, unon []int
	curSize := 0
	pos := -1
	tried := 0
	for {
		if pos == -1 {
			if curSize == 2 && nrings > 300 {
				break
			}
			curSize++
			if curSize > min(nrings, maxNumFusedRings) || nDoneBonds >= nRingBonds {
				break
			}
			comb = comb[:0]
			for i := 0; i < curSize; i++ {
				comb = append(comb, i)
			}
			pos = 0
		} else {
			pos = nextCombination(comb, nrings)
		}
		if pos == -1 {
			continue
		}
		if tried++; tried > maxHuckelSubsystems {
			break
		}
		curRs = curRs[:0]
		for _, c := range comb {
			curRs = append(curRs, fused[c])
		}
		if len(neigh) > 0 && !checkFused(curRs, neigh) {
			continue
		}
		clear(atsInRingSystem)
		for _, r := range curRs {
			for _, a := range srings[r] {
				atsInRingSystem[a]++
			}
		}
		unon = unon[:0]
		for a, c := range atsInRingSystem {
			if c == 1 || c == 2 {
				unon = append(unon, a)
			}
		}
		if applyHuckel(unon, edon) {
			m.markAtomsBondsArom(srings, brings, curRs, doneBonds, &nDoneBonds)
		}
	}
}

// markAtomsBondsArom marks the atoms of the rings aromatic, and the bonds that occur in
// exactly one of them.
func (m *Mol) markAtomsBondsArom(srings, brings [][]int, ringIDs []int, doneBonds []bool, nDone *int) {
	for _, r := range ringIDs {
		for _, a := range srings[r] {
			m.atoms[a].aromatic = true
		}
	}
	count := map[int]int{}
	for _, r := range ringIDs {
		for _, b := range brings[r] {
			count[b]++
		}
	}
	for b, c := range count {
		if c != 1 {
			continue
		}
		bd := &m.bonds[b]
		bd.aromatic = true
		if bd.typ == Single || bd.typ == Double {
			bd.typ = Aromatic
		}
		if !doneBonds[b] {
			doneBonds[b] = true
			*nDone++
		}
	}
}
