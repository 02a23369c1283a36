package stagnb

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/gomlx/support/exceptions"
	"gonum.org/v1/gonum/mat"
)

// NormalizedLaplacian is the augmented normalised Laplacian of the paper's Theorem 2 (Cai & Wang's),
// Δ̃ = I − D̃^-½ (A+I) D̃^-½ with D̃ = D + I, of the graph el, as a dense symmetric N×N matrix on
// the host (8·N² bytes: 59 MB for Cora), for analysis, not for training. Its eigenvalues lie in
// [0, 2), with one 0 per connected component; I − Δ̃ is GCN's propagation matrix, and
// tr(Xᵀ Δ̃ X) is DirichletEnergy.
//
// A is el's adjacency without its self-loops, which are ignored (Ã adds them); a repeated edge
// counts as many times as it is listed. el must be symmetric: each edge is listed as many times
// in one direction as in the other (UndirectedEdgeList does so), else the error names the first
// edge that is not.
func NormalizedLaplacian(el *EdgeList) (*mat.SymDense, error) {
	count, deg, err := undirectedDegrees("NormalizedLaplacian", el)
	if err != nil {
		return nil, err
	}
	inv := make([]float64, el.NumNodes)
	lap := mat.NewSymDense(el.NumNodes, nil)
	for v, d := range deg {
		inv[v] = 1 / math.Sqrt(1+d)
		lap.SetSym(v, v, 1-inv[v]*inv[v])
	}
	for p, c := range count {
		if p[0] < p[1] {
			u, v := int(p[0]), int(p[1])
			lap.SetSym(u, v, -float64(c)*inv[u]*inv[v])
		}
	}
	return lap, nil
}

// undirectedDegrees validates el and checks that it is symmetric: every edge u→v (u ≠ v) listed
// as many times as v→u. It returns how many times each edge u→v (u ≠ v) is listed and each node's
// degree without self-loops (repeated edges counted); fn names the caller in errors.
func undirectedDegrees(fn string, el *EdgeList) (count map[[2]int32]int, deg []float64, err error) {
	if err := el.Validate(); err != nil {
		return nil, nil, fmt.Errorf("stagnb.%s: %w", fn, err)
	}
	count = map[[2]int32]int{}
	deg = make([]float64, el.NumNodes)
	for e := range el.Src {
		if u, v := el.Src[e], el.Dst[e]; u != v {
			count[[2]int32{u, v}]++
			deg[v]++
		}
	}
	for e := range el.Src {
		if u, v := el.Src[e], el.Dst[e]; u != v && count[[2]int32{u, v}] != count[[2]int32{v, u}] {
			return nil, nil, fmt.Errorf("stagnb.%s: edge %d: %d→%d is listed ×%d but %d→%d ×%d: the edge list must be symmetric",
				fn, e, u, v, count[[2]int32{u, v}], v, u, count[[2]int32{v, u}])
		}
	}
	return count, deg, nil
}

// NumComponents returns the number of connected components of the graph, ignoring the
// direction of the edges (an isolated node is a component). It panics with Validate's error if el
// is not a valid edge list.
func (el *EdgeList) NumComponents() int {
	if err := el.Validate(); err != nil {
		exceptions.Panicf("stagnb.EdgeList.NumComponents: %v", err)
	}
	parent := make([]int32, el.NumNodes)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	n := el.NumNodes
	for e := range el.Src {
		if a, b := find(el.Src[e]), find(el.Dst[e]); a != b {
			parent[a] = b
			n--
		}
	}
	return n
}

// Spectrum is the eigen-decomposition of a symmetric matrix: the eigenvalues in ascending order
// and the matching unit eigenvectors as the columns of Vectors.
type Spectrum struct {
	Values  []float64
	Vectors *mat.Dense
}

// NewSpectrum eigen-decomposes the symmetric matrix m, such as a NormalizedLaplacian.
func NewSpectrum(m mat.Symmetric) (*Spectrum, error) {
	var eig mat.EigenSym
	if ok := eig.Factorize(m, true); !ok {
		return nil, fmt.Errorf("stagnb.NewSpectrum: the eigen-decomposition of the %d×%d matrix did not converge", m.SymmetricDim(), m.SymmetricDim())
	}
	s := &Spectrum{Values: eig.Values(nil), Vectors: &mat.Dense{}}
	eig.VectorsTo(s.Vectors)
	return s, nil
}

// SmoothSignal returns a random linear combination of the eigenvectors of the k smallest
// eigenvalues, with coefficients drawn from a standard normal (seeded), shaped [N, channels]: a
// signal of low Dirichlet energy, at most λ_k·‖X‖². This is the input signal of the paper's
// Figure 4 (k = 20).
func (s *Spectrum) SmoothSignal(k, channels int, seed uint64) (*mat.Dense, error) {
	n, _ := s.Vectors.Dims()
	if k <= 0 || k > n || channels <= 0 {
		return nil, fmt.Errorf("stagnb.Spectrum.SmoothSignal: k=%d channels=%d, want 1 ≤ k ≤ %d and channels ≥ 1", k, channels, n)
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
