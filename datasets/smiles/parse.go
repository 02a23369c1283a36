package smiles

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Error is a SMILES that could not be read: a syntax error found by Parse, or a chemistry
// error found by sanitization (a valence RDKit does not allow, a ring that cannot be
// kekulized, …).
type Error struct {
	// SMILES is the offending string.
	SMILES string
	// Pos is the 0-based byte offset the error refers to: the offending character for a
	// syntax error, the offending atom for a chemistry error.
	Pos int
	// Msg says what is wrong.
	Msg string
}

// Error formats the error with the SMILES, the position and the reason.
func (e *Error) Error() string {
	return fmt.Sprintf("SMILES %q: position %d: %s", e.SMILES, e.Pos, e.Msg)
}

// Limits that keep absurd input cheap to reject. They are far above anything in a real
// molecule (RDKit accepts larger values, which no chemistry needs).
const (
	maxIsotope      = 9999
	maxCharge       = 99
	maxHCount       = 99
	maxAtomMap      = 999999999
	maxRingClosures = 99999
)

// ringOpen is a ring-closure digit seen once, waiting for its partner.
type ringOpen struct {
	atom int
	typ  BondType // Unspecified if no bond symbol was written before the digit
	dir  bool     // the bond symbol was "/" or "\\"
	pos  int
}

// closure is a matched pair of ring-closure digits.
type closure struct {
	num      int
	open     ringOpen
	close    int
	closeTyp BondType
	closeDir bool
	pos      int // position of the closing digit
}

// branch is an open "(".
type branch struct {
	atom  int // the atom the branch hangs off
	pos   int
	empty bool // no atom yet inside the branch
}

// parser holds the state of one Parse call.
type parser struct {
	s        string
	i        int
	m        *Mol
	prev     int // the atom the next bond starts from; -1 at the start and after "."
	pend     BondType
	pendDir  bool // the pending bond symbol is "/" or "\\"
	pendPos  int
	afterDot bool
	afterOpn bool
	branches []branch
	rings    map[int]ringOpen
	closures []closure
}

// Parse reads a SMILES string into a Mol, without any chemistry: no valence check, no
// hydrogen counts, no aromaticity perception (see MolFromSMILES for those).
//
// The grammar is Daylight's, as RDKit reads it: the organic subset B C N O P S F Cl Br I
// and aromatic b c n o p s, "*", bracket atoms [isotope symbol chirality Hcount charge
// :class] with any element (aromatic b c n o p s se as te si), charges +, ++, +n, -, --,
// -n, bonds - = # $ : / \, branches, ring closures 0-9, %nn and %(n…), and "."-separated
// components. Stereo marks (@, @@, @TH1, @SP2, …, / and \) are accepted and ignored, as
// are isotopes and atom classes.
//
// Atoms are numbered in the order they are written. Bonds are numbered as RDKit's parser
// creates them: first every bond to a newly written atom, in SMILES order, then the
// ring-closure bonds, sorted by ring-closure number (and, for a reused number, in order of
// closing). A ring-closure bond runs from the closing atom to the opening atom, unless a
// bond symbol was written at the opening digit, in which case it runs from the opening
// atom to the closing one.
//
// Errors are *Error values that give the SMILES, the byte position and the reason. Parse
// never panics.
func Parse(s string) (*Mol, error) {
	p := parser{s: s, m: &Mol{smiles: s}, prev: -1}
	if err := p.parse(); err != nil {
		return nil, err
	}
	p.m.buildAdjacency()
	return p.m, nil
}

