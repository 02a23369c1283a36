// Package progress reports the progress of long computations (training runs, benchmark grids)
// in the form that suits where it runs: a bar redrawn in place on a terminal, one line per tenth
// of the work in logs and CI, and a line updated in place in a GoNB notebook.
//
//	bar := progress.New(os.Stderr, "cora normal(1,0.8) seed 1", 3000)
//	for epoch := 1; epoch <= 3000; epoch++ {
//		…
//		bar.Update(epoch, fmt.Sprintf("loss %.3f", loss))
//	}
//	bar.Done("test 80.1 %")
package progress

import (
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
)

// Mode is where a Bar draws.
type Mode int

const (
	// Lines writes one line per tenth of the work (and the last one): for logs and CI.
	Lines Mode = iota
	// Terminal redraws one line in place with a carriage return.
	Terminal
	// Notebook updates one HTML line in the GoNB cell's output.
	Notebook
)

// Bar is the progress of one computation of Total steps. Its methods may be called from one
// goroutine at a time.
type Bar struct {
	w            io.Writer
	mode         Mode
	title        string
	total        int
	start        time.Time
	lastDraw     time.Time
	lastTenth    int
	displayID    string
	minInterval  time.Duration
	width        int
	lastLineSize int
}

// New returns a bar for total steps that writes to w, choosing the mode by itself: Notebook in
// a GoNB cell, Terminal when w is a terminal, Lines otherwise.
func New(w io.Writer, title string, total int) *Bar {
	mode := Lines
	switch {
	case gonbui.IsNotebook:
		mode = Notebook
	case isTerminal(w):
		mode = Terminal
	}
	return NewWithMode(w, mode, title, total)
}

// NewWithMode returns a bar that draws in the given mode.
func NewWithMode(w io.Writer, mode Mode, title string, total int) *Bar {
	b := &Bar{w: w, mode: mode, title: title, total: max(total, 1), start: time.Now(), lastTenth: -1,
		minInterval: 200 * time.Millisecond, width: 24}
	if mode == Notebook {
		b.displayID = "stagnb_progress_" + gonbui.UniqueId()
	}
	return b
}

// Update reports that done of Total steps are finished, with a short status (e.g. the loss).
// Terminal and notebook bars redraw at most five times a second; line bars write at each tenth.
func (b *Bar) Update(done int, status string) {
	now := time.Now()
	switch b.mode {
	case Lines:
		tenth := 10 * done / b.total
		if tenth == b.lastTenth && done != b.total {
			return
		}
		b.lastTenth = tenth
		fmt.Fprintln(b.w, b.line(done, status, now))
	default:
		if done != b.total && now.Sub(b.lastDraw) < b.minInterval {
			return
		}
		b.draw(b.line(done, status, now))
	}
	b.lastDraw = now
}

// Done reports the end of the computation with a final status; a terminal bar moves to a new line.
func (b *Bar) Done(status string) {
	line := fmt.Sprintf("%s: done in %s", b.title, roundDuration(time.Since(b.start)))
	if status != "" {
		line += ": " + status
	}
	b.end(line)
}

// Fail reports that the computation stopped with err, so that its bar does not stay drawn as if
// it were still running; a terminal bar moves to a new line.
func (b *Bar) Fail(err error) {
	b.end(fmt.Sprintf("%s: failed after %s: %v", b.title, roundDuration(time.Since(b.start)), err))
}

// end draws the last line of the bar.
func (b *Bar) end(line string) {
	switch b.mode {
	case Lines:
		fmt.Fprintln(b.w, line)
	case Terminal:
		b.draw(line)
		fmt.Fprintln(b.w)
	case Notebook:
		b.draw(line)
	}
}

// line formats "title [#####·····] 120/300 (40 %) 12s, ETA 18s: status".
func (b *Bar) line(done int, status string, now time.Time) string {
	done = min(max(done, 0), b.total)
	filled := b.width * done / b.total
	elapsed := now.Sub(b.start)
	s := fmt.Sprintf("%s [%s%s] %d/%d (%d %%) %s", b.title, strings.Repeat("#", filled), strings.Repeat("·", b.width-filled),
		done, b.total, 100*done/b.total, roundDuration(elapsed))
	if done > 0 && done < b.total {
		eta := time.Duration(float64(elapsed) * float64(b.total-done) / float64(done))
		s += ", ETA " + roundDuration(eta)
	}
	if status != "" {
		s += ": " + status
	}
	return s
}

// draw shows one line in place.
func (b *Bar) draw(line string) {
	switch b.mode {
	case Terminal:
		pad := ""
		if n := len([]rune(line)); n < b.lastLineSize {
			pad = strings.Repeat(" ", b.lastLineSize-n)
		}
		b.lastLineSize = len([]rune(line))
		fmt.Fprint(b.w, "\r"+line+pad)
	case Notebook:
		gonbui.UpdateHtml(b.displayID, `<pre style="margin: 0">`+html.EscapeString(line)+`</pre>`)
	default:
		fmt.Fprintln(b.w, line)
	}
}

// roundDuration rounds d for display: 0.4s, 12s, 3m5s.
func roundDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
