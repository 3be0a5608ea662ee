//go:build unix

package observe

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, killed whole when
// its context is done.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// stopGroup asks cmd's process group to end (SIGTERM).
func stopGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
