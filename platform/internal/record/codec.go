package record

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// Sizes and fixed offsets of the format; see the package comment.
const (
	inputSize      = 32
	checkpointSize = 16
	crcSize        = 4

	offVersion  = 5
	offSeed     = 6
	offBodies   = 14
	offRate     = 18
	offEvery    = 22
	offWorldLen = 30

	// initialCap bounds the capacity Read gives a slice before its
	// entries arrive: a count field is never trusted further.
	initialCap = 128
	// flushAt is Write's buffer size.
	flushAt = 32 << 10
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// layout holds the offsets of a log's variable-position fields.
type layout struct {
	world, buildLen, build, paramsLen, params int64
	inputCount, checkpointCount, finalTick    int64
	finalHash, crc, end                       int64
}

func layoutOf(l *Log) layout {
	var y layout
	y.world = offWorldLen + 1
	y.buildLen = y.world + int64(len(l.World))
	y.build = y.buildLen + 1
	y.paramsLen = y.build + int64(len(l.Build))
	y.params = y.paramsLen + 4
	y.inputCount = y.params + int64(len(l.Params))
	y.checkpointCount = y.inputCount + 8 + inputSize*int64(len(l.Inputs))
	y.finalTick = y.checkpointCount + 8 + checkpointSize*int64(len(l.Checkpoints))
	y.finalHash = y.finalTick + 8
	y.crc = y.finalHash + 8
	y.end = y.crc + crcSize
	return y
}

// offset returns where in l's encoding the problem p lies.
func (y layout) offset(p *problem) int64 {
	switch p.field {
	case fBodies:
		return offBodies
	case fRate:
		return offRate
	case fWorldLen:
		return offWorldLen
	case fWorld:
		return y.world + int64(p.index)
	case fBuildLen:
		return y.buildLen
	case fBuild:
		return y.build + int64(p.index)
	case fParamsLen:
		return y.paramsLen
	case fInput:
		return y.inputCount + 8 + inputSize*int64(p.index)
	case fCheckpointCount:
		return y.checkpointCount
	case fCheckpoint:
		return y.checkpointCount + 8 + checkpointSize*int64(p.index)
	case fFinalTick:
		return y.finalTick
	default: // fFinalHash
		return y.finalHash
	}
}

// Write writes l to w in the recording format, after checking it with
// Validate. It buffers, so w needs no buffering of its own; if it fails, w
// may have received part of the recording.
func Write(w io.Writer, l *Log) error {
	if err := l.Validate(); err != nil {
		return err
	}
	if err := encode(w, l); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// encoder appends to a buffer, and on each flush adds the buffer to the
// checksum and writes it out. After a write error it only discards.
type encoder struct {
	w   io.Writer
	buf []byte
	crc uint32
	err error
}

func (e *encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		e.crc = crc32.Update(e.crc, castagnoli, e.buf)
		var n int
		n, e.err = e.w.Write(e.buf)
		if e.err == nil && n < len(e.buf) {
			e.err = io.ErrShortWrite
		}
	}
	e.buf = e.buf[:0]
}

func (e *encoder) grow() {
	if len(e.buf) >= flushAt-64 {
		e.flush()
	}
}

func (e *encoder) u64(v uint64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, v); e.grow() }
func (e *encoder) u32(v uint32) { e.buf = binary.LittleEndian.AppendUint32(e.buf, v); e.grow() }
func (e *encoder) u8(v uint8)   { e.buf = append(e.buf, v); e.grow() }

func (e *encoder) bytes(b []byte) {
	for len(b) > 0 {
		n := min(len(b), flushAt-len(e.buf))
		e.buf = append(e.buf, b[:n]...)
		b = b[n:]
		e.grow()
	}
}

