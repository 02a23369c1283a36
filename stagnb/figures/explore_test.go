package figures

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestSliderSteps(t *testing.T) {
	cases := []struct {
		name      string
		s         Slider
		positions int
		initial   float64 // the initial value rounded to the nearest step
		values    map[int]float64
		formatted string // format(initial)
	}{
		{"mean", Slider{Label: "mean", Min: -1.5, Max: 2, Step: 0.05, Value: 0.5}, 70, 0.5,
			map[int]float64{0: -1.5, 40: 0.5, 50: 1, 70: 2, 99: 2, -3: -1.5}, "0.50"},
		{"depth", Slider{Label: "depth", Min: 1, Max: 40, Step: 1, Value: 20}, 39, 20,
			map[int]float64{0: 1, 19: 20, 39: 40}, "20"},
		{"off-grid initial value", Slider{Label: "p", Min: 0, Max: 1, Step: 0.1, Value: 0.33}, 10, 0.3,
			map[int]float64{3: 0.3, 7: 0.7}, "0.3"},
	}
	for _, c := range cases {
		if got := c.s.positions(); got != c.positions {
			t.Errorf("%s: %d positions, want %d", c.name, got, c.positions)
		}
		for k, want := range c.values {
			if got := c.s.at(k); got != want {
				t.Errorf("%s: at(%d) = %v, want %v", c.name, k, got, want)
			}
			if k >= 0 && k <= c.positions {
				if got := c.s.position(c.s.at(k)); got != k {
					t.Errorf("%s: position(at(%d)) = %d", c.name, k, got)
				}
			}
		}
		vs, err := InitialValues([]Slider{c.s})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if vs[0] != c.initial {
			t.Errorf("%s: initial value %v, want %v", c.name, vs[0], c.initial)
		}
		if got := c.s.format(vs[0]); got != c.formatted {
			t.Errorf("%s: format %q, want %q", c.name, got, c.formatted)
		}
	}
}

func TestInitialValuesErrors(t *testing.T) {
	cases := []struct {
		name    string
		sliders []Slider
	}{
		{"none", nil},
		{"zero step", []Slider{{Label: "a", Min: 0, Max: 1, Step: 0, Value: 0}}},
		{"max below min", []Slider{{Label: "a", Min: 1, Max: 0, Step: 0.1, Value: 0.5}}},
		{"value outside", []Slider{{Label: "a", Min: 0, Max: 1, Step: 0.1, Value: 2}}},
		{"NaN", []Slider{{Label: "a", Min: 0, Max: nan(), Step: 0.1, Value: 0}}},
		{"too many steps", []Slider{{Label: "a", Min: 0, Max: 1, Step: 1e-6, Value: 0}}},
	}
	for _, c := range cases {
		if _, err := InitialValues(c.sliders); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestDescribeValues(t *testing.T) {
	sliders := []Slider{
		{Label: "noise mean E z", Min: -1.5, Max: 2, Step: 0.05, Value: 0.5},
		{Label: "depth L", Min: 1, Max: 40, Step: 1, Value: 20},
	}
	if got, want := DescribeValues(sliders, []float64{1, 7}), "noise mean E z = 1.00, depth L = 7"; got != want {
		t.Errorf("DescribeValues = %q, want %q", got, want)
	}
	if got, want := labels(sliders), "noise mean E z and depth L"; got != want {
		t.Errorf("labels = %q, want %q", got, want)
	}
}

// TestExploreOutsideNotebook checks what Explore does where no notebook is attached (as in tests
// and commands): it draws once, with the initial values, returns the draw's error, and never waits
// for a front-end.
func TestExploreOutsideNotebook(t *testing.T) {
	if LiveFrontEnd() {
		t.Fatal("LiveFrontEnd is true outside a notebook")
	}
	sliders := []Slider{
		{Label: "mean", Min: -1, Max: 2, Step: 0.05, Value: 0.5},
		{Label: "depth", Min: 1, Max: 40, Step: 1, Value: 20},
	}
	var calls [][]float64
	draw := func(v []float64) (*plot.Plot, error) {
		calls = append(calls, append([]float64(nil), v...))
		return Lines("t", "x", "y", []Series{{X: []float64{0, 1}, Y: []float64{1, 2}}})
	}
	if err := Explore(sliders, draw); err != nil {
		t.Fatal(err)
	}
	if want := [][]float64{{0.5, 20}}; !reflect.DeepEqual(calls, want) {
		t.Errorf("draw called with %v, want %v", calls, want)
	}

	boom := errors.New("boom")
	err := Explore(sliders, func([]float64) (*plot.Plot, error) { return nil, boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "mean = 0.50, depth = 20") {
		t.Errorf("draw error: got %v, want it wrapped with the values", err)
	}

	calls = nil
	if err := Explore([]Slider{{Label: "bad", Min: 0, Max: 1, Step: -1}}, draw); err == nil || len(calls) != 0 {
		t.Errorf("invalid slider: err %v, %d draws; want an error and no draw", err, len(calls))
	}
}
