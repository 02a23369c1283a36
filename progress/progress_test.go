package progress

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestLines checks that a log bar writes one line per tenth of the work, the last step, and Done.
func TestLines(t *testing.T) {
	for _, tc := range []struct {
		total, steps int
		want         int // lines before Done
	}{
		{total: 100, steps: 100, want: 11}, // 0 and each tenth 10, 20, …, 100
		{total: 3, steps: 3, want: 4},      // every step starts a new tenth
		{total: 1000, steps: 50, want: 1},  // 50 steps of 1000: still within the first tenth → only 0
	} {
		var buf bytes.Buffer
		b := NewWithMode(&buf, Lines, "run", tc.total)
		for i := 0; i <= tc.steps; i++ {
			b.Update(i, "loss 1")
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != tc.want {
			t.Errorf("total %d, %d steps: %d lines, want %d:\n%s", tc.total, tc.steps, len(lines), tc.want, buf.String())
		}
		b.Done("test 80 %")
		out := buf.String()
		if !strings.Contains(out, "run: done in") || !strings.HasSuffix(out, ": test 80 %\n") {
			t.Errorf("Done line missing or wrong:\n%s", out)
		}
	}
}

// TestLineFormat checks the content of one line.
func TestLineFormat(t *testing.T) {
	var buf bytes.Buffer
	b := NewWithMode(&buf, Lines, "cora seed 1", 10)
	b.Update(5, "loss 0.250")
	got := strings.TrimSpace(buf.String())
	for _, want := range []string{"cora seed 1 [############············] 5/10 (50 %)", "ETA", ": loss 0.250"} {
		if !strings.Contains(got, want) {
			t.Errorf("line %q does not contain %q", got, want)
		}
	}
}

// TestTerminal checks that a terminal bar redraws in place, pads a shorter line over a longer
// one, and ends with a newline.
func TestTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := NewWithMode(&buf, Terminal, "x", 2)
	b.minInterval = 0
	b.Update(1, "a much longer status than the next one")
	b.Update(2, "short")
	b.Done("")
	out := buf.String()
	if strings.Count(out, "\r") != 3 || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("terminal output %q: want three in-place redraws and one final newline", out)
	}
	parts := strings.Split(strings.TrimSuffix(out, "\n"), "\r")
	if len([]rune(parts[2])) < len([]rune(parts[1])) {
		t.Errorf("the shorter line %q does not cover the longer %q", parts[2], parts[1])
	}
}

// TestFail checks that a failed computation ends its bar with the error: on a line of its own in
// logs, and on a terminal in place of the bar, then a newline.
func TestFail(t *testing.T) {
	for _, tc := range []struct {
		mode   Mode
		prefix string // of what Fail writes
	}{
		{Lines, "run: failed after "},
		{Terminal, "\rrun: failed after "},
	} {
		var buf bytes.Buffer
		b := NewWithMode(&buf, tc.mode, "run", 10)
		b.Update(1, "a status longer than the error")
		before := buf.Len()
		b.Fail(errors.New("device error"))
		got := buf.String()[before:]
		if !strings.HasPrefix(got, tc.prefix) || !strings.Contains(got, ": device error") || !strings.HasSuffix(got, "\n") ||
			strings.Count(got, "\n") != 1 {
			t.Errorf("mode %d: Fail wrote %q, want %q…: device error, then one newline", tc.mode, got, tc.prefix)
		}
	}
}
