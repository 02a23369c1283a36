package figures

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// plottersOf returns the plotters added to p, in order. gonum/plot keeps them in an unexported
// field; the test reads it through reflect and unsafe (the version is pinned in go.mod).
func plottersOf(p *plot.Plot) []plot.Plotter {
	f := reflect.ValueOf(p).Elem().FieldByName("plotters")
	return *(*[]plot.Plotter)(unsafe.Pointer(f.UnsafeAddr()))
}

// numPlotters counts the plotters added to p.
func numPlotters(p *plot.Plot) int { return len(plottersOf(p)) }

// legendNames returns the texts of p's legend entries.
func legendNames(p *plot.Plot) []string {
	entries := reflect.ValueOf(p.Legend).FieldByName("entries")
	names := make([]string, entries.Len())
	for i := range names {
		names[i] = entries.Index(i).FieldByName("text").String()
	}
	return names
}

// checkSVG renders p and checks that the SVG is a document that contains the title and every
// legend entry.
func checkSVG(t *testing.T, p *plot.Plot) string {
	t.Helper()
	svg, err := SVG(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, "<svg") || !strings.Contains(svg, "</svg>") {
		t.Fatalf("SVG of %q is not an SVG document (%d bytes)", p.Title.Text, len(svg))
	}
	for _, want := range append([]string{p.Title.Text, p.X.Label.Text, p.Y.Label.Text}, legendNames(p)...) {
		if !strings.Contains(svg, ">"+want+"<") {
			t.Errorf("SVG of %q does not contain the text %q", p.Title.Text, want)
		}
	}
	return svg
}

func TestNewStyle(t *testing.T) {
	p := New("A title", "x (units)", "y (units)")
	if !p.Legend.Top {
		t.Errorf("legend not on top")
	}
	if got := numPlotters(p); got != 1 {
		t.Fatalf("New: %d plotters, want 1 (the grid)", got)
	}
	if _, ok := plottersOf(p)[0].(*plotter.Grid); !ok {
		t.Errorf("first plotter is %T, want the grid", plottersOf(p)[0])
	}
	checkSVG(t, p)
}

func TestLines(t *testing.T) {
	x := []float64{1, 2, 3}
	cases := []struct {
		name         string
		series       []Series
		wantPlotters int // grid + per series (band?) + line
		wantLegend   []string
	}{
		{"one line", []Series{{Name: "GCN", X: x, Y: []float64{1, 2, 3}}}, 2, []string{"GCN"}},
		{"two lines, one band", []Series{
			{Name: "GCN", X: x, Y: []float64{1, 2, 3}},
			{Name: "STAG ± 1 std over 5 seeds", Method: 1, X: x, Y: []float64{2, 2, 2}, Std: []float64{0.1, 0.2, 0.1}},
		}, 4, []string{"GCN", "STAG ± 1 std over 5 seeds"}},
		{"unnamed reference line", []Series{
			{Name: "ours", X: x, Y: []float64{1, 2, 3}},
			{X: x, Y: []float64{0, 0, 0}, Dashed: true},
		}, 3, []string{"ours"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Lines("Accuracy vs depth", "layers", "accuracy (%)", c.series)
			if err != nil {
				t.Fatal(err)
			}
			if got := numPlotters(p); got != c.wantPlotters {
				t.Errorf("%d plotters, want %d", got, c.wantPlotters)
			}
			if got := legendNames(p); !reflect.DeepEqual(got, c.wantLegend) {
				t.Errorf("legend %q, want %q", got, c.wantLegend)
			}
			checkSVG(t, p)
		})
	}
}

