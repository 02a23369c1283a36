package experiments_test

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/internal/stagtest"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
)

// TestFigure2Graph checks the graph of the pictures: 8 nodes, 11 undirected edges listed both
// ways, no self-loop, no repeated edge, and the degrees of the edges listed in its doc comment.
func TestFigure2Graph(t *testing.T) {
	el := experiments.Figure2Graph()
	if el.NumNodes != 8 || el.NumEdges() != 22 {
		t.Fatalf("%d nodes, %d edges; want 8 and 22", el.NumNodes, el.NumEdges())
	}
	edges := map[[2]int32]bool{}
	for e := range el.NumEdges() {
		k := [2]int32{el.Src[e], el.Dst[e]}
		if k[0] == k[1] || edges[k] {
			t.Errorf("edge %v is a self-loop or repeated", k)
		}
		edges[k] = true
	}
	for k := range edges {
		if !edges[[2]int32{k[1], k[0]}] {
			t.Errorf("edge %v has no reverse", k)
		}
	}
	// 0-1, 0-2, 0-5, 1-2, 1-3, 2-4, 3-4, 3-6, 4-7, 5-6, 6-7.
	if got, want := el.OutDegrees(), []int{3, 3, 3, 3, 3, 2, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("degrees %v, want %v", got, want)
	}
}

// TestFigure2Methods checks that each method is the stagnb preset that the paper's equation
// describes, with the distribution the pictures use.
func TestFigure2Methods(t *testing.T) {
	want := []struct {
		name      string
		structure stagnb.Structure
		kind      stagnb.DistKind
	}{
		{"Dropout", stagnb.StructureDropout, stagnb.DistBernoulli},
		{"FastGCN (node sampling)", stagnb.StructureNodeSampling, stagnb.DistBernoulli},
		{"DropEdge", stagnb.StructureDropEdge, stagnb.DistBernoulli},
		{"Graph DropConnect", stagnb.StructureGDC, stagnb.DistBernoulli},
		{"STAG", stagnb.StructureSTAG, stagnb.DistNormal},
	}
	ms := experiments.Figure2Methods()
	if len(ms) != len(want) {
		t.Fatalf("%d methods, want %d", len(ms), len(want))
	}
	for i, m := range ms {
		w := want[i]
		if m.Name != w.name || m.Noise.Structure != w.structure || m.Noise.Dist.Kind != w.kind {
			t.Errorf("method %d: %s %s, want %s with structure %s", i, m.Name, m.Noise, w.name, w.structure)
		}
		if m.Noise.OffAtEval || m.Noise.Dist.Rescale {
			t.Errorf("%s: noise %s must be on at evaluation and not rescaled (weights 0 or 1)", m.Name, m.Noise)
		}
		if !strings.Contains(m.PaperZ, "Z[") || m.PaperLine == 0 {
			t.Errorf("%s: paper equation %q at line %d", m.Name, m.PaperZ, m.PaperLine)
		}
	}
}

func TestFigure2MethodByName(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Dropout", "Dropout"},
		{"dropedge", "DropEdge"},
		{"FastGCN", "FastGCN (node sampling)"},
		{"graph", "Graph DropConnect"},
		{"STAG", "STAG"},
		{"Drop", ""}, // Dropout and DropEdge
		{"", ""},
		{"BBGDC", ""},
	}
	for _, c := range cases {
		m, err := experiments.Figure2MethodByName(c.in)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%q: got %s, want an error", c.in, m.Name)
		case c.want != "" && (err != nil || m.Name != c.want):
			t.Errorf("%q: got %q (%v), want %q", c.in, m.Name, err, c.want)
		}
	}
}

// TestStructureNotation checks the notation computed from a Structure against the paper's
// Section 5, written out by hand for each preset, and a structure that is no preset.
func TestStructureNotation(t *testing.T) {
	cases := []struct {
		name      string
		structure stagnb.Structure
		index     string
		space     []string
		shared    string
		draws     int // with L = 2, C = 3, |E| = 22, N = 8
	}{
		{"dropout", stagnb.StructureDropout, "Z[l, c, :, :]", []string{"L", "C"}, "all edges", 6},
		{"node sampling", stagnb.StructureNodeSampling, "Z[:, :, u, :]", []string{"N"}, "layers, features, edges leaving a node", 8},
		{"dropedge", stagnb.StructureDropEdge, "Z[:, :, u, v]", []string{"|E|"}, "layers, features", 22},
		{"gdc", stagnb.StructureGDC, "Z[l, c, u, v]", []string{"L", "C", "|E|"}, "nothing", 132},
		{"one draw per graph", stagnb.Structure{Layers: stagnb.SharedLayers, Features: stagnb.SharedFeatures, Edges: stagnb.AllEdges},
			"Z[:, :, :, :]", nil, "layers, features, all edges", 1},
		{"per layer and node", stagnb.Structure{Layers: stagnb.PerLayer, Features: stagnb.SharedFeatures, Edges: stagnb.PerSourceNode},
			"Z[l, :, u, :]", []string{"L", "N"}, "features, edges leaving a node", 16},
	}
	for _, c := range cases {
		if got := experiments.StructureIndex(c.structure); got != c.index {
			t.Errorf("%s: index %q, want %q", c.name, got, c.index)
		}
		space := experiments.StructureSpace(c.structure)
		if !slices.Equal(space, c.space) {
			t.Errorf("%s: space %q, want %q", c.name, space, c.space)
		}
		if got := experiments.StructureShared(c.structure); got != c.shared {
			t.Errorf("%s: shared by %q, want %q", c.name, got, c.shared)
		}
		if n, err := experiments.Figure2Draws(space, 2, 3, 22, 8); err != nil || n != c.draws {
			t.Errorf("%s: %d draws (%v), want %d", c.name, n, err, c.draws)
		}
	}
	if _, err := experiments.Figure2Draws([]string{"L", "K"}, 2, 3, 22, 8); err == nil || !strings.Contains(err.Error(), `"K"`) {
		t.Errorf("Figure2Draws with an unknown factor: error %v, want one naming it", err)
	}
}

