package tickframe

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/sim"
)

// Issue 24, items 13 and 14, in process: every -hz of the documented range
// runs with the default -maxdelta; a recording made at -hz 2 with
// -maxdelta 1s replays (its rate's default follows it); a -pprof port out
// of range is a bad flag (exit 2), not a failure at run time; a recording
// claiming no bodies is refused before any window.
func TestSlowRatesAndHostileClaims(t *testing.T) {
	for _, hz := range []string{"1", "2", "3", "4", "7", "8", "120", "10000"} {
		d, err := parseFlags([]string{"-hz", hz}, io.Discard)
		if err == nil {
			err = d.validate()
		}
		if err != nil {
			t.Errorf("-hz %s: %v", hz, err)
		}
	}
	if d, err := parseFlags([]string{"-hz", "2", "-maxdelta", "400ms"}, io.Discard); err != nil || d.validate() == nil {
		t.Errorf("-hz 2 -maxdelta 400ms (shorter than a step) accepted (%v)", err)
	}
	for _, addr := range []string{"127.0.0.1:99999", "127.0.0.1:-1", "localhost:nosuchservice"} {
		if _, err := parseFlags([]string{"-pprof", addr}, io.Discard); app.ExitCode(err) != 2 {
			t.Errorf("-pprof %s: %v, want a usage error", addr, err)
		}
	}

	dir := t.TempDir()
	write := func(name string, l *record.Log) string {
		p := filepath.Join(dir, name)
		if err := outfile.Write(p, func(w io.Writer) error { return record.Write(w, l) }); err != nil {
			t.Fatal(err)
		}
		return p
	}
	slow := write("slow.rec", &record.Log{Header: record.Header{World: worldName, Rate: 2, CheckpointEvery: 2, Params: []byte(`{"flags":{"bodies":"8"}}`)},
		Checkpoints: []sim.Checkpoint{{Tick: 2, Hash: 1}, {Tick: 4, Hash: 2}}, FinalTick: 5, FinalHash: 3})
	d, err := parseFlags([]string{"-replay", slow}, io.Discard)
	if err == nil {
		err = d.validate()
	}
	if err != nil || d.o.bodies != 8 || d.cfg.Rate != 2 {
		t.Errorf("a -hz 2 recording's replay: %v, %d bodies at %d Hz, want 8 at 2 Hz", err, d.o.bodies, d.cfg.Rate)
	}
	if d, err = parseFlags([]string{"-replay", slow, "-maxdelta", "300ms"}, io.Discard); err == nil {
		err = d.validate()
	}
	if err == nil || !strings.Contains(err.Error(), "max delta 300ms") {
		t.Errorf("-maxdelta 300ms with a 2 Hz recording: %v, want it refused", err)
	}
	empty := write("empty.rec", &record.Log{Header: record.Header{World: worldName, Rate: 1, Params: []byte(`{"flags":{"bodies":"0"}}`)}, FinalTick: 1})
	var ce *app.ConfigError
	if _, err := parseFlags([]string{"-replay", empty}, io.Discard); !errors.As(err, &ce) || !strings.Contains(err.Error(), "-bodies 0") {
		t.Errorf("a recording of 0 bodies: %v, want a usage error naming -bodies 0", err)
	}
}
