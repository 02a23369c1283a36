package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
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
