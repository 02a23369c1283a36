// Package datasets loads the datasets of the project into plain Go values: the Planetoid
// citation graphs Cora and Citeseer (LoadPlanetoid, with Kipf & Welling's split and
// conversion), the ESOL and FreeSolv molecule sets (LoadESOL, LoadFreeSolv: SMILES featurised
// natively by package datasets/smiles exactly as RDKit + DGL-LifeSci's CanonicalAtomFeaturizer
// do, the paper's seeded split and a batcher), random geometric graphs
// (RandomGeometricGraph; its normalised Laplacian is stagnb.NormalizedLaplacian) and the multiset
// toy data (Multisets). Each has its statistics (Planetoid.Stats, MoleculeDataset.Stats, …), which
// `stag data stats` prints.
//
// Files are found by a Resolver: first in the directory named by $STAGNB_DATA, then in the
// user cache, and finally by downloading them from their pinned public URL into the cache.
// Every file is checked against the sha256 recorded in this package wherever it was found.
//
// The Planetoid files are Python 2 pickles (protocol 2) of scipy and numpy objects. They are
// read by a small unpickler of our own (pickle.go) rather than a third-party Go pickle
// library: the files use only 28 opcodes and three object layouts, so a few hundred lines
// cover them with no new dependency and with error messages that name the offending byte
// and field. The files are untrusted input, and the unpickler executes nothing and refuses
// every opcode, class and layout outside that fixed set instead of trying to emulate Python.
package datasets
