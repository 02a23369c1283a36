package smiles

// Code transcribed from RDKit's Code/GraphMol/atomic_data.cpp (the periodic table
// RDKit 2022.09 uses: symbol, number of outer-shell electrons, allowed valences, -1 = any)
// and Atom.cpp's isEarlyAtom table. Do not edit by hand without checking both sources.

// element is one row of RDKit's periodic table.
type element struct {
	symbol   string
	nOuter   int
	valences []int // allowed valences in increasing order; {-1}: anything (no default valence)
	early    bool  // to the left of carbon: hydrogens add as H-, so charges count the other way
}

// elements is indexed by atomic number (0 = dummy atom "*").
var elements = [...]element{
	{"*", 0, []int{-1}, false},          // 0
	{"H", 1, []int{1}, false},           // 1
	{"He", 2, []int{0}, false},          // 2
	{"Li", 1, []int{1}, true},           // 3
	{"Be", 2, []int{2}, true},           // 4
	{"B", 3, []int{3}, true},            // 5
	{"C", 4, []int{4}, false},           // 6
	{"N", 5, []int{3}, false},           // 7
	{"O", 6, []int{2}, false},           // 8
	{"F", 7, []int{1}, false},           // 9
	{"Ne", 8, []int{0}, false},          // 10
	{"Na", 1, []int{1}, true},           // 11
	{"Mg", 2, []int{2}, true},           // 12
	{"Al", 3, []int{3, 6}, true},        // 13
	{"Si", 4, []int{4, 6}, false},       // 14
	{"P", 5, []int{3, 5, 7}, false},     // 15
	{"S", 6, []int{2, 4, 6}, false},     // 16
	{"Cl", 7, []int{1}, false},          // 17
	{"Ar", 8, []int{0}, false},          // 18
	{"K", 1, []int{1}, true},            // 19
	{"Ca", 2, []int{2}, true},           // 20
	{"Sc", 3, []int{-1}, true},          // 21
	{"Ti", 4, []int{-1}, true},          // 22
	{"V", 5, []int{-1}, false},          // 23
	{"Cr", 6, []int{-1}, false},         // 24
	{"Mn", 7, []int{-1}, false},         // 25
	{"Fe", 8, []int{-1}, false},         // 26
	{"Co", 9, []int{-1}, false},         // 27
	{"Ni", 10, []int{-1}, false},        // 28
	{"Cu", 11, []int{-1}, false},        // 29
	{"Zn", 2, []int{-1}, true},          // 30
	{"Ga", 3, []int{3}, true},           // 31
	{"Ge", 4, []int{4}, true},           // 32
	{"As", 5, []int{3, 5, 7}, false},    // 33
	{"Se", 6, []int{2, 4, 6}, false},    // 34
	{"Br", 7, []int{1}, false},          // 35
	{"Kr", 8, []int{0}, false},          // 36
	{"Rb", 1, []int{1}, true},           // 37
	{"Sr", 2, []int{2}, true},           // 38
	{"Y", 3, []int{-1}, true},           // 39
	{"Zr", 4, []int{-1}, true},          // 40
	{"Nb", 5, []int{-1}, true},          // 41
	{"Mo", 6, []int{-1}, false},         // 42
	{"Tc", 7, []int{-1}, false},         // 43
	{"Ru", 8, []int{-1}, false},         // 44
	{"Rh", 9, []int{-1}, false},         // 45
	{"Pd", 10, []int{-1}, false},        // 46
	{"Ag", 11, []int{-1}, false},        // 47
	{"Cd", 2, []int{-1}, true},          // 48
	{"In", 3, []int{3}, true},           // 49
	{"Sn", 4, []int{2, 4}, true},        // 50
	{"Sb", 5, []int{3, 5, 7}, true},     // 51
	{"Te", 6, []int{2, 4, 6}, false},    // 52
	{"I", 7, []int{1, 3, 5}, false},     // 53
	{"Xe", 8, []int{0, 2, 4, 6}, false}, // 54
	{"Cs", 1, []int{1}, true},           // 55
	{"Ba", 2, []int{2}, true},           // 56
	{"La", 3, []int{-1}, true},          // 57
	{"Ce", 4, []int{-1}, true},          // 58
	{"Pr", 3, []int{-1}, true},          // 59
	{"Nd", 4, []int{-1}, true},          // 60
	{"Pm", 5, []int{-1}, true},          // 61
	{"Sm", 6, []int{-1}, false},         // 62
	{"Eu", 7, []int{-1}, false},         // 63
	{"Gd", 8, []int{-1}, false},         // 64
	{"Tb", 9, []int{-1}, false},         // 65
	{"Dy", 10, []int{-1}, false},        // 66
	{"Ho", 11, []int{-1}, false},        // 67
	{"Er", 12, []int{-1}, false},        // 68
	{"Tm", 13, []int{-1}, false},        // 69
	{"Yb", 14, []int{-1}, false},        // 70
	{"Lu", 15, []int{-1}, false},        // 71
	{"Hf", 4, []int{-1}, true},          // 72
	{"Ta", 5, []int{-1}, true},          // 73
	{"W", 6, []int{-1}, false},          // 74
	{"Re", 7, []int{-1}, false},         // 75
	{"Os", 8, []int{-1}, false},         // 76
	{"Ir", 9, []int{-1}, false},         // 77
	{"Pt", 10, []int{-1}, false},        // 78
	{"Au", 11, []int{-1}, false},        // 79
	{"Hg", 2, []int{-1}, true},          // 80
	{"Tl", 3, []int{3}, true},           // 81
	{"Pb", 4, []int{2, 4}, true},        // 82
	{"Bi", 5, []int{3, 5, 7}, true},     // 83
	{"Po", 6, []int{2, 4, 6}, false},    // 84
	{"At", 7, []int{1, 3, 5}, false},    // 85
	{"Rn", 8, []int{0}, false},          // 86
	{"Fr", 1, []int{1}, true},           // 87
	{"Ra", 2, []int{2}, true},           // 88
	{"Ac", 3, []int{-1}, true},          // 89
	{"Th", 4, []int{-1}, true},          // 90
	{"Pa", 3, []int{-1}, true},          // 91
	{"U", 4, []int{-1}, true},           // 92
	{"Np", 5, []int{-1}, true},          // 93
	{"Pu", 6, []int{-1}, false},         // 94
	{"Am", 7, []int{-1}, false},         // 95
	{"Cm", 8, []int{-1}, false},         // 96
	{"Bk", 9, []int{-1}, false},         // 97
	{"Cf", 10, []int{-1}, false},        // 98
	{"Es", 11, []int{-1}, false},        // 99
	{"Fm", 12, []int{-1}, false},        // 100
	{"Md", 13, []int{-1}, false},        // 101
	{"No", 14, []int{-1}, false},        // 102
	{"Lr", 15, []int{-1}, false},        // 103
	{"Rf", 2, []int{-1}, true},          // 104
	{"Db", 2, []int{-1}, true},          // 105
	{"Sg", 2, []int{-1}, true},          // 106
	{"Bh", 2, []int{-1}, true},          // 107
	{"Hs", 2, []int{-1}, true},          // 108
	{"Mt", 2, []int{-1}, true},          // 109
	{"Ds", 2, []int{-1}, true},          // 110
	{"Rg", 2, []int{-1}, true},          // 111
	{"Cn", 2, []int{-1}, true},          // 112
	{"Nh", 2, []int{-1}, true},          // 113
	{"Fl", 2, []int{-1}, true},          // 114
	{"Mc", 2, []int{-1}, true},          // 115
	{"Lv", 2, []int{-1}, true},          // 116
	{"Ts", 2, []int{-1}, true},          // 117
	{"Og", 2, []int{-1}, true},          // 118
}

