//go:build linux && !cgo

package sched

import (
	"errors"
	"sync"
	"time"
)

// xcpu is the SIGXCPU guard's record; without cgo there is no guard
// (xcpu_linux.go's handler is C), and no brokered thread stays real-time.
var xcpu struct {
	sync.Mutex
	demotedAt time.Time
}

func guardRT(tp *ThreadPriority) bool {
	unguarded(tp, errors.New("built without cgo"))
	return false
}

func unwatchXCPU(int) {}
