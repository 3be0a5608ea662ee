package record_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// sampleLog returns a valid log with n inputs spread over its ticks, the
// first few with extreme values, and a checkpoint every 10 ticks.
func sampleLog(n int) *record.Log {
	l := &record.Log{
		Header: record.Header{
			World:           "refworld",
			Build:           "go1.26.8 linux/amd64",
			Seed:            0x0123456789abcdef,
			Bodies:          64,
			Rate:            120,
			CheckpointEvery: 10,
		},
		FinalTick: 95,
		FinalHash: 0xfeedface,
	}
	extremes := []simthread.Input{
		{Kind: math.MaxUint32, Code: math.MinInt32, X: math.Float64frombits(0x7ff8_dead_beef_0001), Y: math.Inf(-1)}, // NaN with a payload
		{Kind: 0, Code: math.MaxInt32, X: math.Copysign(0, -1), Y: math.Inf(1)},
		{Kind: 2, Code: -1, X: math.SmallestNonzeroFloat64, Y: -math.MaxFloat64},
		{Kind: 3, Code: 0, X: math.Float64frombits(0xfff0_0000_0000_0001), Y: 1.5}, // a signalling NaN
	}
	for i := range n {
		in := simthread.Input{Kind: 2, Code: int32(i), X: float64(i) * 0.25, Y: -float64(i)}
		if i < len(extremes) {
			in = extremes[i]
		}
		l.Inputs = append(l.Inputs, simthread.TickInput{Tick: 1 + uint64(i)*94/uint64(max(n, 1)), Input: in})
	}
	for t := uint64(10); t <= l.FinalTick; t += 10 {
		l.Checkpoints = append(l.Checkpoints, sim.Checkpoint{Tick: t, Hash: sampleHash(t)})
	}
	return l
}

// sampleHash is sampleLog's checkpoint hash at tick t.
func sampleHash(t uint64) uint64 { return t * 0x9e3779b97f4a7c15 }

// extremeLog stretches every header field and tick to its limit.
func extremeLog() *record.Log {
	const maxTick = simthread.MaxRate * uint64(record.MaxDuration/time.Second)
	params := make([]byte, record.MaxParamsLen)
	for i := range params {
		params[i] = byte(i * 7)
	}
	return &record.Log{
		Header: record.Header{
			World:           strings.Repeat("~ ", record.MaxWorldLen/2),
			Build:           strings.Repeat("!", record.MaxBuildLen),
			Seed:            math.MaxUint64,
			Bodies:          record.MaxBodies,
			Rate:            simthread.MaxRate,
			CheckpointEvery: maxTick,
			Params:          params,
		},
		Inputs: []simthread.TickInput{
			{Tick: 1, Input: simthread.Input{Kind: math.MaxUint32, Code: math.MinInt32, X: math.NaN(), Y: math.Inf(1)}},
			{Tick: maxTick / 2, Input: simthread.Input{Code: math.MaxInt32, X: math.MaxFloat64}},
			{Tick: maxTick, Input: simthread.Input{X: -math.SmallestNonzeroFloat64}},
			{Tick: maxTick},
		},
		Checkpoints: []sim.Checkpoint{{Tick: maxTick, Hash: math.MaxUint64}},
		FinalTick:   maxTick, // the longest run a recording may claim
		FinalHash:   math.MaxUint64,
	}
}

func encode(t testing.TB, l *record.Log) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := record.Write(&b, l); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.Bytes()
}

