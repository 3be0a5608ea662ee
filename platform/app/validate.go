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

// Validate reports the first setting out of range, or output file that
// cannot be written, without opening a window: every error it returns is
// a *ConfigError. Each output path is checked by creating and removing a
// temporary file beside it.
func (cfg Config) Validate() error {
	rc := cfg.runtime()
	if err := rc.Validate(); err != nil {
		return &ConfigError{err}
	}
	return cfg.validateOutputs()
}

// validateOutputs checks the output files: their extensions, that no two
// are the same file, and that each can be written.
func (cfg Config) validateOutputs() error {
	if cfg.Tools.Screenshot != "" && strings.ToLower(filepath.Ext(cfg.Tools.Screenshot)) != ".png" {
		return configErrorf("app: -screenshot %s: want a .png file", cfg.Tools.Screenshot)
	}
	if ext := strings.ToLower(filepath.Ext(cfg.Tools.Plot)); cfg.Tools.Plot != "" && ext != ".png" && ext != ".svg" {
		return configErrorf("app: -plot %s: want a .png or .svg file", cfg.Tools.Plot)
	}
	// Named by the flags that set them (Flags).
	seen := map[string]string{}
	for _, f := range [...]struct{ flag, path string }{
		{"screenshot", cfg.Tools.Screenshot}, {"report", cfg.Tools.Report}, {"plot", cfg.Tools.Plot},
		{"cpuprofile", cfg.Tools.CPUProfile}, {"trace", cfg.Tools.Trace}, {"memprofile", cfg.Tools.MemProfile},
		{"record", cfg.Tools.Record}, {"framelog", cfg.Tools.FrameLog},
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
	switch abs, _ := filepath.Abs(cfg.Tools.Replay); {
	case cfg.Tools.Replay == "":
	case cfg.Tools.Record != "":
		return configErrorf("app: -record and -replay cannot be used together")
	case seen[abs] != "":
		return configErrorf("app: -replay %s is also an output (-%s)", cfg.Tools.Replay, seen[abs])
	}
	if cfg.Tools.ScreenshotDir != "" {
		if err := outfile.CheckWritable(filepath.Join(cfg.Tools.ScreenshotDir, "screenshot.png")); err != nil {
			return configErrorf("app: screenshot directory %s: %v", cfg.Tools.ScreenshotDir, err)
		}
	}
	return nil
}