// elementBySymbol maps an element symbol (as written in brackets, e.g. "Cl") to its atomic number.
var elementBySymbol = func() map[string]int {
	m := make(map[string]int, len(elements))
	for z, e := range elements {
		if z > 0 {
			m[e.symbol] = z
		}
	}
	return m
}()

// defaultValence returns RDKit's default valence of element z (its first allowed valence),
// -1 for elements without one and for atomic numbers outside the table.
func defaultValence(z int) int {
	if z < 0 || z >= len(elements) {
		return -1
	}
	return elements[z].valences[0]
}

// valenceList returns the allowed valences of element z ({-1} outside the table).
func valenceList(z int) []int {
	if z < 0 || z >= len(elements) {
		return []int{-1}
	}
	return elements[z].valences
}

// nOuterElecs returns the number of outer-shell electrons of element z (0 outside the table).
func nOuterElecs(z int) int {
	if z < 0 || z >= len(elements) {
		return 0
	}
	return elements[z].nOuter
}

// isEarlyAtom reports whether element z lies to the left of carbon in RDKit's sense.
func isEarlyAtom(z int) bool {
	return z >= 0 && z < len(elements) && elements[z].early
}

// moreElectroNegative is RDKit's PeriodicTable::moreElectroNegative: more outer electrons
// wins, and among equals the lighter element.
func moreElectroNegative(z1, z2 int) bool {
	n1, n2 := nOuterElecs(z1), nOuterElecs(z2)
	if n1 != n2 {
		return n1 > n2
	}
	return z1 < z2
}
