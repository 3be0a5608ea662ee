// Package outfile writes output files (reports, plots,
// tables) so that a reader never sees a partial file and a failure leaves
// nothing behind, and checks up front that they can be written.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckWritable reports whether a file can be created at path, before any
// work is done, the way Create will: its directory must exist and accept
// the temporary file Create makes there (same name pattern, same length),
// a new path must be a name the file system takes, and path must not be a
// directory. An existing file that is not a regular file (a device such as
// /dev/null, a FIFO) must open for writing now, without waiting: Create
// writes into it directly. It leaves nothing behind.
func CheckWritable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return errors.New("is a directory")
	case err == nil && !fi.Mode().IsRegular():
		f, err := openSpecial(path)
		if err != nil {
			return err
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s does not exist", dir)
	}
	if !di.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, tempPattern)
	if err != nil {
		return fmt.Errorf("cannot write in %s", dir)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return err
	}
	if fi == nil {
		// The final name itself: too long a name, a name the file
		// system refuses, fails here rather than at the rename.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return bare(err)
		}
		f.Close()
		return os.Remove(path)
	}
	return nil
}

// tempPattern names Create's temporary files: short and fixed, so that
// any name the directory takes can be written through one.
const tempPattern = ".tickframe-*.tmp"

// File is an output file being written: through a temporary file renamed
// into place by Commit, so that no reader, and no kill, ever leaves a
// partial file under its name, or into an existing non-regular file
// (a device, a FIFO) directly, which is never replaced.
type File struct {
	*os.File
	path, tmp string // tmp is "" when writing into path directly
}

// Create starts writing the file at path. Write to the File, then Commit
// it, or Abort it to leave path as it was. Errors name the path.
func Create(path string) (*File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := openSpecial(path)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
		return &File{File: f, path: path}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), tempPattern)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, bare(err))
	}
	return &File{File: f, path: path, tmp: f.Name()}, nil
}

// openSpecial opens an existing non-regular file for writing without
// creating, truncating or waiting: a FIFO with no reader is refused.
func openSpecial(path string) (*os.File, error) {
	flag := os.O_WRONLY
	if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		flag |= nonblock
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, fmt.Errorf("not a regular file, and cannot be written: %w", bare(err))
	}
	return f, nil
}

// Commit syncs and closes the file and renames it into place.
func (f *File) Commit() (err error) {
	defer func() {
		if err != nil {
			f.Abort()
			err = fmt.Errorf("write %s: %w", f.path, bare(err))
		}
	}()
	if f.tmp == "" {
		return f.File.Close()
	}
	if err := f.Sync(); err != nil {
		return err
	}
	// CreateTemp makes the file private; outputs are for everyone.
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.File.Close(); err != nil {
		return err
	}
	return os.Rename(f.tmp, f.path)
}

// Abort closes the file and removes the temporary file: path keeps what
// it held before.
func (f *File) Abort() {
	f.File.Close()
	if f.tmp != "" {
		os.Remove(f.tmp)
	}
}

// Write writes a file with Create and Commit: readers never see a partial
// file, and a failure removes the temporary file and leaves any earlier
// file as it was; an existing non-regular file is written into. Errors
// name the path.
func Write(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, bare(err))
	}
	return f.Commit()
}

// bare strips the file name from a *fs.PathError or *os.LinkError: the
// error names path already, and a temporary file's name means nothing to
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
