package record

import (
	"bufio"
	"errors"
	"fmt"
	"os"
)

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
