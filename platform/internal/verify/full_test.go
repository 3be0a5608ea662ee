package verify

import (
	"flag"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the tests if Run leaves a worker goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var full = flag.Bool("verify.full", false, "run the full default matrix through Main")

// TestFullMatrix runs `tickframe verify` with its defaults, table on stdout:
//
//	go test -run TestFullMatrix ./cmd/tickframe/internal/verify -verify.full -v
//
// It is the issues' acceptance run (about 12 s on 2 cores, each
// interpolated row in three motion modes); the short tests cover the same
// code, so it runs only when asked.
func TestFullMatrix(t *testing.T) {
	if !*full {
		t.Skip("the full matrix runs with -verify.full")
	}
	start := time.Now()
	code := Main(nil, os.Stdout, os.Stderr)
	t.Logf("exit status %d in %v", code, time.Since(start))
	if code != ExitPass {
		t.Errorf("exit status %d, want %d", code, ExitPass)
	}
}
