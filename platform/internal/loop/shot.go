package loop

import (
	"fmt"
	"image"
	"image/png"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
)

// screenshots saves frames as PNG files: the key's (Config.ScreenshotDir,
// named after the app's title) and the last frame (App.SaveFrame).
// Encoding runs on goroutines of its own; wait waits for them.
type screenshots struct {
	name      string    // the file name's stem: the title, made safe
	dir       string    // where the key's screenshots go; "" the working directory
	log       io.Writer // where a saved key screenshot is announced
	requested bool      // the key asked for one, taken after the next draw
	frame     image.RGBA
	wg        sync.WaitGroup
	mu        sync.Mutex
	err       error // the first failure
}

// newScreenshots names the key's screenshots after title ("tickframe"
// when empty): "Falling Cubes" saves falling-cubes-1712345678901.png.
func newScreenshots(title, dir string, log io.Writer) screenshots {
	return screenshots{name: FileStem(title), dir: dir, log: log}
}

// FileStem turns a title into a file name stem, which also names the
// world in recordings: lower-case ASCII letters and digits, runs of
// anything else as one '-'; "tickframe" when nothing is left.
func FileStem(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "tickframe"
	}
	return b.String()
}

// path returns a new screenshot's path for the key.
func (s *screenshots) path() string {
	name := s.name + "-" + strconv.FormatInt(time.Now().UnixMilli(), 10) + ".png"
	if s.dir == "" {
		return name
	}
	return filepath.Join(s.dir, name)
}

// save reads the back buffer of win and saves it to path as a PNG on
// another goroutine (PNG encoding takes tens of milliseconds); announce
// says so on the log once saved.
func (s *screenshots) save(win *window.Window, path string, announce bool) {
	w, h := win.FramebufferSize()
	img, err := renderer.ReadFrame(&s.frame, w, h)
	if err != nil {
		s.fail(err)
		return
	}
	cp := *img
	cp.Pix = append([]byte(nil), img.Pix...)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := outfile.Write(path, func(w io.Writer) error { return png.Encode(w, &cp) }); err != nil {
			s.fail(fmt.Errorf("loop: %w", err))
			return
		}
		if announce && s.log != nil {
			fmt.Fprintf(s.log, "%s: screenshot saved to %s\n", s.name, path)
		}
	}()
}

func (s *screenshots) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// wait waits for the screenshots being saved and returns the first
// failure.
func (s *screenshots) wait() error {
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
