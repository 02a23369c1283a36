package experiments

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
)

// Figure4Config is the setting of the paper's Figure 4 (§7 and §9.1 "For Section STAG Alleviates
// Over-Smoothing", after Cai & Wang 2020): a random geometric graph, a smooth random signal on
// it, and repeated GCN propagation X ← P(Z ⊙ X) with P = D̃^-½(A+I)D̃^-½.
type Figure4Config struct {
	// Nodes and Radius define the random geometric graph on the unit square (200 and 0.125);
	// GraphSeed seeds its points.
	Nodes     int
	Radius    float64
	GraphSeed uint64
	// Eigenvectors is how many eigenvectors of the smallest eigenvalues of Δ̃ the signal
	// combines (20), Channels its number of channels C (1: "a random signal", the scalar f of
	// Definition 3.1), and SignalSeed seeds its standard-normal coefficients.
	Eigenvectors, Channels int
	SignalSeed             uint64
	// Depth is the number of propagation steps L (20).
	Depth int
	// Runs is the number of independent noise draws per curve (10, as in the paper).
	Runs int
	// Seed seeds the noise (the model store's RNG); curve i uses Seed + i.
	Seed int64
	// TheoremSamples is the number of Monte-Carlo draws of one noisy step per row of the
	// Theorem 2 table: 5000, quick 2000.
	TheoremSamples int
}

// Figure4Settings returns the Figure 4 setting for the notebook settings s: the paper's graph and
// signal (both seeded with s.Seed), 20 steps and 10 runs in both modes (under a second on two
// cores), and 5000 Monte-Carlo draws per row of the Theorem 2 table (quick: 2000).
func Figure4Settings(s Settings) Figure4Config {
	c := Figure4Config{
		Nodes: 200, Radius: 0.125, GraphSeed: uint64(s.Seed),
		Eigenvectors: 20, Channels: 1, SignalSeed: uint64(s.Seed),
		Depth: 20, Runs: 10, Seed: s.Seed, TheoremSamples: 5_000,
	}
	if s.Quick {
		c.TheoremSamples = 2_000
	}
	return c
}

// Figure4Setup is the graph and the input signal of Figure 4.
type Figure4Setup struct {
	// Config is the setting it was made from.
	Config Figure4Config
	// Graph is the random geometric graph.
	Graph *datasets.GeometricGraph
	// Edges is its edge list with a self-loop on every node (Ã = A + I): the edges that carry
	// the messages, and the noise, of P.
	Edges *stagnb.EdgeList
	// Laplacian is Δ̃ = I − D̃^-½ Ã D̃^-½, and Spectrum its eigenvalues (ascending) and
	// eigenvectors.
	Laplacian *mat.SymDense
	Spectrum  *stagnb.Spectrum
	// Signal is the input X₀, `[Nodes][Channels]`: a standard-normal combination of the
	// eigenvectors of the Eigenvectors smallest eigenvalues.
	Signal [][]float64
}

// NewFigure4Setup draws the graph and the signal of cfg.
func NewFigure4Setup(cfg Figure4Config) (*Figure4Setup, error) {
	g, err := datasets.RandomGeometricGraph(cfg.Nodes, cfg.Radius, cfg.GraphSeed)
	if err != nil {
		return nil, fmt.Errorf("experiments.NewFigure4Setup: %w", err)
	}
	el, err := stagnb.UndirectedEdgeList(cfg.Nodes, g.Edges)
	if err != nil {
		return nil, fmt.Errorf("experiments.NewFigure4Setup: %w", err)
	}
	lap, err := stagnb.NormalizedLaplacian(el)
	if err != nil {
		return nil, fmt.Errorf("experiments.NewFigure4Setup: %w", err)
	}
	spec, err := stagnb.NewSpectrum(lap)
	if err != nil {
		return nil, fmt.Errorf("experiments.NewFigure4Setup: %w", err)
	}
	sig, err := spec.SmoothSignal(cfg.Eigenvectors, cfg.Channels, cfg.SignalSeed)
	if err != nil {
		return nil, fmt.Errorf("experiments.NewFigure4Setup: %w", err)
	}
	x := make([][]float64, cfg.Nodes)
	for i := range x {
		x[i] = mat.Row(nil, i, sig)
	}
	return &Figure4Setup{
		Config: cfg, Graph: g, Edges: el.WithSelfLoops(),
		Laplacian: lap, Spectrum: spec, Signal: x,
	}, nil
}

// Components returns the number of connected components of the graph (isolated nodes count).
func (s *Figure4Setup) Components() int { return s.Edges.NumComponents() }

