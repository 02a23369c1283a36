package stagnb_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/stagnb"
	"gonum.org/v1/gonum/mat"
)

// laplacianSpectrum returns the NormalizedLaplacian of el and its Spectrum.
func laplacianSpectrum(t *testing.T, el *stagnb.EdgeList) (*mat.SymDense, *stagnb.Spectrum) {
	t.Helper()
	lap, err := stagnb.NormalizedLaplacian(el)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := stagnb.NewSpectrum(lap)
	if err != nil {
		t.Fatal(err)
	}
	return lap, spec
}

// TestNormalizedLaplacianByHand checks Δ̃ on the path 0 – 1 – 2 with a self-loop on node 1 (ignored)
// and an isolated node 3: D̃ = diag(2, 3, 2, 1), so the diagonal is 1 − 1/d̃ = (1/2, 2/3, 1/2, 0)
// and the two edges give −1/√6.
func TestNormalizedLaplacianByHand(t *testing.T) {
	el, err := stagnb.NewEdgeList(4, []int32{0, 1, 1, 2, 1}, []int32{1, 0, 2, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	lap, err := stagnb.NormalizedLaplacian(el)
	if err != nil {
		t.Fatal(err)
	}
	r6 := 1 / math.Sqrt(6)
	want := [][]float64{
		{0.5, -r6, 0, 0},
		{-r6, 2.0 / 3, -r6, 0},
		{0, -r6, 0.5, 0},
		{0, 0, 0, 0},
	}
	for i := range want {
		for j := range want[i] {
			if got := lap.At(i, j); math.Abs(got-want[i][j]) > 1e-15 {
				t.Errorf("Δ̃[%d][%d] = %g, want %g", i, j, got, want[i][j])
			}
		}
	}
	if got := el.NumComponents(); got != 2 {
		t.Errorf("NumComponents = %d, want 2 (the path and node 3)", got)
	}
}

// TestNormalizedLaplacianSpectrum checks the spectrum of Δ̃ on a random geometric graph: ascending
// eigenvalues in [0, 2), D̃^½·1 in the null space, one zero eigenvalue per connected component, and
// V diag(λ) Vᵀ = Δ̃.
func TestNormalizedLaplacianSpectrum(t *testing.T) {
	g, el := rgg(t, 200, 0.125, 3)
	lap, spec := laplacianSpectrum(t, el)
	for i, v := range spec.Values {
		if v < -1e-12 || v >= 2 || (i > 0 && v < spec.Values[i-1]) {
			t.Fatalf("eigenvalue %d = %v: want ascending values in [0,2)", i, v)
		}
	}
	v := mat.NewVecDense(g.NumNodes, nil)
	for i, d := range g.Degrees() {
		v.SetVec(i, math.Sqrt(float64(d+1)))
	}
	var lv mat.VecDense
	lv.MulVec(lap, v)
	if norm := mat.Norm(&lv, 2); norm > 1e-12 {
		t.Errorf("|Δ̃ D̃^½ 1| = %g, want 0", norm)
	}
	zeros := 0
	for _, v := range spec.Values {
		if v < 1e-9 {
			zeros++
		}
	}
	if c := el.NumComponents(); zeros != c {
		t.Errorf("%d zero eigenvalues, %d connected components", zeros, c)
	}
	var rec, tmp, diff mat.Dense
	tmp.Mul(spec.Vectors, mat.NewDiagDense(len(spec.Values), spec.Values))
	rec.Mul(&tmp, spec.Vectors.T())
	diff.Sub(&rec, lap)
	if d := mat.Norm(&diff, math.Inf(1)); d > 1e-10 {
		t.Errorf("|VΛVᵀ − Δ̃|∞ = %g", d)
	}
}

// TestNormalizedLaplacianRepeatedEdges checks that an edge listed twice (in both directions)
// weighs twice in A and in the degrees.
func TestNormalizedLaplacianRepeatedEdges(t *testing.T) {
	el, err := stagnb.NewEdgeList(2, []int32{0, 1, 0, 1}, []int32{1, 0, 1, 0})
	if err != nil {
		t.Fatal(err)
	}
	lap, err := stagnb.NormalizedLaplacian(el)
	if err != nil {
		t.Fatal(err)
	}
	// D̃ = diag(3, 3): diagonal 1 − 1/3, off-diagonal −2/3.
	if d, o := lap.At(0, 0), lap.At(0, 1); math.Abs(d-2.0/3) > 1e-15 || math.Abs(o+2.0/3) > 1e-15 {
		t.Errorf("Δ̃ = [[%g, %g], …], want [[2/3, −2/3], …]", d, o)
	}
}

// TestNormalizedLaplacianBadInput checks that a one-way edge and an invalid edge list are refused
// with errors that name them.
func TestNormalizedLaplacianBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		el   *stagnb.EdgeList
		want string
	}{
		{"one-way edge", &stagnb.EdgeList{NumNodes: 3, Src: []int32{0, 1, 1}, Dst: []int32{1, 0, 2}}, "edge 2: 1→2 is listed ×1 but 2→1 ×0"},
		{"edge listed twice one way", &stagnb.EdgeList{NumNodes: 2, Src: []int32{0, 0, 1}, Dst: []int32{1, 1, 0}}, "edge 0: 0→1 is listed ×2 but 1→0 ×1"},
		{"node out of range", &stagnb.EdgeList{NumNodes: 2, Src: []int32{0}, Dst: []int32{2}}, "outside the 2 nodes"},
	} {
		_, err := stagnb.NormalizedLaplacian(tc.el)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestSmoothSignalLiesInTheLowSpectrum checks that the signal's Dirichlet energy tr(XᵀΔ̃X) is at most
// λ_k·‖X‖²_F, as X lies in the span of the first k eigenvectors, and that k = 0 is refused.
func TestSmoothSignalLiesInTheLowSpectrum(t *testing.T) {
	_, el := rgg(t, 200, 0.125, 5)
	lap, spec := laplacianSpectrum(t, el)
	const k = 20
	x, err := spec.SmoothSignal(k, 3, 9)
	if err != nil {
		t.Fatal(err)
	}
	var lx, xtlx mat.Dense
	lx.Mul(lap, x)
	xtlx.Mul(x.T(), &lx)
	energy := mat.Trace(&xtlx)
	fro2 := math.Pow(mat.Norm(x, 2), 2) // mat.Norm of a matrix with 2 is the Frobenius norm
	if bound := spec.Values[k-1] * fro2; energy > bound*(1+1e-9) || energy < 0 || energy < 1e-6*fro2 {
		t.Errorf("Dirichlet energy %g, want within (0, λ_k·|X|²_F = %g]", energy, bound)
	}
	for _, bad := range [][2]int{{0, 1}, {-1, 1}, {201, 1}, {k, 0}} {
		if _, err := spec.SmoothSignal(bad[0], bad[1], 0); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("k=%d channels=%d", bad[0], bad[1])) {
			t.Errorf("SmoothSignal(k=%d, channels=%d): error %v, want one naming both", bad[0], bad[1], err)
		}
	}
}

// TestNumComponents counts components on small graphs, with one-way edges (direction is ignored),
// self-loops and isolated nodes, and checks that an invalid edge list panics with its error.
func TestNumComponents(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		src, dst []int32
		want     int
	}{
		{"one node", 1, nil, nil, 1},
		{"isolated nodes", 3, nil, nil, 3},
		{"self-loop only", 2, []int32{1}, []int32{1}, 2},
		{"one-way chain 0→1→2", 3, []int32{0, 1}, []int32{1, 2}, 1},
		{"one-way edges into node 1, node 3 apart", 4, []int32{0, 2}, []int32{1, 1}, 2},
		{"edges pointing down 2→1, 1→0", 3, []int32{2, 1}, []int32{1, 0}, 1},
		{"two triangles", 6, []int32{0, 1, 2, 3, 4, 5}, []int32{1, 2, 0, 4, 5, 3}, 2},
	} {
		el, err := stagnb.NewEdgeList(tc.n, tc.src, tc.dst)
		if err != nil {
			t.Fatal(err)
		}
		if got := el.NumComponents(); got != tc.want {
			t.Errorf("%s: %d components, want %d", tc.name, got, tc.want)
		}
	}
	defer func() {
		if msg := fmt.Sprint(recover()); !strings.Contains(msg, "NumComponents") || !strings.Contains(msg, "outside the 2 nodes") {
			t.Errorf("invalid edge list: panic %q, want one naming NumComponents and the bad edge", msg)
		}
	}()
	(&stagnb.EdgeList{NumNodes: 2, Src: []int32{0}, Dst: []int32{5}}).NumComponents()
}
