package datasets

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CSR is a sparse row-major matrix.
type CSR struct {
	NumRows, NumCols int
	// RowPtr has NumRows+1 entries: row r holds entries RowPtr[r] … RowPtr[r+1]-1.
	RowPtr []int32
	// ColIdx holds each entry's column, strictly increasing within a row.
	ColIdx []int32
	// Values holds each entry's value.
	Values []float32
}

// Split holds node ids, ascending.
type Split struct{ Train, Val, Test []int32 }

// Planetoid is a Planetoid citation dataset (Cora or Citeseer) after Kipf & Welling's
// conversion of the raw files.
type Planetoid struct {
	Name                              string // "cora" or "citeseer"
	NumNodes, NumFeatures, NumClasses int
	// Features is NumNodes × NumFeatures: the raw binary values (no normalisation),
	// explicit zeros dropped.
	Features CSR
	// Labels holds the class per node, -1 = unlabelled (Citeseer's padding).
	Labels []int32
	// Edges are undirected, u<v, unique, sorted, without self loops.
	Edges [][2]int32
	// SelfLoops are the nodes with u→u in the raw graph, ascending.
	SelfLoops []int32
	Split     Split
}

// planetoidRevision is the kimiyoung/planetoid commit the raw files are pinned to.
const planetoidRevision = "af6abf468a772cc055bec88c52e4d6f51b7c37e3"

// planetoidExts are the extensions of the eight raw files, in the order PlanetoidFiles lists them.
var planetoidExts = []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"}

// planetoidSHA256 pins every raw file (README of the shared datasets, section 5).
var planetoidSHA256 = map[string]map[string]string{
	"cora": {
		"x":          "23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab",
		"y":          "94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1",
		"tx":         "b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a",
		"ty":         "41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad",
		"allx":       "9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543",
		"ally":       "2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71",
		"graph":      "58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d",
		"test.index": "297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875",
	},
	"citeseer": {
		"x":          "d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6",
		"y":          "8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924",
		"tx":         "539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21",
		"ty":         "55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce",
		"allx":       "2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668",
		"ally":       "f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95",
		"graph":      "d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7",
		"test.index": "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4",
	},
}

// planetoidValSize is the number of validation nodes of the Planetoid split.
const planetoidValSize = 500

// checkPlanetoidName returns an error for a name other than "cora" and "citeseer".
func checkPlanetoidName(name string) error {
	if _, ok := planetoidSHA256[name]; !ok {
		return fmt.Errorf("unknown Planetoid dataset %q (valid: cora, citeseer)", name)
	}
	return nil
}

// PlanetoidFiles returns the 8 raw files of the Planetoid dataset name ("cora" or
// "citeseer"): x, y, tx, ty, allx, ally, graph and test.index, at "<name>/raw/ind.<name>.<ext>".
func PlanetoidFiles(name string) ([]File, error) {
	if err := checkPlanetoidName(name); err != nil {
		return nil, err
	}
	files := make([]File, len(planetoidExts))
	for i, ext := range planetoidExts {
		base := "ind." + name + "." + ext
		files[i] = File{
			Path:   name + "/raw/" + base,
			URL:    "https://raw.githubusercontent.com/kimiyoung/planetoid/" + planetoidRevision + "/data/" + base,
			SHA256: planetoidSHA256[name][ext],
		}
	}
	return files, nil
}

// LoadPlanetoid finds (through r), verifies and parses the raw files of the Planetoid
// dataset name.
func LoadPlanetoid(r *Resolver, name string) (*Planetoid, error) {
	files, err := PlanetoidFiles(name)
	if err != nil {
		return nil, err
	}
	return ParsePlanetoid(name, func(ext string) ([]byte, string, error) {
		return r.ReadFile(files[slices.Index(planetoidExts, ext)])
	})
}

// planetoidParser holds the state of one ParsePlanetoid call.
type planetoidParser struct {
	open  func(ext string) ([]byte, string, error)
	paths map[string]string // ext → path, for error messages
}

// read returns the bytes of the file ext.
func (pp *planetoidParser) read(ext string) ([]byte, error) {
	data, path, err := pp.open(ext)
	if err != nil {
		return nil, err
	}
	pp.paths[ext] = path
	return data, nil
}

// errorf returns an error prefixed with the path of the file ext.
func (pp *planetoidParser) errorf(ext, format string, args ...any) error {
	return fmt.Errorf("%s: %s", pp.paths[ext], fmt.Sprintf(format, args...))
}

