// Package outfile writes output files (reports, plots, recordings,
// screenshots, profiles) so that a reader never sees a partial file and a
// failure leaves nothing behind, and checks up front that they can be
// written. It is the one place that rule lives: platform/app/outfile gives
// it to the app and its tools, and the recorder and renderer, which may
// not import platform/, use it directly.
//
// A path is followed through its symbolic links to the file it names, its
// target, and the target decides how it is written:
//
//   - A regular file, or nothing yet, is written as a temporary file in the
//     target's directory, renamed over the target at Commit. A link on the
//     way stays a link, and leads to the new file; nothing is created
//     outside the target's directory.
//   - An existing file that is not a regular file (a device such as
//     /dev/null, a FIFO, a terminal) is opened and written into, never
//     replaced; a FIFO with no reader is refused at once, not waited on.
//   - One of this process's open descriptors (on Linux, a link in
//     /proc/self/fd, which /dev/stdout, /dev/stderr and /dev/fd/N lead to)
//     is written through a duplicate of the descriptor; another
//     process's (/proc/PID/fd/N) is opened through the link and written
//     into, appended to when it is a regular file.
//
// Why a descriptor is written through, never replaced: such a link names
// an open file, not a place in a directory. `-report /dev/stdout >
// out.json` means the shell opened out.json, truncated it and gave the
// process the descriptor; renaming a new file over out.json would leave
// the descriptor, and everything else the process prints to it, on the
// unlinked old file, and would need a directory the user may not write
// (and as root, renaming over the link itself replaced the system's
// /dev/stdout with a regular file). A duplicate shares the descriptor's
// offset and its append mode, so the report lands where the process's own
// writes to stdout would, after what it printed before, and `>>` appends.
// Such an output is written as it goes: a failure may leave part of it.
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

// how is the way a target is written.
type how int

const (
	replace    how = iota // a regular file, or none: temporary file and rename
	into                  // an existing file that is not a regular file: opened and written into
	descriptor            // one of this process's descriptors: written through a duplicate
)

// target is the file a path leads to.
type target struct {
	how  how
	path string      // the file: path itself, or where its links lead
	fi   fs.FileInfo // path's (following a descriptor link to its file); nil when nothing is there
	fd   int         // the descriptor, when how is descriptor
}

// maxLinks is how many links resolve follows: Linux's limit (MAXSYMLINKS).
const maxLinks = 40

// resolve follows path's symbolic links to the file they lead to. A link
// that leads nowhere (dangling) leads to the path it names, where a new
// file is made. A link in a descriptor table (/proc/PID/fd) is not
// followed by name: its name is the kernel's description of an open file
// ("pipe:[1234]", a deleted file's old name), which only opening the link
// reaches.
func resolve(path string) (target, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return target{how: replace, path: p}, nil
		}
		if err != nil {
			return target{}, bare(err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if fi.Mode().IsRegular() || fi.IsDir() {
				return target{how: replace, path: p, fi: fi}, nil
			}
			return target{how: into, path: p, fi: fi}, nil
		}
		// The link's directory, its own links followed, so that a
		// relative link and a descriptor table are seen as the kernel
		// sees them (/dev/fd and /proc/self are links).
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return target{}, bare(err)
		}
		if fd, own, ok := openFile(dir, filepath.Base(p)); ok {
			fi, err := os.Stat(p)
			if err != nil {
				return target{}, bare(err)
			}
			if own {
				return target{how: descriptor, path: p, fi: fi, fd: fd}, nil
			}
			return target{how: into, path: p, fi: fi}, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return target{}, bare(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(dir, link)
		}
		p = link
	}
	return target{}, errors.New("too many levels of symbolic links")
}

// CheckWritable reports whether a file can be written at path, before any
// work is done, the way Create will, after following path's links as
// Create does: a target that is a regular file or nothing yet needs a
// directory that exists and accepts the temporary file Create makes there
// (same name pattern, same length), and a new target must be a name the
// file system takes; a directory is refused; an existing file that is not
// a regular file must open for writing now, without waiting, and a
// descriptor must be open for writing. It leaves nothing behind.
func CheckWritable(path string) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	switch {
	case t.how == descriptor:
		return checkDescriptor(t.fd)
	case t.how == into:
		f, err := openInto(t)
		if err != nil {
			return err
		}
		return f.Close()
	case t.fi != nil && t.fi.IsDir():
		return errors.New("is a directory")
	}
	dir := filepath.Dir(t.path)
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
	if t.fi == nil {
		// The final name itself: too long a name, a name the file
		// system refuses, fails here rather than at the rename.
		f, err := os.OpenFile(t.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return bare(err)
		}
		f.Close()
		return os.Remove(t.path)
	}
	return nil
}

// tempPattern names Create's temporary files: short and fixed, so that
// any name the directory takes can be written through one.
const tempPattern = ".tickframe-*.tmp"

// File is an output file being written: through a temporary file renamed
// over its target by Commit, so that no reader, and no kill, ever leaves a
// partial file under its name, or into an existing non-regular file or a
// descriptor directly, which is never replaced.
type File struct {
	*os.File
	path string // the caller's, for errors
	dst  string // the target the temporary file is renamed to
	tmp  string // "" when writing into the target directly
}

// Create starts writing the file at path. Write to the File, then Commit
// it, or Abort it to leave the target as it was. Errors name the path.
func Create(path string) (*File, error) {
	f, err := create(path)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return f, nil
}

func create(path string) (*File, error) {
	t, err := resolve(path)
	if err != nil {
		return nil, err
	}
	switch {
	case t.how == descriptor:
		f, err := dupDescriptor(t.fd, path)
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path}, nil
	case t.how == into:
		f, err := openInto(t)
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path}, nil
	case t.fi != nil && t.fi.IsDir():
		return nil, errors.New("is a directory")
	}
	f, err := os.CreateTemp(filepath.Dir(t.path), tempPattern)
	if err != nil {
		return nil, bare(err)
	}
	return &File{File: f, path: path, dst: t.path, tmp: f.Name()}, nil
}

// openInto opens an existing file for writing without creating,
// truncating or waiting: a FIFO with no reader is refused. A regular file
// comes here only as another process's open file, and is appended to, as
// that process's own writes would be.
func openInto(t target) (*os.File, error) {
	flag := os.O_WRONLY
	switch {
	case t.fi.Mode()&fs.ModeNamedPipe != 0:
		flag |= nonblock
	case t.fi.Mode().IsRegular():
		flag |= os.O_APPEND
	}
	f, err := os.OpenFile(t.path, flag, 0)
	if err != nil {
		return nil, fmt.Errorf("not a regular file, and cannot be written: %w", bare(err))
	}
	return f, nil
}

// Commit syncs and closes the file and renames it over its target, then
// syncs the directory where the system allows it.
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
	if err := os.Rename(f.tmp, f.dst); err != nil {
		return err
	}
	// The file is in place and complete; a directory that cannot be
	// synced (some systems cannot) is no reason to report a failure.
	if d, err := os.Open(filepath.Dir(f.dst)); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Abort closes the file and removes the temporary file: the target keeps
// what it held before.
func (f *File) Abort() {
	f.File.Close()
	if f.tmp != "" {
		os.Remove(f.tmp)
	}
}

// Write writes a file with Create and Commit, through a buffer: readers
// never see a partial file, and a failure removes the temporary file and
// leaves any earlier file as it was; an existing non-regular file or a
// descriptor is written into. Errors name the path.
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
