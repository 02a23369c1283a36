package datasets

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// Real data: found through the default resolver (never downloading).

// testResolver is NewResolver without downloads: tests never touch the network.
func testResolver() *Resolver {
	r := NewResolver()
	r.Download = false
	return r
}

// requirePlanetoidFiles skips the test when the raw files of name are in neither
// $STAGNB_DATA nor the cache, unless STAGNB_DATA is set: then missing data fails.
func requirePlanetoidFiles(t testing.TB, name string) {
	t.Helper()
	files, err := PlanetoidFiles(name)
	if err != nil {
		t.Fatal(err)
	}
	requireFiles(t, "Planetoid "+name, files)
}

// requireFiles skips the test when one of files is in neither $STAGNB_DATA nor the cache, unless
// STAGNB_DATA is set: then missing data fails. what names the dataset in the message.
func requireFiles(t testing.TB, what string, files []File) {
	t.Helper()
	r := testResolver()
	for _, f := range files {
		found := false
		for _, root := range []string{r.Dir, r.CacheDir} {
			if root == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f.Path))); err == nil {
				found = true
			}
		}
		if found {
			continue
		}
		if os.Getenv(DataDirEnv) != "" {
			t.Fatalf("%s is set but %s is missing from it", DataDirEnv, f.Path)
		}
		t.Skipf("%s data not found (%s); set %s to the shared datasets directory to run this test", what, f.Path, DataDirEnv)
	}
}

// loadPlanetoid loads the real dataset name, or skips (see requirePlanetoidFiles).
func loadPlanetoid(t testing.TB, name string) *Planetoid {
	t.Helper()
	requirePlanetoidFiles(t, name)
	p, err := LoadPlanetoid(testResolver(), name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rawPlanetoid returns the bytes and paths of the real raw files of name, by extension.
func rawPlanetoid(t testing.TB, name string) (data, paths map[string]string) {
	t.Helper()
	requirePlanetoidFiles(t, name)
	files, err := PlanetoidFiles(name)
	if err != nil {
		t.Fatal(err)
	}
	data, paths = map[string]string{}, map[string]string{}
	for i, f := range files {
		b, p, err := testResolver().ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data[planetoidExts[i]], paths[planetoidExts[i]] = string(b), p
	}
	return data, paths
}

// opener serves files from memory, in the shape ParsePlanetoid wants.
func opener(data, paths map[string]string) func(string) ([]byte, string, error) {
	return func(ext string) ([]byte, string, error) {
		b, ok := data[ext]
		if !ok {
			return nil, "", fmt.Errorf("%s: no such file", paths[ext])
		}
		return []byte(b), paths[ext], nil
	}
}

// withFile returns a copy of data with the file ext replaced.
func withFile(data map[string]string, ext, content string) map[string]string {
	out := make(map[string]string, len(data))
	for k, v := range data {
		out[k] = v
	}
	out[ext] = content
	return out
}

// wantError fails unless err is non-nil and contains every one of subs.
func wantError(t *testing.T, err error, subs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", subs)
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not contain %q", err, s)
		}
	}
}

func TestPlanetoidFiles(t *testing.T) {
	files, err := PlanetoidFiles("citeseer")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 8 {
		t.Fatalf("%d files, want 8", len(files))
	}
	want := File{
		Path:   "citeseer/raw/ind.citeseer.test.index",
		URL:    "https://raw.githubusercontent.com/kimiyoung/planetoid/af6abf468a772cc055bec88c52e4d6f51b7c37e3/data/ind.citeseer.test.index",
		SHA256: "2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4",
	}
	if !reflect.DeepEqual(files[7], want) {
		t.Errorf("files[7] = %+v, want %+v", files[7], want)
	}
	for _, f := range files {
		if len(f.SHA256) != 64 || !strings.HasPrefix(f.Path, "citeseer/raw/ind.citeseer.") {
			t.Errorf("bad file %+v", f)
		}
	}
	_, err = PlanetoidFiles("pubmed")
	wantError(t, err, `"pubmed"`, "cora", "citeseer")
	_, err = LoadPlanetoid(testResolver(), "pubmed")
	wantError(t, err, `"pubmed"`)
}

// citeseerPadded are Citeseer's test-range ids missing from test.index.
var citeseerPadded = []int32{2407, 2489, 2553, 2682, 2781, 2953, 3042, 3063, 3212, 3214, 3250, 3292, 3305, 3306, 3309}

