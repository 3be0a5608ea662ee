package record

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes l to the file at path atomically: after checking l with
// Validate, it writes a temporary file in path's directory, syncs it to disk
// and renames it to path, replacing any file there, then syncs the directory
// where the system allows it. The file gets mode 0644. On any failure it
// removes the temporary file, and path keeps what it held before (nothing,
// if there was no file). An existing file that is not a regular file (a
// device such as /dev/null, a FIFO) is never replaced: the recording is
// written into it directly, and a FIFO with no reader is refused at once.
// Errors name path.
func WriteFile(path string, l *Log) error {
	if err := writeFile(path, l); err != nil {
		return fmt.Errorf("record: write %s: %w", path, err)
	}
	return nil
}

func writeFile(path string, l *Log) (err error) {
	if p := l.validate(); p != nil {
		return errors.New(p.msg)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return writeSpecial(path, fi, l)
	}
	dir, _ := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	// Short and fixed, so that any name the directory takes can be
	// written through it.
	f, err := os.CreateTemp(dir, ".tickframe-*.tmp")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", bare(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // perhaps a second time; the first error is the one to report
			os.Remove(tmp)
		}
	}()
	if err := encode(f, l); err != nil {
		return fmt.Errorf("write temporary file: %w", bare(err))
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("chmod temporary file: %w", bare(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync temporary file: %w", bare(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close temporary file: %w", bare(err))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename temporary file: %w", bare(err))
	}
	// The recording is in place and complete; a failure to sync the
	// directory (some systems cannot) is not a reason to report failure
	// for a file that is there.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// writeSpecial writes l into the existing non-regular file at path.
func writeSpecial(path string, fi fs.FileInfo, l *Log) error {
	flag := os.O_WRONLY
	if fi.Mode()&fs.ModeNamedPipe != 0 {
		flag |= nonblock // a FIFO with no reader: refused, not waited on
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return fmt.Errorf("not a regular file, and cannot be written: %w", bare(err))
	}
	if err := encode(f, l); err != nil {
		f.Close()
		return bare(err)
	}
	return bare(f.Close())
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