// encode writes a valid l.
func encode(w io.Writer, l *Log) error {
	e := &encoder{w: w, buf: make([]byte, 0, min(flushAt, layoutOf(l).end))}
	e.bytes([]byte(Magic))
	e.u8(Version)
	e.u64(l.Seed)
	e.u32(uint32(l.Bodies))
	e.u32(uint32(l.Rate))
	e.u64(l.CheckpointEvery)
	e.u8(uint8(len(l.World)))
	e.bytes([]byte(l.World))
	e.u8(uint8(len(l.Build)))
	e.bytes([]byte(l.Build))
	e.u32(uint32(len(l.Params)))
	e.bytes(l.Params)
	e.u64(uint64(len(l.Inputs)))
	for _, in := range l.Inputs {
		e.u64(in.Tick)
		e.u32(in.Kind)
		e.u32(uint32(in.Code))
		e.u64(math.Float64bits(in.X))
		e.u64(math.Float64bits(in.Y))
	}
	e.u64(uint64(len(l.Checkpoints)))
	for _, c := range l.Checkpoints {
		e.u64(c.Tick)
		e.u64(c.Hash)
	}
	e.u64(l.FinalTick)
	e.u64(l.FinalHash)
	e.flush()
	if e.err != nil {
		return e.err
	}
	// The checksum covers everything before it, so it goes out last.
	e.buf = binary.LittleEndian.AppendUint32(e.buf, e.crc)
	// Not flush: the checksum does not cover itself.
	if n, err := e.w.Write(e.buf); err != nil {
		return err
	} else if n < len(e.buf) {
		return io.ErrShortWrite
	}
	return nil
}

// Read reads a recording from r, checks its checksum and validates it (see
// Log.Validate). It reads r to its end: nothing may follow the checksum. It
// never panics; any failure is a *FormatError giving the offset of the
// problem.
func Read(r io.Reader) (*Log, error) {
	d := &decoder{r: bufio.NewReader(r)}
	l, err := d.decode()
	if err != nil {
		return nil, err
	}
	return l, nil
}

// decoder reads fields one by one, counting the offset and checksumming
// what it reads.
type decoder struct {
	r   *bufio.Reader
	off int64
	crc uint32
	buf [max(inputSize, checkpointSize, MaxWorldLen, MaxBuildLen)]byte // any fixed field
}

// fail returns a FormatError at offset off.
func fail(off int64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// read reads exactly len(p) bytes of the field what into p.
func (d *decoder) read(p []byte, what func() string) error {
	n, err := io.ReadFull(d.r, p)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fail(d.off, "truncated %s (needs %d %s, %d left)", what(), len(p), plural(len(p), "byte"), n)
	}
	if err != nil {
		return &FormatError{Offset: d.off + int64(n), Msg: "cannot read " + what(), Err: err}
	}
	d.crc = crc32.Update(d.crc, castagnoli, p)
	d.off += int64(n)
	return nil
}

func (d *decoder) fixed(n int, what string) ([]byte, error) {
	p := d.buf[:n]
	return p, d.read(p, func() string { return what })
}