// equalLogs reports whether a and b are the same log, floats compared bit
// for bit and nil equal to empty.
func equalLogs(a, b *record.Log) bool {
	ha, hb := a.Header, b.Header
	if ha.World != hb.World || ha.Build != hb.Build || ha.Seed != hb.Seed || ha.Bodies != hb.Bodies ||
		ha.Rate != hb.Rate || ha.CheckpointEvery != hb.CheckpointEvery || !bytes.Equal(ha.Params, hb.Params) {
		return false
	}
	if a.FinalTick != b.FinalTick || a.FinalHash != b.FinalHash ||
		len(a.Inputs) != len(b.Inputs) || len(a.Checkpoints) != len(b.Checkpoints) {
		return false
	}
	for i, x := range a.Inputs {
		y := b.Inputs[i]
		if x.Tick != y.Tick || x.Kind != y.Kind || x.Code != y.Code ||
			math.Float64bits(x.X) != math.Float64bits(y.X) || math.Float64bits(x.Y) != math.Float64bits(y.Y) {
			return false
		}
	}
	for i, c := range a.Checkpoints {
		if c != b.Checkpoints[i] {
			return false
		}
	}
	return true
}

// fixCRC recomputes the checksum at the end of a patched file.
func fixCRC(b []byte) {
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], crc32.Checksum(b[:n], crc32.MakeTable(crc32.Castagnoli)))
}

// formatError checks that err is a one-line *FormatError and returns it.
func formatError(t *testing.T, err error) *record.FormatError {
	t.Helper()
	var fe *record.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a *record.FormatError", err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "record: offset ") || strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error %q, want one line starting %q", msg, "record: offset ")
	}
	return fe
}

func TestRoundTrip(t *testing.T) {
	zero := sampleLog(0)
	zero.Inputs = nil
	noCheckpoints := sampleLog(3)
	noCheckpoints.CheckpointEvery, noCheckpoints.Checkpoints = 0, nil
	finalCheckpoint := sampleLog(2)
	finalCheckpoint.FinalTick = 100
	finalCheckpoint.Checkpoints = append(finalCheckpoint.Checkpoints, sim.Checkpoint{Tick: 100, Hash: finalCheckpoint.FinalHash})
	minimal := &record.Log{Header: record.Header{World: "w", Rate: 1}, FinalTick: 1}
	for _, tc := range []struct {
		name string
		log  *record.Log
	}{
		{"inputs=0", zero},
		{"inputs=1", sampleLog(1)},
		{"inputs=4/extreme floats", sampleLog(4)},
		{"inputs=5000", sampleLog(5000)},
		{"no checkpoints", noCheckpoints},
		{"checkpoint at final tick", finalCheckpoint},
		{"minimal", minimal},
		{"extreme header and ticks", extremeLog()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := encode(t, tc.log)
			got, err := record.Read(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !equalLogs(got, tc.log) {
				t.Fatalf("Read(Write(l)) = %+v\nwant %+v", got, tc.log)
			}
			if again := encode(t, got); !bytes.Equal(again, b) {
				t.Fatal("Write(Read(b)) != b")
			}
		})
	}
}

// TestLayout pins the byte layout the package comment documents, built
// here by hand from that description.
func TestLayout(t *testing.T) {
	l := &record.Log{
		Header: record.Header{World: "rw", Build: "b", Seed: 7, Bodies: 3, Rate: 60, CheckpointEvery: 2, Params: []byte{0xaa}},
		Inputs: []simthread.TickInput{{Tick: 1, Input: simthread.Input{Kind: 2, Code: -2, X: 1, Y: -0.5}}},
		Checkpoints: []sim.Checkpoint{
			{Tick: 2, Hash: 0x1111}, {Tick: 4, Hash: 0x2222},
		},
		FinalTick: 5,
		FinalHash: 0x3333,
	}
	le := binary.LittleEndian
	var want []byte
	want = append(want, "TFREC"...)
	want = append(want, 1)
	want = le.AppendUint64(want, 7)
	want = le.AppendUint32(want, 3)
	want = le.AppendUint32(want, 60)
	want = le.AppendUint64(want, 2)
	want = append(want, 2, 'r', 'w', 1, 'b')
	want = le.AppendUint32(want, 1)
	want = append(want, 0xaa)
	want = le.AppendUint64(want, 1)
	want = le.AppendUint64(want, 1)
	want = le.AppendUint32(want, 2)
	want = le.AppendUint32(want, 0xfffffffe)
	want = le.AppendUint64(want, 0x3ff0000000000000)
	want = le.AppendUint64(want, 0xbfe0000000000000)
	want = le.AppendUint64(want, 2)
	want = le.AppendUint64(want, 2)
	want = le.AppendUint64(want, 0x1111)
	want = le.AppendUint64(want, 4)
	want = le.AppendUint64(want, 0x2222)
	want = le.AppendUint64(want, 5)
	want = le.AppendUint64(want, 0x3333)
	want = le.AppendUint32(want, crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli)))
	if got := encode(t, l); !bytes.Equal(got, want) {
		t.Fatalf("encoding\n% x\nwant\n% x", got, want)
	}
}