func TestPlanetoidStats(t *testing.T) {
	for _, tc := range []struct {
		want         Stats
		digraphEdges int     // networkx DiGraph edge count: both directions plus self loops
		zeroRows     []int32 // all-zero feature rows = unlabelled nodes
	}{
		{want: Stats{Dataset: "cora", NumNodes: 2708, NumDirectedEdges: 10556, NumUndirectedEdges: 5278,
			NumSelfLoops: 0, NumIsolatedNodes: 0, NumFeatures: 1433, NumFeatureNonzeros: 49216, NumClasses: 7,
			NumUnlabeledNodes: 0, SplitSizes: &SplitSizes{Train: 140, Val: 500, Test: 1000},
			ClassCounts:      []int{351, 217, 418, 818, 426, 298, 180},
			TrainClassCounts: []int{20, 20, 20, 20, 20, 20, 20}},
			digraphEdges: 10556},
		{want: Stats{Dataset: "citeseer", NumNodes: 3327, NumDirectedEdges: 9104, NumUndirectedEdges: 4552,
			NumSelfLoops: 124, NumIsolatedNodes: 48, NumFeatures: 3703, NumFeatureNonzeros: 105165, NumClasses: 6,
			NumUnlabeledNodes: 15, SplitSizes: &SplitSizes{Train: 120, Val: 500, Test: 1000},
			ClassCounts:      []int{249, 590, 668, 701, 596, 508},
			TrainClassCounts: []int{20, 20, 20, 20, 20, 20}},
			digraphEdges: 9228, zeroRows: citeseerPadded},
	} {
		t.Run(tc.want.Dataset, func(t *testing.T) {
			p := loadPlanetoid(t, tc.want.Dataset)
			if got := p.Stats(); !reflect.DeepEqual(got, tc.want) {
				gotJSON, _ := json.Marshal(got)
				wantJSON, _ := json.Marshal(tc.want)
				t.Errorf("Stats:\n got %s\nwant %s", gotJSON, wantJSON)
			}
			if n := 2*len(p.Edges) + len(p.SelfLoops); n != tc.digraphEdges {
				t.Errorf("%d directed edges with self loops, want %d", n, tc.digraphEdges)
			}
			var zeroRows, unlabelled []int32
			for v := range p.NumNodes {
				if p.Features.RowPtr[v] == p.Features.RowPtr[v+1] {
					zeroRows = append(zeroRows, int32(v))
				}
				if p.Labels[v] < 0 {
					unlabelled = append(unlabelled, int32(v))
				}
			}
			if !slices.Equal(zeroRows, tc.zeroRows) || !slices.Equal(unlabelled, tc.zeroRows) {
				t.Errorf("zero feature rows %v and unlabelled nodes %v, want %v", zeroRows, unlabelled, tc.zeroRows)
			}
			seen := make(map[int32]string)
			for _, part := range []struct {
				name string
				ids  []int32
			}{{"train", p.Split.Train}, {"val", p.Split.Val}, {"test", p.Split.Test}} {
				if !slices.IsSorted(part.ids) {
					t.Errorf("%s split is not sorted", part.name)
				}
				for _, v := range part.ids {
					if prev, ok := seen[v]; ok {
						t.Fatalf("node %d is in both %s and %s", v, prev, part.name)
					}
					if p.Labels[v] < 0 {
						t.Errorf("%s node %d has no label", part.name, v)
					}
					seen[v] = part.name
				}
			}
			// Citeseer's isolated nodes each have a self loop.
			hasEdge := make([]bool, p.NumNodes)
			for _, e := range p.Edges {
				hasEdge[e[0]], hasEdge[e[1]] = true, true
			}
			for v, h := range hasEdge {
				if _, loop := slices.BinarySearch(p.SelfLoops, int32(v)); !h && !loop {
					t.Errorf("node %d has neither an edge nor a self loop", v)
				}
			}
		})
	}
}

// plainDir returns $STAGNB_DATA/<name>/plain, or skips when STAGNB_DATA is unset.
func plainDir(t *testing.T, name string) string {
	t.Helper()
	root := os.Getenv(DataDirEnv)
	if root == "" {
		t.Skipf("set %s to the shared datasets directory to compare with the converted plain files", DataDirEnv)
	}
	return filepath.Join(root, name, "plain")
}

// readInts parses a file of whitespace-separated rows of decimal ints.
func readInts(t *testing.T, path string, perLine int) [][]int32 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	var rows [][]int32
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		fields := strings.Split(line, "\t")
		if len(fields) != perLine {
			t.Fatalf("%s:%d: %d fields, want %d", path, i+1, len(fields), perLine)
		}
		row := make([]int32, perLine)
		for j, f := range fields {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil || x != math.Trunc(x) {
				t.Fatalf("%s:%d: bad number %q", path, i+1, f)
			}
			row[j] = int32(x)
		}
		rows = append(rows, row)
	}
	return rows
}

