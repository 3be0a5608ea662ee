// Package lab is the tickframe command's entry point: the demo, the
// verifier, the stress benchmark, the observer and the model viewer
// (cmd/tickframe's doc lists them). It exports Main alone; the lab's
// code is internal to platform, beside the machinery it measures, and out
// of every app's import graph.
package lab

import (
	"io"

	"github.com/tickframe/tickframe/platform/internal/tickframe"
)

// Main runs the tickframe command with args (the command line without
// the program's name) and returns its exit status: 0, 1 for a failure at
// run time, 2 for a bad flag or file. It must be called on the main
// goroutine, as cmd/tickframe's main does.
func Main(args []string, stdout, stderr io.Writer) int { return tickframe.Main(args, stdout, stderr) }
