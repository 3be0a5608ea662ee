//go:build !linux

package tickframe

import (
	"errors"
	"os/exec"
	"syscall"
)

func busyAttr() *syscall.SysProcAttr { return nil }

// stressUser: -as is Linux's (setuid, and RealtimeKit).
type stressUser struct{}

func lookupStressUser(string) (*stressUser, error) {
	return nil, errors.New("-as is supported on Linux only")
}

func (*stressUser) prepare(string, exe string) (string, error) { return exe, nil }

func (*stressUser) apply(*exec.Cmd) {}
