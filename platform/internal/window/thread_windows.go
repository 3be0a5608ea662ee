package window

import "golang.org/x/sys/windows"

// threadID names the calling OS thread.
func threadID() int64 { return int64(windows.GetCurrentThreadId()) }
