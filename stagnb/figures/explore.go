package figures

import (
	"fmt"
	"html"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"
	"gonum.org/v1/plot"
)

// JupyterSessionEnv is the environment variable that Jupyter Server sets for the kernels it
// starts for a notebook (the notebook's path). nbconvert and other headless runners do not set it,
// and there is no browser there to run the sliders: Explore only starts its widgets when it is set.
const JupyterSessionEnv = "JPY_SESSION_NAME"

// Explore timings.
const (
	// ExploreConnectTimeout bounds the wait for the notebook front-end to answer the widgets;
	// past it Explore keeps the plot for the initial values and returns.
	ExploreConnectTimeout = 10 * time.Second
	// ExploreIdleTimeout ends the interaction (and the cell) after this long without a slider
	// move, so that a forgotten explorer does not hold the kernel.
	ExploreIdleTimeout = 10 * time.Minute
)

// Slider is one control of Explore: a real parameter that moves in steps of Step from Min to Max.
type Slider struct {
	// Label is shown before the slider ("noise mean E z").
	Label string
	// Min, Max and Step define the values Min, Min+Step, …, up to Max; Step > 0, Min ≤ Max.
	Min, Max, Step float64
	// Value is the initial value; it is rounded to the nearest step.
	Value float64
}

// positions is the number of steps from Min to Max (the slider's integer range is 0 … positions).
func (s Slider) positions() int { return int(math.Round((s.Max - s.Min) / s.Step)) }

// at is the value at integer position k.
func (s Slider) at(k int) float64 {
	k = min(max(k, 0), s.positions())
	v := s.Min + float64(k)*s.Step
	// Round away the binary noise of Min + k·Step (0.30000000000000004) at the step's precision.
	return roundTo(v, s.decimals())
}

// position is the integer position nearest to v.
func (s Slider) position(v float64) int {
	return min(max(int(math.Round((v-s.Min)/s.Step)), 0), s.positions())
}

// decimals is the number of decimals that Step needs (0 for an integer step, at most 6).
func (s Slider) decimals() int {
	for d := 0; d < 6; d++ {
		p := math.Pow(10, float64(d))
		if math.Abs(s.Step*p-math.Round(s.Step*p)) < 1e-9*p {
			return d
		}
	}
	return 6
}

// format writes v with the step's precision.
func (s Slider) format(v float64) string { return strconv.FormatFloat(v, 'f', s.decimals(), 64) }

// roundTo rounds v to d decimals.
func roundTo(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// validate checks the slider's range.
func (s Slider) validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(s.Min) || bad(s.Max) || bad(s.Step) || bad(s.Value):
		return fmt.Errorf("slider %q: Min, Max, Step and Value must be finite", s.Label)
	case !(s.Step > 0):
		return fmt.Errorf("slider %q: Step = %g, want > 0", s.Label, s.Step)
	case s.Max < s.Min:
		return fmt.Errorf("slider %q: Max = %g < Min = %g", s.Label, s.Max, s.Min)
	case s.positions() > 10_000:
		return fmt.Errorf("slider %q: %d steps, want at most 10000", s.Label, s.positions())
	case s.Value < s.Min || s.Value > s.Max:
		return fmt.Errorf("slider %q: Value = %g outside [%g, %g]", s.Label, s.Value, s.Min, s.Max)
	}
	return nil
}

// InitialValues checks the sliders and returns their initial values, each rounded to its nearest
// step: the values of Explore's first plot.
func InitialValues(sliders []Slider) ([]float64, error) {
	if len(sliders) == 0 {
		return nil, fmt.Errorf("figures: no sliders")
	}
	values := make([]float64, len(sliders))
	for i, s := range sliders {
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("figures: %w", err)
		}
		values[i] = s.at(s.position(s.Value))
	}
	return values, nil
}

// DescribeValues writes "label = value" for every slider, separated by commas.
func DescribeValues(sliders []Slider, values []float64) string {
	parts := make([]string, len(sliders))
	for i, s := range sliders {
		parts[i] = s.Label + " = " + s.format(values[i])
	}
	return strings.Join(parts, ", ")
}

// LiveFrontEnd reports whether the running cell can talk to a browser: it runs under GoNB, in a
// kernel that Jupyter Server started for a notebook ($JPY_SESSION_NAME set). It is false under
// nbconvert, where nothing could move a slider.
func LiveFrontEnd() bool {
	return gonbui.IsNotebook && os.Getenv(JupyterSessionEnv) != ""
}

// showAt displays p as image/svg+xml in the output block with the given display id (GoNB
// creates the block the first time and replaces its content afterwards).
func showAt(displayID string, p *plot.Plot) error {
	d, err := svgData(p)
	if err != nil {
		return err
	}
	d.DisplayID = displayID
	gonbui.SendData(d)
	return gonbui.Error()
}

