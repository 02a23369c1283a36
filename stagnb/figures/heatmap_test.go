package figures

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// heatSVGFill is how gonum's SVG writer fills a shape with c: "fill:#RRGGBB".
func heatSVGFill(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("fill:#%02X%02X%02X", n.R, n.G, n.B)
}

// heatTestMatrix returns an r×c matrix with value f(i, j) at row i, column j.
func heatTestMatrix(r, c int, f func(i, j int) float64) [][]float64 {
	m := make([][]float64, r)
	for i := range m {
		m[i] = make([]float64, c)
		for j := range m[i] {
			m[i][j] = f(i, j)
		}
	}
	return m
}

func TestHeatMapColor(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name     string
		v, scale float64
		want     color.Color
	}{
		{"zero is white", 0, 1, color.NRGBA{R: 255, G: 255, B: 255, A: 255}},
		{"zero is white at any scale", 0, 2.5, color.NRGBA{R: 255, G: 255, B: 255, A: 255}},
		{"+scale is the red end", 1, 1, heatRed},
		{"+scale is the red end (scale 3)", 3, 3, heatRed},
		{"−scale is the blue end", -2, 2, heatBlue},
		{"beyond the scale is clamped", 5, 1, heatRed},
		{"NaN is the no-entry grey", nan, 1, NoEntryColor()},
	}
	for _, c := range cases {
		if got := HeatMapColor(c.v, c.scale); heatSVGFill(got) != heatSVGFill(c.want) {
			t.Errorf("%s: HeatMapColor(%g, %g) = %s, want %s", c.name, c.v, c.scale, heatSVGFill(got), heatSVGFill(c.want))
		}
	}
	// From 0 up to +scale the colours get monotonically darker: the sum of the channels never grows.
	prev := 3 * 255
	for k := 0; k <= 10; k++ {
		n := color.NRGBAModel.Convert(HeatMapColor(float64(k)/10, 1)).(color.NRGBA)
		if sum := int(n.R) + int(n.G) + int(n.B); sum > prev {
			t.Errorf("HeatMapColor(%g, 1) is lighter (%d) than the value before (%d)", float64(k)/10, sum, prev)
		} else {
			prev = sum
		}
	}
	if g := color.GrayModel.Convert(NoEntryColor()).(color.Gray); g.Y == 255 || g.Y == 0 {
		t.Errorf("the no-entry grey %v is white or black", g)
	}
}

