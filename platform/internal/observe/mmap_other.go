//go:build !unix

package observe

import (
	"errors"
	"os"
)

func mapFile(*os.File, int) ([]byte, func() error, error) {
	return nil, nil, errors.New("memory-mapped framebuffers need a Unix system")
}