// Explore shows an interactive plot in a notebook: draw(values) for the sliders' initial values
// first, as an ordinary image output, and then, in a live notebook (LiveFrontEnd), one slider per
// entry of sliders and a "Done" button; every move of a slider redraws the plot in place with the
// new values (moves that arrive while drawing are merged). The interaction ends with "Done", or
// after ExploreIdleTimeout without a move; the last plot stays in the output.
//
// Explore never waits for a browser that is not there: outside a notebook it only calls draw
// once; under nbconvert (no Jupyter Server session) it shows the initial plot with a note and
// returns at once; and if the front-end does not answer the widgets within
// ExploreConnectTimeout it returns as well. A draw error for the initial values is returned;
// later ones are shown under the sliders.
func Explore(sliders []Slider, draw func(values []float64) (*plot.Plot, error)) error {
	values, err := InitialValues(sliders)
	if err != nil {
		return fmt.Errorf("figures.Explore: %w", err)
	}
	p, err := draw(values)
	if err != nil {
		return fmt.Errorf("figures.Explore: initial plot (%s): %w", DescribeValues(sliders, values), err)
	}
	if !gonbui.IsNotebook {
		return nil
	}
	plotID := "stagnb_explore_plot_" + gonbui.UniqueId()
	if err := showAt(plotID, p); err != nil {
		return fmt.Errorf("figures.Explore: %w", err)
	}
	controlsID := "stagnb_explore_controls_" + gonbui.UniqueId()
	// Sync waits until GoNB has published everything sent so far: a cell's program that exits
	// right after a display can otherwise lose it (GoNB closes the pipe when the program ends).
	defer gonbui.Sync()
	if !LiveFrontEnd() {
		gonbui.UpdateMarkdown(controlsID, fmt.Sprintf(
			"*Interactive plot: run this cell in JupyterLab to get sliders for %s. Shown: %s.*",
			labels(sliders), DescribeValues(sliders, values)))
		return nil
	}
	gonbui.Sync()
	return exploreLive(sliders, values, draw, plotID, controlsID)
}

// labels lists the sliders' labels: "a, b and c".
func labels(sliders []Slider) string {
	ls := make([]string, len(sliders))
	for i, s := range sliders {
		ls[i] = s.Label
	}
	if len(ls) == 1 {
		return ls[0]
	}
	return strings.Join(ls[:len(ls)-1], ", ") + " and " + ls[len(ls)-1]
}

// exploreWidgets are the controls of a live Explore.
type exploreWidgets struct {
	sliders []*widgets.SliderBuilder
	done    *widgets.ButtonBuilder
	// moves and clicks are the subscriptions to the sliders and the button, made as soon as each
	// widget exists: a value the front-end sends before its subscription would be lost.
	moves  []*comms.AddressChan[int]
	clicks *comms.AddressChan[int]
}

// exploreLive builds the widgets in the output block controlsID and redraws the plot in the block
// plotID on every slider move, until "Done" or ExploreIdleTimeout.
func exploreLive(sliders []Slider, values []float64, draw func([]float64) (*plot.Plot, error), plotID, controlsID string) error {
	divID := "stagnb_explore_" + gonbui.UniqueId()
	valueID := func(i int) string { return fmt.Sprintf("%s_value_%d", divID, i) }
	statusID := divID + "_status"
	gonbui.UpdateHtml(controlsID, fmt.Sprintf(`<div id="%s" style="font-family: sans-serif; font-size: small"></div>`, divID))

	// Building a widget waits for the browser's first answer, which may never come: build them
	// in a goroutine and give up after ExploreConnectTimeout.
	ready := make(chan exploreWidgets, 1)
	go func() {
		var w exploreWidgets
		for i, s := range sliders {
			rowID := fmt.Sprintf("%s_row_%d", divID, i)
			dom.Append(divID, fmt.Sprintf(`<div id="%s"><span style="display: inline-block; min-width: 12em">%s</span></div>`,
				rowID, html.EscapeString(s.Label)))
			sl := widgets.Slider(0, s.positions(), s.position(values[i])).AppendTo(rowID).Done()
			w.sliders, w.moves = append(w.sliders, sl), append(w.moves, sl.Listen().LatestOnly())
			dom.Append(rowID, fmt.Sprintf(` <code id="%s">%s</code>`, valueID(i), html.EscapeString(s.format(values[i]))))
		}
		w.done = widgets.Button("Done").AppendTo(divID).Done()
		w.clicks = w.done.Listen()
		dom.Append(divID, fmt.Sprintf(` <span id="%s"></span>`, statusID))
		ready <- w
	}()
	var w exploreWidgets
	select {
	case w = <-ready:
	case <-time.After(ExploreConnectTimeout):
		gonbui.UpdateMarkdown(controlsID, fmt.Sprintf(
			"*No answer from the notebook front-end within %s: sliders unavailable. Shown: %s.*",
			ExploreConnectTimeout, DescribeValues(sliders, values)))
		return nil
	}

	type move struct{ slider, position int }
	moves := make(chan move, len(sliders))
	for i, ch := range w.moves {
		go func() {
			for k := range ch.C {
				moves <- move{i, k}
			}
		}()
	}
	clicks := w.clicks
	idle := time.NewTimer(ExploreIdleTimeout)
	defer idle.Stop()
	for {
		select {
		case m := <-moves:
			changed := map[int]bool{}
			apply := func(m move) {
				values[m.slider] = sliders[m.slider].at(m.position)
				changed[m.slider] = true
			}
			apply(m)
		merge:
			for {
				select {
				case m := <-moves:
					apply(m)
				default:
					break merge
				}
			}
			for i := range changed {
				dom.SetInnerText(valueID(i), sliders[i].format(values[i]))
			}
			p, err := draw(values)
			if err == nil {
				err = showAt(plotID, p)
			}
			status := ""
			if err != nil {
				status = "cannot draw: " + err.Error()
			}
			dom.SetInnerText(statusID, status)
			idle.Reset(ExploreIdleTimeout)
		case count := <-clicks.C:
			if count == 0 { // the button's initial value, sent by the front-end when it appears
				continue
			}
			gonbui.UpdateMarkdown(controlsID, "*Done. Shown: "+DescribeValues(sliders, values)+". Run the cell again to explore.*")
			return nil
		case <-idle.C:
			gonbui.UpdateMarkdown(controlsID, fmt.Sprintf("*Stopped after %s without a move. Shown: %s. Run the cell again to explore.*",
				ExploreIdleTimeout, DescribeValues(sliders, values)))
			return nil
		}
	}
}
