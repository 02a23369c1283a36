// Package stagtest holds helpers shared by the project's tests: one backend per test process,
// chosen like everywhere else (GOMLX_BACKEND, else the pure-Go backend on a machine without GPU).
package stagtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gomlx/compute"
	"github.com/stagnb/stagnb/stagnb"
)

var (
	once    sync.Once
	backend compute.Backend
	initErr error
	logLine string
)

// Backend returns the test process's backend, creating it on first use, and logs which one it is.
func Backend(t testing.TB) compute.Backend {
	t.Helper()
	once.Do(func() {
		backend, initErr = stagnb.NewBackend(func(format string, args ...any) {
			logLine = fmt.Sprintf(format, args...)
		})
	})
	if initErr != nil {
		t.Fatalf("creating the backend: %v", initErr)
	}
	t.Log(logLine)
	return backend
}

// RepoRoot returns the repository's root, the nearest folder above the test's working directory
// (its package folder) that holds this module's go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/stagnb/stagnb\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("stagtest.RepoRoot: no github.com/stagnb/stagnb go.mod above the working directory")
		}
		dir = parent
	}
}

// PathWithout returns $PATH less the directories that hold a file named name (e.g. "go"), for
// tests that run a script as it runs on a machine without that program.
func PathWithout(name string) string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if st, err := os.Stat(filepath.Join(d, name)); err == nil && !st.IsDir() {
			continue
		}
		dirs = append(dirs, d)
	}
	return strings.Join(dirs, string(os.PathListSeparator))
}
