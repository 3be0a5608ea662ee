package outfile

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// openFile reports whether name in dir, a directory with its links
// followed, is a link in a descriptor table (/proc/PID/fd, or a thread's,
// /proc/PID/task/TID/fd), which names an open file rather than a path;
// and if so its descriptor and whether the table is this process's.
func openFile(dir, name string) (fd int, own, ok bool) {
	rest, found := strings.CutPrefix(dir, "/proc/")
	if !found {
		return 0, false, false
	}
	rest, found = strings.CutSuffix(rest, "/fd")
	if !found {
		return 0, false, false
	}
	pid, task, threaded := strings.Cut(rest, "/task/")
	p, err := strconv.Atoi(pid)
	if err != nil || threaded && !number(task) {
		return 0, false, false
	}
	fd, err = strconv.Atoi(name)
	if err != nil || fd < 0 {
		return 0, false, false
	}
	return fd, p == os.Getpid(), true
}

func number(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// checkDescriptor reports whether fd is open for writing.
func checkDescriptor(fd int) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("descriptor %d: %w", fd, err)
	}
	if acc := fl & unix.O_ACCMODE; acc != unix.O_WRONLY && acc != unix.O_RDWR {
		return fmt.Errorf("descriptor %d is not open for writing", fd)
	}
	return nil
}

// dupDescriptor returns a duplicate of fd, which shares its offset and
// its append mode, under name. Closing it leaves fd open.
func dupDescriptor(fd int, name string) (*os.File, error) {
	if err := checkDescriptor(fd); err != nil {
		return nil, err
	}
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("descriptor %d: %w", fd, err)
	}
	return os.NewFile(uintptr(d), name), nil
}
