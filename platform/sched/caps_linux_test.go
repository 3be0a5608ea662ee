package sched

import (
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