func (d *decoder) u64(what string) (uint64, error) {
	p, err := d.fixed(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(p), nil
}

func (d *decoder) u32(what string) (uint32, error) {
	p, err := d.fixed(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(p), nil
}

func (d *decoder) u8(what string) (uint8, error) {
	p, err := d.fixed(1, what)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// str reads a length byte in [lo, hi] and that many bytes.
func (d *decoder) str(what string, lo, hi int) (string, error) {
	at := d.off
	n, err := d.u8(what + " length")
	if err != nil {
		return "", err
	}
	if int(n) < lo || int(n) > hi {
		return "", fail(at, "%s length %d out of range [%d, %d]", what, n, lo, hi)
	}
	p, err := d.fixed(int(n), what)
	return string(p), err
}

func (d *decoder) decode() (*Log, error) {
	l := new(Log)
	var magic [len(Magic) + 1]byte
	n, err := io.ReadFull(d.r, magic[:])
	switch {
	case n == 0 && (err == io.EOF || err == io.ErrUnexpectedEOF):
		return nil, fail(0, "empty file: not a tickframe recording")
	case n < len(Magic) && string(magic[:n]) == Magic[:n] && (err == io.EOF || err == io.ErrUnexpectedEOF):
		return nil, fail(0, "truncated magic (needs %d bytes, %d left)", len(Magic), n)
	case string(magic[:min(n, len(Magic))]) != Magic[:min(n, len(Magic))]:
		return nil, fail(0, "not a tickframe recording (bad magic)")
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return nil, fail(offVersion, "truncated version (needs 1 byte, 0 left)")
	case err != nil:
		return nil, &FormatError{Offset: int64(n), Msg: "cannot read magic", Err: err}
	case magic[offVersion] != Version:
		return nil, fail(offVersion, "unsupported version %d (this reader reads version %d)", magic[offVersion], Version)
	}
	d.crc = crc32.Update(0, castagnoli, magic[:])
	d.off = int64(len(magic))

	if l.Seed, err = d.u64("seed"); err != nil {
		return nil, err
	}
	bodies, err := d.u32("body count")
	if err != nil {
		return nil, err
	}
	rate, err := d.u32("rate")
	if err != nil {
		return nil, err
	}
	if l.CheckpointEvery, err = d.u64("checkpoint interval"); err != nil {
		return nil, err
	}
	if l.World, err = d.str("world name", 1, MaxWorldLen); err != nil {
		return nil, err
	}
	if l.Build, err = d.str("build description", 0, MaxBuildLen); err != nil {
		return nil, err
	}
	at := d.off
	np, err := d.u32("params length")
	if err != nil {
		return nil, err
	}
	if np > MaxParamsLen {
		return nil, fail(at, "params length %d out of range [0, %d]", np, MaxParamsLen)
	}
	if np > 0 {
		// Bounded by MaxParamsLen.
		l.Params = make([]byte, np)
		if err := d.read(l.Params, func() string { return "params" }); err != nil {
			return nil, err
		}
	}

	count, err := d.u64("input count")
	if err != nil {
		return nil, err
	}
	if count > 0 {
		l.Inputs = make([]simthread.TickInput, 0, min(count, initialCap))
	}
	for i := uint64(0); i < count; i++ {
		p := d.buf[:inputSize]
		if err := d.read(p, func() string { return fmt.Sprintf("Inputs[%d] of %d", i, count) }); err != nil {
			return nil, err
		}
		l.Inputs = append(l.Inputs, simthread.TickInput{
			Tick: binary.LittleEndian.Uint64(p[0:]),
			Input: simthread.Input{
				Kind: binary.LittleEndian.Uint32(p[8:]),
				Code: int32(binary.LittleEndian.Uint32(p[12:])),
				X:    math.Float64frombits(binary.LittleEndian.Uint64(p[16:])),
				Y:    math.Float64frombits(binary.LittleEndian.Uint64(p[24:])),
			},
		})
	}

	if count, err = d.u64("checkpoint count"); err != nil {
		return nil, err
	}
	if count > 0 {
		l.Checkpoints = make([]sim.Checkpoint, 0, min(count, initialCap))
	}
	for i := uint64(0); i < count; i++ {
		p := d.buf[:checkpointSize]
		if err := d.read(p, func() string { return fmt.Sprintf("Checkpoints[%d] of %d", i, count) }); err != nil {
			return nil, err
		}
		l.Checkpoints = append(l.Checkpoints, sim.Checkpoint{
			Tick: binary.LittleEndian.Uint64(p[0:]),
			Hash: binary.LittleEndian.Uint64(p[8:]),
		})
	}

	if l.FinalTick, err = d.u64("final tick"); err != nil {
		return nil, err
	}
	if l.FinalHash, err = d.u64("final hash"); err != nil {
		return nil, err
	}
	computed := d.crc
	stored, err := d.u32("checksum")
	if err != nil {
		return nil, err
	}
	if stored != computed {
		return nil, fail(d.off-crcSize, "checksum mismatch (stored %#08x, computed %#08x): file is corrupt", stored, computed)
	}
	switch _, err := d.r.ReadByte(); {
	case err == nil:
		return nil, fail(d.off, "unexpected data after the checksum")
	case !errors.Is(err, io.EOF):
		return nil, &FormatError{Offset: d.off, Msg: "cannot read past the checksum", Err: err}
	}

	// The structure and checksum are sound; now the meaning. Bodies and
	// Rate are range-checked before they become ints, which may have 32
	// bits.
	if bodies > MaxBodies {
		return nil, fail(offBodies, "bodies %d out of range [0, %d]", bodies, MaxBodies)
	}
	if rate > simthread.MaxRate {
		return nil, fail(offRate, "rate %d out of range [1, %d]", rate, simthread.MaxRate)
	}
	l.Bodies, l.Rate = int(bodies), int(rate)
	if p := l.validate(); p != nil {
		return nil, fail(layoutOf(l).offset(p), "%s", p.msg)
	}
	return l, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
