package observe

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/tickframe/tickframe/platform/internal/marker"
)

// RecordFormat names the format of a Record's file, its first key.
const RecordFormat = "tickframe observer record 1"

// Record is a watch kept for later: all of a Result but its Grid (the
// display's vblanks as the observer's own connection had them, a function
// of a tracker that ends with the session). It is enough to compare the
// watch again with the app's log (Compare): after a test failed on it, or
// with a changed analysis. Only the observer's fit of the display's
// vblanks from the app's (Comparison.GridOffsetP50, GridOffsetMax) needs
// the Grid, and reads zero on a Record's Result.
type Record struct {
	Format       string        `json:"format"`
	Window       [4]int        `json:"window"`
	VblankSource string        `json:"vblank_source,omitempty"`
	Period       time.Duration `json:"period_ns"`
	Watch        WatchStats    `json:"watch"`
	Changes      []Change      `json:"changes"`
}

// Record returns what of r a Record keeps.
func (r Result) Record() Record {
	return Record{Format: RecordFormat, Window: r.Window, VblankSource: r.VblankSource, Period: r.Period, Watch: r.Watch, Changes: r.Changes}
}

// WriteRecord writes r's Record to path, as JSON.
func WriteRecord(path string, r Result) error {
	data, err := json.Marshal(r.Record())
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// ReadRecord reads a Record written by WriteRecord and returns its
// Result (without a Grid). A file that is not one, or whose changes and
// stalls are out of time order, is refused, saying where.
func ReadRecord(path string) (Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Result{}, err
	}
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return Result{}, fmt.Errorf("%s: not an observer record: %v", path, err)
	}
	if rec.Format != RecordFormat {
		return Result{}, fmt.Errorf("%s: format %q, want %q", path, rec.Format, RecordFormat)
	}
	if rec.Period < 0 || rec.Window[2] < 0 || rec.Window[3] < 0 {
		return Result{}, fmt.Errorf("%s: period %v, window %v: negative", path, rec.Period, rec.Window)
	}
	if !slices.IsSortedFunc(rec.Changes, func(a, b Change) int { return int(a.At - b.At) }) {
		return Result{}, fmt.Errorf("%s: changes out of time order", path)
	}
	for i, c := range rec.Changes {
		if c.Prev > c.At || int(c.Index) >= len(marker.Palette) {
			return Result{}, fmt.Errorf("%s: change %d: %+v: its poll before it comes after it, or its colour is not the marker's", path, i, c)
		}
	}
	if !slices.IsSortedFunc(rec.Watch.Stalls, func(a, b Span) int { return int(a.From - b.From) }) {
		return Result{}, fmt.Errorf("%s: stalls out of time order", path)
	}
	return Result{Changes: rec.Changes, Watch: rec.Watch, Window: rec.Window, VblankSource: rec.VblankSource, Period: rec.Period}, nil
}
