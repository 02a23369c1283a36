package figures

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The default size of every figure (style.md §D).
const (
	// Width is the default figure width, 5 inches.
	Width = 5 * vg.Inch
	// Height is the default figure height, 3.5 inches.
	Height = 3.5 * vg.Inch
)

// BandAlpha is the opacity (out of 255) of error bands and histogram fills.
const BandAlpha = 60

// New returns an empty plot in the house style: the title, both axis labels (give the units, for
// example "time (s)"), a grid added first so that data are drawn over it, and the legend on top.
func New(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// Color is the colour of method number i (plotutil.Color(i)). Pass the same index for a method in
// every notebook so that it keeps its colour.
func Color(i int) color.Color { return plotutil.Color(i) }

// translucent returns c with the given opacity (out of 255).
func translucent(c color.Color, alpha uint8) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = alpha
	return n
}

// Series is one line of a line plot.
type Series struct {
	// Name is the legend entry; an empty name adds no legend entry.
	Name string
	// Method is the method's index, which picks the colour (Color(Method)).
	Method int
	// X and Y are the points, in order of X; they must have the same length, at least 1.
	X, Y []float64
	// Std, when not nil, draws a translucent band Y ± Std (no outline) under the line, for
	// example mean ± 1 std over seeds; say so in Name or in the caption. Same length as Y.
	Std []float64
	// Dashed draws the line dashed (for references such as an exact curve or a baseline).
	Dashed bool
}

// xys converts parallel slices to plotter.XYs, checking lengths and finiteness.
func xys(what string, x, y []float64) (plotter.XYs, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("figures: %s: %d x values and %d y values", what, len(x), len(y))
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("figures: %s: no points", what)
	}
	pts := make(plotter.XYs, len(x))
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			return nil, fmt.Errorf("figures: %s: point %d (%g, %g) is not finite", what, i, x[i], y[i])
		}
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return pts, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Lines plots series as lines, each coloured by its Method, with its band when Std is set. The
// plot holds the grid, then per series its band (if any) and its line; a legend entry is added
// per named series.
func Lines(title, xLabel, yLabel string, series []Series) (*plot.Plot, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("figures.Lines %q: no series", title)
	}
	p := New(title, xLabel, yLabel)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, s := range series {
		what := fmt.Sprintf("Lines %q series %d (%q)", title, i, s.Name)
		pts, err := xys(what, s.X, s.Y)
		if err != nil {
			return nil, err
		}
		for k, y := range s.Y {
			lo, hi := y, y
			if s.Std != nil && k < len(s.Std) {
				lo, hi = y-math.Abs(s.Std[k]), y+math.Abs(s.Std[k])
			}
			ymin, ymax = math.Min(ymin, lo), math.Max(ymax, hi)
		}
		var band *plotter.Polygon
		if s.Std != nil {
			if band, err = bandPolygon(what, s.X, s.Y, s.Std, math.Inf(-1)); err != nil {
				return nil, err
			}
		}
		if err := addSeries(p, what, s, pts, band); err != nil {
			return nil, err
		}
	}
	makeRoomForLegend(p, ymin, ymax)
	return p, nil
}

// makeRoomForLegend raises the top of the y axis so that the legend, which gonum/plot draws inside
// the top of the data area, sits above the data, whose values span [ymin, ymax].
func makeRoomForLegend(p *plot.Plot, ymin, ymax float64) {
	legend := p.Legend.Rectangle(draw.Canvas{}).Size().Y
	// The data area is about the figure's height less the title and the x axis (label and ticks).
	area := Height - vg.Points(75)
	f := float64(legend+vg.Points(6)) / float64(area)
	if legend <= 0 || f >= 0.6 || !(ymax > ymin) {
		return
	}
	p.Y.Max = math.Max(p.Y.Max, ymax+(ymax-ymin)*f/(1-f))
}

// bandPolygon is the polygon y ± std along x, without outline.
func bandPolygon(what string, x, y, std []float64, floor float64) (*plotter.Polygon, error) {
	if len(std) != len(y) {
		return nil, fmt.Errorf("figures: %s: %d std values for %d points", what, len(std), len(y))
	}
	ring := make(plotter.XYs, 0, 2*len(x))
	for i := range x {
		ring = append(ring, plotter.XY{X: x[i], Y: y[i] + math.Abs(std[i])})
	}
	for i := len(x) - 1; i >= 0; i-- {
		ring = append(ring, plotter.XY{X: x[i], Y: math.Max(y[i]-math.Abs(std[i]), floor)})
	}
	for i, pt := range ring {
		if !finite(pt.Y) {
			return nil, fmt.Errorf("figures: %s: band point %d is not finite", what, i)
		}
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, fmt.Errorf("figures: %s: %w", what, err)
	}
	poly.LineStyle.Width = 0
	return poly, nil
}

