// Package outfile writes output files (reports, plots,
// tables) so that a reader never sees a partial file and a failure leaves
// nothing behind, and checks up front that they can be written.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// CheckWritable reports whether a file can be created at path, before any
// work is done: its directory must exist and accept a new file, and path
// must not be a directory. It leaves nothing behind.
func CheckWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return errors.New("is a directory")
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s does not exist", dir)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".tickframe-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s", dir)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Write writes a file through a temporary file in the same directory,
// synced and renamed into place: readers never see a partial file, and a
// failure removes the temporary file and leaves any earlier file as it
// was. Errors name the path.
func Write(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	// CreateTemp makes the file private; outputs are for everyone.
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
