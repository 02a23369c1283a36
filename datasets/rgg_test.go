package datasets

import (
	"math"
	"testing"
)

func TestRandomGeometricGraphEdgesAreExactlyThePairsWithinRadius(t *testing.T) {
	g, err := RandomGeometricGraph(200, 0.125, 7)
	if err != nil {
		t.Fatal(err)
	}
	isEdge := map[[2]int32]bool{}
	for _, e := range g.Edges {
		if e[0] >= e[1] {
			t.Fatalf("edge %v is not u < v", e)
		}
		isEdge[e] = true
	}
	if len(isEdge) != len(g.Edges) {
		t.Fatalf("duplicate edges: %d unique of %d", len(isEdge), len(g.Edges))
	}
	for u := 0; u < g.NumNodes; u++ {
		for v := u + 1; v < g.NumNodes; v++ {
			d := math.Hypot(g.Points[u][0]-g.Points[v][0], g.Points[u][1]-g.Points[v][1])
			if (d <= g.Radius) != isEdge[[2]int32{int32(u), int32(v)}] {
				t.Fatalf("pair (%d,%d) at distance %.4f: edge=%v with radius %v", u, v, d, isEdge[[2]int32{int32(u), int32(v)}], g.Radius)
			}
		}
	}
	st := g.Stats()
	if st.NumNodes != 200 || st.NumDirectedEdges != 2*len(g.Edges) || st.NumUndirectedEdges != len(g.Edges) {
		t.Errorf("Stats() = %+v", st)
	}
}

func TestRandomGeometricGraphIsSeeded(t *testing.T) {
	a, _ := RandomGeometricGraph(50, 0.3, 1)
	b, _ := RandomGeometricGraph(50, 0.3, 1)
	c, _ := RandomGeometricGraph(50, 0.3, 2)
	if a.Points[17] != b.Points[17] || len(a.Edges) != len(b.Edges) {
		t.Error("same seed gave different graphs")
	}
	if a.Points[17] == c.Points[17] {
		t.Error("different seeds gave the same points")
	}
}

// The number of edges of a random geometric graph has mean C(n,2)·p with
// p = πr² − 8r³/3 + r⁴/2, the probability that two uniform points of the unit square lie
// within distance r ≤ 1. The sample mean over many seeds must lie within 5 standard errors.
func TestRandomGeometricGraphEdgeCountMatchesTheory(t *testing.T) {
	const n, r, runs = 200, 0.125, 60
	p := math.Pi*r*r - 8*r*r*r/3 + r*r*r*r/2
	want := float64(n*(n-1)/2) * p
	var sum, sumSq float64
	for seed := range uint64(runs) {
		g, err := RandomGeometricGraph(n, r, seed)
		if err != nil {
			t.Fatal(err)
		}
		m := float64(len(g.Edges))
		sum += m
		sumSq += m * m
	}
	mean := sum / runs
	sd := math.Sqrt((sumSq - runs*mean*mean) / (runs - 1))
	if se := sd / math.Sqrt(runs); math.Abs(mean-want) > 5*se {
		t.Errorf("mean edge count %.1f over %d graphs, theory %.1f, standard error %.1f", mean, runs, want, se)
	}
}

func TestRandomGeometricGraphBadInput(t *testing.T) {
	for _, c := range []struct {
		n int
		r float64
	}{{0, 0.1}, {-3, 0.1}, {10, -1}, {10, math.NaN()}, {10, math.Inf(1)}} {
		if _, err := RandomGeometricGraph(c.n, c.r, 0); err == nil {
			t.Errorf("RandomGeometricGraph(%d, %v) gave no error", c.n, c.r)
		}
	}
}
