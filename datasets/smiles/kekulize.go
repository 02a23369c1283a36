package smiles

import "slices"

// This file ports RDKit's kekulization (Code/GraphMol/Kekulize.cpp, RDKit 2022.09,
// MolOps::Kekulize with its defaults): the aromatic bonds of every fused ring system are
// turned into alternating single and double bonds by a search with backtracking, which
// starts from the ring atoms in RDKit's ring order. The result matters where an aromatic
// input ring is not aromatic after perception (its Kekulé bonds remain).

// maxBackTracks is the default of MolOps::Kekulize.
const maxBackTracks = 100

// kekulize is MolOps::Kekulize(mol, markAtomsBonds=true).
func (m *Mol) kekulize() error {
	foundAromatic := false
	for i := range m.bonds {
		if m.bonds[i].aromatic {
			foundAromatic = true
		}
	}
	valences := make([]int, len(m.atoms))
	for i := range m.atoms {
		_ = m.calcImplicitValence(i, false)
		valences[i] = m.totalValence(i)
		if m.isAromaticAtom(i) {
			foundAromatic = true
		}
	}
	if !foundAromatic {
		return nil
	}
	// rings that contain at least one non-dummy atom, in RingInfo order
	var arings [][]int
	for _, r := range m.rings.atomRings {
		for _, a := range r {
			if m.atoms[a].z != 0 {
				arings = append(arings, r)
				break
			}
		}
	}
	brings := make([][]int, len(arings))
	for i, r := range arings {
		brings[i] = m.ringBonds(r)
	}
	neigh := ringNeighborMap(brings, 0, 0)
	fusDone := make([]bool, len(arings))
	for curr := 0; curr < len(arings); {
		var fused []int
		pickFusedRings(curr, neigh, &fused, fusDone)
		frings := make([][]int, len(fused))
		for k, ri := range fused {
			frings[k] = arings[ri]
		}
		if err := m.kekulizeFused(frings); err != nil {
			return err
		}
		next := -1
		for rix := range arings {
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
	// markAtomsBonds
	for i := range m.bonds {
		m.bonds[i].aromatic = false
	}
	for i := range m.atoms {
		a := &m.atoms[i]
		if !a.aromatic {
			continue
		}
		if m.rings.numAtomRings[i] == 0 {
			return m.chemError(i, "non-ring atom %d marked aromatic", i)
		}
		a.aromatic = false
		// explicit Hs on things like pyrroles do not hang around (GitHub Issue 141)
		if (a.z == 7 || a.z == 15) && a.charge == 0 && a.numExplicitHs == 1 {
			a.noImplicit = false
			a.numExplicitHs = 0
			_ = m.calcExplicitValence(i, false)
			_ = m.calcImplicitValence(i, false)
		}
	}
	for i := range m.atoms {
		if v := m.totalValence(i); v != valences[i] {
			return m.chemError(i, "kekulization somehow screwed up valence on %d: %d!=%d", i, v, valences[i])
		}
	}
	return nil
}

// ringNeighborMap is RingUtils::makeRingNeighborMap: rings are neighbours if they share a
// bond (at most maxOverlap bonds when maxOverlap > 0); rings larger than maxSize (when
// maxSize > 0) have no neighbours.
func ringNeighborMap(brings [][]int, maxSize, maxOverlap int) [][]int {
	neigh := make([][]int, len(brings))
	for i := range brings {
		if maxSize > 0 && len(brings[i]) > maxSize {
			continue
		}
		for j := i + 1; j < len(brings); j++ {
			if maxSize > 0 && len(brings[j]) > maxSize {
				continue
			}
			inter := 0
			for _, b := range brings[i] {
				if slices.Contains(brings[j], b) {
					inter++
				}
			}
			if inter > 0 && (maxOverlap == 0 || inter <= maxOverlap) {
				neigh[i] = append(neigh[i], j)
				neigh[j] = append(neigh[j], i)
			}
		}
	}
	return neigh
}

// pickFusedRings is RingUtils::pickFusedRings: a depth-first walk over ring neighbours.
func pickFusedRings(curr int, neigh [][]int, res *[]int, done []bool) {
	done[curr] = true
	*res = append(*res, curr)
	for _, n := range neigh[curr] {
		if !done[n] {
			pickFusedRings(n, neigh, res, done)
		}
	}
}

// unionRings is RDKit's Union: the atoms of the rings in order of first appearance.
func unionRings(rings [][]int) []int {
	var res []int
	for _, r := range rings {
		for _, a := range r {
			if !slices.Contains(res, a) {
				res = append(res, a)
			}
		}
	}
	return res
}

// kekulizeFused kekulizes one fused ring system.
func (m *Mol) kekulizeFused(arings [][]int) error {
	allAtms := unionRings(arings)
	dBndCands := make([]bool, len(m.atoms))
	var questions, done []int
	m.markDbondCands(allAtms, dBndCands, &questions, &done)
	dBndAdds := make([]bool, len(m.bonds))
	ok := m.kekulizeWorker(allAtms, slices.Clone(dBndCands), dBndAdds, slices.Clone(done))
	if !ok && len(questions) > 0 {
		ok = m.permuteDummiesAndKekulize(allAtms, dBndCands, questions)
	}
	if !ok {
		first := -1
		for i, c := range dBndCands {
			if c {
				first = i
				break
			}
		}
		if first < 0 && len(allAtms) > 0 {
			first = allAtms[0]
		}
		return m.chemError(first, "can't kekulize mol: unkekulized atoms from atom %d", first)
	}
	return nil
}

// markDbondCands is RDKit's markDbondCands: it flags the atoms of the fused system that
// need a double bond, and turns the system's aromatic bonds into single bonds.
func (m *Mol) markDbondCands(allAtms []int, dBndCands []bool, questions, done *[]int) {
	hasAromaticOrDummy := false
	for _, a := range allAtms {
		if m.atoms[a].z == 0 || m.isAromaticAtom(a) {
			hasAromaticOrDummy = true
			break
		}
	}
	if !hasAromaticOrDummy {
		return
	}
	// rings that are not candidates for double bonds: all their aromatic atoms are in
	// more than one ring (used for dummy atoms only)
	ri := m.rings
	isRingNotCand := make([]bool, len(ri.atomRings))
	for k, r := range ri.atomRings {
		isRingNotCand[k] = true
		for _, a := range r {
			if m.isAromaticAtom(a) && ri.numAtomRings[a] == 1 {
				isRingNotCand[k] = false
				break
			}
		}
	}
	inAllAtms := make([]bool, len(m.atoms))
	var makeSingle []int
	for _, ai := range allAtms {
		inAllAtms[ai] = true
		a := &m.atoms[ai]
		if a.z != 0 && !m.isAromaticAtom(ai) {
			*done = append(*done, ai)
			continue
		}
		sbo, nToIgnore, nonArNonDummyNbr := 0, 0, 0
		for _, bi := range m.adj[ai] {
			b := &m.bonds[bi]
			o := b.other(ai)
			if m.atoms[o].z != 0 && !m.atoms[o].aromatic && inAllAtms[o] {
				nonArNonDummyNbr++
			}
			if b.aromatic && (b.typ == Single || b.typ == Double || b.typ == Aromatic) {
				sbo++
				makeSingle = append(makeSingle, bi)
			} else {
				c := roundHalfAway(b.typ.valenceContrib())
				sbo += c
				if c == 0 {
					nToIgnore++
				}
			}
		}
		if a.z == 0 {
			numAtomRings := ri.numAtomRings[ai]
			numNonCand := 0
			for k, r := range ri.atomRings {
				if isRingNotCand[k] && slices.Contains(r, ai) {
					numNonCand++
				}
			}
			if nonArNonDummyNbr < numAtomRings && numNonCand < numAtomRings {
				dBndCands[ai] = true
				*questions = append(*questions, ai)
				continue
			}
		}
		sbo += m.totalNumHs(ai)
		dv := defaultValence(a.z)
		chrg := chargeForValence(a.z, a.charge)
		dv += chrg
		tbo := m.totalValence(ai)
		nRadicals := a.radicals
		totalDegree := len(m.adj[ai]) + m.implicitValence(ai) - nToIgnore
		valList := valenceList(a.z)
		for vi := 1; tbo > dv && vi < len(valList) && valList[vi] > 0; vi++ {
			dv = valList[vi] + chrg
		}
		// aromatic N-oxides such as O=n1ccccc1 (reach here only without cleanUp)
		if tbo == 5 && sbo == 4 && dv == 3 && totalDegree == 3 && nRadicals == 0 && chrg == 0 &&
			m.totalNumHs(ai) == 0 && (a.z == 7 || a.z == 15 || a.z == 33) {
			dv = 5
		}
		if totalDegree+nRadicals >= dv {
			continue
		}
		if dv == sbo+1+nRadicals {
			dBndCands[ai] = true
		} else if nRadicals == 0 && a.noImplicit && dv == sbo+2 {
			dBndCands[ai] = true
		}
	}
	for _, bi := range makeSingle {
		m.bonds[bi].typ = Single
	}
}

// roundHalfAway is std::lround for the bond orders used here.
func roundHalfAway(x float64) int {
	if x < 0 {
		return -int(-x + 0.5)
	}
	return int(x + 0.5)
}

// kekulizeWorker is RDKit's kekulizeWorker: a traversal of the fused system that places
// double bonds, backtracking to the last choice point when an atom cannot get one.
func (m *Mol) kekulizeWorker(allAtms []int, dBndCands, dBndAdds []bool, done []int) bool {
	var astack []int
	options := map[int][]int{}
	lastOpt := -1
	localBondsAdded := make([]bool, len(m.bonds))
	var btmoves []int
	numBT := 0
	inAll := make([]bool, len(m.atoms))
	for _, a := range allAtms {
		inAll[a] = true
	}
	isDone := func(a int) bool { return slices.Contains(done, a) }
	for len(done) < len(allAtms) || len(astack) > 0 {
		curr := -1
		if len(astack) > 0 {
			curr = astack[0]
			astack = astack[1:]
		} else {
			for _, a := range allAtms {
				if !isDone(a) {
					curr = a
					break
				}
			}
		}
		if curr < 0 {
			return false
		}
		done = append(done, curr)
		cCand := dBndCands[curr]
		var opts []int
		if o, ok := options[curr]; ok {
			opts = slices.Clone(o)
		} else {
			var lstack []int // RDKit puts neighbours over wedged bonds last; there are none here
			for _, bi := range m.adj[curr] {
				nbr := m.bonds[bi].other(curr)
				if isDone(nbr) || !inAll[nbr] {
					continue
				}
				if !slices.Contains(astack, nbr) {
					lstack = append([]int{nbr}, lstack...)
				}
				if cCand && dBndCands[nbr] &&
					(m.bonds[bi].aromatic || m.atoms[curr].z == 0 || m.atoms[nbr].z == 0) {
					opts = append(opts, nbr)
				}
			}
			astack = append(astack, lstack...)
		}
		if !cCand {
			continue
		}
		if len(opts) > 0 {
			ncnd := opts[0]
			opts = opts[1:]
			bi := m.bondBetween(curr, ncnd)
			m.bonds[bi].typ = Double
			dBndCands[curr], dBndCands[ncnd] = false, false
			dBndAdds[bi] = true
			localBondsAdded[bi] = true
			if _, ok := options[curr]; ok {
				if len(opts) == 0 {
					delete(options, curr)
					btmoves = btmoves[:len(btmoves)-1]
					if len(btmoves) > 0 {
						lastOpt = btmoves[len(btmoves)-1]
					} else {
						lastOpt = -1
					}
				} else {
					options[curr] = opts
				}
			} else if len(opts) > 0 {
				lastOpt = curr
				btmoves = append(btmoves, lastOpt)
				options[curr] = opts
			}
		} else if m.atoms[curr].z != 0 {
			if lastOpt >= 0 && numBT < maxBackTracks {
				done, astack = m.backTrack(lastOpt, done, astack, dBndCands, dBndAdds)
				numBT++
			} else {
				for bi, added := range localBondsAdded {
					if added {
						m.bonds[bi].typ = Single
					}
				}
				return false
			}
		}
	}
	return true
}

// backTrack is RDKit's backTrack: undo everything done since the choice at lastOpt.
func (m *Mol) backTrack(lastOpt int, done, astack []int, dBndCands, dBndAdds []bool) ([]int, []int) {
	ei := slices.Index(done, lastOpt)
	if ei < 0 {
		ei = len(done)
	}
	tdone := slices.Clone(done[:ei])
	// push the atoms done since lastOpt (lastOpt included) back on the queue, latest last
	eri := -1
	for k := len(done) - 1; k >= 0; k-- {
		if done[k] == lastOpt {
			eri = k
			break
		}
	}
	var front []int
	for k := len(done) - 1; k >= 0 && k >= eri; k-- {
		front = append([]int{done[k]}, front...)
	}
	// RDKit pushes from the back of done to the front of the queue one by one, so the
	// queue starts with the earliest of them.
	astack = append(front, astack...)
	for bi, added := range dBndAdds {
		if !added {
			continue
		}
		b := &m.bonds[bi]
		if !slices.Contains(tdone, b.begin) && !slices.Contains(tdone, b.end) {
			dBndAdds[bi] = false
			b.typ = Single
			dBndCands[b.begin] = true
			dBndCands[b.end] = true
		}
	}
	return tdone, astack
}

// permuteDummiesAndKekulize retries with dummy atoms switched off in every combination.
func (m *Mol) permuteDummiesAndKekulize(allAtms []int, dBndCands []bool, questions []int) bool {
	inPlay := make([]bool, len(m.atoms))
	for _, a := range allAtms {
		inPlay[a] = true
	}
	if len(questions) > 20 {
		questions = questions[:20] // 2^20 tries at most; RDKit's counter overflows long before
	}
	for pos := 1; pos < 1<<len(questions); pos++ {
		for i := range m.bonds {
			b := &m.bonds[i]
			if b.aromatic && b.typ != Single && inPlay[b.begin] && inPlay[b.end] {
				b.typ = Single
			}
		}
		tCands := slices.Clone(dBndCands)
		for i, q := range questions {
			if pos&(1<<i) != 0 {
				tCands[q] = false
			}
		}
		if m.kekulizeWorker(allAtms, tCands, make([]bool, len(m.bonds)), nil) {
			return true
		}
	}
	return false
}