func TestTruncated(t *testing.T) {
	ext := extremeLog()
	ext.Params = ext.Params[:300] // every field, in a file small enough to cut everywhere
	for _, l := range []*record.Log{sampleLog(0), sampleLog(3), ext} {
		b := encode(t, l)
		for n := range len(b) {
			_, err := record.Read(bytes.NewReader(b[:n]))
			if err == nil {
				t.Fatalf("Read of %d of %d bytes succeeded", n, len(b))
			}
			fe := formatError(t, err)
			if fe.Offset > int64(n) || fe.Offset < 0 {
				t.Fatalf("Read of %d bytes: offset %d beyond the data: %v", n, fe.Offset, err)
			}
			if !strings.Contains(fe.Msg, "truncated") && !(n == 0 && strings.Contains(fe.Msg, "empty")) {
				t.Fatalf("Read of %d bytes: %v, want it called truncated", n, err)
			}
		}
	}
}

func TestTruncatedMessages(t *testing.T) {
	b := encode(t, sampleLog(3)) // inputs at 72, checkpoints at 176
	for _, tc := range []struct {
		n    int
		want string
	}{
		{0, "record: offset 0: empty file: not a tickframe recording"},
		{3, "record: offset 0: truncated magic (needs 5 bytes, 3 left)"},
		{5, "record: offset 5: truncated version (needs 1 byte, 0 left)"},
		{30, "record: offset 30: truncated world name length (needs 1 byte, 0 left)"},
		{35, "record: offset 31: truncated world name (needs 8 bytes, 4 left)"},
		{104 + 9, "record: offset 104: truncated Inputs[1] of 3 (needs 32 bytes, 9 left)"},
		{192 + 4, "record: offset 192: truncated Checkpoints[1] of 9 (needs 16 bytes, 4 left)"},
		{len(b) - 1, "record: offset " + strconv.Itoa(len(b)-4) + ": truncated checksum (needs 4 bytes, 3 left)"},
	} {
		_, err := record.Read(bytes.NewReader(b[:tc.n]))
		if err == nil || err.Error() != tc.want {
			t.Errorf("Read of %d bytes: %v\nwant %s", tc.n, err, tc.want)
		}
	}
}

func TestCorruptByte(t *testing.T) {
	for _, l := range []*record.Log{sampleLog(0), sampleLog(5)} {
		b := encode(t, l)
		c := make([]byte, len(b))
		for i := range b {
			for _, x := range []byte{0x01, 0x80, 0xff, byte(i*31+7) | 1} {
				copy(c, b)
				c[i] ^= x
				_, err := record.Read(bytes.NewReader(c))
				if err == nil {
					t.Fatalf("byte %d ^ %#x: Read succeeded", i, x)
				}
				formatError(t, err)
			}
		}
	}
}

func TestCorruptChecksumReported(t *testing.T) {
	b := encode(t, sampleLog(3))
	b[len(b)-10] ^= 0x40 // inside the final hash: only the checksum can tell
	_, err := record.Read(bytes.NewReader(b))
	fe := formatError(t, err)
	if fe.Offset != int64(len(b)-4) || !strings.Contains(fe.Msg, "checksum mismatch") || !strings.HasSuffix(fe.Msg, "file is corrupt") {
		t.Fatalf("got %v, want a checksum mismatch at offset %d", err, len(b)-4)
	}
}

