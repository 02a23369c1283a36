package smiles

import (
	"slices"
	"sort"
)

// This file ports RDKit's ring perception (Code/GraphMol/FindRings.cpp, RDKit 2022.09):
// MolOps::findSSSR, a modified Figueras algorithm, and MolOps::symmetrizeSSSR, which adds
// the rings that could replace an SSSR ring of the same size. The rings, their order and
// the order of the atoms inside each ring follow RDKit, because Kekulé assignment and
// aromaticity perception walk them in that order.

// maxBFSQueue is RDKit's RingUtils::MAX_BFSQ_SIZE.
const maxBFSQueue = 200000

// ringInfo is RDKit's RingInfo for the symmetrized SSSR.
type ringInfo struct {
	atomRings    [][]int
	bondRings    [][]int
	numAtomRings []int
	numBondRings []int
}

// ringKey is a ring's invariant: its atom set, as a sorted list.
func ringKey(ring []int) string {
	s := slices.Clone(ring)
	slices.Sort(s)
	b := make([]byte, 0, 2*len(s))
	for _, v := range s {
		b = append(b, byte(v), byte(v>>8), byte(v>>16))
	}
	return string(b)
}

// ringFinder holds the working state of findSSSR.
type ringFinder struct {
	m           *Mol
	activeBonds []bool
	atomDegrees []int
	invars      map[string]bool
	ringBonds   []bool
	ringAtoms   []bool
	// BFS workspace
	parents []int
	depths  []int
	done    []uint8
	err     error
}

// intSet is a small ordered set of ints (RDKit's std::set<int>).
type intSet []int

func (s *intSet) insert(v int) {
	i, found := slices.BinarySearch(*s, v)
	if !found {
		*s = slices.Insert(*s, i, v)
	}
}

func (s *intSet) popFirst() int {
	v := (*s)[0]
	*s = (*s)[1:]
	return v
}

// findRings computes the symmetrized SSSR of m and stores it in m.rings.
// It returns an error only for ring systems too large for RDKit's breadth-first search.
func (m *Mol) findRings() error {
	rings, extras, err := m.findSSSR()
	if err != nil {
		return err
	}
	rings = m.symmetrize(rings, extras)
	ri := ringInfo{
		atomRings:    rings,
		bondRings:    make([][]int, len(rings)),
		numAtomRings: make([]int, len(m.atoms)),
		numBondRings: make([]int, len(m.bonds)),
	}
	for k, r := range rings {
		ri.bondRings[k] = m.ringBonds(r)
		for _, a := range r {
			ri.numAtomRings[a]++
		}
		for _, b := range ri.bondRings[k] {
			ri.numBondRings[b]++
		}
	}
	m.rings = ri
	return nil
}

// ringBonds is RingUtils::convertToBonds: the bonds between consecutive ring atoms.
func (m *Mol) ringBonds(ring []int) []int {
	res := make([]int, len(ring))
	for i := range ring {
		res[i] = m.bondBetween(ring[i], ring[(i+1)%len(ring)])
	}
	return res
}

// fragments returns the connected components, each as ascending atom indices, ordered by
// their smallest atom (RDKit's getMolFrags).
func (m *Mol) fragments() [][]int {
	comp := make([]int, len(m.atoms))
	for i := range comp {
		comp[i] = -1
	}
	var frags [][]int
	stack := []int{}
	for i := range m.atoms {
		if comp[i] >= 0 {
			continue
		}
		id := len(frags)
		frags = append(frags, nil)
		comp[i] = id
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			a := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			frags[id] = append(frags[id], a)
			for _, bi := range m.adj[a] {
				if o := m.bonds[bi].other(a); comp[o] < 0 {
					comp[o] = id
					stack = append(stack, o)
				}
			}
		}
		sort.Ints(frags[id])
	}
	return frags
}

