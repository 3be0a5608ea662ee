package tickframe

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/simthread/record"
)

// Issue 24, items 13 and 14, in process: every -hz of the documented range
// runs with the default -maxdelta; a recording made at -hz 2 with
// -maxdelta 1s replays (its rate's default follows it); a -pprof port out
// of range is a bad flag (exit 2), not a failure at run time; a recording
// claiming no bodies is refused with the field's offset before any window.
func TestSlowRatesAndHostileClaims(t *testing.T) {
	for _, hz := range []string{"1", "2", "3", "4", "7", "8", "120", "10000"} {
		o, err := parseFlags([]string{"-hz", hz}, io.Discard)
		if err != nil {
			t.Fatalf("-hz %s: %v", hz, err)
		}
		if err := simConfig(o, nil).Timing.Validate(); err != nil {
			t.Errorf("-hz %s: %v", hz, err)
		}
	}
	if _, err := parseFlags([]string{"-hz", "2", "-maxdelta", "400ms"}, io.Discard); err == nil {
		t.Error("-hz 2 -maxdelta 400ms (shorter than a step) accepted")
	}
	for _, addr := range []string{"127.0.0.1:99999", "127.0.0.1:-1", "localhost:nosuchservice"} {
		var ue *usageError
		if _, err := parseFlags([]string{"-pprof", addr}, io.Discard); !errors.As(err, &ue) {
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
	slow := write("slow.rec", &record.Log{Header: record.Header{World: worldName, Bodies: 8, Rate: 2, CheckpointEvery: 2},
		Checkpoints: []simthread.Checkpoint{{Tick: 2, Hash: 1}, {Tick: 4, Hash: 2}}, FinalTick: 5, FinalHash: 3})
	o, err := parseFlags([]string{"-replay", slow}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := loadReplay(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := simConfig(o, rec).Timing.Validate(); err != nil {
		t.Errorf("a -hz 2 recording's replay: %v", err)
	}
	o, _ = parseFlags([]string{"-replay", slow, "-maxdelta", "300ms"}, io.Discard)
	if _, err := loadReplay(o); err == nil || !strings.Contains(err.Error(), "-maxdelta") {
		t.Errorf("-maxdelta 300ms with a 2 Hz recording: %v, want it refused", err)
	}
	empty := write("empty.rec", &record.Log{Header: record.Header{World: worldName, Bodies: 0, Rate: 1}, FinalTick: 1})
	o, _ = parseFlags([]string{"-replay", empty}, io.Discard)
	var ue *usageError
	if _, err := loadReplay(o); !errors.As(err, &ue) || !strings.Contains(err.Error(), "offset 14") {
		t.Errorf("a recording of 0 bodies: %v, want a usage error at offset 14", err)
	}
}
