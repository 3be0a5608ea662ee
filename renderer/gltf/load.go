package gltf

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// maxImageFile is the most bytes Load reads of an image file (the document
// does not say how long one is): 1 GiB, twice the raw pixels of the
// largest image Decode accepts (maxPixels of 16-bit RGBA, 8 bytes each),
// which a PNG stored without compression is a little over.
const maxImageFile = 1 << 30

// Load reads the .glb or .gltf file at path and the buffer and image files
// it refers to, which must lie in the same directory or below it.
//
// Every file must be a regular file (a FIFO, a device or a directory is
// refused before it is read, so that none can block or stream forever),
// and no file is read past what the document claims: a buffer file up to
// its byteLength, an image file up to 1 GiB (larger ones are refused with
// an error matching ErrLimit). The model file is read up to the size it
// had when opened.
func Load(path string) (*Model, error) {
	data, err := readRegular(func() (fs.FileInfo, error) { return os.Stat(path) },
		func() (*os.File, error) { return os.OpenFile(path, os.O_RDONLY|openFlags, 0) }, -1, false)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	var root *os.Root
	defer func() {
		if root != nil {
			root.Close()
		}
	}()
	d := &decoder{name: path}
	d.open = func(uri string, limit int, cut bool) ([]byte, error) {
		if root == nil {
			r, err := os.OpenRoot(filepath.Dir(path))
			if err != nil {
				return nil, err
			}
			root = r
		}
		return readRegular(func() (fs.FileInfo, error) { return root.Stat(uri) },
			func() (*os.File, error) { return root.OpenFile(uri, os.O_RDONLY|openFlags, 0) }, limit, cut)
	}
	return d.decode(data)
}

// errNotRegular is returned for a file that is not a regular file, and
// errTooLarge for one longer than a limit.
var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)

// readRegular reads the regular file that stat and open find: all of it
// for a negative limit, else at most limit bytes when cut, and when not
// cut all of it if it is not longer than limit (else errTooLarge, before
// reading anything). It refuses anything but a regular file
// before opening it, and again after (open does not block on a FIFO
// swapped in between: openFlags), and never reads past the size the file
// had when opened. Errors do not repeat the file's name.
func readRegular(stat func() (fs.FileInfo, error), open func() (*os.File, error), limit int, cut bool) ([]byte, error) {
	fi, err := stat()
	if err != nil {
		return nil, pathCause(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", errNotRegular, fileKind(fi.Mode()))
	}
	if limit >= 0 && !cut && fi.Size() > int64(limit) {
		return nil, errTooLarge
	}
	f, err := open()
	if err != nil {
		return nil, pathCause(err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, pathCause(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w (%s)", errNotRegular, fileKind(fi.Mode()))
	}
	n := fi.Size()
	if limit >= 0 && n > int64(limit) {
		if !cut {
			return nil, errTooLarge
		}
		n = int64(limit)
	}
	if int64(int(n)) != n {
		return nil, fmt.Errorf("%d bytes is more than this process can hold", n)
	}
	buf := make([]byte, n)
	got, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, pathCause(err)
	}
	// A file that shrank since: what it holds now.
	return buf[:got], nil
}

// pathCause returns err without the file name an *fs.PathError adds:
// names from a file are quoted by the caller.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// fileKind names what a non-regular file is, for errors.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
