package figures

import (
	"math"
	"reflect"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func TestLogLines(t *testing.T) {
	x := []float64{0, 1, 2}
	cases := []struct {
		name         string
		series       []Series
		wantPlotters int // grid + per series (band?) + line
		wantLegend   []string
		wantMin      float64 // half the smallest positive value drawn
	}{
		{"one line", []Series{{Name: "deterministic", X: x, Y: []float64{1, 0.1, 0.01}}}, 2, []string{"deterministic"}, 0.005},
		{"band inside", []Series{
			{Name: "noise", Method: 1, X: x, Y: []float64{1, 0.1, 0.01}, Std: []float64{0.5, 0.05, 0.002}},
		}, 3, []string{"noise"}, 0.004}, // smallest lower edge 0.01 − 0.002
		{"band below zero, unnamed exact line", []Series{
			{Name: "noise", Method: 1, X: x, Y: []float64{1, 0.1, 0.01}, Std: []float64{0.5, 0.2, 0.002}},
			{X: x, Y: []float64{1, 0.2, 0.04}, Dashed: true},
		}, 4, []string{"noise"}, 0.004},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := LogLines("Energy", "steps", "E(X)", c.series)
			if err != nil {
				t.Fatal(err)
			}
			if got := numPlotters(p); got != c.wantPlotters {
				t.Errorf("%d plotters, want %d", got, c.wantPlotters)
			}
			if got := legendNames(p); !reflect.DeepEqual(got, c.wantLegend) {
				t.Errorf("legend %q, want %q", got, c.wantLegend)
			}
			if _, ok := p.Y.Scale.(plot.LogScale); !ok {
				t.Errorf("y scale %T, want plot.LogScale", p.Y.Scale)
			}
			if math.Abs(p.Y.Min-c.wantMin) > 1e-12 {
				t.Errorf("y min %g, want %g", p.Y.Min, c.wantMin)
			}
			// Every polygon vertex must be drawable on the log axis: at or above the bottom.
			for _, pl := range plottersOf(p) {
				if poly, ok := pl.(*plotter.Polygon); ok {
					for _, ring := range poly.XYs {
						for _, pt := range ring {
							if pt.Y < p.Y.Min || pt.Y <= 0 {
								t.Errorf("band vertex %v below the axis bottom %g", pt, p.Y.Min)
							}
						}
					}
				}
			}
			checkSVG(t, p)
		})
	}
}

// TestLogLinesHeadroom checks that the top of the log axis is raised for the legend, in log
// space, and stays at the data's top without a legend.
func TestLogLinesHeadroom(t *testing.T) {
	x, y := []float64{0, 1, 2}, []float64{100, 1, 0.01}
	named, err := LogLines("t", "x", "y", []Series{{Name: "a", X: x, Y: y}, {Name: "b", Method: 1, X: x, Y: y}})
	if err != nil {
		t.Fatal(err)
	}
	unnamed, err := LogLines("t", "x", "y", []Series{{X: x, Y: y}})
	if err != nil {
		t.Fatal(err)
	}
	if named.Y.Max <= 200 || named.Y.Max > 1e8 {
		t.Errorf("two legend entries over data up to 100: y max %g, want room above 100 (in decades)", named.Y.Max)
	}
	if unnamed.Y.Max != 100 {
		t.Errorf("no legend: y max %g, want 100", unnamed.Y.Max)
	}
}

func TestLogLinesErrors(t *testing.T) {
	cases := []struct {
		name   string
		series []Series
	}{
		{"no series", nil},
		{"zero", []Series{{X: []float64{1, 2}, Y: []float64{1, 0}}}},
		{"negative", []Series{{X: []float64{1, 2}, Y: []float64{-1, 1}}}},
		{"NaN", []Series{{X: []float64{1, 2}, Y: []float64{1, nan()}}}},
		{"length mismatch", []Series{{X: []float64{1, 2}, Y: []float64{1}}}},
		{"std length", []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Std: []float64{1}}}},
		{"std NaN", []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Std: []float64{1, nan()}}}},
	}
	for _, c := range cases {
		if _, err := LogLines("t", "x", "y", c.series); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestDecadeTicks(t *testing.T) {
	cases := []struct {
		name     string
		min, max float64
		labels   []string // the labelled ticks, in order
	}{
		{"three decades", 1, 1000, []string{"1", "10", "100", "1000"}},
		{"small numbers", 0.001, 0.1, []string{"1e-3", "0.01", "0.1"}},
		// 15 decades: every third one is labelled (5 labels ≤ 7).
		{"fifteen decades", 1e-13, 10, []string{"1e-12", "1e-9", "1e-6", "1e-3", "1"}},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range (decadeTicks{}).Ticks(c.min, c.max) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
			if tk.Value < c.min || tk.Value > c.max {
				t.Errorf("%s: tick %g outside [%g, %g]", c.name, tk.Value, c.min, c.max)
			}
		}
		if !reflect.DeepEqual(got, c.labels) {
			t.Errorf("%s: labels %q, want %q", c.name, got, c.labels)
		}
	}
	// Less than two powers of ten in range: gonum's evenly spaced ticks.
	if got, want := (decadeTicks{}).Ticks(0.05, 0.65), (plot.DefaultTicks{}).Ticks(0.05, 0.65); !reflect.DeepEqual(got, want) {
		t.Errorf("[0.05, 0.65]: ticks %v, want the default %v", got, want)
	}
}
