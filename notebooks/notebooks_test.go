// Package notebooks_test executes every notebook of this folder headlessly through the real GoNB
// kernel and checks that it keeps its promises, and checks the outputs committed with each one.
//
// Each notebook declares its promise in its metadata:
//
//	"stagnb": {"min_images": 2, "paper_table": true}
//
// min_images is the least number of image outputs (image/svg+xml, image/png, or an SVG or <img>
// wrapped in text/html as gonbui.DisplaySVG does) and paper_table says whether an output holds a
// paper-vs-ours table (a Markdown or HTML table with a "paper…" and an "ours…" column).
package notebooks_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stagnb/stagnb/internal/stagtest"
)

// promise is what a notebook declares under "stagnb" in its metadata.
type promise struct {
	MinImages  *int  `json:"min_images"`
	PaperTable *bool `json:"paper_table"`
}

// output is one output of a code cell (nbformat 4).
type output struct {
	OutputType string         `json:"output_type"`
	Name       string         `json:"name"` // stream name: stdout or stderr
	Text       multiline      `json:"text"`
	Data       map[string]any `json:"data"`
	Ename      string         `json:"ename"`
	Evalue     string         `json:"evalue"`
}

// cell is one notebook cell.
type cell struct {
	CellType       string    `json:"cell_type"`
	ID             string    `json:"id"`
	Source         multiline `json:"source"`
	ExecutionCount *int      `json:"execution_count"`
	Outputs        []output  `json:"outputs"`
}

