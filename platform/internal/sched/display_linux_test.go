package sched

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// socketOwner finds, independently of SO_PEERCRED, the process holding
// the listening unix socket at path: /proc/net/unix gives the socket's
// inode, and the owner is whoever has socket:[inode] among its open files
// (root reads every process's).
func socketOwner(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var inodes []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// Num RefCount Protocol Flags Type St Inode Path; flags 00010000:
		// listening.
		if len(fields) == 8 && (fields[7] == path || fields[7] == "@"+path) && fields[3] == "00010000" {
			inodes = append(inodes, "socket:["+fields[6]+"]")
		}
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		fds, _ := os.ReadDir("/proc/" + p.Name() + "/fd")
		for _, fd := range fds {
			link, _ := os.Readlink("/proc/" + p.Name() + "/fd/" + fd.Name())
			for _, in := range inodes {
				if link == in {
					return pid
				}
			}
		}
	}
	t.Fatalf("no process listens on %s (inodes %v)", path, inodes)
	return 0
}

// The display server found through the socket's peer is the process that
// listens on the display's socket, as /proc shows it.
func TestFindDisplayServer(t *testing.T) {
	display := os.Getenv("DISPLAY")
	if display == "" {
		t.Skip("no DISPLAY: make test runs the tests under Xvfb (.ci/with-display)")
	}
	s, err := FindDisplayServer("")
	if err != nil {
		t.Fatal(err)
	}
	n, err := displayNumber(display)
	if err != nil {
		t.Fatal(err)
	}
	if want := socketOwner(t, "/tmp/.X11-unix/X"+strconv.Itoa(n)); s.PID != want {
		t.Errorf("display server %+v, but pid %d listens on the display's socket", s, want)
	}
	if s.Name == "" {
		t.Errorf("no command name: %+v", s)
	}
	t.Logf("%+v", s)
	w, err := WatchDisplayServer("")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	sum, err := w.Summary()
	if err != nil || sum.SpanMs < 20 || sum.WaitMs < 0 || sum.RunMs < 0 || !strings.Contains(sum.Source, strconv.Itoa(s.PID)) {
		t.Errorf("summary %+v (%v)", sum, err)
	}
	for _, bad := range []string{"host:0", "::0", ":x", "0", "tcp/host:0"} {
		if _, err := FindDisplayServer(bad); err == nil {
			t.Errorf("display %q accepted", bad)
		}
	}
}

// A process's CPU times agree with the kernel's other account of them
// (the rusage wait4 returns), and two busy processes sharing one CPU each
// wait for it about as long as they run.
func TestProcessCPU(t *testing.T) {
	var cmds []*exec.Cmd
	for range 2 {
		c := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		defer c.Process.Kill()
		cmds = append(cmds, c)
	}
	time.Sleep(400 * time.Millisecond)
	var got []CPUTime
	for _, c := range cmds {
		ct, err := ProcessCPU(c.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ct)
	}
	for i, c := range cmds {
		c.Process.Kill()
		c.Wait()
		u := c.ProcessState.SysUsage().(*syscall.Rusage)
		rusage := time.Duration(u.Utime.Nano() + u.Stime.Nano())
		ct := got[i]
		t.Logf("busy process %d: schedstat %+v; rusage %v", i, ct, rusage)
		// rusage counts up to the kill, a little after the read.
		if ct.Run <= 0 || ct.Run > rusage+5*time.Millisecond || rusage-ct.Run > 100*time.Millisecond {
			t.Errorf("busy process %d: ran %v by schedstat, %v by rusage", i, ct.Run, rusage)
		}
		if ct.Wait < ct.Run/3 || ct.Slices == 0 {
			t.Errorf("busy process %d sharing a CPU with another: waited %v, ran %v (%d slices): want waits about as long as runs", i, ct.Wait, ct.Run, ct.Slices)
		}
	}
	if _, err := ProcessCPU(-1); err == nil {
		t.Error("no error for pid -1")
	}
}
