package record_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// Record a run of the reference world, save it, and replay it. A virtual
// clock stands in for the real one so that the example runs instantly;
// tickframe runs the Sim on a RealClock with Run instead of Wake.
func Example() {
	// Recording: the header says how to rebuild the world.
	h := record.Header{World: "refworld", Build: record.CurrentBuild(), Seed: 1, Bodies: 16, Rate: 120, CheckpointEvery: 60}
	world, err := refworld.New(h.Bodies, h.Seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	clock := new(sim.VirtualClock)
	cfg := simthread.Tuning{Timing: simthread.Timing{Rate: h.Rate}, Record: true, CheckpointEvery: h.CheckpointEvery, StopAfter: 240}
	s, err := sim.New(cfg, world, clock)
	if err != nil {
		fmt.Println(err)
		return
	}
	next, _ := s.Wake()
	for !s.Stopped() {
		clock.Set(next)
		if s.Telemetry().Ticks() == 99 {
			s.Send(simthread.Input{Kind: refworld.Kick, X: 3}) // applied at tick 100
		}
		next, _ = s.Wake()
	}
	dir, err := os.MkdirTemp("", "record-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.rec")
	f, err := os.Create(path) // an app's -record writes through package outfile
	if err == nil {
		err = record.Write(f, &record.Log{
			Header:      h,
			Inputs:      s.InputLog(),
			Checkpoints: s.Checkpoints(),
			FinalTick:   world.Tick(),
			FinalHash:   world.Hash(),
		})
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Println(err)
		return
	}

	// Replay: a fresh world from the header, the recorded inputs instead of
	// live ones, and a check of every checkpoint and the end.
	l, err := record.ReadFile(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %d ticks, inputs at %v, %d checkpoints\n", l.World, l.FinalTick, l.Inputs[0].Tick, len(l.Checkpoints))
	world, err = refworld.New(l.Bodies, l.Seed)
	if err != nil {
		fmt.Println(err)
		return
	}
	clock = new(sim.VirtualClock)
	s, err = sim.New(l.ReplayConfig(), world, clock)
	if err != nil {
		fmt.Println(err)
		return
	}
	next, _ = s.Wake()
	for !s.Stopped() {
		clock.Set(next + 25e6) // wakes 25 ms late: other wakes, same states
		next, _ = s.Wake()
	}
	fmt.Println("verify:", l.Verify(s.Checkpoints(), world.Tick(), world.Hash()))
	// Output:
	// refworld: 240 ticks, inputs at 100, 4 checkpoints
	// verify: <nil>
}

// Read says what is wrong with a damaged recording, and where.
func ExampleRead() {
	var buf bytes.Buffer
	err := record.Write(&buf, &record.Log{
		Header:    record.Header{World: "refworld", Seed: 1, Bodies: 16, Rate: 120},
		Inputs:    []simthread.TickInput{{Tick: 5, Input: simthread.Input{Kind: refworld.Reset}}},
		FinalTick: 10,
		FinalHash: 0xabc,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	b := buf.Bytes()
	_, err = record.Read(bytes.NewReader(b[:len(b)-30]))
	fmt.Println(err)
	b[60] ^= 1 // a bit of Inputs[0].Kind
	_, err = record.Read(bytes.NewReader(b))
	fmt.Println(err)
	// Output:
	// record: offset 52: truncated Inputs[0] of 1 (needs 32 bytes, 30 left)
	// record: offset 108: checksum mismatch (stored 0xe8075849, computed 0xf42e454d): file is corrupt
}