// findSSSR is MolOps::findSSSR. It returns the SSSR rings and the "extra" rings that
// removeExtraRings dropped (candidates for symmetrization).
func (m *Mol) findSSSR() (res, extras [][]int, err error) {
	nats, nbnds := len(m.atoms), len(m.bonds)
	f := &ringFinder{
		m:           m,
		activeBonds: make([]bool, nbnds),
		atomDegrees: make([]int, nats),
		invars:      map[string]bool{},
		ringBonds:   make([]bool, nbnds),
		ringAtoms:   make([]bool, nats),
	}
	for i := range f.activeBonds {
		f.activeBonds[i] = true
	}
	for i := range m.atoms {
		f.atomDegrees[i] = len(m.adj[i])
	}
	for _, curFrag := range m.fragments() {
		if len(curFrag) < 3 {
			continue
		}
		var changed intSet
		nb := 0
		for _, a := range curFrag {
			deg := f.atomDegrees[a]
			nb += deg
			if deg < 2 {
				changed.insert(a)
			}
		}
		nb /= 2
		if nb-len(curFrag)+1 < 1 {
			continue
		}
		doneAts := make([]bool, nats)
		nAtomsDone := 0
		var fragRes [][]int
		for nAtomsDone < len(curFrag) {
			for len(changed) > 0 {
				cand := changed.popFirst()
				if !doneAts[cand] {
					doneAts[cand] = true
					nAtomsDone++
					f.trimBonds(cand, &changed)
				}
			}
			d2nodes := f.pickD2Nodes(curFrag)
			if len(d2nodes) > 0 {
				f.findRingsD2nodes(&fragRes, d2nodes)
				if f.err != nil {
					return nil, nil, f.err
				}
				for _, d2 := range d2nodes {
					doneAts[d2] = true
					nAtomsDone++
					f.trimBonds(d2, &changed)
				}
			} else if nAtomsDone < len(curFrag) {
				cand := -1
				for _, a := range curFrag {
					if f.atomDegrees[a] == 3 {
						cand = a
						break
					}
				}
				if cand == -1 {
					break
				}
				f.findRingsD3Node(&fragRes, cand)
				if f.err != nil {
					return nil, nil, f.err
				}
				doneAts[cand] = true
				nAtomsDone++
				f.trimBonds(cand, &changed)
			}
		}
		nexpt := nb - len(curFrag) + 1
		if len(fragRes) < nexpt {
			// Issue 3514824: look for rings through non-ring bonds between ring atoms.
			dead := make([]bool, nbnds)
			// RDKit scans bond indices below the fragment's bond count here (its loop
			// variable shadows the molecule's), and so do we.
			next := func() int {
				for i := 0; i < nb && i < nbnds; i++ {
					if !f.ringBonds[i] && !dead[i] && f.ringAtoms[m.bonds[i].begin] && f.ringAtoms[m.bonds[i].end] {
						return i
					}
				}
				return -1
			}
			for bi := next(); bi >= 0; bi = next() {
				if !f.findRingConnectingAtoms(bi, &fragRes) {
					dead[bi] = true
				}
				if f.err != nil {
					return nil, nil, f.err
				}
			}
			if len(fragRes) < nexpt {
				// RDKit gives up and uses its approximate ring finder for the whole molecule.
				return m.fastFindRings(), extras, nil
			}
		}
		if len(fragRes) > nexpt {
			var ex [][]int
			fragRes, ex = m.removeExtraRings(fragRes)
			extras = append(extras, ex...)
		}
		res = append(res, fragRes...)
	}
	return res, extras, nil
}

// trimBonds removes the active bonds of cand, collecting neighbours that drop to degree ≤ 2.
func (f *ringFinder) trimBonds(cand int, changed *intSet) {
	for _, bi := range f.m.adj[cand] {
		if !f.activeBonds[bi] {
			continue
		}
		o := f.m.bonds[bi].other(cand)
		if f.atomDegrees[o] <= 2 {
			changed.insert(o)
		}
		f.activeBonds[bi] = false
		f.atomDegrees[o]--
		f.atomDegrees[cand]--
	}
}

