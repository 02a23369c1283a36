package experiments

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/stagnb/stagnb/stagnb"
	"github.com/stagnb/stagnb/stagnb/figures"
	"gonum.org/v1/plot"
)

// The sizes of the noise tensor Z[L, C, N, N] in the pictures of notebook 02 (the paper's
// Figure 2): two message-passing layers and three feature channels.
const (
	// Figure2Layers is L, the number of layers (rows of each picture).
	Figure2Layers = 2
	// Figure2Features is C, the number of feature channels (columns of each picture).
	Figure2Features = 3
)

// figure2Pairs are the undirected edges of Figure2Graph.
var figure2Pairs = [][2]int32{
	{0, 1}, {0, 2}, {0, 5}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {3, 6}, {4, 7}, {5, 6}, {6, 7},
}

// Figure2Graph returns the small graph of the pictures: 8 nodes and the 11 undirected edges 0-1,
// 0-2, 0-5, 1-2, 1-3, 2-4, 3-4, 3-6, 4-7, 5-6 and 6-7, each listed in both directions (22 directed
// edges), without self-loops.
func Figure2Graph() *stagnb.EdgeList {
	el, err := stagnb.UndirectedEdgeList(8, figure2Pairs)
	if err != nil {
		panic(fmt.Sprintf("experiments.Figure2Graph: %v", err)) // the pairs above are valid
	}
	return el
}

// Figure2Method is one stochastic regularizer of the paper's Section 5 ("STAG as a Unifying
// Framework") as a noise of package stagnb: a structure preset with a distribution.
type Figure2Method struct {
	// Name is the method's name as the paper writes it ("Dropout", "DropEdge", …).
	Name string
	// Noise is the stagnb noise that implements it (distribution and structure preset).
	Noise *stagnb.Noise
	// PaperZ is the paper's equation for the method's Z, transcribed to Unicode from the LaTeX
	// source (line PaperLine).
	PaperZ string
	// PaperSpace lists the factors of the space the paper draws Z from ("L", "C", "|E|", "N"):
	// ℝ^{L×C} is {"L", "C"}. Their product is the number of independent draws per forward pass.
	PaperSpace []string
	// PaperLine is the line of PaperZ in the paper's LaTeX source.
	PaperLine int
}

// Figure2DropRate is the drop rate p of the Bernoulli methods in the pictures (no rescaling, so
// the weights are 0 or 1 as in a mask).
const Figure2DropRate = 0.5

// Figure2Sigma is the standard deviation of STAG's Normal(1, σ) in the pictures.
const Figure2Sigma = 0.5

// Figure2Methods returns the methods of Section 5 with the noises that draw their masks in the
// pictures: Dropout, node sampling (FastGCN), DropEdge and Graph DropConnect with a
// Bernoulli(Figure2DropRate), and STAG with a Normal(1, Figure2Sigma), each with its stagnb
// preset (StructureDropout, StructureNodeSampling, StructureDropEdge, StructureGDC,
// StructureSTAG).
func Figure2Methods() []Figure2Method {
	bern := Must(stagnb.Bernoulli(Figure2DropRate, false))
	normal := Must(stagnb.Normal(1, Figure2Sigma))
	return []Figure2Method{
		{"Dropout", stagnb.NewNoise(bern, stagnb.StructureDropout),
			"Z[l, i, :, :] ~ q(Z), Z ∈ ℝ^{L×C}", []string{"L", "C"}, 256},
		{"FastGCN (node sampling)", stagnb.NewNoise(bern, stagnb.StructureNodeSampling),
			"Z[:, :, v, v] ~ q(Z), Z ∈ ℝ^N", []string{"N"}, 262},
		{"DropEdge", stagnb.NewNoise(bern, stagnb.StructureDropEdge),
			"Z[:, :, u, v] ~ q(Z), Z ∈ ℝ^{|E|}", []string{"|E|"}, 268},
		{"Graph DropConnect", stagnb.NewNoise(bern, stagnb.StructureGDC),
			"Z[l, c, u, v] ~ q(Z), Z ∈ ℝ^{L×C×|E|}", []string{"L", "C", "|E|"}, 274},
		{"STAG", stagnb.NewNoise(normal, stagnb.StructureSTAG),
			"A_uv · Z[l, i, u, v] (Eq. 12), elements independent: Z ∈ ℝ^{L×C×|E|} on the edges", []string{"L", "C", "|E|"}, 224},
	}
}

