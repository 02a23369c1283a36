package experiments

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/stagnb"
)

// QuickEnv is the environment variable that selects the quick settings: set to anything but ""
// or "0" (the notebook test sets STAGNB_QUICK=1). It is read only by DefaultSettings, so cell text
// is the same in quick and full mode.
const QuickEnv = "STAGNB_QUICK"

// QuickNote is what tables and the provenance line say about results of the quick settings.
const QuickNote = "quick CPU settings — not comparable to the paper"

// Settings are the sizes of a notebook's computations.
type Settings struct {
	// Quick reports whether these are the quick settings ($STAGNB_QUICK).
	Quick bool
	// Seed seeds every random draw of the notebooks (the model store's RNG).
	Seed int64
	// Table1Samples is the number of Monte-Carlo draws per multiset that estimate Table 1's
	// E[exp(SUM(ξ_U(0,1)(X)))]: 200000 (standard error 0.2–0.4 % of the value, as notebook 01 shows), quick 20000.
	Table1Samples int
	// HistogramSamples is the number of draws per multiset in the histograms of notebook 01:
	// 200000, quick 20000.
	HistogramSamples int
	// HistogramBins is the number of histogram bins: 60, quick 40.
	HistogramBins int
}

// FullSettings are the settings of a full run.
func FullSettings() Settings {
	return Settings{Seed: 42, Table1Samples: 200_000, HistogramSamples: 200_000, HistogramBins: 60}
}

// QuickSettings are the settings of a quick run: seconds on two CPU cores.
func QuickSettings() Settings {
	return Settings{Quick: true, Seed: 42, Table1Samples: 20_000, HistogramSamples: 20_000, HistogramBins: 40}
}

// DefaultSettings returns QuickSettings when $STAGNB_QUICK is set (and not "0"), else
// FullSettings.
func DefaultSettings() Settings {
	if v := os.Getenv(QuickEnv); v != "" && v != "0" {
		return QuickSettings()
	}
	return FullSettings()
}

// Mode is "quick" or "full".
func (s Settings) Mode() string {
	if s.Quick {
		return "quick"
	}
	return "full"
}

// Session is what a notebook's setup cell creates: the backend that every cell uses, the
// backend chooser's report and the settings.
type Session struct {
	// Backend is the compute backend chosen by stagnb.NewBackend.
	Backend compute.Backend
	// BackendReport is the line stagnb.NewBackend logged: configuration, reason and device.
	BackendReport string
	// Settings are DefaultSettings: quick or full.
	Settings Settings
}

// NewSession creates the backend (stagnb.NewBackend: $GOMLX_BACKEND, else XLA with CUDA when a GPU
// and plugin are present, else the pure-Go backend) and reads the settings.
//
// What the backend prints while it starts (the pure-Go backend announces its parallelism) is
// captured into BackendReport instead of reaching os.Stderr, where a notebook would show it under
// every cell: NewSession swaps os.Stderr for a pipe while it creates the backend, so it must not
// run concurrently with code that writes to os.Stderr.
func NewSession() (*Session, error) {
	var report []string
	var b compute.Backend
	printed, err := captureStderr(func() error {
		var err error
		b, err = stagnb.NewBackend(func(format string, args ...any) {
			report = append(report, fmt.Sprintf(format, args...))
		})
		return err
	})
	if p := strings.TrimSpace(printed); p != "" {
		report = append([]string{strings.Join(strings.Fields(p), " ")}, report...)
	}
	if err != nil {
		return nil, fmt.Errorf("experiments.NewSession: %w (backend output: %s)", err, strings.Join(report, "; "))
	}
	return &Session{Backend: b, BackendReport: strings.Join(report, "; "), Settings: DefaultSettings()}, nil
}

// captureStderr runs fn with os.Stderr redirected to a pipe and returns what fn wrote there.
func captureStderr(fn func() error) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", fn()
	}
	done := make(chan []byte)
	go func() {
		data, _ := io.ReadAll(r)
		done <- data
	}()
	saved := os.Stderr
	os.Stderr = w
	defer func() { os.Stderr = saved }()
	err = fn()
	os.Stderr = saved
	_ = w.Close()
	data := <-done
	_ = r.Close()
	return string(data), err
}

// Provenance is the setup cell's report: Go and module versions, backend and device, and the
// mode, one item per line.
func (s *Session) Provenance() string {
	var b strings.Builder
	fmt.Fprintf(&b, "go:       %s %s/%s, %d CPUs\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Fprintf(&b, "modules:  %s\n", ModuleVersions())
	fmt.Fprintf(&b, "backend:  %s — device: %s\n", stagnb.BackendName(s.Backend), stagnb.DeviceName(s.Backend))
	if s.BackendReport != "" {
		fmt.Fprintf(&b, "          (%s)\n", s.BackendReport)
	}
	mode := "full ($" + QuickEnv + " unset)"
	if s.Settings.Quick {
		mode = "quick ($" + QuickEnv + " set): " + QuickNote
	}
	fmt.Fprintf(&b, "mode:     %s\n", mode)
	fmt.Fprintf(&b, "settings: %+v", s.Settings)
	return b.String()
}

// provenanceModules are the modules whose versions Provenance reports, in order.
var provenanceModules = []string{
	"github.com/stagnb/stagnb",
	"github.com/gomlx/gomlx",
	"github.com/gomlx/compute",
	"github.com/gomlx/go-xla",
	"gonum.org/v1/plot",
	"github.com/janpfeifer/gonb",
}

// ModuleVersions lists the versions of this project's main dependencies as built into the running
// program ("(devel)" for a module used from a workspace or as the main module), for example
// "github.com/gomlx/gomlx v0.28.8, …"; a module not linked in is left out.
func ModuleVersions() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	versions := map[string]string{info.Main.Path: info.Main.Version}
	for _, d := range info.Deps {
		v := d.Version
		if d.Replace != nil {
			v = d.Replace.Version
			if v == "" {
				v = "(devel)"
			}
		}
		versions[d.Path] = v
	}
	var out []string
	for _, m := range provenanceModules {
		if v, ok := versions[m]; ok {
			if v == "" {
				v = "(devel)"
			}
			out = append(out, m+" "+v)
		}
	}
	return strings.Join(out, ", ")
}

// Must returns v and panics if err is not nil. It is meant for notebook cells, where a panic is
// shown as the cell's error output (and fails the notebook test); library code returns errors.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Check panics if err is not nil, as Must does for calls that return only an error, such as
// figures.Show: Check(figures.Show(p)).
func Check(err error) {
	if err != nil {
		panic(err)
	}
}