// errorf returns an *Error at byte position pos.
func (p *parser) errorf(pos int, format string, args ...any) error {
	return &Error{SMILES: p.s, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// charAt describes the character that starts at byte i of the SMILES for an error message:
// the whole UTF-8 character quoted ('Ç', not its first byte 'Ã'), or the byte in hex if it
// does not start valid UTF-8.
func (p *parser) charAt(i int) string {
	r, size := utf8.DecodeRuneInString(p.s[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x (invalid UTF-8)", p.s[i])
	}
	return strconv.QuoteRune(r)
}

// parse is the main loop over the characters of the SMILES.
func (p *parser) parse() error {
	if p.s == "" {
		return p.errorf(0, "empty SMILES")
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '(':
			if err := p.checkNotPending("'('"); err != nil {
				return err
			}
			if p.prev < 0 {
				return p.errorf(p.i, "branch '(' without a preceding atom")
			}
			p.branches = append(p.branches, branch{atom: p.prev, pos: p.i, empty: true})
			p.afterOpn = true
			p.i++
		case c == ')':
			if err := p.checkNotPending("')'"); err != nil {
				return err
			}
			if len(p.branches) == 0 {
				return p.errorf(p.i, "')' without a matching '('")
			}
			top := p.branches[len(p.branches)-1]
			if top.empty {
				return p.errorf(p.i, "empty branch '()'")
			}
			p.branches = p.branches[:len(p.branches)-1]
			p.prev = top.atom
			p.i++
		case c == '-' || c == '=' || c == '#' || c == '$' || c == ':' || c == '/' || c == '\\':
			if p.pend != Unspecified {
				return p.errorf(p.i, "two bond symbols in a row")
			}
			if p.afterDot {
				return p.errorf(p.i, "bond symbol %q right after '.'", c)
			}
			if p.prev < 0 {
				return p.errorf(p.i, "bond symbol %q without a preceding atom", c)
			}
			p.pend = bondSymbol(c)
			p.pendDir = c == '/' || c == '\\'
			p.pendPos = p.i
			p.i++
		case c == '.':
			if err := p.checkNotPending("'.'"); err != nil {
				return err
			}
			if p.prev < 0 || p.afterOpn {
				return p.errorf(p.i, "'.' without a preceding atom")
			}
			p.prev = -1
			p.afterDot = true
			p.i++
		case c >= '0' && c <= '9' || c == '%':
			if err := p.ringClosure(); err != nil {
				return err
			}
		case c == '[':
			a, err := p.bracketAtom()
			if err != nil {
				return err
			}
			p.addAtom(a)
		default:
			a, ok := p.organicAtom()
			if !ok {
				return p.errorf(p.i, "unexpected character %s", p.charAt(p.i))
			}
			p.addAtom(a)
		}
	}
	if p.pend != Unspecified {
		return p.errorf(p.pendPos, "SMILES ends with a bond symbol")
	}
	if p.afterDot {
		return p.errorf(len(p.s)-1, "SMILES ends with '.'")
	}
	if len(p.branches) > 0 {
		return p.errorf(p.branches[len(p.branches)-1].pos, "unclosed branch '('")
	}
	if len(p.rings) > 0 {
		first := -1
		num := 0
		for n, r := range p.rings {
			if first < 0 || r.pos < first {
				first, num = r.pos, n
			}
		}
		return p.errorf(first, "unclosed ring %d", num)
	}
	return p.closeRings()
}

// checkNotPending fails when a bond symbol is waiting for its atom, or a "." or "(" for
// their atom.
func (p *parser) checkNotPending(what string) error {
	if p.pend != Unspecified {
		return p.errorf(p.i, "bond symbol followed by %s", what)
	}
	if p.afterDot {
		return p.errorf(p.i, "'.' followed by %s", what)
	}
	if p.afterOpn && what != "'.'" {
		return p.errorf(p.i, "'(' followed by %s", what)
	}
	return nil
}

// bondSymbol returns the bond type of a bond character.
func bondSymbol(c byte) BondType {
	switch c {
	case '=':
		return Double
	case '#':
		return Triple
	case '$':
		return Quadruple
	case ':':
		return Aromatic
	}
	return Single // '-', '/', '\'
}

// addAtom appends a and bonds it to the previous atom.
func (p *parser) addAtom(a atom) {
	a.explicitValence, a.implicitValence = -1, -1
	idx := len(p.m.atoms)
	p.m.atoms = append(p.m.atoms, a)
	if p.prev >= 0 {
		p.addBond(p.prev, idx, p.pend, p.pendDir)
	}
	p.prev = idx
	p.pend, p.pendDir = Unspecified, false
	p.afterDot, p.afterOpn = false, false
	if n := len(p.branches); n > 0 {
		p.branches[n-1].empty = false
	}
}

// addBond appends a bond; an Unspecified type becomes Aromatic between two aromatic atoms
// and Single otherwise, as in RDKit.
func (p *parser) addBond(begin, end int, typ BondType, dir bool) {
	if typ == Unspecified {
		typ = Single
		if p.m.atoms[begin].aromatic && p.m.atoms[end].aromatic {
			typ = Aromatic
		}
	}
	p.m.bonds = append(p.m.bonds, bond{begin: begin, end: end, typ: typ, aromatic: typ == Aromatic, directional: dir})
}

// organicAtom reads an atom of the organic subset, or "*", at p.i.
func (p *parser) organicAtom() (atom, bool) {
	c := p.s[p.i]
	a := atom{pos: p.i}
	n := 1
	switch c {
	case 'B':
		a.z = 5
		if p.i+1 < len(p.s) && p.s[p.i+1] == 'r' {
			a.z, n = 35, 2
		}
	case 'C':
		a.z = 6
		if p.i+1 < len(p.s) && p.s[p.i+1] == 'l' {
			a.z, n = 17, 2
		}
	case 'N':
		a.z = 7
	case 'O':
		a.z = 8
	case 'P':
		a.z = 15
	case 'S':
		a.z = 16
	case 'F':
		a.z = 9
	case 'I':
		a.z = 53
	case 'b', 'c', 'n', 'o', 'p', 's':
		a.z = elementBySymbol[string(c-'a'+'A')]
		a.aromatic = true
	case '*':
		a.z = 0
	default:
		return a, false
	}
	p.i += n
	return a, true
}

// aromaticBracketSymbols are the lower-case symbols accepted inside brackets, two-letter
// ones first.
var aromaticBracketSymbols = []string{"se", "as", "te", "si", "b", "c", "n", "o", "p", "s"}

// bracketAtom reads "[...]" at p.i.
func (p *parser) bracketAtom() (atom, error) {
	start := p.i
	a := atom{pos: start, noImplicit: true}
	p.i++ // '['
	var err error
	if a.isotope, err = p.number(maxIsotope, "isotope"); err != nil {
		return a, err
	}
	if p.i >= len(p.s) {
		return a, p.errorf(start, "unclosed bracket atom")
	}
	// element symbol
	c := p.s[p.i]
	switch {
	case c == '*':
		a.z = 0
		p.i++
	case c >= 'a' && c <= 'z':
		found := false
		for _, sym := range aromaticBracketSymbols {
			if len(p.s)-p.i >= len(sym) && p.s[p.i:p.i+len(sym)] == sym {
				a.z = elementBySymbol[string(sym[0]-'a'+'A')+sym[1:]]
				a.aromatic = true
				p.i += len(sym)
				found = true
				break
			}
		}
		if !found {
			return a, p.errorf(p.i, "unknown aromatic element in bracket atom")
		}
	case c >= 'A' && c <= 'Z':
		if p.i+1 < len(p.s) && p.s[p.i+1] >= 'a' && p.s[p.i+1] <= 'z' {
			if z, ok := elementBySymbol[p.s[p.i:p.i+2]]; ok {
				a.z = z
				p.i += 2
				break
			}
		}
		z, ok := elementBySymbol[p.s[p.i:p.i+1]]
		if !ok {
			return a, p.errorf(p.i, "unknown element %q", p.s[p.i:p.i+1])
		}
		a.z = z
		p.i++
	default:
		return a, p.errorf(p.i, "expected an element symbol in bracket atom, found %s", p.charAt(p.i))
	}
	// chirality
	if p.i < len(p.s) && p.s[p.i] == '@' {
		if a.chiral, err = p.chirality(); err != nil {
			return a, err
		}
	}
	// hydrogen count
	if p.i < len(p.s) && p.s[p.i] == 'H' {
		p.i++
		a.numExplicitHs = 1
		if p.i < len(p.s) && isDigit(p.s[p.i]) {
			if a.numExplicitHs, err = p.number(maxHCount, "hydrogen count"); err != nil {
				return a, err
			}
		}
	}
	// charge
	if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
		sign := 1
		if p.s[p.i] == '-' {
			sign = -1
		}
		sym := p.s[p.i]
		p.i++
		mag := 1
		switch {
		case p.i < len(p.s) && p.s[p.i] == sym:
			mag = 2
			p.i++
			if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-' || isDigit(p.s[p.i])) {
				return a, p.errorf(p.i, "malformed charge")
			}
		case p.i < len(p.s) && isDigit(p.s[p.i]):
			if mag, err = p.number(maxCharge, "charge"); err != nil {
				return a, err
			}
		}
		a.charge = sign * mag
	}
	// atom class
	if p.i < len(p.s) && p.s[p.i] == ':' {
		p.i++
		if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
			return a, p.errorf(p.i-1, "atom class ':' without a number")
		}
		if a.mapNum, err = p.number(maxAtomMap, "atom class"); err != nil {
			return a, err
		}
	}
	if p.i >= len(p.s) {
		return a, p.errorf(start, "unclosed bracket atom")
	}
	if p.s[p.i] != ']' {
		return a, p.errorf(p.i, "unexpected character %s in bracket atom", p.charAt(p.i))
	}
	p.i++
	return a, nil
}

