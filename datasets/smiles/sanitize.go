package smiles

// MolFromSMILES parses s and applies the chemistry RDKit's Chem.MolFromSmiles applies with
// its defaults: hydrogen atoms written in brackets are folded into their neighbours, then
// the molecule is sanitized (see Sanitize). The result is the molecule RDKit 2022.09
// featurizes. Errors are *Error values.
func MolFromSMILES(s string) (*Mol, error) {
	m, err := Parse(s)
	if err != nil {
		return nil, err
	}
	m.removeHs()
	if err := m.Sanitize(); err != nil {
		return nil, err
	}
	return m, nil
}

// Sanitize applies RDKit's MolOps::sanitizeMol (SANITIZE_ALL) to a molecule from Parse, in
// RDKit's order:
//
//  1. cleanUp: N(=O)=O becomes [N+](=O)[O-] (and the same for azides, P ylides, halogen
//     oxides);
//  2. valence check and implicit hydrogens (updatePropertyCache, strict);
//  3. rings (symmetrized SSSR);
//  4. Kekulé structure for the aromatic input;
//  5. radicals on bracket atoms;
//  6. aromaticity perception (RDKit's model, 4n+2 over single and fused rings);
//  7. conjugation and hybridization;
//  8. hydrogens lost to aromaticity kept as explicit ones (adjustHs), and a final strict
//     valence update.
//
// A molecule can be sanitized once; a second call does nothing. On error the molecule is
// left half-way and should be discarded.
func (m *Mol) Sanitize() error {
	if m.sanitized {
		return nil
	}
	m.cleanUp()
	if err := m.updatePropertyCache(true); err != nil {
		return err
	}
	if err := m.findRings(); err != nil {
		return err
	}
	if err := m.kekulize(); err != nil {
		return err
	}
	m.assignRadicals()
	m.setAromaticity()
	m.setConjugation()
	m.setHybridization()
	m.adjustHs()
	if err := m.updatePropertyCache(true); err != nil {
		return err
	}
	m.sanitized = true
	return nil
}
