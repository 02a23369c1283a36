package notebooks_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// browserNotebook is the notebook the browser test opens, and the cells it runs (by cell id): the
// setup cell and one that draws a picture.
const (
	browserNotebook  = "02-unifying-framework.ipynb"
	browserSetupCell = "nb02-03"
	browserImageCell = "nb02-19"
)

// browserRun is what testdata/browser.py reports.
type browserRun struct {
	Kernel *struct {
		Display string `json:"display"`
		Name    string `json:"name"`
		Toolbar string `json:"toolbar"`
	} `json:"kernel"`
	Cells []struct {
		Index   int  `json:"index"`
		Count   *int `json:"count"`
		Outputs []struct {
			Type  string   `json:"type"`
			MIMEs []string `json:"mimes"`
		} `json:"outputs"`
		Images int    `json:"images"`
		Text   string `json:"text"`
	} `json:"cells"`
	Error string `json:"error"`
}

// TestBrowserRunsCells starts the JupyterLab of the README's first command (scripts/lab.sh) headless,
// opens a notebook in headless Chromium (Debian's chromium, driven by chromedriver through
// Selenium), checks that its kernel is "Go (gonb)", runs the setup cell and a picture cell from the
// notebook toolbar's Run button, checks what the page rendered, and keeps a screenshot as a test
// artifact (in $STAGNB_ARTIFACTS, default <repo>/.artifacts, git-ignored). Autosave is off and the
// test checks that the committed notebook is unchanged.
func TestBrowserRunsCells(t *testing.T) {
	root, env := kernelEnv(t, "python")
	python := filepath.Join(root, ".venv", "bin", "python")
	chromium, chromedriver := browserPrograms(t)
	if out, err := exec.Command(python, "-c", "import selenium").CombinedOutput(); err != nil {
		t.Skipf("selenium is not installed in .venv (%v: %s): %s", err, out, setupHint)
	}
	cells := cellIndices(t, browserNotebook, browserSetupCell, browserImageCell)
	before, err := os.ReadFile(browserNotebook)
	if err != nil {
		t.Fatal(err)
	}

	// Lab settings for the test: no autosave (running cells must not write the committed notebook),
	// no news pop-up over the screenshot; checkpoints, workspaces and runtime files in temp dirs.
	tmp := t.TempDir()
	settings := filepath.Join(tmp, "settings")
	writeFile(t, filepath.Join(settings, "@jupyterlab", "docmanager-extension", "plugin.jupyterlab-settings"), `{"autosave": false}`)
	writeFile(t, filepath.Join(settings, "@jupyterlab", "apputils-extension", "notification.jupyterlab-settings"), `{"fetchNews": "false", "checkForUpdates": false}`)
	port, token := freePort(t), randomToken(t)

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	lab := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "lab.sh"),
		"--ServerApp.token="+token, "--ServerApp.port_retries=0", "--LabApp.expose_app_in_browser=True",
		"--FileCheckpoints.checkpoint_dir="+filepath.Join(tmp, "checkpoints"))
	lab.Env = append(env, "CI=1", fmt.Sprintf("STAGNB_LAB_PORT=%d", port),
		"JUPYTERLAB_SETTINGS_DIR="+settings,
		"JUPYTERLAB_WORKSPACES_DIR="+filepath.Join(tmp, "workspaces"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "runtime"),
		"STAGNB_RESULTS="+filepath.Join(tmp, "results"))
	killGroupOnCancel(lab)
	var labLog bytes.Buffer
	lab.Stdout, lab.Stderr = &labLog, &labLog
	if err := lab.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{}) // closed when lab.sh has exited
	var labErr error
	go func() { labErr = lab.Wait(); close(exited) }()
	labURL := fmt.Sprintf("http://127.0.0.1:%d/lab?token=%s", port, token)
	// Jupyter starts kernels in sessions of their own, out of reach of killGroup: stop the server
	// through its API, which shuts its kernels down, before killing what is left.
	defer func() {
		shutdownLab(fmt.Sprintf("http://127.0.0.1:%d/api/shutdown?token=%s", port, token), exited)
		cancel()
		<-exited
		killGroup(lab)
	}()
	waitForLab(t, fmt.Sprintf("http://127.0.0.1:%d/api/status?token=%s", port, token), exited, func() error { return labErr }, &labLog)

	artifacts := os.Getenv("STAGNB_ARTIFACTS")
	if artifacts == "" {
		artifacts = filepath.Join(root, ".artifacts")
	}
	screenshot := filepath.Join(artifacts, "browser", strings.TrimSuffix(browserNotebook, ".ipynb")+".png")
	if err := os.MkdirAll(filepath.Dir(screenshot), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(screenshot)
	browser := exec.CommandContext(ctx, python, filepath.Join("testdata", "browser.py"),
		labURL, browserNotebook, fmt.Sprintf("%d,%d", cells[0], cells[1]), screenshot)
	browser.Env = append(env, "CHROMIUM="+chromium, "CHROMEDRIVER="+chromedriver, "BROWSER_TIMEOUT=300",
		"BROWSER_PROFILE_DIR="+filepath.Join(tmp, "chromium"))
	killGroupOnCancel(browser)
	var stdout, stderr bytes.Buffer
	browser.Stdout, browser.Stderr = &stdout, &stderr
	start := time.Now()
	err = browser.Run()
	killGroup(browser)
	if err != nil {
		t.Fatalf("browser.py: %v\n%s\nlab log:\n%s", err, tail(stderr.String(), 3000), tail(labLog.String(), 3000))
	}
	var run browserRun
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &run); err != nil {
		t.Fatalf("browser.py output: %v\n%s", err, tail(stdout.String(), 2000))
	}
	t.Logf("browser run in %.1f s; screenshot %s", time.Since(start).Seconds(), screenshot)
	if run.Error != "" {
		t.Fatalf("in the browser: %s\nlab log:\n%s", run.Error, tail(labLog.String(), 3000))
	}

	if run.Kernel == nil || run.Kernel.Display != "Go (gonb)" || run.Kernel.Name != "gonb" || run.Kernel.Toolbar != "Go (gonb)" {
		t.Errorf("the notebook's kernel is %+v, want Go (gonb) (name gonb) in the session and the toolbar", run.Kernel)
	}
	if len(run.Cells) != 2 {
		t.Fatalf("%d cells ran, want 2: %+v", len(run.Cells), run.Cells)
	}
	setup, picture := run.Cells[0], run.Cells[1]
	if setup.Count == nil || !strings.Contains(setup.Text, "backend:") {
		t.Errorf("setup cell %d: execution count %v, rendered text %q: want the backend line", setup.Index, setup.Count, setup.Text)
	}
	imageOutput := false
	for _, o := range picture.Outputs {
		for _, m := range o.MIMEs {
			imageOutput = imageOutput || m == "image/svg+xml" || m == "image/png"
		}
	}
	if picture.Count == nil || !imageOutput || picture.Images < 1 {
		t.Errorf("picture cell %d: execution count %v, outputs %+v, %d images rendered: want an image output shown in the page",
			picture.Index, picture.Count, picture.Outputs, picture.Images)
	}
	checkScreenshot(t, screenshot)

	after, err := os.ReadFile(browserNotebook)
	if err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(before) != sha256.Sum256(after) {
		t.Errorf("running cells in the browser changed the committed %s", browserNotebook)
	}
	if _, err := os.Stat(".ipynb_checkpoints"); err == nil {
		t.Errorf("the Lab wrote notebooks/.ipynb_checkpoints: want checkpoints in the test's temp dir")
	}
}

