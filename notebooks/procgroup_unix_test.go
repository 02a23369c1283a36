//go:build unix

package notebooks_test

import (
	"os/exec"
	"syscall"
	"time"
)

// killGroupOnCancel makes cmd (an exec.CommandContext) run in its own process group and, when its
// context ends, kills the whole group: the Jupyter client, the GoNB kernel it started, gopls and
// the cell's program. Without this a timeout kills only the client, and the kernel, which still
// holds the output pipe, keeps cmd.Wait waiting until the test binary's own timeout. WaitDelay
// bounds the wait for stray holders of the pipes after the process exits.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 15 * time.Second
}

// killGroup kills what is left of cmd's process group after it exited (a kernel that did not
// shut down).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
