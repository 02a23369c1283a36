package datasets

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
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

func TestNormalizedLaplacianSpectrum(t *testing.T) {
	g, err := RandomGeometricGraph(200, 0.125, 3)
	if err != nil {
		t.Fatal(err)
	}
	lap := g.NormalizedLaplacian()
	spec, err := g.LaplacianSpectrum()
	if err != nil {
		t.Fatal(err)
	}
	// Ascending eigenvalues in [0, 2).
	for i, v := range spec.Values {
		if v < -1e-12 || v >= 2 || (i > 0 && v < spec.Values[i-1]) {
			t.Fatalf("eigenvalue %d = %v: want ascending values in [0,2)", i, v)
		}
	}
	// D̃^{1/2}·1 is in the null space of Δ̃ = I − D̃^{-1/2}(A+I)D̃^{-1/2}.
	deg := g.Degrees()
	v := mat.NewVecDense(g.NumNodes, nil)
	for i, d := range deg {
		v.SetVec(i, math.Sqrt(float64(d+1)))
	}
	var lv mat.VecDense
	lv.MulVec(lap, v)
	if norm := mat.Norm(&lv, 2); norm > 1e-12 {
		t.Errorf("|Δ̃ D̃^½ 1| = %g, want 0", norm)
	}
	// One zero eigenvalue per connected component.
	zeros := 0
	for _, v := range spec.Values {
		if v < 1e-9 {
			zeros++
		}
	}
	if c := components(g); zeros != c {
		t.Errorf("%d zero eigenvalues, %d connected components", zeros, c)
	}
	// V diag(λ) Vᵀ reconstructs Δ̃.
	var rec, tmp mat.Dense
	tmp.Mul(spec.Vectors, mat.NewDiagDense(len(spec.Values), spec.Values))
	rec.Mul(&tmp, spec.Vectors.T())
	var diff mat.Dense
	diff.Sub(&rec, lap)
	if d := mat.Norm(&diff, math.Inf(1)); d > 1e-10 {
		t.Errorf("|VΛVᵀ − Δ̃|∞ = %g", d)
	}
}

func TestSmoothSignalLiesInTheLowSpectrum(t *testing.T) {
	g, _ := RandomGeometricGraph(200, 0.125, 5)
	spec, err := g.LaplacianSpectrum()
	if err != nil {
		t.Fatal(err)
	}
	const k = 20
	x, err := spec.SmoothSignal(k, 3, 9)
	if err != nil {
		t.Fatal(err)
	}
	// Dirichlet energy tr(XᵀΔ̃X) ≤ λ_k·|X|², since X lies in the span of the first k eigenvectors.
	var lx, xtlx mat.Dense
	lx.Mul(g.NormalizedLaplacian(), x)
	xtlx.Mul(x.T(), &lx)
	energy := mat.Trace(&xtlx)
	fro2 := math.Pow(mat.Norm(x, 2), 2) // mat.Norm of a matrix with 2 is the Frobenius norm
	if bound := spec.Values[k-1] * fro2; energy > bound*(1+1e-9) || energy < 0 {
		t.Errorf("Dirichlet energy %g, want within [0, λ_k·|X|²_F = %g]", energy, bound)
	}
	if _, err := spec.SmoothSignal(0, 1, 0); err == nil {
		t.Error("SmoothSignal(k=0) gave no error")
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

// components counts connected components with a union-find.
func components(g *GeometricGraph) int {
	parent := make([]int, g.NumNodes)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	c := g.NumNodes
	for _, e := range g.Edges {
		if a, b := find(int(e[0])), find(int(e[1])); a != b {
			parent[a] = b
			c--
		}
	}
	return c
}