// unpickle reads and unpickles the file ext.
func (pp *planetoidParser) unpickle(ext string) (any, error) {
	data, err := pp.read(ext)
	if err != nil {
		return nil, err
	}
	v, err := unpickle(data)
	if err != nil {
		return nil, pp.errorf(ext, "%v", err)
	}
	return v, nil
}

// csr reads the csr_matrix file ext.
func (pp *planetoidParser) csr(ext string) (CSR, error) {
	v, err := pp.unpickle(ext)
	if err != nil {
		return CSR{}, err
	}
	m, err := pickleCSR(v)
	if err != nil {
		return CSR{}, pp.errorf(ext, "%v", err)
	}
	return m, nil
}

// labels reads the one-hot label file ext (a 2-D int32 array) and returns its rows' classes.
func (pp *planetoidParser) labels(ext string) (labels []int32, classes int, err error) {
	v, err := pp.unpickle(ext)
	if err != nil {
		return nil, 0, err
	}
	a, err := pickleNDArray(v)
	if err != nil {
		return nil, 0, pp.errorf(ext, "%v", err)
	}
	if len(a.shape) != 2 || a.ints == nil || a.shape[1] == 0 {
		return nil, 0, pp.errorf(ext, "expected a 2-D int32 array with at least one column, got shape %v", a.shape)
	}
	rows, classes := a.shape[0], a.shape[1]
	labels = make([]int32, rows)
	for r := range rows {
		class := -1
		for c, x := range a.ints[r*classes : (r+1)*classes] {
			if x == 0 {
				continue
			}
			if x != 1 || class >= 0 {
				return nil, 0, pp.errorf(ext, "row %d is not one-hot", r)
			}
			class = c
		}
		if class < 0 {
			return nil, 0, pp.errorf(ext, "row %d is not one-hot (all zero)", r)
		}
		labels[r] = int32(class)
	}
	return labels, classes, nil
}

// testIndex reads test.index: one distinct node id per line.
func (pp *planetoidParser) testIndex() ([]int32, error) {
	data, err := pp.read("test.index")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	ids := make([]int32, len(lines))
	for i, line := range lines {
		line = strings.TrimSpace(line)
		id, err := strconv.ParseInt(line, 10, 32)
		if err != nil || id < 0 {
			return nil, pp.errorf("test.index", "line %d: %q is not a node id", i+1, line)
		}
		ids[i] = int32(id)
	}
	return ids, nil
}