func TestBadMagicAndVersion(t *testing.T) {
	valid := encode(t, sampleLog(1))
	for _, tc := range []struct {
		name   string
		data   []byte
		offset int64
		want   string
	}{
		{"other file", []byte("\x89PNG\r\n\x1a\n...."), 0, "not a tickframe recording (bad magic)"},
		{"short other file", []byte("TX"), 0, "not a tickframe recording (bad magic)"},
		{"lower case", append([]byte("tfrec"), valid[5:]...), 0, "not a tickframe recording (bad magic)"},
		{"version 0", append([]byte("TFREC\x00"), valid[6:]...), 5, "unsupported version 0 (this reader reads version 1)"},
		{"version 7", append([]byte("TFREC\x07"), valid[6:]...), 5, "unsupported version 7 (this reader reads version 1)"},
		{"trailing data", append(append([]byte(nil), valid...), 0), int64(len(valid)), "unexpected data after the checksum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := record.Read(bytes.NewReader(tc.data))
			fe := formatError(t, err)
			if fe.Offset != tc.offset || fe.Msg != tc.want {
				t.Fatalf("got %v, want offset %d: %s", err, tc.offset, tc.want)
			}
		})
	}
}

// TestInvalidContent patches valid files into ones whose checksum holds but
// whose content breaks a rule, and checks the offset Read names.
func TestInvalidContent(t *testing.T) {
	// sampleLog(3): World "refworld" (8 bytes), Build of 20 bytes, no
	// params: inputs count at 31+8+1+20+4 = 64, inputs at 72, checkpoint
	// count at 168, checkpoints at 176, final tick at 320.
	const inputs, checkpoints, final = 72, 176, 320
	put64 := func(off int, v uint64) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint64(b[off:], v) }
	}
	put32 := func(off int, v uint32) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint32(b[off:], v) }
	}
	for _, tc := range []struct {
		name   string
		patch  func([]byte)
		offset int64
		want   string
	}{
		{"bodies", put32(14, 1<<31), 14, "bodies 2147483648 out of range"},
		{"rate 0", put32(18, 0), 18, "rate 0 out of range [1, 10000]"},
		{"rate huge", put32(18, math.MaxUint32), 18, "rate 4294967295 out of range"},
		{"world control byte", func(b []byte) { b[33] = '\n' }, 33, `world name "re\nworld": byte 2 is not printable ASCII`},
		{"world length 0", func(b []byte) { b[30] = 0 }, 30, "world name length 0 out of range [1, 64]"},
		{"world length 65", func(b []byte) { b[30] = 65 }, 30, "world name length 65 out of range [1, 64]"},
		{"build length 200", func(b []byte) { b[39] = 200 }, 39, "build description length 200 out of range [0, 64]"},
		{"params length", put32(60, 1<<20), 60, "params length 1048576 out of range [0, 65536]"},
		{"input at tick 0", put64(inputs, 0), inputs, "Inputs[0] at tick 0: inputs apply from tick 1"},
		{"inputs out of order", put64(inputs+32, 90), inputs + 64, "Inputs[2] at tick 63, before Inputs[1] at tick 90"},
		{"input after final", put64(inputs+64, 96), inputs + 64, "Inputs[2] at tick 96, after the final tick 95"},
		{"checkpoint tick", put64(checkpoints+16*4, 51), checkpoints + 16*4, "Checkpoints[4] at tick 51, want tick 50 (every 10 ticks)"},
		{"checkpoint interval", put64(22, 20), 168, "9 checkpoints, want 4 (every 20 ticks up to the final tick 95)"},
		{"no checkpoint interval", put64(22, 0), 168, "9 checkpoints, want none (CheckpointEvery is 0)"},
		{"final tick 0 with inputs", put64(final, 0), inputs, "Inputs[0] at tick 1, after the final tick 0"},
		{"final tick 2^40", put64(final, 1<<40), final, "final tick 1099511627776: a run of more than 720h0m0s at 120 Hz (at most tick 311040000)"},
		{"final tick short", put64(final, 89), final - 16*9 - 8, "9 checkpoints, want 8"},
		{"final hash differs from checkpoint", func(b []byte) {
			binary.LittleEndian.PutUint64(b[final:], 90)
			// Checkpoints: 10 … 90, the last at the final tick.
		}, final + 8, "final hash 0x00000000feedface differs from Checkpoints[8] at the same tick 90"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := encode(t, sampleLog(3))
			tc.patch(b)
			fixCRC(b)
			_, err := record.Read(bytes.NewReader(b))
			fe := formatError(t, err)
			if fe.Offset != tc.offset || !strings.Contains(fe.Msg, tc.want) {
				t.Fatalf("got %v\nwant offset %d: …%s…", err, tc.offset, tc.want)
			}
		})
	}
}