// markUselessD2s marks the degree-2 atoms in a chain with root as represented by root.
func (f *ringFinder) markUselessD2s(root int, forb []bool) {
	for _, bi := range f.m.adj[root] {
		if !f.activeBonds[bi] {
			continue
		}
		o := f.m.bonds[bi].other(root)
		if !forb[o] && f.atomDegrees[o] == 2 {
			forb[o] = true
			f.markUselessD2s(o, forb)
		}
	}
}

// pickD2Nodes picks one degree-2 atom per chain of degree-2 atoms.
func (f *ringFinder) pickD2Nodes(curFrag []int) []int {
	var d2nodes []int
	forb := make([]bool, len(f.m.atoms))
	for {
		root := -1
		for _, a := range curFrag {
			if f.atomDegrees[a] == 2 && !forb[a] {
				root = a
				d2nodes = append(d2nodes, a)
				forb[a] = true
				break
			}
		}
		if root == -1 {
			return d2nodes
		}
		f.markUselessD2s(root, forb)
	}
}

// addRing records ring in res if its atom set is new; it reports whether it was new.
func (f *ringFinder) addRing(res *[][]int, ring []int) bool {
	k := ringKey(ring)
	if f.invars[k] {
		return false
	}
	f.invars[k] = true
	*res = append(*res, ring)
	return true
}

// markRing flags the atoms and bonds of ring as ring members.
func (f *ringFinder) markRing(ring []int) {
	for i := range ring {
		f.ringAtoms[ring[i]] = true
		f.ringBonds[f.m.bondBetween(ring[i], ring[(i+1)%len(ring)])] = true
	}
}

// findRingsD2nodes finds the smallest rings through each degree-2 node.
func (f *ringFinder) findRingsD2nodes(res *[][]int, d2nodes []int) {
	dupD2Cands := map[string][]int{}
	var dupOrder []string
	dupMap := map[int][]int{}
	nodeInvars := map[int][]string{}
	for _, cand := range d2nodes {
		srings := f.smallestRingsBfs(cand, nil, f.activeBonds)
		if f.err != nil {
			return
		}
		for _, nring := range srings {
			k := ringKey(nring)
			if f.addRing(res, nring) {
				f.markRing(nring)
			}
			nodeInvars[cand] = append(nodeInvars[cand], k)
			for _, other := range sortedKeys(nodeInvars) {
				if other != cand && slices.Contains(nodeInvars[other], k) {
					dupMap[cand] = append(dupMap[cand], other)
					dupMap[other] = append(dupMap[other], cand)
				}
			}
			if _, ok := dupD2Cands[k]; !ok {
				dupOrder = append(dupOrder, k)
			}
			dupD2Cands[k] = append(dupD2Cands[k], cand)
		}
		if len(srings) == 0 {
			changed := intSet{cand}
			for len(changed) > 0 {
				c := changed.popFirst()
				f.trimBonds(c, &changed)
			}
		}
	}
	// findSSSRforDupCands: RDKit iterates its map in the order of the ring invariants
	// (bitsets compared as numbers), which sortInvariants reproduces.
	for _, k := range sortInvariants(dupOrder, len(f.m.atoms)) {
		dupCands := dupD2Cands[k]
		if len(dupCands) <= 1 {
			continue
		}
		var nrings [][]int
		minSiz := int(^uint(0) >> 1)
		for _, dupCand := range dupCands {
			degCopy := slices.Clone(f.atomDegrees)
			activeCopy := slices.Clone(f.activeBonds)
			saveDeg, saveActive := f.atomDegrees, f.activeBonds
			f.atomDegrees, f.activeBonds = degCopy, activeCopy
			var changed intSet
			for _, dni := range dupMap[dupCand] {
				f.trimBonds(dni, &changed)
			}
			srings := f.smallestRingsBfs(dupCand, nil, f.activeBonds)
			f.atomDegrees, f.activeBonds = saveDeg, saveActive
			if f.err != nil {
				return
			}
			for _, r := range srings {
				if len(r) < minSiz {
					minSiz = len(r)
				}
				nrings = append(nrings, r)
			}
		}
		for _, r := range nrings {
			if len(r) == minSiz {
				f.addRing(res, r)
			}
		}
	}
}