// ParsePlanetoid parses the raw files of the Planetoid dataset name, which open returns by
// extension ("x", "y", "tx", "ty", "allx", "ally", "graph", "test.index") together with their
// paths (used in error messages). It applies Kipf's conversion: node ids 0 … len(allx)-1 are
// the rows of allx/ally, test row i is node test.index[i], ids in the test range missing from
// test.index get an all-zero feature row and label -1 (at most len(test.index) such gaps are
// accepted), edges are made undirected and unique with self loops kept apart, and the split
// is train = 0 … len(y)-1, val = the next 500 ids, test = test.index sorted. Inconsistent
// files (row counts, one-hot labels, ids out of range, x ≠ allx[:len(y)]) are errors naming
// the file.
func ParsePlanetoid(name string, open func(ext string) (data []byte, path string, err error)) (*Planetoid, error) {
	if err := checkPlanetoidName(name); err != nil {
		return nil, err
	}
	pp := &planetoidParser{open: open, paths: map[string]string{}}
	mats := map[string]CSR{}
	for _, ext := range []string{"x", "allx", "tx"} {
		m, err := pp.csr(ext)
		if err != nil {
			return nil, err
		}
		mats[ext] = m
	}
	labels := map[string][]int32{}
	classes := map[string]int{}
	for _, ext := range []string{"y", "ally", "ty"} {
		l, c, err := pp.labels(ext)
		if err != nil {
			return nil, err
		}
		labels[ext], classes[ext] = l, c
	}
	x, allx, tx := mats["x"], mats["allx"], mats["tx"]
	for _, ext := range []string{"x", "tx"} {
		if mats[ext].NumCols != allx.NumCols {
			return nil, pp.errorf(ext, "%d feature columns, but %s has %d", mats[ext].NumCols, pp.paths["allx"], allx.NumCols)
		}
	}
	for _, ext := range []string{"y", "ty"} {
		if classes[ext] != classes["ally"] {
			return nil, pp.errorf(ext, "%d classes, but %s has %d", classes[ext], pp.paths["ally"], classes["ally"])
		}
	}
	for _, pair := range [][2]string{{"x", "y"}, {"allx", "ally"}, {"tx", "ty"}} {
		if rows, n := mats[pair[0]].NumRows, len(labels[pair[1]]); rows != n {
			return nil, pp.errorf(pair[1], "%d label rows, but %s has %d feature rows", n, pp.paths[pair[0]], rows)
		}
	}
	numTrain, numLabelled := x.NumRows, allx.NumRows
	if numTrain+planetoidValSize > numLabelled {
		return nil, pp.errorf("allx", "%d rows, too few for %d training and %d validation nodes", numLabelled, numTrain, planetoidValSize)
	}
	for r := range numTrain {
		if !rowsEqual(x, r, allx, r) {
			return nil, pp.errorf("x", "row %d differs from row %d of %s", r, r, pp.paths["allx"])
		}
		if labels["y"][r] != labels["ally"][r] {
			return nil, pp.errorf("y", "row %d differs from row %d of %s", r, r, pp.paths["ally"])
		}
	}

	test, err := pp.testIndex()
	if err != nil {
		return nil, err
	}
	if len(test) != tx.NumRows {
		return nil, pp.errorf("test.index", "%d test ids, but %s has %d rows", len(test), pp.paths["tx"], tx.NumRows)
	}
	// The test block holds ids numLabelled … N-1; at most len(test) of them may be padding.
	maxID := numLabelled + 2*len(test) - 1
	testRow := make([]int32, 2*len(test)) // test-block node → row of tx, or -1
	for i := range testRow {
		testRow[i] = -1
	}
	numNodes := numLabelled
	for i, id := range test {
		if int(id) < numLabelled || int(id) > maxID {
			return nil, pp.errorf("test.index", "line %d: test index %d out of range [%d,%d] (test ids follow the %d rows of allx, with at most as many gaps as test ids)",
				i+1, id, numLabelled, maxID, numLabelled)
		}
		if testRow[int(id)-numLabelled] >= 0 {
			return nil, pp.errorf("test.index", "line %d: duplicate test index %d", i+1, id)
		}
		testRow[int(id)-numLabelled] = int32(i)
		numNodes = max(numNodes, int(id)+1)
	}

	p := &Planetoid{
		Name:        name,
		NumNodes:    numNodes,
		NumFeatures: allx.NumCols,
		NumClasses:  classes["ally"],
		Labels:      make([]int32, numNodes),
	}
	p.Features = CSR{NumRows: numNodes, NumCols: allx.NumCols, RowPtr: make([]int32, 1, numNodes+1),
		ColIdx: make([]int32, 0, len(allx.ColIdx)+len(tx.ColIdx)), Values: make([]float32, 0, len(allx.Values)+len(tx.Values))}
	addRow := func(m CSR, r int) {
		for i := m.RowPtr[r]; i < m.RowPtr[r+1]; i++ {
			if m.Values[i] != 0 {
				p.Features.ColIdx = append(p.Features.ColIdx, m.ColIdx[i])
				p.Features.Values = append(p.Features.Values, m.Values[i])
			}
		}
		p.Features.RowPtr = append(p.Features.RowPtr, int32(len(p.Features.ColIdx)))
	}
	for v := range numNodes {
		switch t := v - numLabelled; {
		case t < 0:
			addRow(allx, v)
			p.Labels[v] = labels["ally"][v]
		case testRow[t] >= 0:
			addRow(tx, int(testRow[t]))
			p.Labels[v] = labels["ty"][testRow[t]]
		default:
			p.Features.RowPtr = append(p.Features.RowPtr, int32(len(p.Features.ColIdx)))
			p.Labels[v] = -1
		}
	}

	if err := p.buildGraph(pp); err != nil {
		return nil, err
	}
	p.Split.Train = make([]int32, numTrain)
	for i := range p.Split.Train {
		p.Split.Train[i] = int32(i)
	}
	p.Split.Val = make([]int32, planetoidValSize)
	for i := range p.Split.Val {
		p.Split.Val[i] = int32(numTrain + i)
	}
	p.Split.Test = slices.Sorted(slices.Values(test))
	return p, nil
}

// rowsEqual reports whether row ra of a equals row rb of b.
func rowsEqual(a CSR, ra int, b CSR, rb int) bool {
	ia, ib := a.RowPtr[ra], b.RowPtr[rb]
	return slices.Equal(a.ColIdx[ia:a.RowPtr[ra+1]], b.ColIdx[ib:b.RowPtr[rb+1]]) &&
		slices.Equal(a.Values[ia:a.RowPtr[ra+1]], b.Values[ib:b.RowPtr[rb+1]])
}

