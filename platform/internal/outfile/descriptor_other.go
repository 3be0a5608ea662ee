//go:build !linux

package outfile

import (
	"errors"
	"os"
)

// openFile reports whether name in dir is a link in a descriptor table:
// only Linux has them (elsewhere /dev/fd/N is a device, written into).
func openFile(dir, name string) (fd int, own, ok bool) { return 0, false, false }

var errNoDescriptors = errors.New("no descriptor links on this system")

func checkDescriptor(fd int) error { return errNoDescriptors }

func dupDescriptor(fd int, name string) (*os.File, error) { return nil, errNoDescriptors }
