package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/stagnb/stagnb/stagnb"
)

// runBackend implements "stag backend": it creates the backend NewBackend chooses, runs a
// small matrix product on it, and prints what was used as one JSON object.
func runBackend(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backend", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usageFunc(fs, "stag backend\n\nPrints the backend and device in use (GOMLX_BACKEND, else XLA CUDA where a GPU and its plugin are found, else pure Go) as JSON, after a small check computation.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	choice := stagnb.ChooseBackend()
	b, err := stagnb.NewBackend(func(format string, args ...any) { fmt.Fprintf(stderr, format+"\n", args...) })
	if err != nil {
		return err
	}
	defer b.Finalize()
	start := time.Now()
	// Σ_ij (A·B)_ij for A = 1[64×256], B = 1[256×32] is 64·32·256 = 524288.
	sum, err := ExecOnce(b, func(g *Graph) *Node {
		a := Ones(g, shapes.Make(dtypes.Float32, 64, 256))
		c := Ones(g, shapes.Make(dtypes.Float32, 256, 32))
		return ReduceAllSum(MatMul(a, c))
	})
	if err != nil {
		return fmt.Errorf("backend %s: test computation failed: %w", stagnb.BackendName(b), err)
	}
	got := sum.Value().(float32)
	if got != 524288 {
		return fmt.Errorf("backend %s: test computation gave %v, want 524288", stagnb.BackendName(b), got)
	}
	return writeJSON(stdout, map[string]any{
		"config":   choice.Config,
		"reason":   choice.Reason,
		"backend":  stagnb.BackendName(b),
		"device":   stagnb.DeviceName(b),
		"check":    "ok",
		"check_ms": float64(time.Since(start).Microseconds()) / 1000,
	})
}