// chirality reads "@", "@@" or "@TH1", "@AL2", "@SP3", "@TB12", "@OH30" at p.i.
func (p *parser) chirality() (chiralClass, error) {
	start := p.i
	p.i++ // '@'
	if p.i < len(p.s) && p.s[p.i] == '@' {
		p.i++
		return chiralTetrahedral, nil
	}
	if p.i+1 >= len(p.s) {
		return chiralTetrahedral, nil
	}
	var cls chiralClass
	var hi int
	switch p.s[p.i : p.i+2] {
	case "TH":
		cls, hi = chiralTetrahedral, 2
	case "AL":
		cls, hi = chiralAllene, 2
	case "SP":
		cls, hi = chiralSquarePlanar, 3
	case "TB":
		cls, hi = chiralTrigonalBipyramidal, 20
	case "OH":
		cls, hi = chiralOctahedral, 30
	default:
		return chiralTetrahedral, nil
	}
	p.i += 2
	if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
		return cls, p.errorf(start, "chirality class @%s without a number", p.s[start+1:start+3])
	}
	n, err := p.number(hi, "chirality permutation")
	if err != nil {
		return cls, err
	}
	if n < 1 {
		return cls, p.errorf(start, "chirality permutation must be at least 1")
	}
	return cls, nil
}

