package app

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The README's runtime without the instruments is testdata/alone's main,
// word for word, and that program runs: built, run under the display for a
// moment, and ended by Ctrl-C, it exits 0 and says nothing. Its main calls
// Run on main's goroutine, which package platform/internal/window pins to
// the main thread in init, imported by the runtime though the program
// imports only app; window.Open refuses any other thread
// (TestOpenRefusesOtherThreads), as it would Run inside window.Main's
// function, which runs on another goroutine.
func TestReadmeRuntimeAlone(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	src, err := os.ReadFile("testdata/alone/main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(src, []byte("func main()"))
	if i < 0 {
		t.Fatal("testdata/alone/main.go has no main")
	}
	block := "```go\n" + string(src[i:]) + "```\n"
	if !strings.Contains(string(readme), block) {
		t.Fatalf("README.md's runtime-alone block is not testdata/alone's main; want:\n%s", block)
	}

	bin := filepath.Join(t.TempDir(), "alone")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/alone").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/alone: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the window opens and frames are drawn; no figure is read
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil || out.Len() > 0 {
		t.Fatalf("alone: %v (want exit 0 after Ctrl-C)\n%s", err, out.String())
	}
}
