// Package stagtest holds helpers shared by the project's tests: one backend per test process,
// chosen like everywhere else (GOMLX_BACKEND, else the pure-Go backend on a machine without GPU).
package stagtest

import (
	"fmt"
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