func TestLinesColorsByMethod(t *testing.T) {
	p, err := Lines("t", "x", "y", []Series{
		{Name: "a", Method: 3, X: []float64{0, 1}, Y: []float64{0, 1}},
		{Name: "b", Method: 0, X: []float64{0, 1}, Y: []float64{1, 0}, Std: []float64{0.1, 0.1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ps := plottersOf(p) // grid, line a, band b, line b
	if got := ps[1].(*plotter.Line).Color; got != Color(3) {
		t.Errorf("method 3: colour %v, want %v", got, Color(3))
	}
	band := ps[2].(*plotter.Polygon)
	if r, g, b, a := band.Color.RGBA(); a != BandAlpha*0x101 {
		t.Errorf("band colour (%d, %d, %d, %d): want alpha %d/255", r, g, b, a, BandAlpha)
	}
	if band.LineStyle.Width != 0 {
		t.Errorf("band has an outline of width %v", band.LineStyle.Width)
	}
	if got := ps[3].(*plotter.Line).Color; got != Color(0) {
		t.Errorf("method 0: colour %v, want %v", got, Color(0))
	}
}

// TestLegendHeadroom checks that the y axis leaves room above the data for the legend, which
// gonum/plot draws inside the top of the data area, and that no legend leaves no room.
func TestLegendHeadroom(t *testing.T) {
	x, y := []float64{0, 1, 2}, []float64{0, 1, 2}
	named, err := Lines("t", "x", "y", []Series{{Name: "a", X: x, Y: y}, {Name: "b", Method: 1, X: x, Y: y}})
	if err != nil {
		t.Fatal(err)
	}
	unnamed, err := Lines("t", "x", "y", []Series{{X: x, Y: y}})
	if err != nil {
		t.Fatal(err)
	}
	if named.Y.Max <= 2.2 || named.Y.Max > 4 {
		t.Errorf("two legend entries over data up to 2: y max %g, want room above 2", named.Y.Max)
	}
	if unnamed.Y.Max != 2 {
		t.Errorf("no legend: y max %g, want 2", unnamed.Y.Max)
	}
}

func TestLinesErrors(t *testing.T) {
	cases := []struct {
		name   string
		series []Series
	}{
		{"no series", nil},
		{"length mismatch", []Series{{X: []float64{1, 2}, Y: []float64{1}}}},
		{"no points", []Series{{X: []float64{}, Y: []float64{}}}},
		{"NaN", []Series{{X: []float64{1, 2}, Y: []float64{1, nan()}}}},
		{"std length", []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Std: []float64{1}}}},
	}
	for _, c := range cases {
		if _, err := Lines("t", "x", "y", c.series); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func nan() float64 { z := 0.0; return z / z }

func TestHistograms(t *testing.T) {
	a := []float64{0.5, 1, 1.5, 2, 2, 2.5, 3}
	b := []float64{0, 1, 2, 3, 4}
	cases := []struct {
		name         string
		sets         []Samples
		wantPlotters int
		wantLegend   []string
	}{
		{"one set", []Samples{{Name: "{2, 2}", Values: a}}, 2, []string{"{2, 2}"}},
		{"two sets, one exact", []Samples{
			{Name: "{2, 2}", Values: a, DensityX: []float64{0, 2, 4}, DensityY: []float64{0, 0.5, 0}},
			{Name: "{0, 4}", Method: 1, Values: b},
		}, 4, []string{"{2, 2}", "{0, 4}"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Histograms("SUM of a perturbed multiset", "SUM(ξ(X))", c.sets, 8)
			if err != nil {
				t.Fatal(err)
			}
			if got := numPlotters(p); got != c.wantPlotters {
				t.Errorf("%d plotters, want %d", got, c.wantPlotters)
			}
			if got := legendNames(p); !reflect.DeepEqual(got, c.wantLegend) {
				t.Errorf("legend %q, want %q", got, c.wantLegend)
			}
			wantLabel := "density"
			if len(c.sets) > 1 {
				wantLabel = "density (dashed: exact)"
			}
			if p.Y.Label.Text != wantLabel || p.Y.Min != 0 {
				t.Errorf("y axis %q from %g, want %q from 0", p.Y.Label.Text, p.Y.Min, wantLabel)
			}
			checkSVG(t, p)
		})
	}
}

// TestHistogramDensity checks that each histogram is a density: the step heights times the bin
// width sum to 1, on bins shared by all sets.
func TestHistogramDensity(t *testing.T) {
	sets := []Samples{
		{Name: "a", Values: []float64{0, 0, 1, 2, 3, 3, 3, 4}},
		{Name: "b", Method: 1, Values: []float64{1, 1.5, 2}},
	}
	const bins = 4
	p, err := Histograms("t", "x", sets, bins)
	if err != nil {
		t.Fatal(err)
	}
	ps := plottersOf(p)
	for i := range sets {
		line := ps[1+i].(*plotter.Line)
		if len(line.XYs) != bins+1 || line.XYs[0].X != 0 || line.XYs[bins].X != 4 {
			t.Fatalf("set %d: bins %v, want 4 bins over the common range [0, 4]", i, line.XYs)
		}
		var area float64
		for b := range bins {
			area += line.XYs[b].Y * (line.XYs[b+1].X - line.XYs[b].X)
		}
		if area < 1-1e-12 || area > 1+1e-12 {
			t.Errorf("set %d: area %g, want 1", i, area)
		}
	}
	// Set a: counts per bin [0,1) [1,2) [2,3) [3,4] = 2, 1, 1, 4 out of 8, width 1.
	want := []float64{0.25, 0.125, 0.125, 0.5}
	line := ps[1].(*plotter.Line)
	for b, w := range want {
		if line.XYs[b].Y != w {
			t.Errorf("set a bin %d: density %g, want %g", b, line.XYs[b].Y, w)
		}
	}
}

func TestHistogramsErrors(t *testing.T) {
	ok := []float64{1, 2}
	cases := []struct {
		name string
		sets []Samples
		bins int
	}{
		{"no sets", nil, 4},
		{"no bins", []Samples{{Values: ok}}, 0},
		{"empty set", []Samples{{Values: nil}}, 4},
		{"NaN", []Samples{{Values: []float64{1, nan()}}}, 4},
		{"exact length", []Samples{{Values: ok, DensityX: []float64{1, 2}, DensityY: []float64{1}}}, 4},
	}
	for _, c := range cases {
		if _, err := Histograms("t", "x", c.sets, c.bins); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// All values equal: one unit-wide range around them, no error.
	if _, err := Histograms("t", "x", []Samples{{Name: "c", Values: []float64{3, 3}}}, 4); err != nil {
		t.Errorf("constant values: %v", err)
	}
}

// TestDisplayBundles checks what Show and ShowPNG send to the notebook: a real image/svg+xml or
// image/png (not text/html), with a text/plain stand-in.
func TestDisplayBundles(t *testing.T) {
	p, err := Lines("Bundle title", "x", "y", []Series{{Name: "s", X: []float64{0, 1}, Y: []float64{0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	d, err := svgData(p)
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := d.Data[protocol.MIMEImageSVG].(string)
	if !strings.HasPrefix(strings.TrimSpace(svg), "<?xml") || !strings.Contains(svg, "<svg") || !strings.Contains(svg, "Bundle title") {
		t.Errorf("image/svg+xml is not an SVG document with the title: %.80q", svg)
	}
	if _, ok := d.Data[protocol.MIMETextHTML]; ok {
		t.Errorf("Show sends text/html; want image/svg+xml")
	}
	if d.Data[protocol.MIMETextPlain] != "<figure: Bundle title>" {
		t.Errorf("text/plain = %q", d.Data[protocol.MIMETextPlain])
	}

	d, err = pngData(p)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := d.Data[protocol.MIMEImagePNG].([]byte)
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("image/png does not decode: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 5*PNGDPI || b.Dy() != 35*PNGDPI/10 {
		t.Errorf("PNG is %d×%d pixels, want %d×%d", b.Dx(), b.Dy(), 5*PNGDPI, 35*PNGDPI/10)
	}
	if got := d.Metadata[string(protocol.MIMEImagePNG)]; !reflect.DeepEqual(got, map[string]int{"width": 480, "height": 336}) {
		t.Errorf("PNG metadata %v", got)
	}
}

func TestSave(t *testing.T) {
	p := New("Saved", "x", "y")
	dir := t.TempDir()
	for _, name := range []string{"f.svg", "f.png"} {
		path := filepath.Join(dir, name)
		if err := Save(p, path); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Errorf("%s: not written (%v)", name, err)
		}
	}
	if err := Save(p, filepath.Join(dir, "f.unknown")); err == nil {
		t.Errorf("Save with an unknown extension: no error")
	}
}

// TestShowOutsideNotebook checks that the Show functions do nothing without GoNB's pipe.
func TestShowOutsideNotebook(t *testing.T) {
	if os.Getenv(protocol.GONB_PIPE_ENV) != "" {
		t.Skip("running inside GoNB")
	}
	p := New("t", "x", "y")
	if err := Show(p); err != nil {
		t.Error(err)
	}
	if err := ShowPNG(p); err != nil {
		t.Error(err)
	}
	ShowTable(Table{Header: []string{"a"}})
	ShowMarkdown("x")
}

// TestTableData checks that ShowTable's bundle carries the table's Markdown (also as text/plain)
// and its HTML.
func TestTableData(t *testing.T) {
	tb := Table{Title: "T", Header: []string{"a", "b"}, Right: []bool{false, true}, Rows: [][]string{{"x", "1"}}}
	d := tableData(tb)
	md, h := tb.Markdown(), tb.HTML()
	if d.Data[protocol.MIMETextMarkdown] != md || d.Data[protocol.MIMETextPlain] != md || d.Data[protocol.MIMETextHTML] != h {
		t.Errorf("ShowTable bundle does not carry the Markdown and HTML renderings: %v", d.Data)
	}
}