func TestPlanetoidMatchesPlain(t *testing.T) {
	for _, name := range []string{"cora", "citeseer"} {
		t.Run(name, func(t *testing.T) {
			dir := plainDir(t, name)
			p := loadPlanetoid(t, name)

			var got [][]int32
			for r := range p.NumNodes {
				for i := p.Features.RowPtr[r]; i < p.Features.RowPtr[r+1]; i++ {
					if p.Features.Values[i] != 1 {
						t.Fatalf("feature (%d,%d) = %g, want 1", r, p.Features.ColIdx[i], p.Features.Values[i])
					}
					got = append(got, []int32{int32(r), p.Features.ColIdx[i], 1})
				}
			}
			if want := readInts(t, filepath.Join(dir, "features.tsv"), 3); !reflect.DeepEqual(got, want) {
				t.Errorf("features differ from features.tsv (%d vs %d non-zeros)", len(got), len(want))
			}

			var labels []int32
			for _, row := range readInts(t, filepath.Join(dir, "labels.txt"), 1) {
				labels = append(labels, row[0])
			}
			if !slices.Equal(p.Labels, labels) {
				t.Errorf("labels differ from labels.txt")
			}

			var edges [][2]int32
			for _, row := range readInts(t, filepath.Join(dir, "edges.tsv"), 2) {
				edges = append(edges, [2]int32{row[0], row[1]})
			}
			if !slices.Equal(p.Edges, edges) {
				t.Errorf("edges differ from edges.tsv (%d vs %d)", len(p.Edges), len(edges))
			}

			var loops []int32
			for _, row := range readInts(t, filepath.Join(dir, "self_loops.txt"), 1) {
				loops = append(loops, row[0])
			}
			if !slices.Equal(p.SelfLoops, loops) {
				t.Errorf("self loops %v differ from self_loops.txt %v", p.SelfLoops, loops)
			}

			b, err := os.ReadFile(filepath.Join(dir, "split.json"))
			if err != nil {
				t.Fatal(err)
			}
			var split struct{ Train, Val, Test []int32 }
			if err := json.Unmarshal(b, &split); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Split, Split(split)) {
				t.Errorf("split differs from split.json")
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Bad input.

func TestPlanetoidMissingFile(t *testing.T) {
	r := &Resolver{Dir: t.TempDir(), CacheDir: t.TempDir(), Download: false}
	_, err := LoadPlanetoid(r, "cora")
	wantError(t, err, "cora/raw/ind.cora.x", "not found", DataDirEnv)
}

func TestPlanetoidChecksumMismatch(t *testing.T) {
	data, _ := rawPlanetoid(t, "cora")
	dir := t.TempDir()
	raw := filepath.Join(dir, "cora", "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		t.Fatal(err)
	}
	for ext, b := range data {
		if ext == "ty" {
			bb := []byte(b)
			bb[len(bb)/2] ^= 1
			b = string(bb)
		}
		if err := os.WriteFile(filepath.Join(raw, "ind.cora."+ext), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadPlanetoid(&Resolver{Dir: dir}, "cora")
	wantError(t, err, filepath.Join(raw, "ind.cora.ty"), "checksum mismatch")
}

func TestPlanetoidTruncated(t *testing.T) {
	data, paths := rawPlanetoid(t, "cora")
	for _, ext := range []string{"x", "y", "tx", "ty", "allx", "ally", "graph"} {
		n := len(data[ext])
		for _, cut := range []int{0, 1, 2, 3, 40, 205, n / 2, n - 2, n - 1} {
			t.Run(fmt.Sprintf("%s/%d", ext, cut), func(t *testing.T) {
				_, err := ParsePlanetoid("cora", opener(withFile(data, ext, data[ext][:cut]), paths))
				wantError(t, err, paths[ext]+": truncated pickle at byte ")
			})
		}
	}
	// Every prefix of a whole pickle is reported as truncated, without a panic.
	y := []byte(data["y"])
	for cut := range len(y) {
		if _, err := unpickle(y[:cut]); err == nil || !strings.Contains(err.Error(), "truncated pickle") {
			t.Fatalf("y cut at %d: error %v, want a truncation", cut, err)
		}
	}
}

func TestPlanetoidUnexpectedType(t *testing.T) {
	data, paths := rawPlanetoid(t, "cora")
	for _, tc := range []struct{ ext, from, want string }{
		{"x", "y", "expected a csr_matrix, got numpy array"},
		{"y", "graph", "expected a numpy array, got defaultdict"},
		{"ty", "tx", "expected a numpy array, got csr_matrix"},
		{"graph", "allx", "expected a defaultdict, got csr_matrix"},
	} {
		t.Run(tc.ext+"="+tc.from, func(t *testing.T) {
			_, err := ParsePlanetoid("cora", opener(withFile(data, tc.ext, data[tc.from]), paths))
			wantError(t, err, paths[tc.ext]+": "+tc.want)
		})
	}
}

func TestPlanetoidUnknownOpcode(t *testing.T) {
	data, paths := rawPlanetoid(t, "cora")
	for _, tc := range []struct {
		ext  string
		pos  int
		op   byte
		want string
	}{
		{"x", 2, 'X', `unsupported pickle opcode 0x58 ('X') at byte 2`},
		{"graph", 56, 0xff, `unsupported pickle opcode 0xff`},
	} {
		b := []byte(data[tc.ext])
		b[tc.pos] = tc.op
		_, err := ParsePlanetoid("cora", opener(withFile(data, tc.ext, string(b)), paths))
		wantError(t, err, paths[tc.ext]+": "+tc.want)
	}
}

func TestPlanetoidBadTestIndex(t *testing.T) {
	data, paths := rawPlanetoid(t, "cora")
	lines := strings.SplitAfter(data["test.index"], "\n")
	setLine := func(i int, s string) string {
		l := slices.Clone(lines)
		l[i] = s + "\n"
		return strings.Join(l, "")
	}
	for _, tc := range []struct{ name, content, want string }{
		{"non-numeric", setLine(16, "abc"), `line 17: "abc" is not a node id`},
		{"negative", setLine(3, "-4"), `line 4: "-4" is not a node id`},
		{"empty line", setLine(5, ""), `line 6: "" is not a node id`},
		{"too large", setLine(0, "99999"), "line 1: test index 99999 out of range"},
		{"inside allx", setLine(1, "5"), "line 2: test index 5 out of range [1708,"},
		{"duplicate", setLine(1, strings.TrimSpace(lines[0])), "line 2: duplicate test index"},
		{"missing line", strings.Join(lines[1:], ""), "999 test ids"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePlanetoid("cora", opener(withFile(data, "test.index", tc.content), paths))
			wantError(t, err, paths["test.index"]+": "+tc.want)
		})
	}
}

// ---------------------------------------------------------------------------
// A small synthetic dataset, written by a pickle writer that mimics the real files' layout.

// pickleWriter writes protocol-2 pickles in the layout of the Planetoid files.
type pickleWriter struct {
	bytes.Buffer
	memo map[string]byte // dtype code → memo key
}

func newPickleWriter() *pickleWriter {
	w := &pickleWriter{memo: map[string]byte{}}
	w.Write([]byte{opProto, 2})
	return w
}

func (w *pickleWriter) global(module, name string) {
	w.WriteByte(opGlobal)
	w.WriteString(module + "\n" + name + "\n")
}

func (w *pickleWriter) int(v int) {
	switch {
	case v >= 0 && v < 1<<8:
		w.Write([]byte{opBinInt1, byte(v)})
	case v >= 0 && v < 1<<16:
		w.Write([]byte{opBinInt2, byte(v), byte(v >> 8)})
	default:
		w.WriteByte(opBinInt)
		w.Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	}
}

func (w *pickleWriter) str(s []byte) {
	if len(s) < 256 {
		w.Write([]byte{opShortBinString, byte(len(s))})
	} else {
		w.WriteByte(opBinString)
		w.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
	}
	w.Write(s)
}

func (w *pickleWriter) dtype(code string) {
	if k, ok := w.memo[code]; ok {
		w.Write([]byte{opBinGet, k})
		return
	}
	w.global("numpy", "dtype")
	w.str([]byte(code))
	w.int(0)
	w.int(1)
	w.Write([]byte{opTuple3, opReduce})
	k := byte(len(w.memo) + 1)
	w.memo[code] = k
	w.Write([]byte{opBinPut, k, opMark})
	w.int(3)
	w.str([]byte("<"))
	w.Write([]byte{opNone, opNone, opNone})
	w.int(-1)
	w.int(-1)
	w.int(0)
	w.Write([]byte{opTuple, opBuild})
}

// ndarray writes a numpy array of dtype code ("i4" or "f4") from its little-endian bytes.
func (w *pickleWriter) ndarray(code string, raw []byte, shape ...int) {
	w.global("numpy.core.multiarray", "_reconstruct")
	w.global("numpy", "ndarray")
	w.int(0)
	w.WriteByte(opTuple1)
	w.str([]byte("b"))
	w.Write([]byte{opTuple3, opReduce, opMark})
	w.int(1)
	w.WriteByte(opMark)
	for _, d := range shape {
		w.int(d)
	}
	w.WriteByte(opTuple)
	w.dtype(code)
	w.WriteByte(opNewFalse)
	w.str(raw)
	w.Write([]byte{opTuple, opBuild})
}

func (w *pickleWriter) bytes() []byte {
	w.WriteByte(opStop)
	return w.Bytes()
}

func int32Bytes(xs []int32) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

// pickleArray returns the pickle of a numpy array of dtype code whose elements have the
// bit patterns vals.
func pickleArray(code string, vals []int32, shape ...int) string {
	w := newPickleWriter()
	w.ndarray(code, int32Bytes(vals), shape...)
	return string(w.bytes())
}

// pickleLabels returns the pickle of a one-hot int32 array rows × classes.
func pickleLabels(labels []int, classes int) string {
	a := make([]int32, len(labels)*classes)
	for r, l := range labels {
		a[r*classes+l] = 1
	}
	return pickleArray("i4", a, len(labels), classes)
}

// pickleMatrix returns the pickle of a csr_matrix with the given rows of column indices
// (all values 1).
func pickleMatrix(rows [][]int32, cols int) string {
	indptr := []int32{0}
	var indices []int32
	for _, r := range rows {
		indices = append(indices, r...)
		indptr = append(indptr, int32(len(indices)))
	}
	return pickleCSRParts(len(rows), cols, indptr, indices, len(indices))
}

// pickleCSRParts returns the pickle of a csr_matrix of shape (rows, cols) with the given
// arrays and numValues data values equal to 1; they need not be consistent.
func pickleCSRParts(rows, cols int, indptr, indices []int32, numValues int) string {
	var data []byte
	for range numValues {
		data = binary.LittleEndian.AppendUint32(data, math.Float32bits(1))
	}
	w := newPickleWriter()
	w.global("scipy.sparse.csr", "csr_matrix")
	w.Write([]byte{opEmptyTuple, opNewObj, opEmptyDict, opMark})
	w.str([]byte("format"))
	w.str([]byte("csr"))
	w.str([]byte("_shape"))
	w.int(rows)
	w.int(cols)
	w.WriteByte(opTuple2)
	w.str([]byte("indptr"))
	w.ndarray("i4", int32Bytes(indptr), len(indptr))
	w.str([]byte("_cs_matrix__has_sorted_indices"))
	w.WriteByte(opNewTrue)
	w.str([]byte("indices"))
	w.ndarray("i4", int32Bytes(indices), len(indices))
	w.str([]byte("data"))
	w.ndarray("f4", data, numValues)
	w.str([]byte("maxprint"))
	w.int(50)
	w.Write([]byte{opSetItems, opBuild})
	return string(w.bytes())
}

// pickleGraph returns the pickle of a defaultdict(list) with keys 0 … len(adj)-1.
func pickleGraph(adj [][]int) string {
	w := newPickleWriter()
	w.global("collections", "defaultdict")
	w.global("__builtin__", "list")
	w.Write([]byte{opTuple1, opReduce, opMark})
	for u, nbrs := range adj {
		w.int(u)
		w.Write([]byte{opEmptyList, opLongBinPut, byte(u), byte(u >> 8), 0, 0})
		if len(nbrs) == 1 {
			w.int(nbrs[0])
			w.WriteByte(opAppend)
			continue
		}
		w.WriteByte(opMark)
		for _, v := range nbrs {
			w.int(v)
		}
		w.WriteByte(opAppends)
	}
	w.WriteByte(opSetItems)
	return string(w.bytes())
}

// synthPlanetoid returns a small dataset in the raw layout: 2 training nodes, 502 rows of
// allx (2+500 for train and val), 4 features, 2 classes, test ids 504, 502, 506 (so 503 and
// 505 are padding), and a graph with duplicates and self loops.
func synthPlanetoid() (data, paths map[string]string) {
	const numLabelled, cols = 502, 4
	rows := make([][]int32, numLabelled)
	labels := make([]int, numLabelled)
	for i := range rows {
		rows[i] = []int32{int32(i % cols)}
		if i%3 == 0 && i%cols != cols-1 {
			rows[i] = append(rows[i], cols-1)
		}
		labels[i] = i % 2
	}
	rows[1] = nil // a labelled node without features
	adj := make([][]int, 507)
	for u := range adj {
		adj[u] = []int{(u + 1) % 507}
	}
	adj[0] = []int{1, 1, 2, 506}
	adj[2] = []int{0, 2}
	adj[503] = []int{503}
	data = map[string]string{
		"x":          pickleMatrix(rows[:2], cols),
		"y":          pickleLabels(labels[:2], 2),
		"allx":       pickleMatrix(rows, cols),
		"ally":       pickleLabels(labels, 2),
		"tx":         pickleMatrix([][]int32{{0, 1}, {2}, {1, 3}}, cols),
		"ty":         pickleLabels([]int{1, 0, 1}, 2),
		"graph":      pickleGraph(adj),
		"test.index": "504\n502\n506\n",
	}
	paths = map[string]string{}
	for ext := range data {
		paths[ext] = "synth/ind.cora." + ext
	}
	return data, paths
}

func TestPlanetoidSynthetic(t *testing.T) {
	p, err := ParsePlanetoid("cora", opener(synthPlanetoid()))
	if err != nil {
		t.Fatal(err)
	}
	if p.NumNodes != 507 || p.NumFeatures != 4 || p.NumClasses != 2 {
		t.Fatalf("sizes %d×%d, %d classes; want 507×4, 2", p.NumNodes, p.NumFeatures, p.NumClasses)
	}
	row := func(v int) []int32 { return p.Features.ColIdx[p.Features.RowPtr[v]:p.Features.RowPtr[v+1]] }
	for _, tc := range []struct {
		node  int
		cols  []int32
		label int32
	}{
		{0, []int32{0, 3}, 0}, {1, []int32{}, 1}, {501, []int32{1, 3}, 1},
		{502, []int32{2}, 0}, {503, []int32{}, -1}, {504, []int32{0, 1}, 1}, {505, []int32{}, -1}, {506, []int32{1, 3}, 1},
	} {
		if got := row(tc.node); !slices.Equal(got, tc.cols) || p.Labels[tc.node] != tc.label {
			t.Errorf("node %d: columns %v label %d, want %v %d", tc.node, got, p.Labels[tc.node], tc.cols, tc.label)
		}
	}
	if len(p.Edges) != 506 || p.Edges[0] != [2]int32{0, 1} || p.Edges[1] != [2]int32{0, 2} || p.Edges[2] != [2]int32{0, 506} {
		t.Errorf("edges %v…, %d in all; want (0,1) (0,2) (0,506)…, 506", p.Edges[:3], len(p.Edges))
	}
	if !slices.Equal(p.SelfLoops, []int32{2, 503}) {
		t.Errorf("self loops %v, want [2 503]", p.SelfLoops)
	}
	if !slices.Equal(p.Split.Train, []int32{0, 1}) || len(p.Split.Val) != 500 || p.Split.Val[499] != 501 ||
		!slices.Equal(p.Split.Test, []int32{502, 504, 506}) {
		t.Errorf("split %v / %d val / %v", p.Split.Train, len(p.Split.Val), p.Split.Test)
	}
	s := p.Stats()
	if s.NumUnlabeledNodes != 2 || s.NumSelfLoops != 2 || s.NumIsolatedNodes != 0 || s.NumFeatureNonzeros != 502-1+126+5 {
		t.Errorf("stats %+v", s)
	}
}

func TestPlanetoidSyntheticErrors(t *testing.T) {
	data, paths := synthPlanetoid()
	twoHot := []byte(pickleLabels([]int{1, 0, 1}, 2))
	twoHot[bytes.Index(twoHot, int32Bytes([]int32{0, 1, 1, 0}))+12] = 1 // row 1 = (1, 1)
	for _, tc := range []struct {
		name string
		set  map[string]string // replaced files
		ext  string            // the file the error must name
		want string
	}{
		{"two-hot label row", map[string]string{"ty": string(twoHot)}, "ty", "row 1 is not one-hot"},
		{"all-zero label row", map[string]string{"y": pickleArray("i4", []int32{1, 0, 0, 0}, 2, 2)}, "y",
			"row 1 is not one-hot (all zero)"},
		{"1-D labels", map[string]string{"y": pickleArray("i4", []int32{1, 0}, 2)}, "y", "expected a 2-D int32 array"},
		{"float labels", map[string]string{"ally": pickleArray("f4", []int32{1, 0}, 1, 2)}, "ally", "expected a 2-D int32 array"},
		{"y rows", map[string]string{"y": pickleLabels([]int{0, 1, 0}, 2)}, "y", "3 label rows, but synth/ind.cora.x has 2 feature rows"},
		{"class count", map[string]string{"ty": pickleLabels([]int{1, 0, 2}, 3)}, "ty", "3 classes, but synth/ind.cora.ally has 2"},
		{"feature count", map[string]string{"tx": pickleMatrix([][]int32{{0}, {1}, {2}}, 5)}, "tx", "5 feature columns, but synth/ind.cora.allx has 4"},
		{"x differs from allx", map[string]string{"x": pickleMatrix([][]int32{{0, 3}, {2}}, 4)}, "x", "row 1 differs from row 1 of synth/ind.cora.allx"},
		{"y differs from ally", map[string]string{"y": pickleLabels([]int{0, 0}, 2)}, "y", "row 1 differs from row 1 of synth/ind.cora.ally"},
		{"too few allx rows", map[string]string{"allx": pickleMatrix(make([][]int32, 400), 4), "ally": pickleLabels(make([]int, 400), 2)},
			"allx", "400 rows, too few for 2 training and 500 validation nodes"},
		{"test ids vs tx", map[string]string{"test.index": "504\n502\n"}, "test.index", "2 test ids, but synth/ind.cora.tx has 3 rows"},
		{"neighbour out of range", map[string]string{"graph": pickleGraph([][]int{{1}, {0, 507}})}, "graph", "neighbour 507 of node 1 out of range [0,507)"},
		{"node out of range", map[string]string{"graph": pickleGraph(make([][]int, 508))}, "graph", "node 507 out of range [0,507)"},
		{"empty graph file", map[string]string{"graph": ""}, "graph", "truncated pickle at byte 0 (no STOP opcode)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := data
			for ext, content := range tc.set {
				d = withFile(d, ext, content)
			}
			_, err := ParsePlanetoid("cora", opener(d, paths))
			wantError(t, err, paths[tc.ext]+": "+tc.want)
		})
	}
	delete(data, "ally")
	_, err := ParsePlanetoid("cora", opener(data, paths))
	wantError(t, err, "synth/ind.cora.ally: no such file")
}

// ---------------------------------------------------------------------------
// The unpickler and its converters.

func TestPickleValues(t *testing.T) {
	data := "\x80\x02}q\x01(" + // EMPTY_DICT, BINPUT 1, MARK
		"U\x01aq\x02(K\x01NJ\xfb\xff\xff\xff\x88\x89T\x03\x00\x00\x00xyzt" + // 'a' (memo 2): (1, None, -5, True, False, 'xyz')
		"U\x01b](K\x01M\x2c\x01)e]K\x07a\x86\x85NN\x87" + // 'b': ((([1, 300, ()], [7]),), None, None)
		"U\x01ccmod.sub\nname\nr\x00\x01\x00\x00" + // 'c': a global, LONG_BINPUT 256
		"U\x01dh\x02u." // 'd': BINGET 2; SETITEMS; STOP
	got, err := unpickle([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	lists := pyTuple{&pyList{items: []any{1, 300, pyTuple{}}}, &pyList{items: []any{7}}}
	want := &pyDict{
		keys: []any{[]byte("a"), []byte("b"), []byte("c"), []byte("d")},
		values: []any{
			pyTuple{1, nil, -5, true, false, []byte("xyz")},
			pyTuple{pyTuple{lists}, nil, nil},
			pyGlobal{"mod.sub", "name"},
			[]byte("a"),
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

func TestPickleErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"", "truncated pickle at byte 0 (no STOP opcode)"},
		{"\x80", "truncated pickle at byte 0 (opcode PROTO)"},
		{"\x80\x02cmod", "truncated pickle at byte 2 (opcode GLOBAL)"},
		{"\x80\x02T\xff\xff\xff\x7f.", "truncated pickle at byte 2 (opcode BINSTRING)"},
		{"\x80\x02T\xff\xff\xff\xff.", "truncated pickle at byte 2 (opcode BINSTRING)"},
		{"\x80\x02U\x05ab.", "truncated pickle at byte 2 (opcode SHORT_BINSTRING)"},
		{"\x80\x02J\x01\x00", "truncated pickle at byte 2 (opcode BININT)"},
		{"\x80\x02N", "truncated pickle at byte 3 (no STOP opcode)"},
		{"\x80\x03N.", "PROTO at byte 0: unsupported pickle protocol 3"},
		{"\x80\x02X\x00\x00\x00\x00.", "unsupported pickle opcode 0x58 ('X') at byte 2"},
		{"\x80\x02N\x95.", "unsupported pickle opcode 0x95"},
		{"\x80\x02\x85.", "TUPLE1 at byte 2: stack underflow"},
		{"\x80\x02N(\x86.", "TUPLE2 at byte 4: stack underflow"},
		{"\x80\x02q\x01.", "BINPUT at byte 2: stack underflow"},
		{"\x80\x02.", "STOP with 0 values"},
		{"\x80\x02t.", "TUPLE at byte 2: no MARK on the stack"},
		{"\x80\x02h\x05.", "BINGET at byte 2: memo key 5 was never stored"},
		{"\x80\x02N.N", "1 unexpected bytes after STOP at byte 3"},
		{"\x80\x02NN.", "STOP with 2 values and 0 open marks"},
		{"\x80\x02(N.", "STOP with 1 values and 1 open marks"},
		{"\x80\x02K\x01)\x81.", "NEWOBJ at byte 5: callable is int, not a global"},
		{"\x80\x02cm\nf\nK\x01R.", "REDUCE at byte 9: arguments are int, not a tuple"},
		{"\x80\x02NNb.", "BUILD at byte 4: cannot set the state of None"},
		{"\x80\x02cm\nf\n)RNbNb.", "state of f set twice"},
		{"\x80\x02}(Nu.", "SETITEMS at byte 5: odd number (1) of keys and values"},
		{"\x80\x02N(NNu.", "cannot set items of None"},
		{"\x80\x02}Na.", "APPEND at byte 4: cannot append to dict"},
		{"\x80\x02)(Ne.", "cannot append to tuple"},
	} {
		_, err := unpickle([]byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("unpickle(%q): error %v, want %q", tc.data, err, tc.want)
		}
	}
}

func TestPickleConverters(t *testing.T) {
	ndarray := func(b string) error {
		v, err := unpickle([]byte(b))
		if err == nil {
			_, err = pickleNDArray(v)
		}
		return err
	}
	csr := func(b string) error {
		v, err := unpickle([]byte(b))
		if err == nil {
			_, err = pickleCSR(v)
		}
		return err
	}
	adjacency := func(b string) error {
		v, err := unpickle([]byte(b))
		if err == nil {
			_, err = pickleAdjacency(v)
		}
		return err
	}
	graphHead := "\x80\x02ccollections\ndefaultdict\nc__builtin__\nlist\n\x85R"
	dtype := func(code string) string {
		w := newPickleWriter()
		w.dtype(code)
		return string(w.bytes())
	}
	for _, tc := range []struct {
		name    string
		convert func(string) error
		data    string
		want    string
	}{
		{"bytes vs shape", ndarray, pickleArray("i4", []int32{1, 2, 3}, 2, 2), "numpy array of shape [2 2] needs 16 data bytes, has 12"},
		{"huge shape", ndarray, pickleArray("i4", []int32{1}, 1<<30, 1<<30, 1<<30), "numpy array shape (1073741824, 1073741824, 1073741824) is too large"},
		{"negative dimension", ndarray, pickleArray("i4", nil, -1), "dimension 0 is not a non-negative int"},
		{"dtype f8", ndarray, strings.Replace(pickleArray("f4", []int32{1}, 1), "U\x02f4", "U\x02f8", 1), `unsupported numpy dtype arguments ("f8", 0, 1)`},
		{"big endian", ndarray, strings.Replace(pickleArray("i4", []int32{1}, 1), "U\x01<", "U\x01>", 1), `byte order ">", want '<'`},
		{"fortran order", ndarray, strings.Replace(pickleArray("i4", []int32{1}, 1), "\x89U", "\x88U", 1), "is_fortran flag is true"},
		{"not an array", ndarray, dtype("i4"), "expected a numpy array, got dtype"},
		{"indptr length", csr, pickleCSRParts(3, 4, []int32{0, 1, 2}, []int32{0, 1}, 2), "indptr has length 3, want rows+1 = 4"},
		{"indptr end", csr, pickleCSRParts(2, 4, []int32{0, 1, 1}, []int32{0, 1}, 2), "indptr runs from 0 to 1, want 0 to 2"},
		{"indptr decreasing", csr, pickleCSRParts(2, 4, []int32{0, 100, 2}, []int32{0, 1}, 2), "indptr decreases at row 1"},
		{"column range", csr, pickleCSRParts(1, 4, []int32{0, 1}, []int32{4}, 1), "row 0: column 4 out of range [0,4)"},
		{"unsorted columns", csr, pickleCSRParts(1, 4, []int32{0, 2}, []int32{2, 1}, 2), "row 0: column indices not strictly increasing"},
		{"data length", csr, pickleCSRParts(1, 4, []int32{0, 2}, []int32{1, 2}, 1), "2 indices but 1 data values"},
		{"format", csr, strings.Replace(pickleMatrix(nil, 1), "U\x03csr", "U\x03csc", 1), `format is "csc", want 'csr'`},
		{"missing field", csr, strings.Replace(pickleMatrix(nil, 1), "U\x07indices", "U\x07indexes", 1), `csr_matrix has no "indices" field`},
		{"float indptr", csr, strings.Replace(pickleMatrix(nil, 1), "U\x02i4", "U\x02f4", 1), "csr_matrix indptr must be a 1-D int32 array"},
		{"not a csr", csr, pickleGraph(nil), "expected a csr_matrix, got defaultdict"},
		{"defaultdict(int)", adjacency, strings.Replace(graphHead, "list", "int", 1) + ".", "expected a defaultdict(list), got defaultdict(global __builtin__.int,)"},
		{"string key", adjacency, graphHead + "(U\x01a]u.", `key "a" is not an int`},
		{"value not a list", adjacency, graphHead + "(K\x00K\x01u.", "value of key 0 is int, not a list"},
		{"entry not an int", adjacency, graphHead + "(K\x00](Neu.", "list of key 0: entry 0 is None, not an int"},
		{"state", adjacency, graphHead + "Nb.", "unexpected BUILD state"},
	} {
		t.Run(tc.name, func(t *testing.T) { wantError(t, tc.convert(tc.data), tc.want) })
	}
}

// FuzzUnpickle checks that no input makes the unpickler or its converters panic.
func FuzzUnpickle(f *testing.F) {
	data, _ := synthPlanetoid()
	for _, ext := range []string{"x", "y", "graph"} {
		f.Add([]byte(data[ext]))
	}
	f.Add([]byte("\x80\x02}q\x01(U\x01a](K\x01M\x2c\x01)e]K\x07a\x86\x85NN\x87h\x01u."))
	// The first bytes of the real files, when they are at hand.
	if files, err := PlanetoidFiles("citeseer"); err == nil {
		for _, file := range files[:7] {
			if b, _, err := testResolver().ReadFile(file); err == nil {
				f.Add(b[:min(len(b), 4096)])
			}
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := unpickle(b)
		if err != nil {
			return
		}
		_ = describe(v) + formatValue(v)
		_, _ = pickleNDArray(v)
		_, _ = pickleCSR(v)
		_, _ = pickleAdjacency(v)
	})
}

// ---------------------------------------------------------------------------
// Derived views.

func TestPlanetoidRowNormalizedFeatures(t *testing.T) {
	p := &Planetoid{Features: CSR{NumRows: 3, NumCols: 3,
		RowPtr: []int32{0, 2, 2, 4}, ColIdx: []int32{0, 2, 1, 2}, Values: []float32{1, 1, 2, 6}}}
	got := p.RowNormalizedFeatures()
	want := CSR{NumRows: 3, NumCols: 3,
		RowPtr: []int32{0, 2, 2, 4}, ColIdx: []int32{0, 2, 1, 2}, Values: []float32{0.5, 0.5, 0.25, 0.75}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if p.Features.Values[3] != 6 {
		t.Errorf("RowNormalizedFeatures changed the features")
	}
}

func TestPlanetoidDirectedEdges(t *testing.T) {
	p := &Planetoid{NumNodes: 4, Edges: [][2]int32{{0, 1}, {1, 3}}, SelfLoops: []int32{2}}
	for _, tc := range []struct {
		selfLoops bool
		src, dst  []int32
	}{
		{false, []int32{1, 0, 3, 1}, []int32{0, 1, 1, 3}},
		{true, []int32{0, 1, 0, 1, 3, 2, 1, 3}, []int32{0, 0, 1, 1, 1, 2, 3, 3}},
	} {
		src, dst := p.DirectedEdges(tc.selfLoops)
		if !slices.Equal(src, tc.src) || !slices.Equal(dst, tc.dst) {
			t.Errorf("DirectedEdges(%v) = %v → %v, want %v → %v", tc.selfLoops, src, dst, tc.src, tc.dst)
		}
	}
}

func TestPlanetoidDirectedEdgesReal(t *testing.T) {
	p := loadPlanetoid(t, "citeseer")
	src, dst := p.DirectedEdges(true)
	if len(src) != 9104+3327 {
		t.Fatalf("%d directed edges with self loops, want 9104+3327", len(src))
	}
	loops := 0
	for i := range src {
		if i > 0 && (dst[i] < dst[i-1] || dst[i] == dst[i-1] && src[i] <= src[i-1]) {
			t.Fatalf("edge %d (%d→%d) out of order", i, src[i], dst[i])
		}
		if src[i] == dst[i] {
			loops++
		}
	}
	if loops != 3327 {
		t.Errorf("%d self loops, want one per node", loops)
	}
}

func TestPlanetoidLoadTime(t *testing.T) {
	requirePlanetoidFiles(t, "cora")
	best := time.Hour
	for range 3 {
		start := time.Now()
		if _, err := LoadPlanetoid(testResolver(), "cora"); err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
	}
	if best > 300*time.Millisecond {
		t.Errorf("loading Cora took %v, want < 0.3 s", best)
	}
}

func BenchmarkLoadPlanetoid(b *testing.B) {
	requirePlanetoidFiles(b, "cora")
	for b.Loop() {
		if _, err := LoadPlanetoid(testResolver(), "cora"); err != nil {
			b.Fatal(err)
		}
	}
}
