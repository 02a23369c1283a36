//go:build !unix

package notebooks_test

import (
	"os/exec"
	"time"
)

// killGroupOnCancel bounds the wait for cmd's pipes after its context ends (no process groups here).
func killGroupOnCancel(cmd *exec.Cmd) { cmd.WaitDelay = 15 * time.Second }

// killGroup does nothing where there are no process groups.
func killGroup(*exec.Cmd) {}