// sortedKeys returns the keys of a map in increasing order.
func sortedKeys(m map[int][]string) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// sortInvariants orders ring invariants as boost::dynamic_bitset's operator< does: as
// numbers whose most significant bit is the highest atom index.
func sortInvariants(keys []string, nAtoms int) []string {
	bits := func(k string) []bool {
		b := make([]bool, nAtoms)
		for i := 0; i+2 < len(k); i += 3 {
			b[int(k[i])|int(k[i+1])<<8|int(k[i+2])<<16] = true
		}
		return b
	}
	out := slices.Clone(keys)
	sort.SliceStable(out, func(x, y int) bool {
		bx, by := bits(out[x]), bits(out[y])
		for i := nAtoms - 1; i >= 0; i-- {
			if bx[i] != by[i] {
				return !bx[i]
			}
		}
		return false
	})
	return out
}

// findRingsD3Node finds up to three rings through a degree-3 node when no degree-2 node
// is left.
func (f *ringFinder) findRingsD3Node(res *[][]int, cand int) {
	srings := f.smallestRingsBfs(cand, nil, f.activeBonds)
	if f.err != nil {
		return
	}
	for _, r := range srings {
		f.addRing(res, r)
	}
	nsmall := len(srings)
	if nsmall >= 3 {
		return
	}
	nbrs := make([]int, 0, 3)
	for _, bi := range f.m.adj[cand] {
		if f.activeBonds[bi] && len(nbrs) < 3 {
			nbrs = append(nbrs, f.m.bonds[bi].other(cand))
		}
	}
	if len(nbrs) < 3 {
		return
	}
	n1, n2, n3 := nbrs[0], nbrs[1], nbrs[2]
	switch nsmall {
	case 2:
		fa := -1
		in := func(r []int, a int) bool { return slices.Contains(r, a) }
		switch {
		case in(srings[0], n1) && in(srings[1], n1):
			fa = n1
		case in(srings[0], n2) && in(srings[1], n2):
			fa = n2
		case in(srings[0], n3) && in(srings[1], n3):
			fa = n3
		}
		if fa < 0 {
			return
		}
		for _, r := range f.smallestRingsBfs(cand, []int{fa}, f.activeBonds) {
			f.addRing(res, r)
		}
	case 1:
		var f1, f2 int
		switch {
		case !slices.Contains(srings[0], n1):
			f1, f2 = n2, n3
		case !slices.Contains(srings[0], n2):
			f1, f2 = n1, n3
		case !slices.Contains(srings[0], n3):
			f1, f2 = n1, n2
		default:
			return
		}
		for _, r := range f.smallestRingsBfs(cand, []int{f2}, f.activeBonds) {
			f.addRing(res, r)
		}
		if f.err != nil {
			return
		}
		for _, r := range f.smallestRingsBfs(cand, []int{f1}, f.activeBonds) {
			f.addRing(res, r)
		}
	}
}

