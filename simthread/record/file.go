package record

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/tickframe/tickframe/internal/outfile"
)

// WriteFile writes l to the file at path atomically, after checking it
// with Validate, following path's links to their target as every output
// of the module does (internal/outfile): it writes a temporary file in the
// target's directory, syncs it to disk and renames it over the target,
// then syncs the directory where the system allows it; a link on the way
// stays a link. The file gets mode 0644. On any failure it removes the
// temporary file, and the target keeps what it held before (nothing, if
// there was no file). An existing file that is not a regular file (a
// device such as /dev/null, a FIFO) or an open descriptor (/dev/stdout)
// is never replaced: the recording is written into it directly, and a
// FIFO with no reader is refused at once. Errors name path.
func WriteFile(path string, l *Log) error {
	if p := l.validate(); p != nil {
		return fmt.Errorf("record: write %s: %s", path, p.msg)
	}
	f, err := outfile.Create(path)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if err := encode(f, l); err != nil {
		f.Abort()
		return fmt.Errorf("record: write %s: %w", path, bare(err))
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// ReadFile reads the recording at path with Read. A FormatError it returns
// carries path.
func ReadFile(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	defer f.Close()
	d := &decoder{r: bufio.NewReader(f)}
	l, err := d.decode()
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	return l, nil
}

// bare strips the file name from an *fs.PathError or *os.LinkError: the
// error names path already, and the temporary file's name means nothing to
// the user.
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
