package window

import "golang.org/x/sys/unix"

// threadID names the calling OS thread.
func threadID() int64 { return int64(unix.Gettid()) }
