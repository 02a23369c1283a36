package datasets

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// This file holds a minimal unpickler for the Planetoid files: the opcodes of pickle
// protocol 2 that occur in them (see the package documentation) and nothing else. It builds
// a generic value tree and never executes anything: a GLOBAL is kept as a name, and
// NEWOBJ/REDUCE only record the class and its arguments. Converters at the end of the file
// turn the three shapes the files use (scipy csr_matrix, numpy ndarray,
// collections.defaultdict(list)) into Go values, checking every field.
//
// Values of the tree: nil (None), bool, int, []byte (a Python 2 str, aliasing the input),
// pyTuple, *pyList, *pyDict, pyGlobal and *pyObject.

// pyTuple is a Python tuple.
type pyTuple []any

// pyList is a Python list; a pointer, because APPEND mutates it.
type pyList struct{ items []any }

// pyDict is a Python dict as its ordered (key, value) pairs; a later pair wins over an
// earlier one with the same key, as SETITEMS would do in Python.
type pyDict struct{ keys, values []any }

// pyGlobal is a class or function named by GLOBAL.
type pyGlobal struct{ module, name string }

// pyObject is the result of NEWOBJ (class applied to args) or REDUCE (callable applied to
// args), with the state given by BUILD and the items set on it by SETITEMS (dict subclasses
// such as defaultdict).
type pyObject struct {
	class    pyGlobal
	args     pyTuple
	state    any
	hasState bool
	items    pyDict
}

// Pickle opcodes understood by unpickle.
const (
	opProto          = 0x80
	opGlobal         = 'c'
	opBinPut         = 'q'
	opLongBinPut     = 'r'
	opBinGet         = 'h'
	opEmptyTuple     = ')'
	opEmptyDict      = '}'
	opEmptyList      = ']'
	opMark           = '('
	opTuple          = 't'
	opTuple1         = 0x85
	opTuple2         = 0x86
	opTuple3         = 0x87
	opNewObj         = 0x81
	opReduce         = 'R'
	opBuild          = 'b'
	opSetItems       = 'u'
	opAppend         = 'a'
	opAppends        = 'e'
	opBinInt         = 'J'
	opBinInt1        = 'K'
	opBinInt2        = 'M'
	opShortBinString = 'U'
	opBinString      = 'T'
	opNone           = 'N'
	opNewTrue        = 0x88
	opNewFalse       = 0x89
	opStop           = '.'
)

// opNames names the supported opcodes, for error messages.
var opNames = map[byte]string{
	opProto: "PROTO", opGlobal: "GLOBAL", opBinPut: "BINPUT", opLongBinPut: "LONG_BINPUT",
	opBinGet: "BINGET", opEmptyTuple: "EMPTY_TUPLE", opEmptyDict: "EMPTY_DICT",
	opEmptyList: "EMPTY_LIST", opMark: "MARK", opTuple: "TUPLE", opTuple1: "TUPLE1",
	opTuple2: "TUPLE2", opTuple3: "TUPLE3", opNewObj: "NEWOBJ", opReduce: "REDUCE",
	opBuild: "BUILD", opSetItems: "SETITEMS", opAppend: "APPEND", opAppends: "APPENDS",
	opBinInt: "BININT", opBinInt1: "BININT1", opBinInt2: "BININT2",
	opShortBinString: "SHORT_BINSTRING", opBinString: "BINSTRING", opNone: "NONE",
	opNewTrue: "NEWTRUE", opNewFalse: "NEWFALSE", opStop: "STOP",
}

// unpickler is the state of one unpickle call.
type unpickler struct {
	data  []byte
	pos   int // offset of the next unread byte
	op    byte
	opPos int // offset of the opcode being executed
	stack []any
	marks []int // stack lengths at each open MARK
	memo  map[uint32]any
}

// unpickle decodes one protocol ≤ 2 pickle made only of the supported opcodes. The whole
// input must be consumed: bytes after STOP are an error. Errors carry byte offsets but no
// file name; callers prefix it.
func unpickle(data []byte) (any, error) {
	u := &unpickler{data: data, memo: map[uint32]any{}}
	for {
		if u.pos >= len(u.data) {
			return nil, fmt.Errorf("truncated pickle at byte %d (no STOP opcode)", u.pos)
		}
		u.opPos, u.op = u.pos, u.data[u.pos]
		u.pos++
		done, err := u.step()
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
	}
	if len(u.stack) != 1 || len(u.marks) != 0 {
		return nil, u.errorf("STOP with %d values and %d open marks on the stack, want 1 value", len(u.stack), len(u.marks))
	}
	if u.pos != len(u.data) {
		return nil, fmt.Errorf("%d unexpected bytes after STOP at byte %d", len(u.data)-u.pos, u.opPos)
	}
	return u.stack[0], nil
}