// addSeries adds a series' band (when not nil), coloured translucently, then its line, coloured by
// its Method, and a legend entry when it is named.
func addSeries(p *plot.Plot, what string, s Series, pts plotter.XYs, band *plotter.Polygon) error {
	c := Color(s.Method)
	if band != nil {
		band.Color = translucent(c, BandAlpha)
		p.Add(band)
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("figures: %s: %w", what, err)
	}
	l.Color = c
	l.Width = vg.Points(1.5)
	if s.Dashed {
		l.Dashes = plotutil.Dashes(1)
	}
	p.Add(l)
	if s.Name != "" {
		p.Legend.Add(s.Name, l)
	}
	return nil
}

// Samples is one set of draws for Histograms.
type Samples struct {
	// Name is the legend entry.
	Name string
	// Method is the index that picks the colour (Color(Method)).
	Method int
	// Values are the draws; at least one, all finite.
	Values []float64
	// DensityX and DensityY, when set, are the exact density on a grid, drawn as a dashed line of
	// the same colour with the legend entry "Name (exact)".
	DensityX, DensityY []float64
}

// Histograms draws the empirical densities of several sample sets on common bins (bins equal
// widths over the range of all values), each as a step outline over a translucent fill coloured
// by its Method, with its exact density as a dashed line when given. The y axis is the density
// (the area under each histogram is 1) and starts at 0. The plot holds the grid, then per set its
// histogram and, if given, its exact density; the legend has one entry per set, whose icon shows
// the histogram and the dashed line, and the y label then reads "density (dashed: exact)".
func Histograms(title, xLabel string, sets []Samples, bins int) (*plot.Plot, error) {
	if len(sets) == 0 {
		return nil, fmt.Errorf("figures.Histograms %q: no sample sets", title)
	}
	if bins < 1 {
		return nil, fmt.Errorf("figures.Histograms %q: bins = %d, want at least 1", title, bins)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range sets {
		if len(s.Values) == 0 {
			return nil, fmt.Errorf("figures.Histograms %q: set %d (%q) has no values", title, i, s.Name)
		}
		for _, v := range s.Values {
			if !finite(v) {
				return nil, fmt.Errorf("figures.Histograms %q: set %d (%q) has a non-finite value %g", title, i, s.Name, v)
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	width := (hi - lo) / float64(bins)
	p := New(title, xLabel, "density")
	p.Y.Min = 0
	ymax := 0.0
	for i, s := range sets {
		counts := make([]float64, bins)
		for _, v := range s.Values {
			b := min(int((v-lo)/width), bins-1)
			counts[b]++
		}
		// A post-step line through (left edge, density) of every bin, closed at the right edge.
		pts := make(plotter.XYs, bins+1)
		for b, c := range counts {
			pts[b] = plotter.XY{X: lo + float64(b)*width, Y: c / (float64(len(s.Values)) * width)}
			ymax = math.Max(ymax, pts[b].Y)
		}
		pts[bins] = plotter.XY{X: hi, Y: pts[bins-1].Y}
		h, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("figures.Histograms %q: set %d (%q): %w", title, i, s.Name, err)
		}
		c := Color(s.Method)
		h.StepStyle = plotter.PostStep
		h.Color = c
		h.Width = vg.Points(1)
		h.FillColor = translucent(c, BandAlpha)
		p.Add(h)
		if s.DensityX == nil && s.DensityY == nil {
			p.Legend.Add(s.Name, h)
			continue
		}
		exact, err := xys(fmt.Sprintf("Histograms %q set %d (%q) exact density", title, i, s.Name), s.DensityX, s.DensityY)
		if err != nil {
			return nil, err
		}
		l, err := plotter.NewLine(exact)
		if err != nil {
			return nil, fmt.Errorf("figures.Histograms %q: set %d (%q) exact density: %w", title, i, s.Name, err)
		}
		l.LineStyle = draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: plotutil.Dashes(1)}
		for _, y := range s.DensityY {
			ymax = math.Max(ymax, y)
		}
		p.Add(l)
		p.Legend.Add(s.Name, h, l)
	}
	for _, s := range sets {
		if s.DensityX != nil || s.DensityY != nil {
			p.Y.Label.Text = "density (dashed: exact)"
			break
		}
	}
	makeRoomForLegend(p, 0, ymax)
	return p, nil
}