// Figure2MethodByName returns the method of Figure2Methods called name (case-insensitive; a
// prefix such as "FastGCN" is enough when it names one method).
func Figure2MethodByName(name string) (Figure2Method, error) {
	var found []Figure2Method
	var names []string
	for _, m := range Figure2Methods() {
		names = append(names, strconv.Quote(m.Name))
		if strings.EqualFold(m.Name, name) {
			return m, nil
		}
		if strings.HasPrefix(strings.ToLower(m.Name), strings.ToLower(name)) {
			found = append(found, m)
		}
	}
	if len(found) == 1 && name != "" {
		return found[0], nil
	}
	return Figure2Method{}, fmt.Errorf("experiments: no Figure 2 method %q (want one of %s)", name, strings.Join(names, ", "))
}

// Masks is one draw of the noise tensor Z[l, c, u, v] on a graph, as the pictures show it:
// the masked adjacency A ⊙ Z of every layer and feature.
type Masks struct {
	// Noise is the noise that was drawn.
	Noise *stagnb.Noise
	// NumNodes, Layers and Features are N, L and C.
	NumNodes, Layers, Features int
	// Z[l][c][u][v] is A_uv · Z[l, c, u, v], the weight of the message u → v in layer l and
	// feature c, and NaN where there is no edge u → v (A_uv = 0).
	Z [][][][]float64
	// Seed is the seed of the draw.
	Seed int64
}

// DrawMasks draws the noise weights of the edges of el for `layers` layers of `features` channels
// each, with (*stagnb.Noise).Weights inside one GoMLX graph on backend (seeded by seed), as the
// consecutive layers of one forward pass draw them (a structure shared across layers draws once),
// and scatters them on the host into N×N matrices: the library never builds N×N, the matrices are
// only for display. el must not repeat an edge.
func DrawMasks(backend compute.Backend, el *stagnb.EdgeList, noise *stagnb.Noise, layers, features int, seed int64) (*Masks, error) {
	if backend == nil || el == nil || noise == nil {
		return nil, fmt.Errorf("experiments.DrawMasks: nil backend, edge list or noise")
	}
	if layers < 1 || features < 1 || el.NumEdges() == 0 {
		return nil, fmt.Errorf("experiments.DrawMasks: %d layers × %d features on %d edges, want at least 1 of each", layers, features, el.NumEdges())
	}
	if err := el.Validate(); err != nil {
		return nil, fmt.Errorf("experiments.DrawMasks: %w", err)
	}
	n, numEdges := el.NumNodes, el.NumEdges()
	seen := map[[2]int32]bool{}
	for e := range numEdges {
		k := [2]int32{el.Src[e], el.Dst[e]}
		if seen[k] {
			return nil, fmt.Errorf("experiments.DrawMasks: edge %d → %d is listed twice", k[0], k[1])
		}
		seen[k] = true
	}
	store := model.NewStore()
	if err := store.SetRNGStateFromSeed(seed); err != nil {
		return nil, fmt.Errorf("experiments.DrawMasks: %w", err)
	}
	out, err := model.CallOnce(backend, store, func(scope *model.Scope, g *graph.Graph) *graph.Node {
		edges := el.Const(g)
		parts := make([]*graph.Node, layers)
		for l := range parts {
			w := noise.Weights(scope.At("layer_%d", l), edges, features, dtypes.Float32)
			if w == nil { // no noise: every weight is 1
				w = graph.Scalar(g, dtypes.Float32, 1)
			}
			parts[l] = graph.Reshape(graph.BroadcastToDims(w, numEdges, features), 1, numEdges, features)
		}
		return graph.Concatenate(parts, 0)
	})
	if err != nil {
		return nil, fmt.Errorf("experiments.DrawMasks: %w", err)
	}
	flat, err := tensors.CopyFlatData[float32](out)
	if err != nil {
		return nil, fmt.Errorf("experiments.DrawMasks: %w", err)
	}
	m := &Masks{Noise: noise, NumNodes: n, Layers: layers, Features: features, Seed: seed}
	m.Z = make([][][][]float64, layers)
	for l := range m.Z {
		m.Z[l] = make([][][]float64, features)
		for c := range m.Z[l] {
			z := make([][]float64, n)
			for u := range z {
				z[u] = make([]float64, n)
				for v := range z[u] {
					z[u][v] = math.NaN()
				}
			}
			for e := range numEdges {
				z[el.Src[e]][el.Dst[e]] = float64(flat[(l*numEdges+e)*features+c])
			}
			m.Z[l][c] = z
		}
	}
	return m, nil
}

// DistinctWeights counts the distinct values among the weights of the edges (the entries that
// are not NaN) over all layers and features. For a continuous distribution it is the number of
// independent draws behind the masks.
func (m *Masks) DistinctWeights() int {
	seen := map[float64]bool{}
	for _, layer := range m.Z {
		for _, z := range layer {
			for _, row := range z {
				for _, v := range row {
					if !math.IsNaN(v) {
						seen[v] = true
					}
				}
			}
		}
	}
	return len(seen)
}

