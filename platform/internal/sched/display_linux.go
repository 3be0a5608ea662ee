package sched

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// FindDisplayServer finds the process that serves X display (as in
// DISPLAY: ":0", "unix:1.0"; "" means $DISPLAY) on this machine: it
// connects to the display's unix socket and asks the kernel who is at the
// other end (SO_PEERCRED), closing again before saying a word of the X
// protocol (the server sees a client come and go). A display served over
// TCP, or from another machine or container, has no process here: an
// error says so.
func FindDisplayServer(display string) (DisplayServer, error) {
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	n, err := displayNumber(display)
	if err != nil {
		return DisplayServer{}, err
	}
	path := "/tmp/.X11-unix/X" + strconv.Itoa(n)
	var last error
	// The abstract socket first, as Xlib tries it: a server in another
	// mount namespace may have only that.
	for _, addr := range []string{"@" + path, path} {
		pid, err := peerPID(addr)
		if err != nil {
			last = err
			continue
		}
		return DisplayServer{PID: pid, Name: commOf(pid), Display: display}, nil
	}
	return DisplayServer{}, fmt.Errorf("sched: display %q: %v", display, last)
}

// displayNumber parses a local display name: [unix]:N[.S].
func displayNumber(display string) (int, error) {
	host, rest, ok := strings.Cut(display, ":")
	if !ok || host != "" && host != "unix" || strings.HasPrefix(rest, ":") {
		return 0, fmt.Errorf("sched: display %q is not a local X display (:N)", display)
	}
	num, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("sched: display %q: bad display number", display)
	}
	return n, nil
}

// peerPID connects to a unix socket and returns the pid of the process
// that accepted.
func peerPID(addr string) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: addr}); err != nil {
		return 0, err
	}
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	if cred.Pid <= 0 {
		return 0, errors.New("the server is in another pid namespace")
	}
	return int(cred.Pid), nil
}

func commOf(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	return string(bytes.TrimSpace(b))
}

// ProcessCPU reads how long all of process pid's threads have run on a
// CPU and waited runnable for one, and how many time slices they ran,
// from the kernel's own accounting (/proc/PID/task/TID/schedstat, summed;
// threads that exited are not counted). No privilege is needed to read
// another user's process.
func ProcessCPU(pid int) (CPUTime, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return CPUTime{}, fmt.Errorf("sched: process %d: %w", pid, err)
	}
	var t CPUTime
	for _, e := range tasks {
		b, err := os.ReadFile(dir + "/" + e.Name() + "/schedstat")
		if err != nil {
			continue // exited
		}
		f := strings.Fields(string(b))
		if len(f) < 3 {
			return CPUTime{}, fmt.Errorf("sched: %s/%s/schedstat: %q", dir, e.Name(), b)
		}
		run, err1 := strconv.ParseUint(f[0], 10, 64)
		wait, err2 := strconv.ParseUint(f[1], 10, 64)
		slices, err3 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return CPUTime{}, fmt.Errorf("sched: %s/%s/schedstat: %q", dir, e.Name(), b)
		}
		t.Run += time.Duration(run)
		t.Wait += time.Duration(wait)
		t.Slices += slices
	}
	return t, nil
}
