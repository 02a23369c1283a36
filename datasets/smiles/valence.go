package smiles

import (
	"fmt"
	"math"
)

// This file holds RDKit's valence model (Atom::calcExplicitValence,
// Atom::calcImplicitValence and the getters built on them, RDKit 2022.09 Atom.cpp) and the
// small sanitization steps around it (MolOps::cleanUp, assignRadicals, adjustHs and the
// hydrogen removal of MolFromSmiles).

// chemError returns an *Error pointing at atom i.
func (m *Mol) chemError(i int, format string, args ...any) error {
	pos := 0
	if i >= 0 && i < len(m.atoms) {
		pos = m.atoms[i].pos
	}
	return &Error{SMILES: m.smiles, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// symbol returns the element symbol of atom i.
func (m *Mol) symbol(i int) string {
	if z := m.atoms[i].z; z > 0 && z < len(elements) {
		return elements[z].symbol
	}
	return "*"
}

// isAromaticAtom is RDKit's isAromaticAtom: the atom is flagged aromatic or has an aromatic
// bond.
func (m *Mol) isAromaticAtom(i int) bool {
	if m.atoms[i].aromatic {
		return true
	}
	for _, bi := range m.adj[i] {
		if b := &m.bonds[bi]; b.aromatic || b.typ == Aromatic {
			return true
		}
	}
	return false
}

// chargeForValence is the formal charge as RDKit's valence code uses it: negated for early
// elements (hydrogen adds as H-), and never positive for carbon (GitHub #539).
func chargeForValence(z, charge int) int {
	if isEarlyAtom(z) {
		charge = -charge
	}
	if z == 6 && charge > 0 {
		charge = -charge
	}
	return charge
}

// calcExplicitValence is Atom::calcExplicitValence: the rounded sum of bond orders plus
// explicit hydrogens, snapped down to an allowed valence for aromatic atoms.
func (m *Mol) calcExplicitValence(i int, strict bool) error {
	a := &m.atoms[i]
	accum := 0.0
	for _, bi := range m.adj[i] {
		accum += m.bonds[bi].typ.valenceContrib()
	}
	accum += float64(a.numExplicitHs)
	dv := defaultValence(a.z)
	chr := chargeForValence(a.z, a.charge)
	// RDKit holds the default valence in an unsigned int, so dv + chr is compared as an
	// unsigned number: a negative sum never triggers the aromatic correction.
	if accum > float64(uint32(dv)+uint32(chr)) && m.isAromaticAtom(i) {
		pval := dv + chr
		for _, v := range valenceList(a.z) {
			if v == -1 {
				break
			}
			v += chr
			if float64(v) > accum {
				break
			}
			pval = v
		}
		if accum-float64(pval) <= 1.5 {
			accum = float64(pval)
		}
	}
	accum += 0.1
	res := int(math.Round(accum))
	if strict {
		eff := res - a.charge
		if nOuterElecs(a.z) < 4 {
			eff = res + a.charge
		}
		vl := valenceList(a.z)
		if maxV := vl[len(vl)-1]; maxV > 0 && eff > maxV {
			return m.chemError(i, "explicit valence for atom # %d %s, %d, is greater than permitted",
				i, m.symbol(i), eff)
		}
	}
	a.explicitValence = res
	return nil
}

// calcImplicitValence is Atom::calcImplicitValence: how many hydrogens to add to reach
// the next allowed valence (only the default valence for aromatic atoms).
func (m *Mol) calcImplicitValence(i int, strict bool) error {
	a := &m.atoms[i]
	if a.noImplicit {
		return nil
	}
	if a.explicitValence == -1 {
		if err := m.calcExplicitValence(i, strict); err != nil {
			return err
		}
	}
	if a.z == 0 {
		a.implicitValence = 0
		return nil
	}
	if a.explicitValence == 0 && a.z == 1 && a.radicals == 0 {
		switch a.charge {
		case 1, -1:
			a.implicitValence = 0
		case 0:
			a.implicitValence = 1
		default:
			if strict {
				return m.chemError(i, "unreasonable formal charge on hydrogen # %d", i)
			}
			a.implicitValence = 0
		}
		return nil
	}
	dv := defaultValence(a.z)
	if dv == -1 {
		a.implicitValence = 0
		return nil
	}
	valens := valenceList(a.z)
	explicitPlusRadV := a.explicitValence + a.radicals
	chg := chargeForValence(a.z, a.charge)
	res := 0
	if m.isAromaticAtom(i) {
		if explicitPlusRadV <= dv+chg {
			res = dv + chg - explicitPlusRadV
		} else {
			satis := false
			for _, v := range valens {
				if v <= 0 {
					break
				}
				if explicitPlusRadV == v+chg {
					satis = true
					break
				}
			}
			if strict && !satis {
				return m.chemError(i, "explicit valence for aromatic atom # %d not equal to any accepted valence", i)
			}
			res = 0
		}
	} else {
		res = -1
		for _, v := range valens {
			if v < 0 {
				break
			}
			if tot := v + chg; explicitPlusRadV <= tot {
				res = tot - explicitPlusRadV
				break
			}
		}
		if res < 0 {
			if strict && valens[len(valens)-1] != -1 {
				return m.chemError(i, "explicit valence for atom # %d %s greater than permitted", i, m.symbol(i))
			}
			res = 0
		}
	}
	a.implicitValence = res
	return nil
}

// updatePropertyCache recomputes the explicit and implicit valence of every atom.
func (m *Mol) updatePropertyCache(strict bool) error {
	for i := range m.atoms {
		if err := m.calcExplicitValence(i, strict); err != nil {
			return err
		}
		if err := m.calcImplicitValence(i, strict); err != nil {
			return err
		}
	}
	return nil
}

// implicitValence is Atom::getImplicitValence (the cached value).
func (m *Mol) implicitValence(i int) int {
	if m.atoms[i].noImplicit {
		return 0
	}
	return m.atoms[i].implicitValence
}

// totalNumHs is Atom::getTotalNumHs: explicit plus implicit hydrogens.
func (m *Mol) totalNumHs(i int) int {
	return m.atoms[i].numExplicitHs + m.implicitValence(i)
}

// totalValence is Atom::getTotalValence.
func (m *Mol) totalValence(i int) int {
	return m.atoms[i].explicitValence + m.implicitValence(i)
}

// totalDegree is Atom::getTotalDegree: neighbours plus hydrogens.
func (m *Mol) totalDegree(i int) int {
	return len(m.adj[i]) + m.totalNumHs(i)
}

// cleanUp is MolOps::cleanUp: it rewrites hypervalent nitro groups, azides, P ylides and
// halogen oxides into their charge-separated forms, e.g. CN(=O)=O -> C[N+](=O)[O-].
func (m *Mol) cleanUp() {
	for i := range m.atoms {
		switch m.atoms[i].z {
		case 7:
			m.nitrogenCleanup(i)
		case 15:
			m.phosphorusCleanup(i)
		case 17, 35, 53:
			m.halogenCleanup(i)
		}
	}
}

// nitrogenCleanup turns a neutral five-valent N with a double bond to a neutral O into
// [N+]-[O-], or one with a triple bond to a neutral N into [N+]=[N-] (first such
// neighbour in bond order).
func (m *Mol) nitrogenCleanup(i int) {
	a := &m.atoms[i]
	if a.charge != 0 {
		return
	}
	arom := a.aromatic
	a.aromatic = false
	_ = m.calcExplicitValence(i, false)
	if a.explicitValence == 5 {
		for _, bi := range m.adj[i] {
			b := &m.bonds[bi]
			nb := &m.atoms[b.other(i)]
			if nb.z == 8 && nb.charge == 0 && b.typ == Double {
				b.typ = Single
				a.charge = 1
				nb.charge = -1
				break
			}
			if nb.z == 7 && nb.charge == 0 && b.typ == Triple {
				b.typ = Double
				a.charge = 1
				nb.charge = -1
				break
			}
		}
	}
	a.aromatic = arom
	_ = m.calcExplicitValence(i, false)
}

// phosphorusCleanup turns a neutral five-valent three-coordinate P with a double bond to a
// neutral O and one to a C or N of degree ≥ 2 into [P+]-[O-].
func (m *Mol) phosphorusCleanup(i int) {
	a := &m.atoms[i]
	if a.charge != 0 {
		return
	}
	_ = m.calcExplicitValence(i, false)
	if a.explicitValence == 5 && len(m.adj[i]) == 3 {
		dblToO, oAtom := -1, -1
		hasDoubleToCorN := false
		for _, bi := range m.adj[i] {
			b := &m.bonds[bi]
			o := b.other(i)
			nb := &m.atoms[o]
			if nb.z == 8 && nb.charge == 0 && b.typ == Double {
				dblToO, oAtom = bi, o
			} else if (nb.z == 6 || nb.z == 7) && len(m.adj[o]) >= 2 && b.typ == Double {
				hasDoubleToCorN = true
			}
		}
		if hasDoubleToCorN && dblToO >= 0 {
			m.atoms[oAtom].charge = -1
			m.bonds[dblToO].typ = Single
			a.charge = 1
		}
	}
	_ = m.calcExplicitValence(i, false)
}

// halogenCleanup turns neutral Cl, Br or I with valence 3, 5 or 7 and only O neighbours
// into the charge-separated form, e.g. Cl(=O)(=O)(=O)O -> [Cl+3]([O-])([O-])([O-])O.
func (m *Mol) halogenCleanup(i int) {
	_ = m.calcExplicitValence(i, false)
	a := &m.atoms[i]
	ev := a.explicitValence
	if a.charge != 0 || (ev != 7 && ev != 5 && ev != 3) {
		return
	}
	for _, bi := range m.adj[i] {
		if m.atoms[m.bonds[bi].other(i)].z != 8 {
			return
		}
	}
	charge := 0
	for _, bi := range m.adj[i] {
		b := &m.bonds[bi]
		if b.typ == Double {
			b.typ = Single
			o := b.other(i)
			charge++
			m.atoms[o].charge = -1
			_ = m.calcExplicitValence(o, false)
		}
	}
	a.charge = charge
	_ = m.calcExplicitValence(i, false)
}

// assignRadicals is MolOps::assignRadicals: bracket atoms whose bonds and hydrogens do not
// fill their valence get radical electrons (e.g. [CH3] gets 1).
func (m *Mol) assignRadicals() {
	for i := range m.atoms {
		a := &m.atoms[i]
		if !a.noImplicit || a.radicals != 0 || a.z == 0 {
			continue
		}
		valens := valenceList(a.z)
		chg := a.charge
		nOuter := nOuterElecs(a.z)
		if len(valens) != 1 || valens[0] != -1 {
			accum := 0.0
			for _, bi := range m.adj[i] {
				accum += m.bonds[bi].typ.valenceContrib()
			}
			accum += float64(a.numExplicitHs)
			totalValence := int(accum + 0.1)
			baseCount := 8
			if a.z == 1 || a.z == 2 {
				baseCount = 2
			}
			numRadicals := baseCount - nOuter - totalValence + chg
			if numRadicals < 0 {
				numRadicals = 0
				if len(valens) > 1 {
					for _, v := range valens {
						if v-totalValence+chg >= 0 {
							numRadicals = v - totalValence + chg
							break
						}
					}
				}
			}
			if numRadicals2 := nOuter - totalValence - chg; numRadicals2 >= 0 {
				numRadicals = min(numRadicals, numRadicals2)
			}
			a.radicals = numRadicals
		} else {
			nValence := nOuter - chg
			if nValence < 0 {
				nValence = 0
			}
			a.radicals = nValence % 2
		}
	}
}

// adjustHs is MolOps::adjustHs: an atom that lost implicit hydrogens through aromaticity
// perception (e.g. the N of C1=CC=CN1) keeps them as explicit hydrogens.
func (m *Mol) adjustHs() {
	for i := range m.atoms {
		a := &m.atoms[i]
		origImplicit := m.implicitValence(i)
		_ = m.calcExplicitValence(i, false)
		origExplicit := a.numExplicitHs
		_ = m.calcImplicitValence(i, false)
		if newImplicit := m.implicitValence(i); newImplicit < origImplicit {
			a.numExplicitHs = origExplicit + (origImplicit - newImplicit)
			_ = m.calcExplicitValence(i, false)
		}
	}
}

// removeHs removes hydrogen atoms written in brackets, as MolFromSmiles does
// (MolOps::removeHs with its default parameters and updateExplicitCount): a hydrogen with
// exactly one neighbour and no isotope is deleted and counted as an explicit hydrogen of
// that neighbour, unless the neighbour is a hydrogen or a dummy atom, has non-tetrahedral
// stereo, or has two neighbours and a double bond while the hydrogen's bond is written
// "/" or "\" (it then defines double-bond stereo). Other hydrogens (H2, [2H], [H+],
// bridging hydrogens) stay atoms.
func (m *Mol) removeHs() {
	remove := make([]bool, len(m.atoms))
	any := false
	for i := range m.atoms {
		a := &m.atoms[i]
		if a.z != 1 || a.isotope != 0 || len(m.adj[i]) != 1 {
			continue
		}
		hb := &m.bonds[m.adj[i][0]]
		nb := hb.other(i)
		if m.atoms[nb].z <= 1 {
			continue
		}
		if c := m.atoms[nb].chiral; c == chiralSquarePlanar || c == chiralTrigonalBipyramidal || c == chiralOctahedral {
			continue
		}
		if hb.directional && len(m.adj[nb]) == 2 {
			definesStereo := false
			for _, bi := range m.adj[nb] {
				if m.bonds[bi].typ == Double {
					definesStereo = true
				}
			}
			if definesStereo {
				continue
			}
		}
		remove[i] = true
		any = true
	}
	for i, r := range remove {
		if r {
			m.atoms[m.bonds[m.adj[i][0]].other(i)].numExplicitHs++
		}
	}
	if !any {
		return
	}
	newIdx := make([]int, len(m.atoms))
	atoms := m.atoms[:0]
	for i, a := range m.atoms {
		if remove[i] {
			newIdx[i] = -1
			continue
		}
		newIdx[i] = len(atoms)
		atoms = append(atoms, a)
	}
	m.atoms = atoms
	bonds := m.bonds[:0]
	for _, b := range m.bonds {
		if newIdx[b.begin] < 0 || newIdx[b.end] < 0 {
			continue
		}
		b.begin, b.end = newIdx[b.begin], newIdx[b.end]
		bonds = append(bonds, b)
	}
	m.bonds = bonds
	m.buildAdjacency()
}
