package notebooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// frontEndRun is what testdata/fake_frontend.py reports about the interactive cell.
type frontEndRun struct {
	Sliders  []string    `json:"sliders"`
	Buttons  []string    `json:"buttons"`
	SVG      [][2]string `json:"svg"` // [message type, display id] of every image/svg+xml output
	Markdown []string    `json:"markdown"`
	Errors   []string    `json:"errors"`
	Moved    bool        `json:"moved"`
	Pressed  bool        `json:"pressed"`
	Seconds  *float64    `json:"seconds"`
}

// runFakeFrontEnd runs the setup cell and the explorer cell of 04-oversmoothing.ipynb in the GoNB
// kernel as a live JupyterLab session would (JPY_SESSION_NAME set), with a Python stand-in for the
// browser (testdata/fake_frontend.py) that answers the widgets, moves the first slider to
// position moveTo and presses Done; noAnswer makes it ignore the widgets.
func runFakeFrontEnd(t *testing.T, moveTo string, noAnswer bool) frontEndRun {
	t.Helper()
	root, env := kernelEnv(t, "python")
	python := filepath.Join(root, ".venv", "bin", "python")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, filepath.Join("testdata", "fake_frontend.py"),
		"04-oversmoothing.ipynb", "nb04-03", "nb04-21", moveTo)
	cmd.Env = append(env,
		"JUPYTER_RUNTIME_DIR="+t.TempDir(),
		"FAKE_FRONTEND_DIR="+t.TempDir(),
	)
	if noAnswer {
		cmd.Env = append(cmd.Env, "NO_ANSWER=1")
	}
	killGroupOnCancel(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	killGroup(cmd)
	if err != nil {
		t.Fatalf("fake front-end: %v\n%s", err, tail(stderr.String(), 3000))
	}
	var run frontEndRun
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &run); err != nil {
		t.Fatalf("fake front-end output: %v\n%s", err, tail(stdout.String(), 2000))
	}
	if run.Seconds == nil {
		t.Fatalf("the interactive cell did not finish within the fake front-end's timeout: %+v", run)
	}
	for _, e := range run.Errors {
		t.Errorf("cell error: %s", e)
	}
	return run
}

// TestExplorerLive checks the interactive cell of 04-oversmoothing.ipynb in a live session: it
// shows the initial plot, builds three sliders and a Done button, redraws the plot in place when
// the mean slider moves (position 50 is E z = −1.5 + 50 × 0.05 = 1), and ends on Done.
func TestExplorerLive(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the GoNB kernel")
	}
	run := runFakeFrontEnd(t, "50", false)
	if len(run.Sliders) != 3 || len(run.Buttons) != 1 || !run.Moved || !run.Pressed {
		t.Fatalf("widgets: %d sliders, %d buttons, moved %v, pressed %v; want 3, 1, true, true", len(run.Sliders), len(run.Buttons), run.Moved, run.Pressed)
	}
	if len(run.SVG) < 2 || run.SVG[0][0] != "display_data" || run.SVG[len(run.SVG)-1][0] != "update_display_data" ||
		run.SVG[0][1] == "" || run.SVG[len(run.SVG)-1][1] != run.SVG[0][1] {
		t.Errorf("plot outputs %v: want the initial plot, then an update of the same display", run.SVG)
	}
	last := ""
	if len(run.Markdown) > 0 {
		last = run.Markdown[len(run.Markdown)-1]
	}
	// The other sliders keep their initial positions (given to the browser in the sliders' HTML).
	if !strings.Contains(last, "Done") || !strings.Contains(last, "noise mean E z = 1.00, noise std σ = 0.50, depth L = 20") {
		t.Errorf("closing note %q: want Done with the moved mean 1.00 and the initial std 0.50 and depth 20", last)
	}
}

// TestExplorerNoAnswer checks that the interactive cell does not wait for ever when the
// front-end never answers the widgets: it keeps the initial plot and returns after the connect
// timeout (10 s; the bound below leaves room for a slow machine).
func TestExplorerNoAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the GoNB kernel")
	}
	run := runFakeFrontEnd(t, "50", true)
	if *run.Seconds > 60 {
		t.Errorf("the cell ran %.1f s without a front-end", *run.Seconds)
	}
	if len(run.SVG) != 1 || len(run.Markdown) == 0 || !strings.Contains(run.Markdown[len(run.Markdown)-1], "No answer") {
		t.Errorf("outputs: plots %v, notes %q; want the initial plot and the no-answer note", run.SVG, run.Markdown)
	}
}