// buildGraph reads the graph file into p.Edges and p.SelfLoops.
func (p *Planetoid) buildGraph(pp *planetoidParser) error {
	v, err := pp.unpickle("graph")
	if err != nil {
		return err
	}
	adj, err := pickleAdjacency(v)
	if err != nil {
		return pp.errorf("graph", "%v", err)
	}
	n := p.NumNodes
	var keys []int64 // u*n+v with u < v
	loop := make([]bool, n)
	for u, nbrs := range adj {
		if u < 0 || u >= n {
			return pp.errorf("graph", "node %d out of range [0,%d)", u, n)
		}
		for _, v := range nbrs {
			switch {
			case v < 0 || v >= n:
				return pp.errorf("graph", "neighbour %d of node %d out of range [0,%d)", v, u, n)
			case u == v:
				loop[u] = true
			default:
				keys = append(keys, int64(min(u, v))*int64(n)+int64(max(u, v)))
			}
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	p.Edges = make([][2]int32, len(keys))
	for i, k := range keys {
		p.Edges[i] = [2]int32{int32(k / int64(n)), int32(k % int64(n))}
	}
	p.SelfLoops = []int32{}
	for u, l := range loop {
		if l {
			p.SelfLoops = append(p.SelfLoops, int32(u))
		}
	}
	return nil
}

// Stats returns the dataset's statistics. Directed edges are both directions of every
// undirected edge, self loops excluded; isolated nodes are those without an edge other than
// a self loop; class counts are over all labelled nodes.
func (p *Planetoid) Stats() Stats {
	s := Stats{
		Dataset:            p.Name,
		NumNodes:           p.NumNodes,
		NumDirectedEdges:   2 * len(p.Edges),
		NumUndirectedEdges: len(p.Edges),
		NumSelfLoops:       len(p.SelfLoops),
		NumFeatures:        p.NumFeatures,
		NumFeatureNonzeros: len(p.Features.ColIdx),
		NumClasses:         p.NumClasses,
		SplitSizes:         &SplitSizes{Train: len(p.Split.Train), Val: len(p.Split.Val), Test: len(p.Split.Test)},
		ClassCounts:        make([]int, p.NumClasses),
		TrainClassCounts:   make([]int, p.NumClasses),
	}
	hasEdge := make([]bool, p.NumNodes)
	for _, e := range p.Edges {
		hasEdge[e[0]], hasEdge[e[1]] = true, true
	}
	for v, h := range hasEdge {
		if !h {
			s.NumIsolatedNodes++
		}
		if l := p.Labels[v]; l < 0 {
			s.NumUnlabeledNodes++
		} else {
			s.ClassCounts[l]++
		}
	}
	for _, v := range p.Split.Train {
		if l := p.Labels[v]; l >= 0 {
			s.TrainClassCounts[l]++
		}
	}
	return s
}

// RowNormalizedFeatures returns a copy of the features with each row divided by its sum,
// as DGL and Kipf's GCN preprocess them; all-zero rows stay zero.
func (p *Planetoid) RowNormalizedFeatures() CSR {
	f := p.Features
	m := CSR{NumRows: f.NumRows, NumCols: f.NumCols,
		RowPtr: slices.Clone(f.RowPtr), ColIdx: slices.Clone(f.ColIdx), Values: make([]float32, len(f.Values))}
	for r := range f.NumRows {
		lo, hi := f.RowPtr[r], f.RowPtr[r+1]
		var sum float64
		for _, x := range f.Values[lo:hi] {
			sum += float64(x)
		}
		if sum == 0 {
			continue
		}
		for i := lo; i < hi; i++ {
			m.Values[i] = float32(float64(f.Values[i]) / sum)
		}
	}
	return m
}

// DirectedEdges returns both directions of every undirected edge as (src, dst) pairs,
// sorted by (dst, src). With selfLoops it adds one u→u for every node (GCN's A+I), whether
// or not the raw graph had a self loop there; without, no self loop is returned.
func (p *Planetoid) DirectedEdges(selfLoops bool) (src, dst []int32) {
	n := int64(p.NumNodes)
	keys := make([]int64, 0, 2*len(p.Edges)+p.NumNodes) // dst*n+src
	for _, e := range p.Edges {
		u, v := int64(e[0]), int64(e[1])
		keys = append(keys, v*n+u, u*n+v)
	}
	if selfLoops {
		for u := range n {
			keys = append(keys, u*n+u)
		}
	}
	slices.Sort(keys)
	src, dst = make([]int32, len(keys)), make([]int32, len(keys))
	for i, k := range keys {
		dst[i], src[i] = int32(k/n), int32(k%n)
	}
	return src, dst
}
