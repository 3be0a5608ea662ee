package main

import "syscall"

// busyAttr makes a busy process die with the stress command, however that
// ends.
func busyAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