// Figure4SetupTable describes the graph and the signal (nodes, edges, degrees, components, the
// smallest and largest eigenvalues of Δ̃, the signal's energy and size) and the sizes of the runs.
func Figure4SetupTable(s *Figure4Setup) figures.Table {
	deg := s.Graph.Degrees()
	mean := 0.0
	for _, d := range deg {
		mean += float64(d)
	}
	mean /= float64(len(deg))
	e0, _ := stagnb.DirichletEnergy(s.Edges, s.Signal)
	c := s.Config
	k := c.Eigenvectors
	st := s.Graph.Stats()
	ev := s.Spectrum.Values
	return figures.Table{
		Title:  "The random geometric graph and its signal",
		Header: []string{"quantity", "value"},
		Right:  []bool{false, true},
		Rows: [][]string{
			{"nodes, radius, seed", fmt.Sprintf("%d, %g, %d", c.Nodes, c.Radius, c.GraphSeed)},
			{"undirected edges (without self-loops)", strconv.Itoa(st.NumUndirectedEdges)},
			{"mean degree (min, max)", fmt.Sprintf("%.2f (%d, %d)", mean, slices.Min(deg), slices.Max(deg))},
			{"isolated nodes", strconv.Itoa(st.NumIsolatedNodes)},
			{"connected components (= multiplicity of eigenvalue 0)", strconv.Itoa(s.Components())},
			{"eigenvalues of Δ̃: λ₁, λ₂, …, λ_" + strconv.Itoa(k), fmt.Sprintf("%.4f, %.4f, …, %.4f", math.Abs(ev[0]), ev[1], ev[k-1])},
			{"largest eigenvalue of Δ̃, λ_N", fmt.Sprintf("%.4f", ev[len(ev)-1])},
			{"signal X₀: channels, coefficients seed", fmt.Sprintf("%d, %d", c.Channels, c.SignalSeed)},
			{"E(X₀), ‖X₀‖²", fmt.Sprintf("%.4g, %.4g", e0, fig4SqNorm(s.Signal))},
			{"propagation steps L, runs per curve, noise seed", fmt.Sprintf("%d, %d, %d", c.Depth, c.Runs, c.Seed)},
			{"Monte-Carlo draws per row of the Theorem 2 table", strconv.Itoa(c.TheoremSamples)},
		},
		Footnotes: []string{
			"Δ̃ = I − D̃^-½(A+I)D̃^-½ (stagnb.NormalizedLaplacian); X₀ = Σ_{k≤" + strconv.Itoa(k) + "} c_k u_k with c_k ~ Normal(0, 1) (stagnb.Spectrum.SmoothSignal).",
		},
	}
}

// Figure4Noise is one curve's noise: a distribution of the multiplicative noise z, drawn per edge
// and feature at every step (stagnb.StructureSTAG), with its legend name and colour index.
type Figure4Noise struct {
	// Name is the legend entry.
	Name string
	// Dist is the law of z; stagnb.NoNoise() is the deterministic propagation.
	Dist stagnb.Distribution
	// Method picks the colour (figures.Color).
	Method int
}

// fig4Dist panics on an invalid literal distribution (only used for the fixed lists below).
func fig4Dist(d stagnb.Distribution, err error) stagnb.Distribution {
	if err != nil {
		panic(err)
	}
	return d
}

// Figure4Noises are the curves of Figure 4: the deterministic propagation and three noise
// classes with E z = 0.5 and Var z = 0.25: Normal(0.5, σ = 0.5), Uniform(0.5 − √3/2, 0.5 + √3/2)
// and Bernoulli with drop rate 0.5 and no rescaling (z ∈ {0, 1}, DropEdge-like). The uniform's
// bounds 0.5 ∓ √3/2 are printed rounded in its name.
func Figure4Noises() []Figure4Noise {
	h := math.Sqrt(3) / 2
	return []Figure4Noise{
		{"deterministic", stagnb.NoNoise(), 0},
		{"Normal(0.5, 0.5)", fig4Dist(stagnb.Normal(0.5, 0.5)), 1},
		{"Uniform(−0.366, 1.366)", fig4Dist(stagnb.Uniform(0.5-h, 0.5+h)), 2},
		{"Bernoulli(keep 0.5)", fig4Dist(stagnb.Bernoulli(0.5, false)), 3},
	}
}

// Theorem2Noises are noises that satisfy Theorem 2's condition |E z| ≥ 1, each with E z = 1:
// Normal(1, σ = 0.5) (Var 0.25), Uniform(0.5, 1.5) (Var 1/12) and Bernoulli with drop rate 0.5
// rescaled (z ∈ {0, 2}, Var 1, Dropout/DropEdge as usually implemented). Each keeps the colour
// of its family in Figure4Noises.
func Theorem2Noises() []Figure4Noise {
	return []Figure4Noise{
		{"Normal(1, 0.5)", fig4Dist(stagnb.Normal(1, 0.5)), 1},
		{"Uniform(0.5, 1.5)", fig4Dist(stagnb.Uniform(0.5, 1.5)), 2},
		{"Bernoulli(keep 0.5, rescaled)", fig4Dist(stagnb.Bernoulli(0.5, true)), 3},
	}
}