// smallestRingsBfs is RDKit's BFSWorkspace::smallestRingsBfs: all smallest rings through
// root that avoid the forbidden atoms.
func (f *ringFinder) smallestRingsBfs(root int, forbidden []int, active []bool) [][]int {
	n := len(f.m.atoms)
	const white, gray, black = 0, 1, 2
	f.done = resize(f.done, n)
	f.parents = resizeInt(f.parents, n, -1)
	f.depths = resizeInt(f.depths, n, 0)
	for _, a := range forbidden {
		f.done[a] = black
	}
	var rings [][]int
	queue := []int{root}
	curSize := int(^uint(0) >> 1)
	for len(queue) > 0 {
		if len(queue) >= maxBFSQueue {
			f.err = f.m.chemError(root, "maximum ring search size exceeded (highly symmetric fused ring system)")
			return nil
		}
		curr := queue[0]
		queue = queue[1:]
		f.done[curr] = black
		depth := f.depths[curr] + 1
		if depth > curSize {
			break
		}
		for _, bi := range f.m.adj[curr] {
			if !active[bi] {
				continue
			}
			nbr := f.m.bonds[bi].other(curr)
			if f.done[nbr] == black || f.parents[curr] == nbr {
				continue
			}
			if f.done[nbr] == white {
				f.parents[nbr] = curr
				f.done[nbr] = gray
				f.depths[nbr] = depth
				queue = append(queue, nbr)
				continue
			}
			// gray: a second path to nbr closes a ring
			ring := []int{nbr}
			for parent := f.parents[nbr]; parent != -1 && parent != root; parent = f.parents[parent] {
				ring = append(ring, parent)
			}
			ring = append([]int{curr}, ring...)
			for parent := f.parents[curr]; parent != -1; parent = f.parents[parent] {
				if slices.Contains(ring, parent) {
					ring = nil
					break
				}
				ring = append([]int{parent}, ring...)
			}
			if len(ring) > 1 {
				if len(ring) <= curSize {
					curSize = len(ring)
					rings = append(rings, ring)
				} else {
					return rings
				}
			}
		}
	}
	return rings
}

