// Package outfile writes output files (reports, plots, tables, profiles)
// so that a reader never sees a partial file and a failure leaves nothing
// behind, and checks up front that they can be written. It is the door of
// the apps and the tools outside platform/ to platform/internal/outfile,
// which holds the rules (how a path's links, devices and descriptors are
// written) and writes every file of the module: reports, plots, frame
// logs, profiles, recordings (simthread/record encodes to an io.Writer)
// and screenshots.
package outfile

import (
	"io"

	impl "github.com/tickframe/tickframe/platform/internal/outfile"
)

// File is an output file being written: through a temporary file renamed
// over its target by Commit, so that no reader, and no kill, ever leaves a
// partial file under its name, or into an existing non-regular file (a
// device such as /dev/null, a FIFO) or an open descriptor (/dev/stdout)
// directly, which is never replaced.
type File = impl.File

// CheckWritable reports whether a file can be written at path, before any
// work is done, the way Create will: it follows path's links to their
// target, as Create does, and a regular or new target's directory must
// exist and accept the temporary file Create makes there, a new name must
// be one the file system takes, a directory is refused, and an existing
// non-regular file (/dev/null, a FIFO) or descriptor (/dev/stdout) must be
// writable now, without waiting. It leaves nothing behind.
func CheckWritable(path string) error { return impl.CheckWritable(path) }

// Create starts writing the file at path. Write to the File, then Commit
// it, or Abort it to leave path's target as it was. Errors name the path.
func Create(path string) (*File, error) { return impl.Create(path) }

// Write writes a file with Create and Commit: readers never see a partial
// file, and a failure removes the temporary file and leaves any earlier
// file as it was; an existing non-regular file or a descriptor is written
// into. Errors name the path.
func Write(path string, write func(io.Writer) error) error { return impl.Write(path, write) }
