package sched

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func unsafePointer(s string) unsafe.Pointer {
	b := append([]byte(s), 0)
	return unsafe.Pointer(&b[0])
}

// dropCapSysNice removes CAP_SYS_NICE from the calling thread's effective
// and permitted sets (capabilities are per thread on Linux).
func dropCapSysNice(t *testing.T) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		t.Errorf("capget: %v", err)
		return
	}
	bit := uint32(1) << (unix.CAP_SYS_NICE % 32)
	data[unix.CAP_SYS_NICE/32].Effective &^= bit
	data[unix.CAP_SYS_NICE/32].Permitted &^= bit
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		t.Errorf("capset: %v", err)
	}
}

// kernelAtLeast reports whether the running kernel is major.minor or later.
func kernelAtLeast(t *testing.T, major, minor int) bool {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var maj, min int
	fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &maj, &min)
	return maj > major || maj == major && min >= minor
}

// inSyscall reads the system call a thread of this process is blocked in
// (/proc/self/task/TID/syscall's first field; -1 while it runs).
func inSyscall(tid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", tid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || f[0] == "running" {
		return -1, nil
	}
	return strconv.Atoi(f[0])
}
