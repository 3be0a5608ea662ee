package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tickframe/tickframe/platform/internal/outfile"
)

// ConfigError is a configuration that cannot run: a bad flag or setting,
// an output file that cannot be written. Main exits 2 on it, 1 on any
// other error.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

func configErrorf(format string, args ...any) error {
	return &ConfigError{fmt.Errorf(format, args...)}
}

// ExitCode is the exit status for an error of Run: 0 for none, 2 for a
// ConfigError, 1 for any other.
func ExitCode(err error) int {
	var ce *ConfigError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ce):
		return 2
	}
	return 1
}

// Validate reports the first setting of cfg and set out of range, or
// output file that cannot be written, without opening a window: every
// error it returns is a *ConfigError. Each output path is checked by
// creating and removing a temporary file beside it.
func Validate(cfg Config, set Settings) error {
	rc := runtimeConfig(&cfg, &set)
	if err := rc.Validate(); err != nil {
		return &ConfigError{err}
	}
	if t := set.Tools; t.Truth != nil && !(t.TruthSpeed > 0) {
		return configErrorf("app: Tools.Truth needs Tools.TruthSpeed, the body's speed, above 0 (got %v): the pose error is in ticks of its motion", t.TruthSpeed)
	}
	return set.Tools.validateOutputs(set.ScreenshotDir)
}

// validateOutputs checks the output files: their extensions, that no two
// are the same file, and that each can be written.
func (t *Tools) validateOutputs(screenshotDir string) error {
	if t.Screenshot != "" && strings.ToLower(filepath.Ext(t.Screenshot)) != ".png" {
		return configErrorf("app: -screenshot %s: want a .png file", t.Screenshot)
	}
	if ext := strings.ToLower(filepath.Ext(t.Plot)); t.Plot != "" && ext != ".png" && ext != ".svg" {
		return configErrorf("app: -plot %s: want a .png or .svg file", t.Plot)
	}
	// Named by the flags that set them (Flags).
	seen := map[string]string{}
	for _, f := range [...]struct{ flag, path string }{
		{"screenshot", t.Screenshot}, {"report", t.Report}, {"plot", t.Plot},
		{"cpuprofile", t.CPUProfile}, {"trace", t.Trace}, {"memprofile", t.MemProfile},
		{"record", t.Record}, {"framelog", t.FrameLog},
	} {
		if f.path == "" {
			continue
		}
		abs, _ := filepath.Abs(f.path)
		if other, dup := seen[abs]; dup {
			return configErrorf("app: -%s and -%s both write %s", other, f.flag, f.path)
		}
		seen[abs] = f.flag
		if err := outfile.CheckWritable(f.path); err != nil {
			return configErrorf("app: -%s %s: %v", f.flag, f.path, err)
		}
	}
	switch abs, _ := filepath.Abs(t.Replay); {
	case t.Replay == "":
	case t.Record != "":
		return configErrorf("app: -record and -replay cannot be used together")
	case seen[abs] != "":
		return configErrorf("app: -replay %s is also an output (-%s)", t.Replay, seen[abs])
	}
	if screenshotDir != "" {
		if err := outfile.CheckWritable(filepath.Join(screenshotDir, "screenshot.png")); err != nil {
			return configErrorf("app: screenshot directory %s: %v", screenshotDir, err)
		}
	}
	return nil
}
