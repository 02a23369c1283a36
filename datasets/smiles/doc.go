// Package smiles reads SMILES strings and computes the atom features of DGL-LifeSci's
// CanonicalAtomFeaturizer exactly as RDKit 2022.09 computes them, natively in Go.
//
// # What is reproduced
//
// Parse reads the SMILES grammar (Daylight's, as RDKit reads it; see Parse) into a Mol
// whose atoms are numbered in SMILES order and whose bonds are numbered as RDKit numbers
// them. MolFromSMILES adds the chemistry of Chem.MolFromSmiles with default settings:
// removal of bracket hydrogen atoms, and RDKit's sanitization (MolOps::sanitizeMol):
// nitro/azide/halogen-oxide clean-up, RDKit's valence model with implicit hydrogens and
// its valence errors, ring perception (symmetrized SSSR, ported from FindRings.cpp),
// kekulization of aromatic input (ported from Kekulize.cpp), radical assignment, RDKit's
// own aromaticity model (ported from Aromaticity.cpp: electron-donor types, 4n+2 on single
// rings and on fused systems of up to six rings, so lower-case input can end up
// non-aromatic and Kekulé input aromatic), conjugation and hybridization (ported from
// ConjugHybrid.cpp), and the hydrogen bookkeeping that follows (adjustHs). The ports keep
// RDKit's iteration orders wherever a result depends on them. Mol.AtomFeatures then lays
// out the 74 CanonicalAtomFeaturizer values, and Mol.AppendEdges the bonds as DGL's
// bigraph edges.
//
// On ESOL (1128 molecules) and FreeSolv (642) every atom feature and every edge equals
// RDKit 2022.09's (the datasets package tests this against a reference made with RDKit).
//
// # What is not
//
// Stereochemistry is read and dropped (except where RDKit's results depend on it: a
// tetrahedral stereo atom with four neighbours-or-hydrogens is SP3 without further
// thought, and a hydrogen that defines stereo is not removed); so are isotopes and atom
// classes. MolFromSmiles' final stereo perception (assignStereochemistry) is not done; it
// changes none of the features. There are no coordinates, no canonical ranking or SMILES
// writing, no dative or zero-order bonds, no query features (SMARTS), no CXSMILES
// extensions, and none of RDKit's other aromaticity models. Hydrogen removal follows
// RDKit's default rules for plain SMILES (no substance groups, queries or wedges exist
// here). Where RDKit gives up with an
// exception the functions here return an *Error instead; in two corners they differ
// deliberately: conflicting bond symbols on the two digits of one ring closure are an
// error, and the search for aromatic fused ring systems stops after 2^20 ring combinations
// (RDKit has no limit; no molecule comes near it). Results can differ from other RDKit
// versions, mostly in aromaticity and hybridization corner cases.
//
// All functions are safe for concurrent use on different molecules and never panic on any
// input string.
package smiles
