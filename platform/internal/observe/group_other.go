//go:build !unix

package observe

import (
	"os"
	"os/exec"
)

// ownGroup leaves cmd as it is: no process groups here.
func ownGroup(*exec.Cmd) {}

// stopGroup asks cmd to end.
func stopGroup(cmd *exec.Cmd) { _ = cmd.Process.Signal(os.Interrupt) }
