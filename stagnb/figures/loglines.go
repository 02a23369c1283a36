package figures

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LogLines plots series as Lines does, but on a logarithmic y axis, for quantities that decay
// geometrically (an energy along the layers of a GNN). Every Y must be positive. A band
// Y ± Std whose lower edge is not positive cannot be drawn on a log axis: it is drawn down to the
// bottom of the plot, which is placed a factor 2 below the smallest positive value to draw (the
// lines and the positive lower edges). The plot holds the grid, then per series its band (if any)
// and its line; a legend entry is added per named series.
func LogLines(title, xLabel, yLabel string, series []Series) (*plot.Plot, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("figures.LogLines %q: no series", title)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range series {
		what := fmt.Sprintf("LogLines %q series %d (%q)", title, i, s.Name)
		if _, err := xys(what, s.X, s.Y); err != nil {
			return nil, err
		}
		if s.Std != nil && len(s.Std) != len(s.Y) {
			return nil, fmt.Errorf("figures: %s: %d std values for %d points", what, len(s.Std), len(s.Y))
		}
		for k, y := range s.Y {
			if !(y > 0) {
				return nil, fmt.Errorf("figures: %s: point %d has y = %g, not positive (log axis)", what, k, y)
			}
			lo, hi = math.Min(lo, y), math.Max(hi, y)
			if s.Std != nil {
				if !finite(s.Std[k]) {
					return nil, fmt.Errorf("figures: %s: std %d is not finite", what, k)
				}
				if d := y - math.Abs(s.Std[k]); d > 0 {
					lo = math.Min(lo, d)
				}
				hi = math.Max(hi, y+math.Abs(s.Std[k]))
			}
		}
	}
	floor := lo / 2
	p := New(title, xLabel, yLabel)
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decadeTicks{}
	for i, s := range series {
		what := fmt.Sprintf("LogLines %q series %d (%q)", title, i, s.Name)
		pts, _ := xys(what, s.X, s.Y)
		var band *plotter.Polygon
		if s.Std != nil {
			var err error
			if band, err = bandPolygon(what, s.X, s.Y, s.Std, floor); err != nil {
				return nil, err
			}
		}
		if err := addSeries(p, what, s, pts, band); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = floor, hi
	makeRoomForLegendLog(p, floor, hi)
	return p, nil
}

// makeRoomForLegendLog is makeRoomForLegend for a logarithmic y axis spanning [ymin, ymax]: it
// raises the top of the axis so that the legend sits above the data.
func makeRoomForLegendLog(p *plot.Plot, ymin, ymax float64) {
	legend := p.Legend.Rectangle(draw.Canvas{}).Size().Y
	area := Height - vg.Points(75)
	f := float64(legend+vg.Points(6)) / float64(area)
	if legend <= 0 || f >= 0.8 || !(ymax > ymin) {
		return
	}
	l0, l1 := math.Log10(ymin), math.Log10(ymax)
	p.Y.Max = math.Max(p.Y.Max, math.Pow(10, l1+(l1-l0)*f/(1-f)))
}

// decadeTicks marks the powers of ten of a logarithmic axis, labelling every decade, or every
// second, third, … decade so that at most 7 are labelled; a range holding fewer than two labelled
// powers of ten gets gonum's default (evenly spaced) ticks.
type decadeTicks struct{}

// Ticks returns the tick marks between min and max (both positive).
func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	first, last := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	every := 1
	for (last-first)/every+1 > 7 {
		every++
	}
	var ticks []plot.Tick
	labelled := 0
	for d := first; d <= last; d++ {
		v := math.Pow(10, float64(d))
		if v < min || v > max {
			continue
		}
		t := plot.Tick{Value: v}
		if d%every == 0 {
			t.Label = "1e" + strconv.Itoa(d)
			if d >= -2 && d <= 3 {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			labelled++
		}
		ticks = append(ticks, t)
	}
	if labelled < 2 {
		// Less than two decades in range: evenly spaced ticks read better.
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	return ticks
}
