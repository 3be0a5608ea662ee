//go:build !linux

package observe

import (
	"errors"
	"time"
)

var start = time.Now()

func realtime(int) error { return errors.New("real-time priority is only asked for on Linux") }

func monotonic() time.Duration { return time.Since(start) }

func sleepUntil(t time.Duration) {
	if d := t - monotonic(); d > 0 {
		time.Sleep(d)
	}
}

func setNice(int, int) error { return errors.New("nice values are Linux's") }