// isDigit reports whether c is an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number reads an optional run of digits at p.i (0 if none) and checks it against max.
func (p *parser) number(max int, what string) (int, error) {
	start := p.i
	n := 0
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		n = 10*n + int(p.s[p.i]-'0')
		p.i++
		if n > max {
			return 0, p.errorf(start, "%s too large (at most %d)", what, max)
		}
	}
	return n, nil
}

// ringClosure reads a ring-closure number (a digit, %nn or %(n…)) at p.i and opens or
// closes that ring.
func (p *parser) ringClosure() error {
	pos := p.i
	if p.prev < 0 || p.afterOpn {
		return p.errorf(pos, "ring-closure number without a preceding atom")
	}
	var num int
	switch c := p.s[p.i]; {
	case isDigit(c):
		num = int(c - '0')
		p.i++
	case p.i+1 < len(p.s) && p.s[p.i+1] == '(':
		p.i += 2
		if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
			return p.errorf(pos, "'%%(' must be followed by a ring-closure number")
		}
		var err error
		if num, err = p.number(maxRingClosures, "ring-closure number"); err != nil {
			return err
		}
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return p.errorf(pos, "unclosed '%%(' ring-closure number")
		}
		p.i++
	default:
		if p.i+2 >= len(p.s) || !isDigit(p.s[p.i+1]) || !isDigit(p.s[p.i+2]) {
			return p.errorf(pos, "'%%' must be followed by two digits")
		}
		num = int(p.s[p.i+1]-'0')*10 + int(p.s[p.i+2]-'0')
		p.i += 3
	}
	if p.rings == nil {
		p.rings = make(map[int]ringOpen)
	}
	if open, ok := p.rings[num]; ok {
		if open.atom == p.prev {
			return p.errorf(pos, "ring closure %d bonds an atom to itself", num)
		}
		if open.typ != Unspecified && p.pend != Unspecified && open.typ != p.pend {
			return p.errorf(pos, "ring closure %d has conflicting bond symbols", num)
		}
		p.closures = append(p.closures, closure{num: num, open: open, close: p.prev, closeTyp: p.pend, closeDir: p.pendDir, pos: pos})
		delete(p.rings, num)
	} else {
		p.rings[num] = ringOpen{atom: p.prev, typ: p.pend, dir: p.pendDir, pos: pos}
	}
	p.pend, p.pendDir = Unspecified, false
	return nil
}

// closeRings creates the ring-closure bonds after all other bonds, as RDKit's
// CloseMolRings does: by increasing ring-closure number, each number's pairs in order.
func (p *parser) closeRings() error {
	slices.SortStableFunc(p.closures, func(a, b closure) int { return a.num - b.num })
	for _, c := range p.closures {
		if p.hasBond(c.open.atom, c.close) {
			return p.errorf(c.pos, "ring closure %d duplicates the bond between atoms %d and %d",
				c.num, c.open.atom, c.close)
		}
		if c.open.typ != Unspecified {
			p.addBond(c.open.atom, c.close, c.open.typ, c.open.dir)
		} else {
			p.addBond(c.close, c.open.atom, c.closeTyp, c.closeDir)
		}
	}
	return nil
}

// hasBond reports whether atoms a and b are already bonded (used before adjacency exists).
func (p *parser) hasBond(a, b int) bool {
	for i := range p.m.bonds {
		x := &p.m.bonds[i]
		if x.begin == a && x.end == b || x.begin == b && x.end == a {
			return true
		}
	}
	return false
}
