package figures

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HeatPanel is one heat map of HeatMaps: a matrix of values, with NaN where the matrix has no
// entry (drawn in a discrete grey, apart from the colour scale).
type HeatPanel struct {
	// Title is written above the panel, for example "layer 1, feature 2"; it may be empty.
	Title string
	// Values holds the matrix row by row: Values[i][j] is row i, column j, drawn as an image is
	// (row 0 at the top, column 0 on the left). NaN marks a missing entry; every other value must
	// be finite. All panels of a grid have the same numbers of rows and columns.
	Values [][]float64
	// Indices writes the row and column indices (0, 1, …) along the left and bottom sides.
	Indices bool
}

// The colours and sizes of HeatMaps.
const (
	// heatColors is the number of colours of the diverging scale.
	heatColors = 255
	// heatGapX and heatGapY are the gaps between panels, in cells (heatGapY leaves room for the
	// panel titles).
	heatGapX, heatGapY = 1.5, 2.5
	// heatBarWidth is the widest the colour bar gets, in cells; it is narrower beside short grids.
	heatBarWidth = 1.0
	// heatTextSize is the font size of panel titles and colour-bar labels.
	heatTextSize = vg.Length(7)
)

// noEntryGrey is the discrete grey of missing (NaN) entries: darker than the scale's white (0),
// with no hue, so that it cannot be read as a value.
var noEntryGrey = color.Gray{Y: 0x99}

// The end colours of the scale of HeatMaps, those of Moreland's blue-red diverging map.
var (
	heatBlue = color.NRGBA{R: 59, G: 76, B: 192, A: 255}
	heatRed  = color.NRGBA{R: 180, G: 4, B: 38, A: 255}
)

// heatMapScale returns the colour scale of HeatMaps for values whose largest magnitude is scale:
// heatColors colours from blue (−scale) through pure white (0) to red (+scale), interpolated
// linearly in sRGB, and the (symmetric) range it spans. (Moreland's own midpoint is a light grey,
// too close to the grey of missing entries.)
func heatMapScale(scale float64) (colors []color.Color, lo, hi float64) {
	colors = make([]color.Color, heatColors)
	mid := (heatColors - 1) / 2
	mix := func(to color.NRGBA, t float64) color.Color {
		ch := func(c uint8) uint8 { return uint8(math.Round(255 + (float64(c)-255)*t)) }
		return color.NRGBA{R: ch(to.R), G: ch(to.G), B: ch(to.B), A: 255}
	}
	for k := range colors {
		switch {
		case k < mid:
			colors[k] = mix(heatBlue, float64(mid-k)/float64(mid))
		default:
			colors[k] = mix(heatRed, float64(k-mid)/float64(heatColors-1-mid))
		}
	}
	return colors, -scale, scale
}

// NoEntryColor is the grey that HeatMaps uses for missing (NaN) entries, for legends and tests.
func NoEntryColor() color.Color { return noEntryGrey }

// HeatMapColor returns the colour that HeatMaps gives to value v when the largest magnitude of
// the values is scale (NoEntryColor for NaN), as plotter.HeatMap picks it from the palette.
func HeatMapColor(v, scale float64) color.Color {
	if math.IsNaN(v) {
		return noEntryGrey
	}
	colors, lo, hi := heatMapScale(scale)
	i := int((v-lo)*float64(len(colors)-1)/(hi-lo) + 0.5)
	return colors[min(max(i, 0), len(colors)-1)]
}

// matrixGrid is one panel's matrix placed in plot coordinates: cell (i, j) is centred at
// (x0 + j + ½, y0 + rows − i − ½).
type matrixGrid struct {
	values [][]float64
	x0, y0 float64
}

func (m matrixGrid) Dims() (c, r int)   { return len(m.values[0]), len(m.values) }
func (m matrixGrid) Z(c, r int) float64 { return m.values[len(m.values)-1-r][c] }
func (m matrixGrid) X(c int) float64    { return m.x0 + float64(c) + 0.5 }
func (m matrixGrid) Y(r int) float64    { return m.y0 + float64(r) + 0.5 }