// notebook is the part of an .ipynb file that the checks read.
type notebook struct {
	Cells    []cell `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
		Stagnb *promise `json:"stagnb"`
	} `json:"metadata"`
}

// multiline is a notebook text: a string or a list of lines.
type multiline string

// UnmarshalJSON accepts a string or a list of strings.
func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = multiline(s)
		return nil
	}
	var lines []string
	if err := json.Unmarshal(b, &lines); err != nil {
		return err
	}
	*m = multiline(strings.Join(lines, ""))
	return nil
}

// text returns a MIME bundle entry as text (nbformat stores text as a string or list of lines).
func text(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		var b strings.Builder
		for _, l := range t {
			if s, ok := l.(string); ok {
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

func readNotebook(path string) (*notebook, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nb notebook
	if err := json.Unmarshal(data, &nb); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &nb, nil
}

// summary is what a notebook's outputs contain.
type summary struct {
	codeCells, executed int
	images              int
	paperTable          bool
	errors              []string // error outputs: "cell <id>: <ename>: <evalue>"
	stderr              []string // stderr streams, for the log
	allText             strings.Builder
}

var (
	htmlImage    = regexp.MustCompile(`(?i)<svg[\s>]|<img[\s>]`)
	htmlPaperTh  = regexp.MustCompile(`(?i)<th[^>]*>\s*paper`)
	htmlOursTh   = regexp.MustCompile(`(?i)<th[^>]*>\s*ours`)
	imageMIMEs   = []string{"image/svg+xml", "image/png"}
	textualMIMEs = []string{"text/markdown", "text/html", "text/plain"}
)

// hasPaperVsOursTable reports whether a text holds a Markdown table header with a column starting
// with "paper" and one starting with "ours", or an HTML table with such <th> cells.
func hasPaperVsOursTable(s string) bool {
	if htmlPaperTh.MatchString(s) && htmlOursTh.MatchString(s) {
		return true
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		paper, ours := false, false
		for _, c := range strings.Split(line, "|") {
			c = strings.ToLower(strings.TrimSpace(c))
			paper = paper || strings.HasPrefix(c, "paper")
			ours = ours || strings.HasPrefix(c, "ours")
		}
		if paper && ours {
			return true
		}
	}
	return false
}

// summarize reads the outputs of every code cell.
func summarize(nb *notebook) *summary {
	s := &summary{}
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		s.codeCells++
		if c.ExecutionCount != nil {
			s.executed++
		}
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "error":
				s.errors = append(s.errors, fmt.Sprintf("cell %s: %s: %s%s", c.ID, o.Ename, o.Evalue, cellDetails(c)))
			case "stream":
				s.allText.WriteString(string(o.Text))
				if o.Name == "stderr" {
					s.stderr = append(s.stderr, fmt.Sprintf("cell %s: %s", c.ID, strings.TrimSpace(string(o.Text))))
				}
			case "display_data", "execute_result", "update_display_data":
				image := false
				for _, m := range imageMIMEs {
					_, ok := o.Data[m]
					image = image || ok
				}
				if h := text(o.Data["text/html"]); htmlImage.MatchString(h) {
					image = true
				}
				if image {
					s.images++
				}
				for _, m := range textualMIMEs {
					t := text(o.Data[m])
					s.allText.WriteString(t)
					s.paperTable = s.paperTable || hasPaperVsOursTable(t)
				}
			}
		}
	}
	return s
}

var htmlTag = regexp.MustCompile(`<[^>]*>`)

// cellDetails returns what a failing cell printed (stderr and text/html, where GoNB puts compiler
// errors), tags stripped, for the error message.
func cellDetails(c cell) string {
	var b strings.Builder
	for _, o := range c.Outputs {
		switch {
		case o.OutputType == "stream" && o.Name == "stderr":
			b.WriteString(string(o.Text) + "\n")
		case o.Data != nil:
			b.WriteString(htmlTag.ReplaceAllString(text(o.Data["text/html"]), " ") + "\n")
		}
	}
	d := strings.TrimSpace(b.String())
	if d == "" {
		return ""
	}
	return "\n\t" + strings.ReplaceAll(tail(d, 1500), "\n", "\n\t")
}

// checkPromise reports every way in which nb breaks its promise: error outputs, fewer images than
// promised, a missing paper-vs-ours table, or no promise at all.
func checkPromise(nb *notebook, s *summary) []string {
	var problems []string
	for _, e := range s.errors {
		problems = append(problems, "error output: "+e)
	}
	p := nb.Metadata.Stagnb
	if p == nil || p.MinImages == nil || p.PaperTable == nil {
		return append(problems, `no promise in the notebook metadata: add "stagnb": {"min_images": N, "paper_table": true|false}`)
	}
	if s.images < *p.MinImages {
		problems = append(problems, fmt.Sprintf("%d image outputs, promised at least %d", s.images, *p.MinImages))
	}
	if *p.PaperTable && !s.paperTable {
		problems = append(problems, "no paper-vs-ours table header in the outputs, promised one")
	}
	return problems
}

// notebookPaths lists the notebooks of this folder, sorted.
func notebookPaths(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob("*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		t.Fatal("no notebooks in notebooks/")
	}
	return paths
}

// TestCommittedOutputs checks the notebooks as committed: each was executed (every code cell has
// an execution count), keeps its promise with its saved outputs, runs on the gonb kernel, and its
// outputs hold no absolute path of this checkout.
func TestCommittedOutputs(t *testing.T) {
	root := stagtest.RepoRoot(t)
	for _, path := range notebookPaths(t) {
		t.Run(strings.TrimSuffix(path, ".ipynb"), func(t *testing.T) {
			nb, err := readNotebook(path)
			if err != nil {
				t.Fatal(err)
			}
			if nb.Metadata.Kernelspec.Name != "gonb" {
				t.Errorf("kernel %q, want gonb", nb.Metadata.Kernelspec.Name)
			}
			s := summarize(nb)
			if s.executed != s.codeCells {
				t.Errorf("%d of %d code cells were executed: commit the outputs of a full execution", s.executed, s.codeCells)
			}
			for _, p := range checkPromise(nb, s) {
				t.Error(p)
			}
			if strings.Contains(s.allText.String(), root) {
				t.Errorf("the outputs contain the checkout's absolute path %s", root)
			}
			ids := map[string]bool{}
			for i, c := range nb.Cells {
				if c.ID == "" || ids[c.ID] {
					t.Errorf("cell %d: missing or repeated id %q", i, c.ID)
				}
				ids[c.ID] = true
			}
		})
	}
}

// setupHint is the skip message when the notebook tools are not installed.
const setupHint = "run `make setup` (scripts/setup.sh) to install JupyterLab and the GoNB kernel in .venv"

// Time bounds of TestNotebooksExecute: all notebooks together (the bound issue 5 sets for quick
// mode on 2 cores), one notebook, and one cell. A notebook that runs past them fails with the log
// of its cells, instead of holding the test binary until its own timeout.
const (
	allNotebooksBudget = 20 * time.Minute
	notebookTimeout    = 10 * time.Minute
	cellTimeout        = 8 * time.Minute
)

// kernelEnv returns the repository root and the environment of scripts/lab.sh for running the
// GoNB kernel in quick mode: the project's kernel first on JUPYTER_PATH, the pinned tools, Go and
// the venv on PATH, GOEXPERIMENT=simd and STAGNB_QUICK=1. It skips the test, naming `make setup`,
// when the venv program venvBin, the kernel or gonb is missing.
func kernelEnv(t *testing.T, venvBin string) (root string, env []string) {
	t.Helper()
	root = stagtest.RepoRoot(t)
	kernelData := filepath.Join(root, ".venv", "share", "jupyter")
	tools := filepath.Join(root, ".tools", "bin")
	for _, need := range []string{filepath.Join(root, ".venv", "bin", venvBin), filepath.Join(kernelData, "kernels", "gonb", "kernel.json"), filepath.Join(tools, "gonb")} {
		if _, err := os.Stat(need); err != nil {
			t.Skipf("%s is missing: %s", need, setupHint)
		}
	}
	path := []string{tools}
	if goBin, err := exec.LookPath("go"); err == nil {
		path = append(path, filepath.Dir(goBin))
	}
	path = append(path, filepath.Join(root, ".venv", "bin"), os.Getenv("PATH"))
	jupyterPath := kernelData
	if old := os.Getenv("JUPYTER_PATH"); old != "" {
		jupyterPath += string(os.PathListSeparator) + old
	}
	return root, append(os.Environ(),
		"STAGNB_QUICK=1",
		"GOEXPERIMENT=simd",
		"JUPYTER_PATH="+jupyterPath,
		"PATH="+strings.Join(path, string(os.PathListSeparator)),
	)
}

// TestNotebooksExecute executes every notebook with the GoNB kernel in quick mode
// (STAGNB_QUICK=1), through nbclient from the project's venv (testdata/execute.py, which logs each
// cell's start and duration), into a temporary directory, with the environment of scripts/lab.sh,
// and checks each notebook's promise on the fresh outputs. The committed notebook is only read:
// the test checks that its contents are unchanged.
func TestNotebooksExecute(t *testing.T) {
	root, env := kernelEnv(t, "python")
	python := filepath.Join(root, ".venv", "bin", "python")
	budgetEnd := time.Now().Add(allNotebooksBudget)

	for _, nbPath := range notebookPaths(t) {
		name := strings.TrimSuffix(nbPath, ".ipynb")
		t.Run(name, func(t *testing.T) {
			before, err := os.ReadFile(nbPath)
			if err != nil {
				t.Fatal(err)
			}
			timeout := min(notebookTimeout, time.Until(budgetEnd))
			if d, ok := t.Deadline(); ok {
				timeout = min(timeout, time.Until(d)-30*time.Second)
			}
			if timeout <= 0 {
				t.Fatalf("no time left: the notebooks together ran past %s (quick mode)", allNotebooksBudget)
			}
			outPath := filepath.Join(t.TempDir(), name+".ipynb")
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, python, filepath.Join("testdata", "execute.py"),
				nbPath, outPath, fmt.Sprint(int(cellTimeout.Seconds())))
			// Training records go to a fresh directory: the notebook trains its quick runs itself
			// and never reads or writes the repository's results/.
			cmd.Env = append(env, "JUPYTER_RUNTIME_DIR="+t.TempDir(), "STAGNB_RESULTS="+t.TempDir())
			killGroupOnCancel(cmd)
			var log bytes.Buffer
			cmd.Stdout, cmd.Stderr = &log, &log
			start := time.Now()
			err = cmd.Run()
			killGroup(cmd)
			elapsed := time.Since(start)
			t.Logf("%s executed in %.1f s (quick mode):\n%s", nbPath, elapsed.Seconds(), cellLog(log.String()))
			if err != nil {
				t.Errorf("execution failed after %.1f s (limit %s, %s per cell): %v\n%s", elapsed.Seconds(),
					timeout.Round(time.Second), cellTimeout, err, tail(log.String(), 4000))
			}
			after, err := os.ReadFile(nbPath)
			if err != nil {
				t.Fatal(err)
			}
			if sha256.Sum256(before) != sha256.Sum256(after) {
				t.Errorf("executing %s changed the committed file", nbPath)
			}
			nb, err := readNotebook(outPath)
			if err != nil {
				t.Fatal(err)
			}
			s := summarize(nb)
			for _, e := range s.stderr {
				t.Logf("stderr: %s", e)
			}
			t.Logf("%d code cells, %d executed, %d images, paper-vs-ours table: %v", s.codeCells, s.executed, s.images, s.paperTable)
			if s.executed != s.codeCells {
				t.Errorf("%d of %d code cells executed", s.executed, s.codeCells)
			}
			for _, p := range checkPromise(nb, s) {
				t.Error(p)
			}
		})
	}
}

// cellLog returns the lines of testdata/execute.py's log (cell starts and durations) from the
// combined output of the runner and the kernel.
func cellLog(log string) string {
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(l, "[execute ") {
			lines = append(lines, "\t"+l)
		}
	}
	return strings.Join(lines, "\n")
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestChecks runs the output checks on hand-made notebooks, so that a notebook that breaks its
// promise is caught.
func TestChecks(t *testing.T) {
	md := `{"output_type": "display_data", "data": {"text/markdown": "| dataset | paper (mean ± std) | ours (mean ± std) |\n| :-- | --: | --: |\n"}}`
	html := `{"output_type": "display_data", "data": {"text/html": ["<table><thead><tr><th>x</th><th style=\"a\">paper</th>", "<th>ours</th></tr></thead></table>"]}}`
	svg := `{"output_type": "display_data", "data": {"image/svg+xml": "<svg></svg>", "text/plain": "<figure>"}}`
	png := `{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo="}}`
	wrapped := `{"output_type": "display_data", "data": {"text/html": "<div><svg width=\"1\"></svg></div>"}}`
	errOut := `{"output_type": "error", "ename": "ERROR", "evalue": "exit status 2", "traceback": []}`
	stream := `{"output_type": "stream", "name": "stdout", "text": ["| paper | ours |\n"]}`
	plainTable := `{"output_type": "display_data", "data": {"text/markdown": "| paper-like | other |\n"}}`
	nb := func(meta string, outputs ...string) string {
		return `{"cells": [{"cell_type": "code", "id": "a", "execution_count": 1, "source": "", "outputs": [` +
			strings.Join(outputs, ",") + `]}], "metadata": {` + meta + `}}`
	}
	promise := func(images int, table bool) string {
		return fmt.Sprintf(`"stagnb": {"min_images": %d, "paper_table": %v}`, images, table)
	}
	cases := []struct {
		name     string
		json     string
		problems int
		images   int
	}{
		{"kept", nb(promise(3, true), svg, png, wrapped, md), 0, 3},
		{"html table", nb(promise(0, true), html), 0, 0},
		{"too few images", nb(promise(2, false), svg), 1, 1},
		{"no table", nb(promise(0, true), svg, plainTable), 1, 1},
		{"table only in a stream", nb(promise(0, true), stream), 1, 0},
		{"error output", nb(promise(0, false), svg, errOut), 1, 1},
		{"no promise", nb(``, svg), 1, 1},
		{"partial promise", nb(`"stagnb": {"min_images": 1}`, svg), 1, 1},
	}
	for _, c := range cases {
		var n notebook
		if err := json.Unmarshal([]byte(c.json), &n); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s := summarize(&n)
		problems := checkPromise(&n, s)
		if len(problems) != c.problems || s.images != c.images {
			t.Errorf("%s: %d images, problems %q; want %d images and %d problems", c.name, s.images, problems, c.images, c.problems)
		}
	}
}