// NoisyPropagation runs X ← P(Z ⊙ X) for depth steps from x0 (`[N][C]`) with copies independent
// noise draws at once, in one GoMLX graph on backend (float64): each step is
// stagnb.StochasticAggregate (AggSum, NormBoth) on el, whose edges must include the self-loops,
// with the noise d drawn per edge and feature (StructureSTAG) and fresh at every step; the copies
// are extra feature channels, so their draws are independent. The RNG is seeded with seed.
//
// It returns states[k][copy] = X_k as `[N][C]`, for k = 0 … depth.
func NoisyPropagation(backend compute.Backend, el *stagnb.EdgeList, x0 [][]float64, d stagnb.Distribution, depth, copies int, seed int64) ([][][][]float64, error) {
	if backend == nil {
		return nil, fmt.Errorf("experiments.NoisyPropagation: nil backend")
	}
	n := el.NumNodes
	if len(x0) != n || n == 0 || len(x0[0]) == 0 {
		return nil, fmt.Errorf("experiments.NoisyPropagation: x0 has %d rows, want %d rows of at least one channel", len(x0), n)
	}
	c := len(x0[0])
	if depth < 0 || copies < 1 {
		return nil, fmt.Errorf("experiments.NoisyPropagation: depth = %d, copies = %d, want depth ≥ 0 and copies ≥ 1", depth, copies)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("experiments.NoisyPropagation: %w", err)
	}
	flat := make([]float64, 0, n*c)
	for i, row := range x0 {
		if len(row) != c {
			return nil, fmt.Errorf("experiments.NoisyPropagation: row %d of x0 has %d channels, want %d", i, len(row), c)
		}
		flat = append(flat, row...)
	}
	w := copies * c
	noise := stagnb.NewNoise(d, stagnb.StructureSTAG)
	store := model.NewStore()
	if err := store.SetRNGStateFromSeed(seed); err != nil {
		return nil, fmt.Errorf("experiments.NoisyPropagation: %w", err)
	}
	out, err := model.CallOnce(backend, store, func(scope *model.Scope, g *graph.Graph) *graph.Node {
		// The copies are tiled in the graph: [N, C] → [N, copies, C] → [N, copies·C].
		x := graph.Reshape(graph.Const(g, flat), n, 1, c)
		x = graph.Reshape(graph.BroadcastToDims(x, n, copies, c), n, w)
		edges := el.Const(g)
		states := []*graph.Node{x}
		for range depth {
			x = stagnb.StochasticAggregate(scope, x, edges, stagnb.AggSum, stagnb.NormBoth, noise)
			states = append(states, x)
		}
		return graph.Stack(states, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("experiments.NoisyPropagation: %w", err)
	}
	if !out.Shape().Equal(shapes.Make(dtypes.Float64, depth+1, n, w)) {
		return nil, fmt.Errorf("experiments.NoisyPropagation: output shaped %s, want (Float64)[%d %d %d]", out.Shape(), depth+1, n, w)
	}
	vals, err := tensors.CopyFlatData[float64](out)
	if err != nil {
		return nil, fmt.Errorf("experiments.NoisyPropagation: %w", err)
	}
	states := make([][][][]float64, depth+1)
	for s := range states {
		states[s] = make([][][]float64, copies)
		for k := range copies {
			x := make([][]float64, n)
			for i := range x {
				off := s*n*w + i*w + k*c
				x[i] = vals[off : off+c : off+c]
			}
			states[s][k] = x
		}
	}
	return states, nil
}

// Propagation returns P = I − Δ̃ = D̃^-½(A+I)D̃^-½ as a dense N×N matrix.
func (s *Figure4Setup) Propagation() *mat.Dense {
	n := s.Graph.NumNodes
	p := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			p.Set(i, j, -s.Laplacian.At(i, j))
		}
		p.Set(i, i, 1-s.Laplacian.At(i, i))
	}
	return p
}

// Smoothed returns P^k X, the deterministic propagation of x (`[N][C]`) for k steps, computed on
// the host.
func (s *Figure4Setup) Smoothed(x [][]float64, k int) [][]float64 {
	n, c := len(x), len(x[0])
	m := mat.NewDense(n, c, nil)
	for i, row := range x {
		m.SetRow(i, row)
	}
	p := s.Propagation()
	var next mat.Dense
	for range k {
		next.Mul(p, m)
		m.Copy(&next)
	}
	out := make([][]float64, n)
	for i := range out {
		out[i] = mat.Row(nil, i, m)
	}
	return out
}

// fig4SqNorm is ‖X‖²_F.
func fig4SqNorm(x [][]float64) float64 {
	var s float64
	for _, row := range x {
		for _, v := range row {
			s += v * v
		}
	}
	return s
}