func TestHeatMaps(t *testing.T) {
	nan := math.NaN()
	// A 3×3 matrix with a missing diagonal and values −1, 0, 2 on the edges.
	m := heatTestMatrix(3, 3, func(i, j int) float64 {
		switch {
		case i == j:
			return nan
		case i < j:
			return float64(j - i - 1) // 0 or 1
		}
		return float64(-1 + 3*(i-j-1)) // −1 or 2
	})
	cases := []struct {
		name       string
		panels     [][]HeatPanel
		wantLabels []string // texts that the SVG must contain
		numLabels  int      // panel titles + indices + 3 colour-bar ticks + the no-entry label
	}{
		{"one panel with indices", [][]HeatPanel{{{Values: m, Indices: true}}}, []string{"0", "1", "2", "-2", "no edge"}, 3 + 3 + 3 + 1},
		{"2×3 grid with titles", func() [][]HeatPanel {
			g := make([][]HeatPanel, 2)
			for r := range g {
				for c := range 3 {
					g[r] = append(g[r], HeatPanel{Title: fmt.Sprintf("layer %d, feature %d", r+1, c+1), Values: m})
				}
			}
			return g
		}(), []string{"layer 1, feature 1", "layer 2, feature 3", "-2", "2", "no edge"}, 6 + 3 + 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := HeatMaps("Masks", "row u sends to column v", "no edge", c.panels)
			if err != nil {
				t.Fatal(err)
			}
			// Per panel a heat map and its frame, then the colour bar, the swatch and the labels.
			ps := plottersOf(p)
			n := len(c.panels) * len(c.panels[0])
			if len(ps) != 2*n+3 {
				t.Fatalf("%d plotters, want %d (2 per panel + 3)", len(ps), 2*n+3)
			}
			for i := range n {
				h, ok := ps[2*i].(*plotter.HeatMap)
				if !ok {
					t.Fatalf("plotter %d is %T, want *plotter.HeatMap", 2*i, ps[2*i])
				}
				if h.Min != -2 || h.Max != 2 || heatSVGFill(h.NaN) != heatSVGFill(NoEntryColor()) {
					t.Errorf("panel %d: range [%g, %g], NaN colour %v; want [−2, 2] (symmetric, largest |value|) and the grey", i, h.Min, h.Max, h.NaN)
				}
				if _, ok := ps[2*i+1].(*plotter.Polygon); !ok {
					t.Errorf("plotter %d is %T, want the frame *plotter.Polygon", 2*i+1, ps[2*i+1])
				}
			}
			if _, ok := ps[2*n].(*plotter.HeatMap); !ok {
				t.Errorf("plotter %d is %T, want the colour bar *plotter.HeatMap", 2*n, ps[2*n])
			}
			if sw, ok := ps[2*n+1].(*plotter.Polygon); !ok || heatSVGFill(sw.Color) != heatSVGFill(NoEntryColor()) {
				t.Errorf("plotter %d is %T, want the grey swatch", 2*n+1, ps[2*n+1])
			}
			l, ok := ps[2*n+2].(*plotter.Labels)
			if !ok {
				t.Fatalf("last plotter is %T, want *plotter.Labels", ps[2*n+2])
			}
			if len(l.Labels) != c.numLabels {
				t.Errorf("%d labels %q, want %d", len(l.Labels), l.Labels, c.numLabels)
			}
			svg, err := SVG(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range append([]string{"Masks", "row u sends to column v"}, c.wantLabels...) {
				if !strings.Contains(svg, ">"+want+"<") {
					t.Errorf("SVG does not contain the label %q", want)
				}
			}
			// The cells: grey where missing, the red end for 2 and the blue end for −2 (m holds −1,
			// not −2, so blue appears only in the colour bar, whose ends are the scale's ends).
			for _, want := range []color.Color{NoEntryColor(), heatRed, heatBlue, HeatMapColor(-1, 2), HeatMapColor(1, 2)} {
				if !strings.Contains(svg, heatSVGFill(want)) {
					t.Errorf("SVG has no cell filled with %s", heatSVGFill(want))
				}
			}
		})
	}
}

func TestHeatMapsAllZero(t *testing.T) {
	p, err := HeatMaps("zeros", "", "", [][]HeatPanel{{{Values: heatTestMatrix(2, 2, func(int, int) float64 { return 0 })}}})
	if err != nil {
		t.Fatal(err)
	}
	if h := plottersOf(p)[0].(*plotter.HeatMap); h.Min != -1 || h.Max != 1 {
		t.Errorf("all-zero range [%g, %g], want [−1, 1]", h.Min, h.Max)
	}
}

func TestHeatMapsErrors(t *testing.T) {
	ok := heatTestMatrix(2, 2, func(i, j int) float64 { return 1 })
	cases := []struct {
		name   string
		panels [][]HeatPanel
		want   string
	}{
		{"no panels", nil, "no panels"},
		{"empty panel", [][]HeatPanel{{{Title: "e"}}}, "is empty"},
		{"ragged grid", [][]HeatPanel{{{Values: ok}, {Values: ok}}, {{Values: ok}}}, "row 1 has 1 panels"},
		{"different sizes", [][]HeatPanel{{{Values: ok}, {Values: heatTestMatrix(3, 2, func(int, int) float64 { return 1 })}}}, "has 3 rows, want 2"},
		{"ragged matrix", [][]HeatPanel{{{Values: [][]float64{{1, 2}, {3}}}}}, "row 1 has 1 columns, want 2"},
		{"infinite value", [][]HeatPanel{{{Values: [][]float64{{1, math.Inf(1)}}}}}, "is +Inf"},
	}
	for _, c := range cases {
		_, err := HeatMaps("t", "", "", c.panels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