// hostile returns a valid file's bytes up to a count field, that field set
// to count, and a few bytes of entries.
func hostile(t testing.TB, countAt int, count uint64) []byte {
	b := encode(t, sampleLog(3))[:countAt]
	b = binary.LittleEndian.AppendUint64(b, count)
	return append(b, make([]byte, 40)...)
}

func TestHostileCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"inputs 2^60", hostile(t, 64, 1<<60), "record: offset 104: truncated Inputs[1] of 1152921504606846976 (needs 32 bytes, 8 left)"},
		{"inputs 2^64-1", hostile(t, 64, math.MaxUint64), "truncated Inputs[1] of 18446744073709551615"},
		{"checkpoints 2^60", hostile(t, 168, 1<<60), "record: offset 208: truncated Checkpoints[2] of 1152921504606846976 (needs 16 bytes, 8 left)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := func() {
				if _, err := record.Read(bytes.NewReader(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want %s", err, tc.want)
				}
			}
			if allocs := testing.AllocsPerRun(20, read); allocs > 40 {
				t.Errorf("%v allocations per Read, want a few dozen whatever the count", allocs)
			}
			const runs = 50
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range runs {
				read()
			}
			runtime.ReadMemStats(&after)
			// bufio's 4 KiB, the first 128 entries' capacity and the
			// error: far from what 2^60 entries would need.
			if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 16<<10 {
				t.Errorf("Read allocated %d bytes for a %d-byte file", per, len(tc.data))
			}
		})
	}
}

// TestAllocationFollowsData: a count far above the entries present costs
// memory in proportion to the entries present, not to the count.
func TestAllocationFollowsData(t *testing.T) {
	b := encode(t, sampleLog(10000))
	binary.LittleEndian.PutUint64(b[64:], 1<<40)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := record.Read(bytes.NewReader(b))
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("Read succeeded")
	}
	if used := after.TotalAlloc - before.TotalAlloc; used > 8*uint64(len(b)) {
		t.Errorf("Read allocated %d bytes for a %d-byte file", used, len(b))
	}
}

// failingReader returns its data, then an error that is not EOF.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	b := encode(t, sampleLog(3))
	for _, n := range []int{0, 3, 6, 100, len(b) - 2, len(b)} {
		_, err := record.Read(&failingReader{data: b[:n], err: boom})
		fe := formatError(t, err)
		if !errors.Is(err, boom) || fe.Offset > int64(n) {
			t.Fatalf("after %d bytes: %v, want boom at an offset ≤ %d", n, err, n)
		}
	}
}

// limitWriter accepts n bytes, then fails.
type limitWriter struct {
	n     int
	short bool // fail by a short write without an error
}

var errFull = errors.New("disk full")

func (w *limitWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	n := w.n
	w.n = 0
	if w.short {
		return n, nil
	}
	return n, errFull
}