// browserPrograms returns the paths of chromium and chromedriver ($CHROMIUM, $CHROMEDRIVER, or on
// PATH). When one is missing the test skips, naming scripts/browser-deps.sh, or fails under CI,
// where the test command installs them.
func browserPrograms(t *testing.T) (chromium, chromedriver string) {
	t.Helper()
	find := func(env, name string) string {
		if p := os.Getenv(env); p != "" {
			return p
		}
		p, err := exec.LookPath(name)
		if err != nil {
			msg := fmt.Sprintf("%s is not installed: run scripts/browser-deps.sh (apt-get install chromium chromium-driver)", name)
			if os.Getenv("CI") != "" {
				t.Fatal(msg + "; under CI the test command installs it")
			}
			t.Skip(msg)
		}
		return p
	}
	return find("CHROMIUM", "chromium"), find("CHROMEDRIVER", "chromedriver")
}

// cellIndices returns the positions of the cells with the given ids in the notebook.
func cellIndices(t *testing.T, path string, ids ...string) []int {
	t.Helper()
	nb, err := readNotebook(path)
	if err != nil {
		t.Fatal(err)
	}
	var indices []int
	for _, id := range ids {
		found := -1
		for i, c := range nb.Cells {
			if c.ID == id {
				found = i
			}
		}
		if found < 0 {
			t.Fatalf("%s has no cell %q", path, id)
		}
		indices = append(indices, found)
	}
	return indices
}

// waitForLab polls the Lab's status URL until it answers 200, the Lab exits, or 2 minutes pass.
// exited is closed when the Lab's process has exited, with the error exitErr returns.
func waitForLab(t *testing.T, statusURL string, exited <-chan struct{}, exitErr func() error, log *bytes.Buffer) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("scripts/lab.sh exited before serving (%v):\n%s", exitErr(), tail(log.String(), 3000))
		default:
		}
		if resp, err := http.Get(statusURL); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("JupyterLab did not answer %s within 2 minutes:\n%s", statusURL, tail(log.String(), 3000))
}

// shutdownLab asks the Lab to shut down (with its kernels) and waits up to 30 s for it to exit.
func shutdownLab(shutdownURL string, exited <-chan struct{}) {
	if resp, err := http.Post(shutdownURL, "application/json", nil); err == nil {
		resp.Body.Close()
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
	}
}

// checkScreenshot checks that the screenshot is a PNG of a rendered page: at least 1000 pixels wide
// and with many colours (a blank or error page has a handful).
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	b := img.Bounds()
	colors := distinctColors(img, 200)
	t.Logf("screenshot %s: %d×%d, ≥%d colours", path, b.Dx(), b.Dy(), colors)
	if b.Dx() < 1000 || colors < 200 {
		t.Errorf("screenshot %s is %d×%d with %d colours: want a rendered page (≥ 1000 wide, ≥ 200 colours)", path, b.Dx(), b.Dy(), colors)
	}
}

// distinctColors counts the distinct colours of img, stopping at limit.
func distinctColors(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// randomToken returns a fresh Jupyter server token.
func randomToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// writeFile writes content to path, creating its directories.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
