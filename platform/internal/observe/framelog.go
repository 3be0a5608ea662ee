package observe

import "github.com/tickframe/tickframe/platform/internal/framelog"

// The app's frame log, which the observer compares its watch with, is
// package framelog's (platform/internal/framelog, written by the
// instruments, outside the observer's harness); these name it for the
// tools outside platform/.

// LogFrame is what the app knows of one frame it drew.
type LogFrame = framelog.Frame

// ReadFrameLog reads a frame log written as text or as PresentMon's CSV.
func ReadFrameLog(path string) ([]LogFrame, error) { return framelog.Read(path) }

// PresentMonColumns and TickframeColumns are a CSV frame log's columns,
// in order.
var (
	PresentMonColumns = framelog.PresentMonColumns
	TickframeColumns  = framelog.TickframeColumns
)