// ExpectedEnergies returns the exact expectation E[E(X_k)] for k = 0 … depth of the noisy
// propagation X_{k+1} = P(Z_k ⊙ X_k) from x0 on the setup's graph, for noise with mean mu and
// variance v drawn independently per edge, feature and step (any distribution: only the two
// moments matter). With M_k = E[X_k X_kᵀ] (summed over the channels),
//
//	M_{k+1} = μ² P M_k P + v · diag(Q diag(M_k)),   Q_ij = P_ij²,
//
// because the messages reaching different nodes carry different noise values, and then
// E[E(X_k)] = tr(Δ̃ M_k). It also returns E‖X_k‖² = tr(M_k).
func ExpectedEnergies(s *Figure4Setup, x0 [][]float64, mu, v float64, depth int) (energy, sqnorm []float64) {
	n := s.Graph.NumNodes
	lap := s.Laplacian
	p := s.Propagation()
	q := mat.NewDense(n, n, nil)
	q.MulElem(p, p)
	m := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			var dot float64
			for c := range x0[i] {
				dot += x0[i][c] * x0[j][c]
			}
			m.Set(i, j, dot)
		}
	}
	measure := func() {
		var e, t float64
		for i := range n {
			t += m.At(i, i)
			for j := range n {
				e += lap.At(i, j) * m.At(j, i)
			}
		}
		energy, sqnorm = append(energy, e), append(sqnorm, t)
	}
	measure()
	var pm, next mat.Dense
	diag := make([]float64, n)
	for range depth {
		for i := range n {
			diag[i] = m.At(i, i)
		}
		pm.Mul(p, m)
		next.Mul(&pm, p)
		next.Scale(mu*mu, &next)
		for i := range n {
			var add float64
			for j := range n {
				add += q.At(i, j) * diag[j]
			}
			next.Set(i, i, next.At(i, i)+v*add)
		}
		m.Copy(&next)
		measure()
	}
	return energy, sqnorm
}

// EnergyCurve is the Dirichlet energy along the propagation for one noise, over several runs.
type EnergyCurve struct {
	// Noise is the noise of the curve.
	Noise Figure4Noise
	// Steps are 0 … L (step 0 is the input signal).
	Steps []float64
	// Energy[r][k] is E(X_k) in run r (stagnb.DirichletEnergy), and SqNorm[r][k] is ‖X_k‖²_F.
	Energy, SqNorm [][]float64
	// Mean and Std are the mean and the standard deviation (n − 1) of E(X_k) over the runs.
	Mean, Std []float64
	// QuotientMean and QuotientStd are the same for E(X_k)/‖X_k‖², the energy of the
	// normalised signal (a Rayleigh quotient of Δ̃, between 0 and 2).
	QuotientMean, QuotientStd []float64
	// Expected is the exact E[E(X_k)] (ExpectedEnergies).
	Expected []float64
	// Seed seeded the noise of this curve.
	Seed int64
}

// fig4MeanStd returns the mean and the standard deviation (n − 1; 0 for one value) of vs.
func fig4MeanStd(vs []float64) (mean, std float64) {
	for _, v := range vs {
		mean += v
	}
	mean /= float64(len(vs))
	if len(vs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(vs)-1))
}

// EnergyCurves propagates the setup's signal for depth steps under each noise, runs independent
// draws each (NoisyPropagation, seeded by seed + the noise's index), and measures the Dirichlet energy
// of every state with stagnb.DirichletEnergy, next to its exact expectation.
func EnergyCurves(backend compute.Backend, s *Figure4Setup, noises []Figure4Noise, depth, runs int, seed int64) ([]EnergyCurve, error) {
	if runs < 1 {
		return nil, fmt.Errorf("experiments.EnergyCurves: runs = %d, want at least 1", runs)
	}
	energy, err := stagnb.NewDirichlet(s.Edges)
	if err != nil {
		return nil, fmt.Errorf("experiments.EnergyCurves: %w", err)
	}
	curves := make([]EnergyCurve, len(noises))
	for i, nz := range noises {
		cs := seed + int64(i)
		states, err := NoisyPropagation(backend, s.Edges, s.Signal, nz.Dist, depth, runs, cs)
		if err != nil {
			return nil, fmt.Errorf("experiments.EnergyCurves %s: %w", nz.Name, err)
		}
		c := EnergyCurve{Noise: nz, Seed: cs, Energy: make([][]float64, runs), SqNorm: make([][]float64, runs)}
		for k := 0; k <= depth; k++ {
			c.Steps = append(c.Steps, float64(k))
		}
		for r := range runs {
			c.Energy[r] = make([]float64, depth+1)
			c.SqNorm[r] = make([]float64, depth+1)
			for k := 0; k <= depth; k++ {
				e, err := energy.Energy(states[k][r])
				if err != nil {
					return nil, fmt.Errorf("experiments.EnergyCurves %s: %w", nz.Name, err)
				}
				c.Energy[r][k], c.SqNorm[r][k] = e, fig4SqNorm(states[k][r])
			}
		}
		for k := 0; k <= depth; k++ {
			es, qs := make([]float64, runs), make([]float64, runs)
			for r := range runs {
				es[r] = c.Energy[r][k]
				if c.SqNorm[r][k] > 0 {
					qs[r] = es[r] / c.SqNorm[r][k]
				}
			}
			m, sd := fig4MeanStd(es)
			qm, qsd := fig4MeanStd(qs)
			c.Mean, c.Std = append(c.Mean, m), append(c.Std, sd)
			c.QuotientMean, c.QuotientStd = append(c.QuotientMean, qm), append(c.QuotientStd, qsd)
		}
		c.Expected, _ = ExpectedEnergies(s, s.Signal, nz.Dist.Mean(), nz.Dist.Variance(), depth)
		curves[i] = c
	}
	return curves, nil
}