// maskPos is one weight of the masks: layer l, feature c, edge u → v.
type maskPos struct{ l, c, u, v int }

// TestDrawMasksSharing draws every preset with a continuous Normal noise and checks, for every
// pair of edge positions, that the structure's shared positions carry the same weight and its
// independent ones different weights (a continuous law never repeats a value), that the masks
// are NaN exactly off the edges, and that the distinct weights are as many as the structure's
// draws.
func TestDrawMasksSharing(t *testing.T) {
	backend := stagtest.Backend(t)
	el := experiments.Figure2Graph()
	const L, C = 2, 3
	normal, err := stagnb.Normal(1, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		structure stagnb.Structure
		same      func(a, b maskPos) bool
	}{
		{"dropout Z[l,c]", stagnb.StructureDropout, func(a, b maskPos) bool { return a.l == b.l && a.c == b.c }},
		{"node sampling Z[u]", stagnb.StructureNodeSampling, func(a, b maskPos) bool { return a.u == b.u }},
		{"dropedge Z[u,v]", stagnb.StructureDropEdge, func(a, b maskPos) bool { return a.u == b.u && a.v == b.v }},
		{"gdc Z[l,c,u,v]", stagnb.StructureGDC, func(a, b maskPos) bool { return a == b }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := experiments.DrawMasks(backend, el, stagnb.NewNoise(normal, tc.structure), L, C, 7)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.Z) != L || len(m.Z[0]) != C || len(m.Z[0][0]) != el.NumNodes || m.NumNodes != el.NumNodes {
				t.Fatalf("masks of %d×%d×%d, want %d×%d×%d", len(m.Z), len(m.Z[0]), len(m.Z[0][0]), L, C, el.NumNodes)
			}
			isEdge := map[[2]int]bool{}
			for e := range el.NumEdges() {
				isEdge[[2]int{int(el.Src[e]), int(el.Dst[e])}] = true
			}
			var pos []maskPos
			for l := range L {
				for c := range C {
					for u := range el.NumNodes {
						for v := range el.NumNodes {
							z := m.Z[l][c][u][v]
							if isEdge[[2]int{u, v}] == math.IsNaN(z) {
								t.Fatalf("Z[%d][%d][%d][%d] = %g, but edge %d → %d exists: %v", l, c, u, v, z, u, v, isEdge[[2]int{u, v}])
							}
							if !math.IsNaN(z) {
								pos = append(pos, maskPos{l, c, u, v})
							}
						}
					}
				}
			}
			for i, a := range pos {
				for _, b := range pos[i+1:] {
					za, zb := m.Z[a.l][a.c][a.u][a.v], m.Z[b.l][b.c][b.u][b.v]
					if shared := tc.same(a, b); shared != (za == zb) {
						t.Fatalf("%+v = %g and %+v = %g: must share a draw: %v", a, za, b, zb, shared)
					}
				}
			}
			want, err := experiments.Figure2Draws(experiments.StructureSpace(tc.structure), L, C, el.NumEdges(), el.NumNodes)
			if err != nil {
				t.Fatal(err)
			}
			if got := m.DistinctWeights(); got != want {
				t.Errorf("%d distinct weights, want %d", got, want)
			}
		})
	}
}