func TestWriteError(t *testing.T) {
	l := sampleLog(2000) // more than Write buffers
	size := len(encode(t, l))
	for _, n := range []int{0, 10, size / 2, size - 4, size - 1} {
		for _, short := range []bool{false, true} {
			err := record.Write(&limitWriter{n: n, short: short}, l)
			want := errFull
			if short {
				want = io.ErrShortWrite
			}
			if !errors.Is(err, want) || !strings.HasPrefix(err.Error(), "record: ") {
				t.Errorf("writer failing after %d bytes (short %v): %v, want %v", n, short, err, want)
			}
		}
	}
	if err := record.Write(&limitWriter{n: size}, l); err != nil {
		t.Errorf("writer with exactly room: %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		modify func(*record.Log)
		want   string // "" for valid
	}{
		{"valid", func(*record.Log) {}, ""},
		{"NaN and Inf inputs", func(l *record.Log) { l.Inputs[0].X, l.Inputs[0].Y = math.NaN(), math.Inf(-1) }, ""},
		{"empty build", func(l *record.Log) { l.Build = "" }, ""},
		{"max params", func(l *record.Log) { l.Params = make([]byte, record.MaxParamsLen) }, ""},
		{"zero value", func(l *record.Log) { *l = record.Log{} }, "record: rate 0 out of range [1, 10000]"},
		{"nothing ran", func(l *record.Log) { l.Inputs, l.Checkpoints, l.FinalTick = nil, nil, 0 }, ""},
		{"longer than MaxDuration", func(l *record.Log) { l.FinalTick = uint64(l.Rate)*uint64(record.MaxDuration/time.Second) + 1 }, "record: final tick 311040001: a run of more than 720h0m0s at 120 Hz (at most tick 311040000)"},
		{"no world", func(l *record.Log) { l.World = "" }, "record: world name of 0 bytes, want 1 to 64"},
		{"long world", func(l *record.Log) { l.World = strings.Repeat("w", 65) }, "record: world name of 65 bytes, want 1 to 64"},
		{"unicode world", func(l *record.Log) { l.World = "wörld" }, `record: world name "wörld": byte 1 is not printable ASCII`},
		{"long build", func(l *record.Log) { l.Build = strings.Repeat("b", 65) }, "record: build description of 65 bytes, want at most 64"},
		{"tab in build", func(l *record.Log) { l.Build = "go\t1" }, `record: build description "go\t1": byte 2 is not printable ASCII`},
		{"long params", func(l *record.Log) { l.Params = make([]byte, record.MaxParamsLen+1) }, "record: params of 65537 bytes, want at most 65536"},
		{"negative bodies", func(l *record.Log) { l.Bodies = -1 }, "record: bodies -1 out of range [0, 2147483647]"},
		{"rate 0", func(l *record.Log) { l.Rate = 0 }, "record: rate 0 out of range [1, 10000]"},
		{"rate too high", func(l *record.Log) { l.Rate = simthread.MaxRate + 1 }, "record: rate 10001 out of range [1, 10000]"},
		{"input at tick 0", func(l *record.Log) { l.Inputs[0].Tick = 0 }, "record: Inputs[0] at tick 0: inputs apply from tick 1"},
		{"inputs out of order", func(l *record.Log) { l.Inputs[2].Tick = 2 }, "record: Inputs[2] at tick 2, before Inputs[1] at tick 32"},
		{"input after the end", func(l *record.Log) { l.Inputs[2].Tick = 96 }, "record: Inputs[2] at tick 96, after the final tick 95"},
		{"missing checkpoint", func(l *record.Log) { l.Checkpoints = l.Checkpoints[:8] }, "record: 8 checkpoints, want 9 (every 10 ticks up to the final tick 95)"},
		{"checkpoints without interval", func(l *record.Log) { l.CheckpointEvery = 0 }, "record: 9 checkpoints, want none (CheckpointEvery is 0)"},
		{"shifted checkpoint", func(l *record.Log) { l.Checkpoints[3].Tick = 41 }, "record: Checkpoints[3] at tick 41, want tick 40 (every 10 ticks)"},
		{"final hash", func(l *record.Log) { l.FinalTick = 90 }, fmt.Sprintf("record: final hash 0x00000000feedface differs from Checkpoints[8] at the same tick 90 (%#016x)", sampleHash(90))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := sampleLog(3)
			tc.modify(l)
			err := l.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Validate: %v\nwant %s", err, tc.want)
			}
			if werr := record.Write(io.Discard, l); werr == nil || werr.Error() != err.Error() {
				t.Fatalf("Write of an invalid log: %v, want %v", werr, err)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	l := sampleLog(3) // checkpoints at 10, 20, … 90, final tick 95
	same := func() []sim.Checkpoint { return append([]sim.Checkpoint(nil), l.Checkpoints...) }
	for _, tc := range []struct {
		name        string
		checks      func() []sim.Checkpoint
		tick, hash  uint64
		build, want string
	}{
		{name: "same", checks: same, tick: 95, hash: 0xfeedface},
		{name: "first divergence", checks: func() []sim.Checkpoint {
			c := same()
			c[3].Hash, c[5].Hash = 1, 2
			return c
		}, tick: 95, hash: 0xfeedface, want: fmt.Sprintf("record: replay diverged at tick 40: hash 0x0000000000000001, recorded %#016x", sampleHash(40))},
		{name: "final hash", checks: same, tick: 95, hash: 7,
			want: "record: replay diverged at tick 95 (the final tick): hash 0x0000000000000007, recorded 0x00000000feedface"},
		{name: "other build", checks: same, tick: 95, hash: 7, build: "go1.26.8 plan9/mips",
			want: "(recorded by go1.26.8 plan9/mips, replayed by " + record.CurrentBuild() + ")"},
		{name: "ended early", checks: func() []sim.Checkpoint { return same()[:5] }, tick: 57, hash: 1,
			want: "record: replay ended at tick 57, the recording at tick 95"},
		{name: "diverged before ending early", checks: func() []sim.Checkpoint {
			c := same()[:5]
			c[1].Hash = 3
			return c
		}, tick: 57, want: "record: replay diverged at tick 20:"},
		{name: "ran on", checks: func() []sim.Checkpoint {
			return append(same(), sim.Checkpoint{Tick: 100, Hash: 9})
		}, tick: 100, hash: 9, want: "record: replay ended at tick 100, the recording at tick 95"},
		{name: "no checkpoints", checks: func() []sim.Checkpoint { return nil }, tick: 95, hash: 0xfeedface,
			want: fmt.Sprintf("record: replay has no checkpoint at tick 10 (recorded hash %#016x); was it run with CheckpointEvery 10?", sampleHash(10))},
		{name: "other interval", checks: func() []sim.Checkpoint {
			return []sim.Checkpoint{{Tick: 5}, {Tick: 10, Hash: l.Checkpoints[0].Hash}}
		}, tick: 95, hash: 0xfeedface,
			want: "record: replay has a checkpoint at tick 5 (hash 0x0000000000000000) that the recording lacks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l.Build = tc.build
			err := l.Verify(tc.checks(), tc.tick, tc.hash)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Verify: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Verify: %v\nwant …%s…", err, tc.want)
			}
		})
	}
}

func TestReplayConfig(t *testing.T) {
	l := sampleLog(0)
	l.Inputs = nil
	cfg := l.ReplayConfig()
	if cfg.Replay == nil {
		t.Fatal("Replay is nil for a log without inputs: the Sim would take live input")
	}
	if cfg.Rate != 120 || cfg.CheckpointEvery != 10 || cfg.StopAfter != 95 || cfg.Record {
		t.Fatalf("ReplayConfig() = %+v", cfg)
	}
}
