package stagnb

import (
	"fmt"
	"math"
	"slices"
)

// Dirichlet computes Dirichlet energies (DirichletEnergy) on one graph: NewDirichlet checks the
// edge list and takes the degrees once, and Energy then costs one pass over the edges per signal,
// for callers that measure many signals on the same graph (Figure 4, Theorem 2).
type Dirichlet struct {
	el    *EdgeList
	scale []float64 // 1/√(1+d) per node
	fn    string    // the function named in Energy's errors
}

// NewDirichlet prepares the Dirichlet energy on el, which must be a valid, symmetric edge list.
func NewDirichlet(el *EdgeList) (*Dirichlet, error) {
	d, err := newDirichlet("NewDirichlet", el)
	if err == nil {
		d.fn = "Dirichlet.Energy"
	}
	return d, err
}

func newDirichlet(fn string, el *EdgeList) (*Dirichlet, error) {
	_, deg, err := undirectedDegrees(fn, el)
	if err != nil {
		return nil, err
	}
	scale := make([]float64, el.NumNodes)
	for v, d := range deg {
		scale[v] = 1 / math.Sqrt(1+d)
	}
	return &Dirichlet{el: el, scale: scale, fn: fn}, nil
}

// DirichletEnergy is E(X) = tr(Xᵀ Δ̃ X) for node features x (`x[node][channel]`) on the graph el,
// with the normalised Laplacian Δ̃ = I − D̃^-½ (A+I) D̃^-½ of Cai & Wang (the paper's Definition 3.1).
// It is computed on the edge list as
//
//	½ Σ_{(i,j)∈E} Σ_c (x_ic/√(1+d_i) − x_jc/√(1+d_j))²
//
// where E lists each undirected edge in both directions and d is the degree without self-loops;
// self-loops in el are ignored (Ã adds them). The edge list must be symmetric (an error otherwise).
// For many signals on one graph, NewDirichlet checks the graph once.
func DirichletEnergy(el *EdgeList, x [][]float64) (float64, error) {
	d, err := newDirichlet("DirichletEnergy", el)
	if err != nil {
		return 0, err
	}
	return d.Energy(x)
}

// Energy is DirichletEnergy of x on the prepared graph.
func (d *Dirichlet) Energy(x [][]float64) (float64, error) {
	el, scale := d.el, d.scale
	if len(x) != el.NumNodes {
		return 0, fmt.Errorf("stagnb.%s: %d feature rows for %d nodes", d.fn, len(x), el.NumNodes)
	}
	var energy float64
	for e := range el.Src {
		i, j := el.Src[e], el.Dst[e]
		if i == j {
			continue
		}
		if len(x[i]) != len(x[j]) {
			return 0, fmt.Errorf("stagnb.%s: rows %d and %d have %d and %d channels", d.fn, i, j, len(x[i]), len(x[j]))
		}
		for c := range x[i] {
			diff := x[i][c]*scale[i] - x[j][c]*scale[j]
			energy += diff * diff
		}
	}
	return energy / 2, nil
}

// DirichletEnergyScalar is E(f) = fᵀ Δ̃ f for one scalar signal f (one value per node).
func DirichletEnergyScalar(el *EdgeList, f []float64) (float64, error) {
	x := make([][]float64, len(f))
	for i, v := range f {
		x[i] = []float64{v}
	}
	return DirichletEnergy(el, x)
}

// ExpSumUniformExpectation is the closed form of E[exp(SUM(ξ_U(0,1)(X)))] for a multiset X of reals
// (the last column of the paper's Table 1): with z_i ~ Uniform(0, 1) independent,
//
//	E[exp(Σ z_i x_i)] = Π_i E[exp(z_i x_i)] = Π_i (e^{x_i} − 1)/x_i,
//
// the factor being 1 when x_i = 0. The paper prints these products without the 1/x_i factors.
func ExpSumUniformExpectation(multiset []float64) float64 {
	p := 1.0
	for _, x := range multiset {
		if x != 0 {
			p *= math.Expm1(x) / x
		}
	}
	return p
}

// MultisetSum is SUM of a multiset.
func MultisetSum(m []float64) float64 {
	var s float64
	for _, x := range m {
		s += x
	}
	return s
}

// MultisetMean is MEAN of a non-empty multiset (NaN when empty).
func MultisetMean(m []float64) float64 { return MultisetSum(m) / float64(len(m)) }

// MultisetMax is MAX of a non-empty multiset (−Inf when empty).
func MultisetMax(m []float64) float64 {
	if len(m) == 0 {
		return math.Inf(-1)
	}
	return slices.Max(m)
}

// MultisetMin is MIN of a non-empty multiset (+Inf when empty).
func MultisetMin(m []float64) float64 {
	if len(m) == 0 {
		return math.Inf(1)
	}
	return slices.Min(m)
}

// MultisetStd is the population standard deviation √(mean(x²) − mean(x)²) of a non-empty
// multiset, the same STD that Aggregate computes.
func MultisetStd(m []float64) float64 {
	mean := MultisetMean(m)
	var v float64
	for _, x := range m {
		v += (x - mean) * (x - mean)
	}
	return math.Sqrt(v / float64(len(m)))
}