// Figure4Curves computes the curves of Figure 4 for the notebook settings: the deterministic
// propagation and the three noises with mean 0.5 and variance 0.25 (Figure4Noises).
func Figure4Curves(backend compute.Backend, settings Settings) ([]EnergyCurve, error) {
	s, err := Figure4Setting(settings)
	if err != nil {
		return nil, err
	}
	return figure4Curves(backend, s)
}

// figure4Curves is Figure4Curves on a setup already made.
func figure4Curves(backend compute.Backend, s *Figure4Setup) ([]EnergyCurve, error) {
	return EnergyCurves(backend, s, Figure4Noises(), s.Config.Depth, s.Config.Runs, s.Config.Seed)
}

// Theorem2Curves computes the same curves for the deterministic propagation and the noises with
// E z = 1 that satisfy Theorem 2's condition (Theorem2Noises).
func Theorem2Curves(backend compute.Backend, settings Settings) ([]EnergyCurve, error) {
	s, err := Figure4Setting(settings)
	if err != nil {
		return nil, err
	}
	return theorem2Curves(backend, s)
}

// theorem2Curves is Theorem2Curves on a setup already made.
func theorem2Curves(backend compute.Backend, s *Figure4Setup) ([]EnergyCurve, error) {
	noises := append(Figure4Noises()[:1:1], Theorem2Noises()...)
	return EnergyCurves(backend, s, noises, s.Config.Depth, s.Config.Runs, s.Config.Seed)
}

// Figure4Setting returns the setup of the notebook settings (NewFigure4Setup of Figure4Settings).
func Figure4Setting(settings Settings) (*Figure4Setup, error) {
	return NewFigure4Setup(Figure4Settings(settings))
}

// EnergyPlot draws energy curves: for each curve the mean over its runs with a band of ± 1 std.
// The energy E(X_k) is drawn on a logarithmic y axis (figures.LogLines) with the exact
// expectation of each noisy curve as a dashed line of its colour, drawn once per distinct pair
// (E z, Var z) (the three noises of Figure 4 share theirs); with quotient it draws
// E(X_k)/‖X_k‖² on a linear axis (figures.Lines), without exact lines.
func EnergyPlot(title string, curves []EnergyCurve, quotient bool) (*plot.Plot, error) {
	if len(curves) == 0 {
		return nil, fmt.Errorf("experiments.EnergyPlot: no curves")
	}
	runs := len(curves[0].Energy)
	if runs > 1 {
		title += fmt.Sprintf(" (mean ± std, %d runs)", runs)
	}
	var series, exact []figures.Series
	shared := map[string]bool{}
	for _, c := range curves {
		y, sd := c.Mean, c.Std
		if quotient {
			y, sd = c.QuotientMean, c.QuotientStd
		}
		var band []float64
		if !c.Noise.Dist.IsNone() && runs > 1 {
			band = sd
		}
		series = append(series, figures.Series{Name: c.Noise.Name, Method: c.Noise.Method, X: c.Steps, Y: y, Std: band})
		if quotient || c.Noise.Dist.IsNone() {
			continue
		}
		key := fmt.Sprintf("%.9g|%.9g", c.Noise.Dist.Mean(), c.Noise.Dist.Variance())
		if shared[key] {
			continue
		}
		shared[key] = true
		exact = append(exact, figures.Series{Method: c.Noise.Method, X: c.Steps, Y: c.Expected, Dashed: true})
	}
	var p *plot.Plot
	var err error
	if quotient {
		p, err = figures.Lines(title, "propagation steps k", "E(X_k) / ‖X_k‖²", series)
	} else {
		p, err = figures.LogLines(title, "propagation steps k (dashed: exact expectation)", "Dirichlet energy E(X_k)", append(series, exact...))
	}
	if err != nil {
		return nil, fmt.Errorf("experiments.EnergyPlot: %w", err)
	}
	return p, nil
}

// Figure4Plot is the paper's Figure 4: the Dirichlet energy along 20 propagation steps on the
// random geometric graph, deterministic and with the three noises of mean 0.5 and variance 0.25,
// mean ± std over 10 runs, with the exact expectation dashed.
func Figure4Plot(backend compute.Backend, settings Settings) (*plot.Plot, error) {
	curves, err := Figure4Curves(backend, settings)
	if err != nil {
		return nil, err
	}
	return figure4Plot(curves)
}

// figure4Plot is Figure4Plot of curves already computed.
func figure4Plot(curves []EnergyCurve) (*plot.Plot, error) {
	return EnergyPlot("Figure 4: E z = 0.5, Var z = 0.25", curves, false)
}