// errorf formats an error about the current opcode.
func (u *unpickler) errorf(format string, args ...any) error {
	return fmt.Errorf("pickle opcode %s at byte %d: %s", opNames[u.op], u.opPos, fmt.Sprintf(format, args...))
}

// read returns the next n argument bytes of the current opcode.
func (u *unpickler) read(n int) ([]byte, error) {
	if n < 0 || n > len(u.data)-u.pos {
		return nil, fmt.Errorf("truncated pickle at byte %d (opcode %s)", u.opPos, opNames[u.op])
	}
	b := u.data[u.pos : u.pos+n]
	u.pos += n
	return b, nil
}

// readLine returns the argument bytes up to the next newline, which it skips.
func (u *unpickler) readLine() (string, error) {
	i := bytes.IndexByte(u.data[u.pos:], '\n')
	if i < 0 {
		return "", fmt.Errorf("truncated pickle at byte %d (opcode %s)", u.opPos, opNames[u.op])
	}
	s := string(u.data[u.pos : u.pos+i])
	u.pos += i + 1
	return s, nil
}

// push puts v on the stack.
func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

// pop removes the top value; it fails rather than cross the innermost MARK.
func (u *unpickler) pop() (any, error) {
	floor := 0
	if n := len(u.marks); n > 0 {
		floor = u.marks[n-1]
	}
	if len(u.stack) <= floor {
		return nil, u.errorf("stack underflow")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

// top returns the top value without removing it.
func (u *unpickler) top() (any, error) {
	v, err := u.pop()
	if err == nil {
		u.push(v)
	}
	return v, err
}

// popN removes and returns the top n values, oldest first.
func (u *unpickler) popN(n int) ([]any, error) {
	vs := make([]any, n)
	for i := n - 1; i >= 0; i-- {
		v, err := u.pop()
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

// popMark removes and returns the values above the innermost MARK, and the MARK itself.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, u.errorf("no MARK on the stack")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	vs := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return vs, nil
}

// memoPut stores the top of the stack under key.
func (u *unpickler) memoPut(key uint32) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	u.memo[key] = v
	return nil
}

// step executes the opcode u.op; it reports whether it was STOP.
func (u *unpickler) step() (bool, error) {
	switch u.op {
	case opProto:
		b, err := u.read(1)
		if err != nil {
			return false, err
		}
		if b[0] > 2 {
			return false, u.errorf("unsupported pickle protocol %d (only 0-2)", b[0])
		}
	case opGlobal:
		module, err := u.readLine()
		if err != nil {
			return false, err
		}
		name, err := u.readLine()
		if err != nil {
			return false, err
		}
		u.push(pyGlobal{module, name})
	case opBinPut:
		b, err := u.read(1)
		if err != nil {
			return false, err
		}
		return false, u.memoPut(uint32(b[0]))
	case opLongBinPut:
		b, err := u.read(4)
		if err != nil {
			return false, err
		}
		return false, u.memoPut(binary.LittleEndian.Uint32(b))
	case opBinGet:
		b, err := u.read(1)
		if err != nil {
			return false, err
		}
		v, ok := u.memo[uint32(b[0])]
		if !ok {
			return false, u.errorf("memo key %d was never stored", b[0])
		}
		u.push(v)
	case opEmptyTuple:
		u.push(pyTuple{})
	case opEmptyDict:
		u.push(&pyDict{})
	case opEmptyList:
		u.push(&pyList{})
	case opMark:
		u.marks = append(u.marks, len(u.stack))
	case opTuple:
		vs, err := u.popMark()
		if err != nil {
			return false, err
		}
		u.push(pyTuple(vs))
	case opTuple1, opTuple2, opTuple3:
		vs, err := u.popN(int(u.op-opTuple1) + 1)
		if err != nil {
			return false, err
		}
		u.push(pyTuple(vs))
	case opNewObj, opReduce:
		vs, err := u.popN(2)
		if err != nil {
			return false, err
		}
		class, ok := vs[0].(pyGlobal)
		if !ok {
			return false, u.errorf("callable is %s, not a global", describe(vs[0]))
		}
		args, ok := vs[1].(pyTuple)
		if !ok {
			return false, u.errorf("arguments are %s, not a tuple", describe(vs[1]))
		}
		u.push(&pyObject{class: class, args: args})
	case opBuild:
		state, err := u.pop()
		if err != nil {
			return false, err
		}
		v, err := u.top()
		if err != nil {
			return false, err
		}
		obj, ok := v.(*pyObject)
		if !ok {
			return false, u.errorf("cannot set the state of %s", describe(v))
		}
		if obj.hasState {
			return false, u.errorf("state of %s set twice", describe(obj))
		}
		obj.state, obj.hasState = state, true
	case opSetItems:
		vs, err := u.popMark()
		if err != nil {
			return false, err
		}
		if len(vs)%2 != 0 {
			return false, u.errorf("odd number (%d) of keys and values", len(vs))
		}
		v, err := u.top()
		if err != nil {
			return false, err
		}
		var d *pyDict
		switch t := v.(type) {
		case *pyDict:
			d = t
		case *pyObject:
			d = &t.items
		default:
			return false, u.errorf("cannot set items of %s", describe(v))
		}
		for i := 0; i < len(vs); i += 2 {
			d.keys = append(d.keys, vs[i])
			d.values = append(d.values, vs[i+1])
		}
	case opAppend:
		v, err := u.pop()
		if err != nil {
			return false, err
		}
		return false, u.appendTo([]any{v})
	case opAppends:
		vs, err := u.popMark()
		if err != nil {
			return false, err
		}
		return false, u.appendTo(vs)
	case opBinInt:
		b, err := u.read(4)
		if err != nil {
			return false, err
		}
		u.push(int(int32(binary.LittleEndian.Uint32(b))))
	case opBinInt1:
		b, err := u.read(1)
		if err != nil {
			return false, err
		}
		u.push(int(b[0]))
	case opBinInt2:
		b, err := u.read(2)
		if err != nil {
			return false, err
		}
		u.push(int(binary.LittleEndian.Uint16(b)))
	case opShortBinString:
		b, err := u.read(1)
		if err != nil {
			return false, err
		}
		s, err := u.read(int(b[0]))
		if err != nil {
			return false, err
		}
		u.push(s)
	case opBinString:
		b, err := u.read(4)
		if err != nil {
			return false, err
		}
		s, err := u.read(int(int32(binary.LittleEndian.Uint32(b))))
		if err != nil {
			return false, err
		}
		u.push(s)
	case opNone:
		u.push(nil)
	case opNewTrue:
		u.push(true)
	case opNewFalse:
		u.push(false)
	case opStop:
		return true, nil
	default:
		return false, fmt.Errorf("unsupported pickle opcode 0x%02x (%q) at byte %d", u.op, rune(u.op), u.opPos)
	}
	return false, nil
}

// appendTo appends vs to the list on top of the stack.
func (u *unpickler) appendTo(vs []any) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	l, ok := v.(*pyList)
	if !ok {
		return u.errorf("cannot append to %s", describe(v))
	}
	l.items = append(l.items, vs...)
	return nil
}

// describe names the Python type of a value, for error messages.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int:
		return "int"
	case []byte:
		return "str"
	case pyTuple:
		return "tuple"
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case pyGlobal:
		return "global " + t.module + "." + t.name
	case *pyObject:
		if isNDArray(t) {
			return "numpy array"
		}
		return t.class.name
	}
	return fmt.Sprintf("%T", v)
}