// HeatMaps draws panels as a grid of heat maps, panels[r][c] in row r and column c, with one
// colour scale for all of them: a diverging scale centred at 0, white at 0, red for positive and
// blue for negative values, up to ± the largest magnitude (1 when every value is 0). Missing
// entries (NaN) are drawn in a discrete grey, shown under the colour bar with the label noEntry.
// xLabel is written under the grid (for example what rows and columns are); the axes are hidden.
//
// The plot holds, in order: per panel a plotter.HeatMap and its frame (a plotter.Polygon
// outline), then the colour bar (a plotter.HeatMap), the grey swatch (a plotter.Polygon) and the
// labels (panel titles and colour-bar ticks, one plotter.Labels). It does not add the grid of New, which would show between the panels.
func HeatMaps(title, xLabel, noEntry string, panels [][]HeatPanel) (*plot.Plot, error) {
	if len(panels) == 0 || len(panels[0]) == 0 {
		return nil, fmt.Errorf("figures.HeatMaps %q: no panels", title)
	}
	rows, cols := -1, -1
	maxAbs := 0.0
	for r, row := range panels {
		if len(row) != len(panels[0]) {
			return nil, fmt.Errorf("figures.HeatMaps %q: panel row %d has %d panels, row 0 has %d", title, r, len(row), len(panels[0]))
		}
		for c, pn := range row {
			if len(pn.Values) == 0 || len(pn.Values[0]) == 0 {
				return nil, fmt.Errorf("figures.HeatMaps %q: panel (%d, %d) %q is empty", title, r, c, pn.Title)
			}
			if rows < 0 {
				rows, cols = len(pn.Values), len(pn.Values[0])
			}
			if len(pn.Values) != rows {
				return nil, fmt.Errorf("figures.HeatMaps %q: panel (%d, %d) %q has %d rows, want %d", title, r, c, pn.Title, len(pn.Values), rows)
			}
			for i, line := range pn.Values {
				if len(line) != cols {
					return nil, fmt.Errorf("figures.HeatMaps %q: panel (%d, %d) %q row %d has %d columns, want %d", title, r, c, pn.Title, i, len(line), cols)
				}
				for j, v := range line {
					if math.IsInf(v, 0) {
						return nil, fmt.Errorf("figures.HeatMaps %q: panel (%d, %d) %q entry (%d, %d) is %g", title, r, c, pn.Title, i, j, v)
					}
					if !math.IsNaN(v) {
						maxAbs = math.Max(maxAbs, math.Abs(v))
					}
				}
			}
		}
	}
	if maxAbs == 0 {
		maxAbs = 1
	}
	colors, lo, hi := heatMapScale(maxAbs)

	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.HideAxes()

	nr, nc := len(panels), len(panels[0])
	fr, fc := float64(rows), float64(cols)
	height := float64(nr)*fr + float64(nr-1)*heatGapY
	var labels plotter.XYLabels
	var aligns [][2]float64 // per label: x and y alignment
	for r, row := range panels {
		for c, pn := range row {
			g := matrixGrid{values: pn.Values, x0: float64(c) * (fc + heatGapX), y0: float64(nr-1-r) * (fr + heatGapY)}
			h := plotter.NewHeatMap(g, paletteOf(colors))
			h.Min, h.Max, h.NaN = lo, hi, noEntryGrey
			frame, err := plotter.NewPolygon(plotter.XYs{{X: g.x0, Y: g.y0}, {X: g.x0 + fc, Y: g.y0}, {X: g.x0 + fc, Y: g.y0 + fr}, {X: g.x0, Y: g.y0 + fr}})
			if err != nil {
				return nil, fmt.Errorf("figures.HeatMaps %q: %w", title, err)
			}
			frame.Color = nil
			frame.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(0.5)}
			p.Add(h, frame)
			if pn.Title != "" {
				labels.XYs = append(labels.XYs, plotter.XY{X: g.x0 + fc/2, Y: g.y0 + fr + 0.3})
				labels.Labels = append(labels.Labels, pn.Title)
				aligns = append(aligns, [2]float64{float64(text.XCenter), float64(text.YBottom)})
			}
			if pn.Indices {
				for i := range rows {
					labels.XYs = append(labels.XYs, plotter.XY{X: g.x0 - 0.2, Y: g.Y(rows - 1 - i)})
					labels.Labels = append(labels.Labels, strconv.Itoa(i))
					aligns = append(aligns, [2]float64{float64(text.XRight), float64(text.YCenter)})
				}
				for j := range cols {
					labels.XYs = append(labels.XYs, plotter.XY{X: g.X(j), Y: g.y0 - 0.2})
					labels.Labels = append(labels.Labels, strconv.Itoa(j))
					aligns = append(aligns, [2]float64{float64(text.XCenter), float64(text.YTop)})
				}
			}
		}
	}

	// The colour bar: a column of cells from lo (bottom) to hi (top), over the upper part of the
	// height, then the grey swatch for missing entries under it.
	barX := float64(nc) * (fc + heatGapX)
	barW := math.Min(heatBarWidth, height/12)
	swatch := math.Min(1.5, height/6)
	barLo, barHi := swatch*2, height
	const barCells = 101
	bar := make([]float64, barCells)
	for k := range bar {
		bar[k] = lo + (hi-lo)*float64(k)/(barCells-1)
	}
	bh := plotter.NewHeatMap(barGrid{values: bar, x0: barX, y0: barLo, width: barW, cell: (barHi - barLo) / barCells}, paletteOf(colors))
	bh.Min, bh.Max = lo, hi
	p.Add(bh)
	sq, err := plotter.NewPolygon(plotter.XYs{{X: barX, Y: 0}, {X: barX + barW, Y: 0}, {X: barX + barW, Y: swatch}, {X: barX, Y: swatch}})
	if err != nil {
		return nil, fmt.Errorf("figures.HeatMaps %q: %w", title, err)
	}
	sq.Color = noEntryGrey
	sq.LineStyle.Width = 0
	p.Add(sq)
	for _, v := range []float64{lo, 0, hi} {
		y := barLo + (v-lo)/(hi-lo)*(barHi-barLo)
		labels.XYs = append(labels.XYs, plotter.XY{X: barX + barW + 0.3, Y: y})
		labels.Labels = append(labels.Labels, strconv.FormatFloat(v, 'g', 3, 64))
		aligns = append(aligns, [2]float64{float64(text.XLeft), float64(text.YCenter)})
	}
	if noEntry != "" {
		labels.XYs = append(labels.XYs, plotter.XY{X: barX + barW + 0.3, Y: swatch / 2})
		labels.Labels = append(labels.Labels, noEntry)
		aligns = append(aligns, [2]float64{float64(text.XLeft), float64(text.YCenter)})
	}
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, fmt.Errorf("figures.HeatMaps %q: %w", title, err)
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = font.From(plot.DefaultFont, heatTextSize)
		l.TextStyle[i].XAlign = text.XAlignment(aligns[i][0])
		l.TextStyle[i].YAlign = text.YAlignment(aligns[i][1])
	}
	p.Add(l)

	// Square cells: widen the range of the shorter side to the aspect of the drawing area (the
	// figure less the title, the x label and the colour-bar labels, approximately). Indices need
	// one more cell on the left and at the bottom.
	xmin, ymin := 0.0, 0.0
	for _, row := range panels {
		for _, pn := range row {
			if pn.Indices {
				xmin, ymin = -1, -1
			}
		}
	}
	xmax, ymax := barX+barW+5, height+1.2
	areaW, areaH := float64(Width-vg.Points(12)), float64(Height-vg.Points(48))
	if want := (xmax - xmin) * areaH / areaW; want > ymax-ymin {
		pad := (want - (ymax - ymin)) / 2
		p.Y.Min, p.Y.Max = ymin-pad, ymax+pad
		p.X.Min, p.X.Max = xmin, xmax
	} else {
		pad := ((ymax-ymin)*areaW/areaH - (xmax - xmin)) / 2
		p.X.Min, p.X.Max = xmin-pad, xmax+pad
		p.Y.Min, p.Y.Max = ymin, ymax
	}
	return p, nil
}

// barGrid is the colour bar: values[k] from the bottom up, in cells of height cell from y0, drawn
// as two identical columns so that plotter.HeatMap makes the bar width wide (it draws a single
// column one unit wide).
type barGrid struct {
	values              []float64
	x0, y0, width, cell float64
}

func (b barGrid) Dims() (c, r int)   { return 2, len(b.values) }
func (b barGrid) Z(c, r int) float64 { return b.values[r] }
func (b barGrid) X(c int) float64    { return b.x0 + (float64(c)+0.5)*b.width/2 }
func (b barGrid) Y(r int) float64    { return b.y0 + (float64(r)+0.5)*b.cell }

// paletteOf wraps colours as a palette.Palette.
type paletteOf []color.Color

func (p paletteOf) Colors() []color.Color { return p }
