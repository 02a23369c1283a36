package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// GeometricGraph is a random geometric graph on the unit square: N points drawn uniformly,
// and an undirected edge between every two points at Euclidean distance ≤ Radius (the model of
// networkx's random_geometric_graph, used for the paper's Figure 4 after Cai & Wang 2020).
type GeometricGraph struct {
	NumNodes int
	Radius   float64
	Seed     uint64
	// Points holds the node positions in [0,1)².
	Points [][2]float64
	// Edges are undirected, u < v, sorted, without self-loops.
	Edges [][2]int32
}

// RandomGeometricGraph draws a random geometric graph with n nodes and the given radius.
// The same seed gives the same graph on every platform (PCG generator from math/rand/v2).
func RandomGeometricGraph(n int, radius float64, seed uint64) (*GeometricGraph, error) {
	if n <= 0 {
		return nil, fmt.Errorf("random geometric graph: n=%d, want n > 0", n)
	}
	if !(radius >= 0) || math.IsInf(radius, 0) {
		return nil, fmt.Errorf("random geometric graph: radius=%v, want a finite radius ≥ 0", radius)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5747_4e42))
	g := &GeometricGraph{NumNodes: n, Radius: radius, Seed: seed, Points: make([][2]float64, n)}
	for i := range g.Points {
		g.Points[i] = [2]float64{rng.Float64(), rng.Float64()}
	}
	r2 := radius * radius
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			dx, dy := g.Points[u][0]-g.Points[v][0], g.Points[u][1]-g.Points[v][1]
			if dx*dx+dy*dy <= r2 {
				g.Edges = append(g.Edges, [2]int32{int32(u), int32(v)})
			}
		}
	}
	return g, nil
}

// Degrees returns the number of neighbours of every node (self-loops not counted).
func (g *GeometricGraph) Degrees() []int {
	deg := make([]int, g.NumNodes)
	for _, e := range g.Edges {
		deg[e[0]]++
		deg[e[1]]++
	}
	return deg
}

// Stats returns the graph's statistics (no features, no classes).
func (g *GeometricGraph) Stats() Stats {
	isolated := 0
	for _, d := range g.Degrees() {
		if d == 0 {
			isolated++
		}
	}
	return Stats{
		Dataset:            "rgg",
		NumNodes:           g.NumNodes,
		NumDirectedEdges:   2 * len(g.Edges),
		NumUndirectedEdges: len(g.Edges),
		NumIsolatedNodes:   isolated,
	}
}

// NormalizedLaplacian returns the augmented normalised Laplacian of the paper's Theorem 2,
// Δ̃ = I − D̃^{-1/2}(A+I)D̃^{-1/2} with D̃ = D + I, as a dense symmetric N×N matrix.
// Its eigenvalues lie in [0, 2); P = I − Δ̃ is GCN's propagation matrix.
func (g *GeometricGraph) NormalizedLaplacian() *mat.SymDense {
	n := g.NumNodes
	deg := g.Degrees()
	inv := make([]float64, n)
	for i, d := range deg {
		inv[i] = 1 / math.Sqrt(float64(d+1))
	}
	lap := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		lap.SetSym(i, i, 1-inv[i]*inv[i])
	}
	for _, e := range g.Edges {
		u, v := int(e[0]), int(e[1])
		lap.SetSym(u, v, -inv[u]*inv[v])
	}
	return lap
}

// Spectrum is the eigen-decomposition of a symmetric matrix: eigenvalues in ascending
// order and the matching unit eigenvectors as the columns of Vectors.
type Spectrum struct {
	Values  []float64
	Vectors *mat.Dense
}

// LaplacianSpectrum eigen-decomposes NormalizedLaplacian.
func (g *GeometricGraph) LaplacianSpectrum() (*Spectrum, error) {
	var eig mat.EigenSym
	if ok := eig.Factorize(g.NormalizedLaplacian(), true); !ok {
		return nil, fmt.Errorf("random geometric graph (n=%d, radius=%v, seed=%d): eigen-decomposition did not converge",
			g.NumNodes, g.Radius, g.Seed)
	}
	s := &Spectrum{Values: eig.Values(nil), Vectors: &mat.Dense{}}
	eig.VectorsTo(s.Vectors)
	return s, nil
}

// SmoothSignal returns a random linear combination of the eigenvectors of the k smallest
// eigenvalues, with coefficients drawn from a standard normal (seeded), shaped [N, channels].
// This is the input signal of the paper's Figure 4 (k = 20).
func (s *Spectrum) SmoothSignal(k, channels int, seed uint64) (*mat.Dense, error) {
	n, _ := s.Vectors.Dims()
	if k <= 0 || k > n || channels <= 0 {
		return nil, fmt.Errorf("smooth signal: k=%d channels=%d, want 1 ≤ k ≤ %d and channels ≥ 1", k, channels, n)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5349_474e))
	coef := mat.NewDense(k, channels, nil)
	for i := 0; i < k; i++ {
		for j := 0; j < channels; j++ {
			coef.Set(i, j, rng.NormFloat64())
		}
	}
	var x mat.Dense
	x.Mul(s.Vectors.Slice(0, n, 0, k), coef)
	return &x, nil
}