// get returns the value of the string key k.
func (d *pyDict) get(k string) (any, bool) {
	for i := len(d.keys) - 1; i >= 0; i-- {
		if b, ok := d.keys[i].([]byte); ok && string(b) == k {
			return d.values[i], true
		}
	}
	return nil, false
}

// isNDArray reports whether o is numpy.core.multiarray._reconstruct(numpy.ndarray, …).
func isNDArray(o *pyObject) bool {
	if o.class != (pyGlobal{"numpy.core.multiarray", "_reconstruct"}) || len(o.args) == 0 {
		return false
	}
	g, ok := o.args[0].(pyGlobal)
	return ok && g == pyGlobal{"numpy", "ndarray"}
}

// ndarray is a decoded numpy array of dtype <i4 or <f4 in C order; exactly one of ints and
// floats is non-nil.
type ndarray struct {
	shape  []int
	ints   []int32
	floats []float32
}

// pickleNDArray converts the value tree of a pickled numpy array of dtype <i4 or <f4.
func pickleNDArray(v any) (*ndarray, error) {
	o, ok := v.(*pyObject)
	if !ok || !isNDArray(o) {
		return nil, fmt.Errorf("expected a numpy array, got %s", describe(v))
	}
	if !o.hasState {
		return nil, fmt.Errorf("numpy array without state")
	}
	st, ok := o.state.(pyTuple)
	if !ok || len(st) != 5 {
		return nil, fmt.Errorf("numpy array state is %s, want a 5-tuple", describe(o.state))
	}
	if ver, ok := st[0].(int); !ok || ver != 1 {
		return nil, fmt.Errorf("numpy array state version is %s, want 1", formatScalar(st[0]))
	}
	shapeT, ok := st[1].(pyTuple)
	if !ok {
		return nil, fmt.Errorf("numpy array shape is %s, want a tuple", describe(st[1]))
	}
	dtype, err := pickleDType(st[2])
	if err != nil {
		return nil, err
	}
	if fortran, ok := st[3].(bool); !ok || fortran {
		return nil, fmt.Errorf("numpy array is_fortran flag is %s, want False (C order)", formatScalar(st[3]))
	}
	raw, ok := st[4].([]byte)
	if !ok {
		return nil, fmt.Errorf("numpy array data is %s, want a str", describe(st[4]))
	}
	a := &ndarray{shape: make([]int, len(shapeT))}
	n := 1
	for i, d := range shapeT {
		di, ok := d.(int)
		if !ok || di < 0 {
			return nil, fmt.Errorf("numpy array shape %s: dimension %d is not a non-negative int", formatValue(shapeT), i)
		}
		a.shape[i] = di
		if di != 0 && n > math.MaxInt/4/di {
			return nil, fmt.Errorf("numpy array shape %s is too large", formatValue(shapeT))
		}
		n *= di
	}
	if len(raw) != 4*n {
		return nil, fmt.Errorf("numpy array of shape %v needs %d data bytes, has %d", a.shape, 4*n, len(raw))
	}
	switch dtype {
	case "i4":
		a.ints = make([]int32, n)
		for i := range a.ints {
			a.ints[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	case "f4":
		a.floats = make([]float32, n)
		for i := range a.floats {
			a.floats[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	}
	return a, nil
}

// pickleDType checks a pickled numpy.dtype('i4' or 'f4') in little-endian order and returns
// its type code.
func pickleDType(v any) (string, error) {
	o, ok := v.(*pyObject)
	if !ok || o.class != (pyGlobal{"numpy", "dtype"}) {
		return "", fmt.Errorf("expected a numpy dtype, got %s", describe(v))
	}
	var code string
	if len(o.args) == 3 {
		if b, ok := o.args[0].([]byte); ok {
			code = string(b)
		}
	}
	if code != "i4" && code != "f4" {
		return "", fmt.Errorf("unsupported numpy dtype arguments %s (only i4 and f4)", formatValue(o.args))
	}
	st, ok := o.state.(pyTuple)
	if !ok || len(st) < 2 {
		return "", fmt.Errorf("numpy dtype %s: state is %s, want a tuple", code, describe(o.state))
	}
	if order, ok := st[1].([]byte); !ok || string(order) != "<" {
		return "", fmt.Errorf("numpy dtype %s: byte order %s, want '<'", code, formatValue(st[1]))
	}
	return code, nil
}

// formatValue renders a value for an error message: strings, ints and bools literally, a
// tuple with its elements (nested ones by type only), anything else by its type.
func formatValue(v any) string {
	t, ok := v.(pyTuple)
	if !ok {
		return formatScalar(v)
	}
	parts := make([]string, len(t))
	for i, e := range t {
		parts[i] = formatScalar(e)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// formatScalar renders a string, int or bool literally and anything else by its type.
func formatScalar(v any) string {
	switch t := v.(type) {
	case []byte:
		if len(t) > 20 {
			return fmt.Sprintf("%q…", t[:20])
		}
		return fmt.Sprintf("%q", t)
	case int, bool:
		return fmt.Sprint(t)
	}
	return describe(v)
}

// pickleCSR converts the value tree of a pickled scipy.sparse.csr_matrix. Column indices
// must be strictly increasing within each row and lie in [0, cols).
func pickleCSR(v any) (CSR, error) {
	o, ok := v.(*pyObject)
	if !ok || o.class != (pyGlobal{"scipy.sparse.csr", "csr_matrix"}) {
		return CSR{}, fmt.Errorf("expected a csr_matrix, got %s", describe(v))
	}
	st, ok := o.state.(*pyDict)
	if !ok {
		return CSR{}, fmt.Errorf("csr_matrix state is %s, want a dict", describe(o.state))
	}
	field := func(k string) (any, error) {
		if f, ok := st.get(k); ok {
			return f, nil
		}
		return nil, fmt.Errorf("csr_matrix has no %q field", k)
	}
	f, err := field("format")
	if err != nil {
		return CSR{}, err
	}
	if b, ok := f.([]byte); !ok || string(b) != "csr" {
		return CSR{}, fmt.Errorf("csr_matrix format is %s, want 'csr'", formatValue(f))
	}
	f, err = field("_shape")
	if err != nil {
		return CSR{}, err
	}
	shape, ok := f.(pyTuple)
	if !ok || len(shape) != 2 {
		return CSR{}, fmt.Errorf("csr_matrix _shape is %s, want (rows, cols)", formatValue(f))
	}
	rows, ok1 := shape[0].(int)
	cols, ok2 := shape[1].(int)
	if !ok1 || !ok2 || rows < 0 || cols < 0 {
		return CSR{}, fmt.Errorf("csr_matrix _shape is %s, want two non-negative ints", formatValue(f))
	}
	arrays := make(map[string]*ndarray, 3)
	for _, k := range []string{"indptr", "indices", "data"} {
		f, err := field(k)
		if err != nil {
			return CSR{}, err
		}
		a, err := pickleNDArray(f)
		if err != nil {
			return CSR{}, fmt.Errorf("csr_matrix %s: %w", k, err)
		}
		want := "int32"
		if k == "data" {
			want = "float32"
		}
		if len(a.shape) != 1 || (want == "int32") != (a.ints != nil) {
			return CSR{}, fmt.Errorf("csr_matrix %s must be a 1-D %s array", k, want)
		}
		arrays[k] = a
	}
	m := CSR{NumRows: rows, NumCols: cols,
		RowPtr: arrays["indptr"].ints, ColIdx: arrays["indices"].ints, Values: arrays["data"].floats}
	if len(m.RowPtr) != rows+1 {
		return CSR{}, fmt.Errorf("csr_matrix indptr has length %d, want rows+1 = %d", len(m.RowPtr), rows+1)
	}
	if len(m.Values) != len(m.ColIdx) {
		return CSR{}, fmt.Errorf("csr_matrix has %d indices but %d data values", len(m.ColIdx), len(m.Values))
	}
	if m.RowPtr[0] != 0 || int(m.RowPtr[rows]) != len(m.ColIdx) {
		return CSR{}, fmt.Errorf("csr_matrix indptr runs from %d to %d, want 0 to %d", m.RowPtr[0], m.RowPtr[rows], len(m.ColIdx))
	}
	for r := range rows {
		if m.RowPtr[r] > m.RowPtr[r+1] {
			return CSR{}, fmt.Errorf("csr_matrix indptr decreases at row %d", r)
		}
	}
	for r := range rows {
		lo, hi := m.RowPtr[r], m.RowPtr[r+1]
		for i := lo; i < hi; i++ {
			c := m.ColIdx[i]
			if c < 0 || int(c) >= cols {
				return CSR{}, fmt.Errorf("csr_matrix row %d: column %d out of range [0,%d)", r, c, cols)
			}
			if i > lo && c <= m.ColIdx[i-1] {
				return CSR{}, fmt.Errorf("csr_matrix row %d: column indices not strictly increasing", r)
			}
		}
	}
	return m, nil
}

// pickleAdjacency converts the value tree of a pickled collections.defaultdict(list) of int
// keys and int lists into a map from node to neighbours.
func pickleAdjacency(v any) (map[int][]int, error) {
	o, ok := v.(*pyObject)
	if !ok || o.class != (pyGlobal{"collections", "defaultdict"}) {
		return nil, fmt.Errorf("expected a defaultdict, got %s", describe(v))
	}
	if len(o.args) != 1 || (o.args[0] != pyGlobal{"__builtin__", "list"} && o.args[0] != pyGlobal{"builtins", "list"}) {
		return nil, fmt.Errorf("expected a defaultdict(list), got defaultdict%s", formatValue(o.args))
	}
	if o.hasState {
		return nil, fmt.Errorf("defaultdict has an unexpected BUILD state")
	}
	adj := make(map[int][]int, len(o.items.keys))
	for i, k := range o.items.keys {
		u, ok := k.(int)
		if !ok {
			return nil, fmt.Errorf("defaultdict key %s is not an int", formatValue(k))
		}
		l, ok := o.items.values[i].(*pyList)
		if !ok {
			return nil, fmt.Errorf("defaultdict value of key %d is %s, not a list", u, describe(o.items.values[i]))
		}
		nbrs := make([]int, len(l.items))
		for j, e := range l.items {
			if nbrs[j], ok = e.(int); !ok {
				return nil, fmt.Errorf("defaultdict list of key %d: entry %d is %s, not an int", u, j, describe(e))
			}
		}
		adj[u] = nbrs
	}
	return adj, nil
}