// MasksPlot draws the masks as a grid of heat maps (figures.HeatMaps): one row per layer, one
// column per feature, each panel the N×N matrix A ⊙ Z[l, c] with row u sending to column v,
// grey where there is no edge.
func MasksPlot(title string, m *Masks) (*plot.Plot, error) {
	panels := make([][]figures.HeatPanel, m.Layers)
	for l := range panels {
		panels[l] = make([]figures.HeatPanel, m.Features)
		for c := range panels[l] {
			panels[l][c] = figures.HeatPanel{Title: fmt.Sprintf("layer %d, feature %d", l+1, c+1), Values: m.Z[l][c]}
		}
	}
	p, err := figures.HeatMaps(title, "entries A_uv · Z[l, c, u, v]: row u sends to column v", "no edge (A_uv = 0)", panels)
	if err != nil {
		return nil, fmt.Errorf("experiments.MasksPlot: %w", err)
	}
	return p, nil
}

// Figure2Picture draws one draw of the masks of the method called name (see
// Figure2MethodByName) on Figure2Graph, with Figure2Layers layers and Figure2Features features,
// seeded by seed (DrawMasks), as a grid of heat maps (MasksPlot).
func Figure2Picture(backend compute.Backend, name string, seed int64) (*plot.Plot, error) {
	meth, err := Figure2MethodByName(name)
	if err != nil {
		return nil, fmt.Errorf("experiments.Figure2Picture: %w", err)
	}
	m, err := DrawMasks(backend, Figure2Graph(), meth.Noise, Figure2Layers, Figure2Features, seed)
	if err != nil {
		return nil, fmt.Errorf("experiments.Figure2Picture: %w", err)
	}
	title := fmt.Sprintf("%s: %s, Z drawn as %s", meth.Name, meth.Noise.Dist, StructureIndex(meth.Noise.Structure))
	return MasksPlot(title, m)
}

// Figure2Adjacency draws the adjacency matrix A of Figure2Graph as one heat map with the node
// indices: 1 on the edges, grey elsewhere.
func Figure2Adjacency() (*plot.Plot, error) {
	el := Figure2Graph()
	a := make([][]float64, el.NumNodes)
	for u := range a {
		a[u] = make([]float64, el.NumNodes)
		for v := range a[u] {
			a[u][v] = math.NaN()
		}
	}
	for e := range el.NumEdges() {
		a[el.Src[e]][el.Dst[e]] = 1
	}
	title := fmt.Sprintf("The graph: A, %d nodes, %d directed edges", el.NumNodes, el.NumEdges())
	p, err := figures.HeatMaps(title, "row u sends to column v", "no edge (A_uv = 0)", [][]figures.HeatPanel{{{Values: a, Indices: true}}})
	if err != nil {
		return nil, fmt.Errorf("experiments.Figure2Adjacency: %w", err)
	}
	return p, nil
}

// StructureIndex writes which indices of Z[l, c, u, v] a structure draws independently, with ":"
// for an axis that shares one draw: "Z[l, c, :, :]" for StructureDropout, "Z[:, :, u, v]" for
// StructureDropEdge, "Z[:, :, u, :]" for StructureNodeSampling (one draw per sending node u).
func StructureIndex(s stagnb.Structure) string {
	idx := []string{"l", "c", "u", "v"}
	if s.Layers == stagnb.SharedLayers {
		idx[0] = ":"
	}
	if s.Features == stagnb.SharedFeatures {
		idx[1] = ":"
	}
	switch s.Edges {
	case stagnb.PerSourceNode:
		idx[3] = ":"
	case stagnb.AllEdges:
		idx[2], idx[3] = ":", ":"
	}
	return "Z[" + strings.Join(idx, ", ") + "]"
}

// StructureSpace lists the factors of the space a structure draws from, as the paper writes
// them: "L" when layers draw their own, "C" when features do, then "|E|" (per edge), "N" (per
// sending node) or nothing (one draw for all edges).
func StructureSpace(s stagnb.Structure) []string {
	var f []string
	if s.Layers == stagnb.PerLayer {
		f = append(f, "L")
	}
	if s.Features == stagnb.PerFeature {
		f = append(f, "C")
	}
	switch s.Edges {
	case stagnb.PerEdge:
		f = append(f, "|E|")
	case stagnb.PerSourceNode:
		f = append(f, "N")
	}
	return f
}