// Figure4QuotientPlot draws the curves of Figure 4 normalised by the signal's size:
// E(X_k)/‖X_k‖², which measures how smooth X_k is whatever its scale.
func Figure4QuotientPlot(backend compute.Backend, settings Settings) (*plot.Plot, error) {
	curves, err := Figure4Curves(backend, settings)
	if err != nil {
		return nil, err
	}
	return figure4QuotientPlot(curves)
}

// figure4QuotientPlot is Figure4QuotientPlot of curves already computed.
func figure4QuotientPlot(curves []EnergyCurve) (*plot.Plot, error) {
	return EnergyPlot("Figure 4, normalised", curves, true)
}

// Theorem2Plot draws the Dirichlet energy for the noises with E z = 1 (Theorem2Noises) against
// the deterministic propagation, as Figure 4.
func Theorem2Plot(backend compute.Backend, settings Settings) (*plot.Plot, error) {
	curves, err := Theorem2Curves(backend, settings)
	if err != nil {
		return nil, err
	}
	return EnergyPlot("Noise with E z = 1 (Theorem 2)", curves, false)
}

// Theorem2Row is one check of Theorem 2's inequality E_q[E(ρ(ξ_q(X)))] ≥ E(ρ(X)) for one noise
// and one input X, with ρ = one GCN propagation step.
type Theorem2Row struct {
	// Input names X (Theorem2Input.Name).
	Input string
	// Noise is q.
	Noise Figure4Noise
	// Deterministic is E(ρ(X)) = E(PX).
	Deterministic float64
	// MC is the Monte-Carlo estimate of E_q[E(ρ(ξ_q(X)))] over Samples draws, and StdErr its
	// standard error.
	MC, StdErr float64
	// Exact is the closed form μ² E(PX) + Var z · Σ_i Δ̃_ii Σ_j P_ij² ‖x_j‖² (ExpectedEnergies).
	Exact float64
	// Samples is the number of draws and Seed their seed.
	Samples int
	Seed    int64
}

// ConditionMet reports whether the noise satisfies Theorem 2's condition |E z| ≥ 1.
func (r Theorem2Row) ConditionMet() bool { return math.Abs(r.Noise.Dist.Mean()) >= 1 }

// Holds reports whether the inequality holds by the exact expectation.
func (r Theorem2Row) Holds() bool { return r.Exact >= r.Deterministic }

// Z is the Monte-Carlo estimate's distance to the exact value in standard errors.
func (r Theorem2Row) Z() float64 { return (r.MC - r.Exact) / r.StdErr }

// fig4WhiteNoise returns n×c standard-normal values (seeded), a rough signal.
func fig4WhiteNoise(n, c int, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 0x5748_4954))
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = rng.NormFloat64()
		}
	}
	return out
}

// OverSmoothedSteps is the number of deterministic steps that make the over-smoothed input of the
// Theorem 2 check, P^50 X₀.
const OverSmoothedSteps = 50

// Theorem2Inputs are the inputs X of the Theorem 2 check: the smooth signal X₀ of Figure 4,
// white noise (standard normal per node and channel, seeded with seed), and the over-smoothed
// signal P^50 X₀ that 50 deterministic steps make of X₀ (OverSmoothedSteps).
func Theorem2Inputs(s *Figure4Setup, seed uint64) []Theorem2Input {
	c := s.Config
	return []Theorem2Input{
		{"smooth signal X₀", s.Signal},
		{"white noise", fig4WhiteNoise(c.Nodes, c.Channels, seed)},
		{fmt.Sprintf("over-smoothed P^%d X₀", OverSmoothedSteps), s.Smoothed(s.Signal, OverSmoothedSteps)},
	}
}

// Theorem2Input is one input X of the Theorem 2 check.
type Theorem2Input struct {
	// Name is shown in the table.
	Name string
	// X is `[N][C]`.
	X [][]float64
}

// theorem2Chunk bounds the Monte-Carlo draws made in one graph, to bound its memory.
const theorem2Chunk = 5_000