// resize returns b with length n, all zero.
func resize(b []uint8, n int) []uint8 {
	if cap(b) < n {
		return make([]uint8, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// resizeInt returns b with length n, all set to v.
func resizeInt(b []int, n, v int) []int {
	if cap(b) < n {
		b = make([]int, n)
	}
	b = b[:n]
	for i := range b {
		b[i] = v
	}
	return b
}

// findRingConnectingAtoms is FindRings::findRingConnectingAtoms: a breadth-first search
// over ring atoms for a new ring through the bond bi.
func (f *ringFinder) findRingConnectingAtoms(bi int, res *[][]int) bool {
	start, end := f.m.bonds[bi].begin, f.m.bonds[bi].end
	queue := [][]int{{start}}
	for len(queue) > 0 {
		if len(queue) >= maxBFSQueue {
			f.err = f.m.chemError(start, "maximum ring search size exceeded (highly symmetric fused ring system)")
			return false
		}
		tv := queue[0]
		queue = queue[1:]
		curr := tv[len(tv)-1]
		for _, b := range f.m.adj[curr] {
			nbr := f.m.bonds[b].other(curr)
			if nbr == end {
				if curr != start {
					nv := append(slices.Clone(tv), nbr)
					if !f.invars[ringKey(nv)] {
						f.addRing(res, nv)
						f.markRing(nv)
						return true
					}
				}
			} else if f.ringAtoms[nbr] && !slices.Contains(tv, nbr) {
				queue = append(queue, append(slices.Clone(tv), nbr))
			}
		}
	}
	return false
}

// removeExtraRings is FindRings::removeExtraRings: it keeps, smallest first, the rings
// that add bonds not yet covered, and returns the others as extras.
func (m *Mol) removeExtraRings(res [][]int) (keep, extras [][]int) {
	sort.SliceStable(res, func(i, j int) bool { return len(res[i]) < len(res[j]) })
	brings := make([][]int, len(res))
	bits := make([][]bool, len(res))
	for i, r := range res {
		brings[i] = m.ringBonds(r)
		bits[i] = make([]bool, len(m.bonds))
		for _, b := range brings[i] {
			bits[i][b] = true
		}
	}
	subset := func(a, u []bool) bool {
		for i, v := range a {
			if v && !u[i] {
				return false
			}
		}
		return true
	}
	avail := make([]bool, len(res))
	for i := range avail {
		avail[i] = true
	}
	keepRings := make([]bool, len(res))
	munion := make([]bool, len(m.bonds))
	or := func(b []bool) {
		for i, v := range b {
			if v {
				munion[i] = true
			}
		}
	}
	for i := range res {
		if subset(bits[i], munion) {
			avail[i] = false
		}
		if !avail[i] {
			continue
		}
		or(bits[i])
		keepRings[i] = true
		consider := make([]bool, len(res))
		nConsider := 0
		for j := i + 1; j < len(res); j++ {
			if avail[j] && len(brings[j]) == len(brings[i]) {
				consider[j] = true
				nConsider++
			}
		}
		for nConsider > 0 {
			bestJ, bestOverlap := i+1, -1
			for j := i + 1; j < len(res) && len(brings[j]) == len(brings[i]); j++ {
				if !consider[j] || !avail[j] {
					continue
				}
				overlap := 0
				for b, v := range bits[j] {
					if v && munion[b] {
						overlap++
					}
				}
				if overlap > bestOverlap {
					bestOverlap, bestJ = overlap, j
				}
			}
			if consider[bestJ] {
				consider[bestJ] = false
				nConsider--
			} else {
				// RDKit would loop here forever only if nothing is considered; cannot happen.
				break
			}
			if subset(bits[bestJ], munion) {
				avail[bestJ] = false
			} else {
				keepRings[bestJ] = true
				avail[bestJ] = false
				or(bits[bestJ])
			}
		}
	}
	for i, r := range res {
		if keepRings[i] {
			keep = append(keep, r)
		} else {
			extras = append(extras, r)
		}
	}
	return keep, extras
}

// symmetrize is the second half of MolOps::symmetrizeSSSR: an extra ring is added if it
// has the size of an SSSR ring, shares a bond with it and covers every bond only that
// ring provides.
func (m *Mol) symmetrize(sssr, extras [][]int) [][]int {
	res := slices.Clone(sssr)
	if len(extras) == 0 {
		return res
	}
	bondsssrs := make([][]int, len(sssr))
	counts := make([]int, len(m.bonds))
	for i, r := range sssr {
		bondsssrs[i] = m.ringBonds(r)
		for _, b := range bondsssrs[i] {
			counts[b]++
		}
	}
	for _, extra := range extras {
		extraRing := m.ringBonds(extra)
		for _, ring := range bondsssrs {
			if len(ring) != len(extraRing) {
				continue
			}
			shareBond, replacesAll := false, true
			for _, b := range ring {
				if counts[b] == 1 || !shareBond {
					if slices.Contains(extraRing, b) {
						shareBond = true
					} else if counts[b] == 1 {
						replacesAll = false
					}
				}
			}
			if shareBond && replacesAll {
				res = append(res, extra)
				break
			}
		}
	}
	return res
}

// fastFindRings is MolOps::fastFindRings, RDKit's fallback when the SSSR search misses
// rings: one ring per back edge of a depth-first search.
func (m *Mol) fastFindRings() [][]int {
	var res [][]int
	colors := make([]int, len(m.atoms))
	var order []int
	var dfs func(a, from int)
	dfs = func(a, from int) {
		colors[a] = 1
		order = append(order, a)
		for _, bi := range m.adj[a] {
			nbr := m.bonds[bi].other(a)
			switch colors[nbr] {
			case 0:
				if len(m.adj[nbr]) < 2 {
					colors[nbr] = 2
				} else {
					dfs(nbr, a)
				}
			case 1:
				if from >= 0 && nbr != from {
					var cycle []int
					k := len(order) - 1
					for k >= 0 && order[k] != a {
						k--
					}
					for ; k >= 0 && order[k] != nbr; k-- {
						cycle = append(cycle, order[k])
					}
					res = append(res, append(cycle, nbr))
				}
			}
		}
		colors[a] = 2
		order = order[:len(order)-1]
	}
	for i := range m.atoms {
		if colors[i] != 0 {
			continue
		}
		if len(m.adj[i]) < 2 {
			colors[i] = 2
			continue
		}
		order = order[:0]
		dfs(i, -1)
	}
	return res
}