// StructureShared lists the axes over which a structure reuses one draw: "layers", "features",
// "all edges" or "edges leaving a node"; "nothing" when every weight is drawn independently.
func StructureShared(s stagnb.Structure) string {
	var f []string
	if s.Layers == stagnb.SharedLayers {
		f = append(f, "layers")
	}
	if s.Features == stagnb.SharedFeatures {
		f = append(f, "features")
	}
	switch s.Edges {
	case stagnb.PerSourceNode:
		f = append(f, "edges leaving a node")
	case stagnb.AllEdges:
		f = append(f, "all edges")
	}
	if len(f) == 0 {
		return "nothing"
	}
	return strings.Join(f, ", ")
}

// Figure2Draws is the number of independent draws in a space given by its factors ("L", "C",
// "|E|", "N"; see StructureSpace), for the given sizes: their product, 1 for no factor.
func Figure2Draws(factors []string, layers, features, edges, nodes int) (int, error) {
	size := 1
	for _, f := range factors {
		switch f {
		case "L":
			size *= layers
		case "C":
			size *= features
		case "|E|":
			size *= edges
		case "N":
			size *= nodes
		default:
			return 0, fmt.Errorf("experiments.Figure2Draws: unknown factor %q (want L, C, |E| or N)", f)
		}
	}
	return size, nil
}

// spaceString writes factors as ℝ^{L×C}.
func spaceString(factors []string) string {
	if len(factors) == 0 {
		return "ℝ"
	}
	return "ℝ^{" + strings.Join(factors, "×") + "}"
}

// Figure2SharingTable computes, for every method of Figure2Methods on Figure2Graph (with
// Figure2Layers layers and Figure2Features features), which axes share a draw and how many
// independent draws one forward pass makes: as the paper writes Z, as our structure preset says
// (StructureIndex, StructureSpace, StructureShared, all computed from the Structure values), and
// as counted in one draw of the same structure with a continuous Normal(1, Figure2Sigma) noise
// (DrawMasks, seeded by seed), whose distinct weights are its independent draws.
func Figure2SharingTable(backend compute.Backend, seed int64) (figures.Table, error) {
	el := Figure2Graph()
	L, C, E, N := Figure2Layers, Figure2Features, el.NumEdges(), el.NumNodes
	normal, err := stagnb.Normal(1, Figure2Sigma)
	if err != nil {
		return figures.Table{}, fmt.Errorf("experiments.Figure2SharingTable: %w", err)
	}
	t := figures.Table{
		Title: fmt.Sprintf("Which axes share a draw (L = %d layers, C = %d features, N = %d nodes, |E| = %d directed edges)", L, C, N, E),
		Header: []string{"method", "noise", "paper: Z", "ours: Z (from the Structure)", "ours: one draw shared by",
			"paper: draws per pass", "ours: draws per pass", "distinct weights in a Normal draw"},
		Right: []bool{false, false, false, false, false, true, true, true},
		Footnotes: []string{
			"paper: the STAG equation of Section 4 (LaTeX line 224) and the equations of Section 5 (lines 256–274); ours: computed from each stagnb preset's Structure (Layers, Features, Edges).",
			fmt.Sprintf("Last column: the same structure drawn once with normal(1,%g) by (*stagnb.Noise).Weights (seed %d); with a continuous law every independent draw gives a distinct weight, so this counts the draws actually made.", Figure2Sigma, seed),
			"The paper's Z[:, :, v, v] ∈ ℝ^N for FastGCN is one draw per node; stagnb applies node u's draw to every message u sends (row u of A ⊙ Z), so its index is written Z[:, :, u, :].",
		},
	}
	for _, m := range Figure2Methods() {
		s := m.Noise.Structure
		paper, err := Figure2Draws(m.PaperSpace, L, C, E, N)
		if err != nil {
			return figures.Table{}, fmt.Errorf("experiments.Figure2SharingTable: %s: %w", m.Name, err)
		}
		ours, err := Figure2Draws(StructureSpace(s), L, C, E, N)
		if err != nil {
			return figures.Table{}, fmt.Errorf("experiments.Figure2SharingTable: %s: %w", m.Name, err)
		}
		drawn, err := DrawMasks(backend, el, stagnb.NewNoise(normal, s), L, C, seed)
		if err != nil {
			return figures.Table{}, fmt.Errorf("experiments.Figure2SharingTable: %s: %w", m.Name, err)
		}
		t.Rows = append(t.Rows, []string{
			m.Name, m.Noise.String(), m.PaperZ,
			StructureIndex(s) + " ~ q, Z ∈ " + spaceString(StructureSpace(s)),
			StructureShared(s),
			fmt.Sprintf("%s = %d", strings.Join(m.PaperSpace, "·"), paper),
			fmt.Sprintf("%s = %d", strings.Join(StructureSpace(s), "·"), ours),
			strconv.Itoa(drawn.DistinctWeights()),
		})
	}
	return t, nil
}