// Theorem2Check estimates, for every input X and noise, E_q[E(ρ(ξ_q(X)))] by Monte Carlo over
// samples draws of one noisy propagation step (NoisyPropagation with depth 1, in chunks), next to its
// closed form and the deterministic E(ρ(X)). Row j·len(inputs)+i is noise j and input i.
func Theorem2Check(backend compute.Backend, s *Figure4Setup, inputs []Theorem2Input, noises []Figure4Noise, samples int, seed int64) ([]Theorem2Row, error) {
	if samples < 2 {
		return nil, fmt.Errorf("experiments.Theorem2Check: samples = %d, want at least 2", samples)
	}
	energy, err := stagnb.NewDirichlet(s.Edges)
	if err != nil {
		return nil, fmt.Errorf("experiments.Theorem2Check: %w", err)
	}
	var rows []Theorem2Row
	for ni, nz := range noises {
		for ii, in := range inputs {
			det, _ := ExpectedEnergies(s, in.X, 1, 0, 1)
			exact, _ := ExpectedEnergies(s, in.X, nz.Dist.Mean(), nz.Dist.Variance(), 1)
			row := Theorem2Row{Input: in.Name, Noise: nz, Deterministic: det[1], Exact: exact[1], Samples: samples,
				Seed: seed + int64(100*ni+ii)}
			var es []float64
			for done, chunk := 0, 0; done < samples; chunk++ {
				k := min(theorem2Chunk, samples-done)
				states, err := NoisyPropagation(backend, s.Edges, in.X, nz.Dist, 1, k, row.Seed+int64(10_000*chunk))
				if err != nil {
					return nil, fmt.Errorf("experiments.Theorem2Check %s, %s: %w", in.Name, nz.Name, err)
				}
				for _, x := range states[1] {
					e, err := energy.Energy(x)
					if err != nil {
						return nil, fmt.Errorf("experiments.Theorem2Check: %w", err)
					}
					es = append(es, e)
				}
				done += k
			}
			m, sd := fig4MeanStd(es)
			row.MC, row.StdErr = m, sd/math.Sqrt(float64(len(es)))
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// Theorem2Rows runs Theorem2Check for the notebook settings, with the noises that satisfy the
// condition (Theorem2Noises) and those of Figure 4 that do not.
func Theorem2Rows(backend compute.Backend, settings Settings) ([]Theorem2Row, error) {
	cfg := Figure4Settings(settings)
	s, err := NewFigure4Setup(cfg)
	if err != nil {
		return nil, err
	}
	noises := append(Theorem2Noises(), Figure4Noises()[1:]...)
	return Theorem2Check(backend, s, Theorem2Inputs(s, uint64(cfg.Seed)), noises, cfg.TheoremSamples, cfg.Seed)
}

// Theorem2Table renders the check of Theorem 2: for each input and noise, E(ρ(X)), the Monte
// Carlo estimate of E_q[E(ρ(ξ_q(X)))] with its standard error, the closed form, the ratio to the
// deterministic value, whether the condition |E z| ≥ 1 is met and whether the inequality holds.
func Theorem2Table(rows []Theorem2Row) figures.Table {
	t := figures.Table{
		Title: "Theorem 2, one step: E_q[E(ρ(ξ_q(X)))] against E(ρ(X))",
		Header: []string{"X", "noise q", "E z", "Var z", "E(ρ(X))", "Monte Carlo ± s.e.", "exact",
			"z = (MC − exact)/s.e.", "ratio exact / E(ρ(X))", "|E z| ≥ 1", "inequality holds"},
		Right: []bool{false, false, true, true, true, true, true, true, true, false, false},
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{
			r.Input, r.Noise.Name, formatNumber(r.Noise.Dist.Mean()), formatNumber(r.Noise.Dist.Variance()),
			fmt.Sprintf("%.4g", r.Deterministic), fmt.Sprintf("%.4g ± %.2g", r.MC, r.StdErr), fmt.Sprintf("%.4g", r.Exact),
			fmt.Sprintf("%.2f", r.Z()), fmt.Sprintf("%.3f", r.Exact/r.Deterministic), yesNo(r.ConditionMet()), yesNo(r.Holds()),
		})
	}
	if len(rows) > 0 {
		t.Footnotes = append(t.Footnotes, fmt.Sprintf(
			"ρ = one GCN step P = D̃^-½(A+I)D̃^-½ (stagnb.StochasticAggregate, AggSum, NormBoth, self-loops), z drawn per edge and feature. "+
				"Monte Carlo: %d draws per row, seeds from %d; exact: μ² E(PX) + Var z · Σ_i Δ̃_ii Σ_j P_ij² ‖x_j‖². |z| below about 3 means agreement.",
			rows[0].Samples, rows[0].Seed))
	}
	return t
}

// Figure4PaperVsOurs compares the paper's claims about Figure 4 with our curves at the last step
// L: the deterministic energy decays, and each noise of mean 0.5 "slows down the decrease of
// Dirichlet energy" (the caption), judged on the energy E(X_L) and on the normalised energy
// E(X_L)/‖X_L‖²; the noises with E z = 1 are added for comparison.
func Figure4PaperVsOurs(fig4, thm2 []EnergyCurve) figures.Table {
	t := figures.Table{
		Title:  "Figure 4: paper vs ours (last step)",
		Header: []string{"curve", "paper (Figure 4 caption, §9.1)", "ours: E(X_L) / E(X_L) deterministic", "ours: E(X_L)/‖X_L‖², deterministic in brackets", "agrees"},
		Right:  []bool{false, false, true, true, false},
	}
	var det *EnergyCurve
	for i := range fig4 {
		if fig4[i].Noise.Dist.IsNone() {
			det = &fig4[i]
		}
	}
	if det == nil {
		return t
	}
	L := len(det.Steps) - 1
	t.Rows = append(t.Rows, []string{
		"deterministic", "energy decreases (over-smoothing)",
		fmt.Sprintf("E(X_%d)/E(X_0) = %.3g", L, det.Mean[L]/det.Mean[0]),
		fmt.Sprintf("%.3g (X_0: %.3g)", det.QuotientMean[L], det.QuotientMean[0]),
		yesNo(det.Mean[L] < det.Mean[0]),
	})
	add := func(c EnergyCurve, claim string) {
		ratio := c.Mean[L] / det.Mean[L]
		above := ratio > 1
		qAbove := c.QuotientMean[L] > det.QuotientMean[L]
		verdict := "yes"
		switch {
		case !above && qAbove:
			verdict = "energy: no (decays faster); normalised energy: yes"
		case !above:
			verdict = "no"
		case !qAbove:
			verdict = "energy: yes; normalised energy: no"
		}
		t.Rows = append(t.Rows, []string{
			c.Noise.Name, claim,
			fmt.Sprintf("%.3g", ratio),
			fmt.Sprintf("%.3g (%.3g)", c.QuotientMean[L], det.QuotientMean[L]),
			verdict,
		})
	}
	for _, c := range fig4 {
		if !c.Noise.Dist.IsNone() {
			add(c, "slows down the decrease of the energy")
		}
	}
	for _, c := range thm2 {
		if !c.Noise.Dist.IsNone() {
			add(c, "(not in the figure) Theorem 2: energy ≥ deterministic")
		}
	}
	t.Footnotes = append(t.Footnotes,
		fmt.Sprintf("Means over %d runs at step L = %d. The paper's figure has no numbers (its image is not in the source), so the comparison is with the caption and §9.1's text.", len(det.Energy), L),
		"A ratio below 1 means the energy ends below the deterministic one; the normalised energy E(X)/‖X‖² measures roughness whatever the scale of X.")
	return t
}

// Figure4Table computes the curves of Figure4Curves and Theorem2Curves and renders
// Figure4PaperVsOurs, with a footnote in quick mode.
func Figure4Table(backend compute.Backend, settings Settings) (figures.Table, error) {
	fig4, err := Figure4Curves(backend, settings)
	if err != nil {
		return figures.Table{}, err
	}
	thm2, err := Theorem2Curves(backend, settings)
	if err != nil {
		return figures.Table{}, err
	}
	return figure4Table(fig4, thm2, settings), nil
}

// figure4Table is Figure4Table of curves already computed.
func figure4Table(fig4, thm2 []EnergyCurve, settings Settings) figures.Table {
	t := Figure4PaperVsOurs(fig4, thm2)
	if settings.Quick {
		t.Footnotes = append(t.Footnotes, "Mode: "+QuickNote+"; for this notebook the curves are the same as in full mode, only the Theorem 2 table draws fewer Monte-Carlo samples.")
	}
	return t
}

// EnergySliders are the controls of ExploreEnergy: the mean and the standard deviation of a
// Normal noise, and the depth L. They start at Figure 4's Normal(0.5, 0.5) and L = 20.
func EnergySliders() []figures.Slider {
	return []figures.Slider{
		{Label: "noise mean E z", Min: -1.5, Max: 2, Step: 0.05, Value: 0.5},
		{Label: "noise std σ", Min: 0, Max: 1.5, Step: 0.05, Value: 0.5},
		{Label: "depth L", Min: 1, Max: 40, Step: 1, Value: 20},
	}
}

// EnergyExplorerPlot draws the Dirichlet energy along depth steps of Figure 4's propagation for
// Normal(mean, std) noise (runs draws, mean ± std, exact expectation dashed) against the
// deterministic propagation, on the setup s.
func EnergyExplorerPlot(backend compute.Backend, s *Figure4Setup, mean, std float64, depth int) (*plot.Plot, error) {
	d, err := stagnb.Normal(mean, std)
	if err != nil {
		return nil, fmt.Errorf("experiments.EnergyExplorerPlot: %w", err)
	}
	noises := []Figure4Noise{Figure4Noises()[0], {Name: fmt.Sprintf("Normal(%s, %s)", formatNumber(mean), formatNumber(std)), Dist: d, Method: 1}}
	curves, err := EnergyCurves(backend, s, noises, depth, s.Config.Runs, s.Config.Seed)
	if err != nil {
		return nil, err
	}
	return EnergyPlot(fmt.Sprintf("Normal noise, E z = %s, σ = %s", formatNumber(mean), formatNumber(std)), curves, false)
}

// ExploreEnergy is the interactive version of Figure 4: sliders for the mean and the standard
// deviation of a Normal noise and for the depth (EnergySliders) redraw EnergyExplorerPlot live
// (figures.Explore). Without a live notebook front-end (nbconvert) it shows the plot for the
// initial values and returns at once.
func ExploreEnergy(backend compute.Backend, settings Settings) error {
	s, err := Figure4Setting(settings)
	if err != nil {
		return err
	}
	return figures.Explore(EnergySliders(), func(v []float64) (*plot.Plot, error) {
		return EnergyExplorerPlot(backend, s, v[0], v[1], int(v[2]))
	})
}