// TestDrawMasksLaw checks the law of the drawn weights on many features: the sample mean of the
// weights is within 5 standard errors (√(Var z / n), n independent draws) of E[z], and Bernoulli
// weights are 0 or 1.
func TestDrawMasksLaw(t *testing.T) {
	backend := stagtest.Backend(t)
	el := experiments.Figure2Graph()
	const L, C = 2, 64 // n = L·C·|E| = 2816 independent draws
	cases := []struct {
		dist   string
		binary bool
	}{
		{"bernoulli(0.5)", true},
		{"bernoulli(0.2)", true},
		{"normal(1,0.5)", false},
		{"uniform(0,1)", false},
	}
	for _, tc := range cases {
		d, err := stagnb.ParseDistribution(tc.dist)
		if err != nil {
			t.Fatal(err)
		}
		m, err := experiments.DrawMasks(backend, el, stagnb.NewNoise(d, stagnb.StructureGDC), L, C, 11)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		var n int
		for _, layer := range m.Z {
			for _, z := range layer {
				for _, row := range z {
					for _, v := range row {
						if math.IsNaN(v) {
							continue
						}
						if tc.binary && v != 0 && v != 1 {
							t.Fatalf("%s: weight %g, want 0 or 1", tc.dist, v)
						}
						sum += v
						n++
					}
				}
			}
		}
		if n != L*C*el.NumEdges() {
			t.Fatalf("%s: %d weights, want %d", tc.dist, n, L*C*el.NumEdges())
		}
		mean, se := sum/float64(n), math.Sqrt(d.Variance()/float64(n))
		if math.Abs(mean-d.Mean()) > 5*se {
			t.Errorf("%s: mean weight %.4f, want %.4f ± 5×%.4f", tc.dist, mean, d.Mean(), se)
		}
	}
}

func TestDrawMasksErrors(t *testing.T) {
	backend := stagtest.Backend(t)
	noise := experiments.Figure2Methods()[0].Noise
	twice, err := stagnb.NewEdgeList(3, []int32{0, 1, 0}, []int32{1, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		run    func() error
		substr string
	}{
		{"repeated edge", func() error {
			_, err := experiments.DrawMasks(backend, twice, noise, 1, 1, 0)
			return err
		}, "0 → 1 is listed twice"},
		{"no layers", func() error {
			_, err := experiments.DrawMasks(backend, experiments.Figure2Graph(), noise, 0, 1, 0)
			return err
		}, "0 layers"},
		{"nil backend", func() error {
			_, err := experiments.DrawMasks(nil, experiments.Figure2Graph(), noise, 1, 1, 0)
			return err
		}, "nil backend"},
	}
	for _, c := range cases {
		if err := c.run(); err == nil || !strings.Contains(err.Error(), c.substr) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.substr)
		}
	}
}

// TestFigure2SharingTable checks the table of notebook 02: one row per method, whose paper and
// ours draw counts agree with each other and with the distinct weights actually drawn.
func TestFigure2SharingTable(t *testing.T) {
	tb, err := experiments.Figure2SharingTable(stagtest.Backend(t), 42)
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int {
		i := slices.Index(tb.Header, name)
		if i < 0 {
			t.Fatalf("no column %q in %q", name, tb.Header)
		}
		return i
	}
	paper, ours, drawn := col("paper: draws per pass"), col("ours: draws per pass"), col("distinct weights in a Normal draw")
	want := map[string]int{"Dropout": 6, "FastGCN (node sampling)": 8, "DropEdge": 22, "Graph DropConnect": 132, "STAG": 132}
	if len(tb.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(tb.Rows), len(want))
	}
	number := func(cell string) int {
		n, err := strconv.Atoi(cell[strings.LastIndex(cell, " ")+1:])
		if err != nil {
			t.Fatalf("cell %q does not end in a number", cell)
		}
		return n
	}
	for _, r := range tb.Rows {
		w := want[r[0]]
		if number(r[paper]) != w || number(r[ours]) != w || number(r[drawn]) != w {
			t.Errorf("%s: paper %q, ours %q, drawn %q; want %d each", r[0], r[paper], r[ours], r[drawn], w)
		}
	}
	if !strings.Contains(tb.Markdown(), "| paper: Z |") {
		t.Errorf("the table has no paper column:\n%s", tb.Markdown())
	}
}

// TestFigure2Pictures renders the adjacency and the five pictures and checks their texts.
func TestFigure2Pictures(t *testing.T) {
	backend := stagtest.Backend(t)
	p, err := experiments.Figure2Adjacency()
	if err != nil {
		t.Fatal(err)
	}
	svg, err := figures.SVG(p)
	if err != nil || !strings.Contains(svg, "22 directed edges") {
		t.Errorf("adjacency picture: %v, title missing", err)
	}
	for _, m := range experiments.Figure2Methods() {
		p, err := experiments.Figure2Picture(backend, m.Name, 1)
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		svg, err := figures.SVG(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{m.Name + ": " + m.Noise.Dist.String(), "layer 1, feature 1", "layer 2, feature 3", "no edge"} {
			if !strings.Contains(svg, want) {
				t.Errorf("%s: the picture does not contain %q", m.Name, want)
			}
		}
	}
	if _, err := experiments.Figure2Picture(backend, "BBGDC", 1); err == nil {
		t.Errorf("an unknown method draws a picture")
	}
}
