package app

import (
	"errors"
	"fmt"
	"io"

	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// runRecorder records a run (Tools.Record) or replays one and checks it
// (Tools.Replay), for a world that implements simthread.Hasher: the
// recording holds the inputs by tick and the world's hash every second of
// ticks, and names the world by the app's title.
type runRecorder struct {
	world  simthread.World
	name   string      // the recording's world name
	seed   uint64      // Config.Seed, for the header
	cfg    *Config     // its app flags, for the header (Config.params)
	set    *Settings   // the recording's path
	replay *record.Log // the recording replayed, nil when recording
	out    io.Writer   // where a replay that matches says so
}

// newRecorder checks that world can be recorded or replayed as set asks,
// reads the recording to replay, and sets set.Sim to record or replay
// (a replay runs at the recording's rate, cfg.Rate). Its errors are *ConfigError.
// It returns nil when cfg asks for neither.
func newRecorder(cfg *Config, set *Settings, world simthread.World, out io.Writer) (*runRecorder, error) {
	if set.Tools.Record == "" && set.Tools.Replay == "" {
		return nil, nil
	}
	if _, ok := world.(simthread.Hasher); !ok {
		return nil, configErrorf("app: -record and -replay need a world that implements simthread.Hasher")
	}
	r := &runRecorder{world: world, name: loop.FileStem(cfg.Title), out: out, seed: cfg.Seed}
	if set.Tools.Record != "" {
		if _, err := cfg.params(set); err != nil {
			return nil, err
		}
		r.cfg, r.set = cfg, set
		set.Sim.Record = true
		set.Sim.CheckpointEvery = uint64(simthread.Timing{Rate: cfg.Rate}.WithDefaults().Rate) // once a second
		return r, nil
	}
	rec, err := replayLog(cfg, set)
	if err != nil {
		return nil, err
	}
	cfg.Seed = rec.Seed
	// A replay takes no live input: it runs on when the window loses
	// focus, so that it reaches the recording's end.
	set.Display.KeepRunningUnfocused = true
	if rec.FinalTick == 0 {
		r.replay = rec
		return r, nil // nothing to step: Run checks the world as built
	}
	rc := rec.ReplayConfig()
	cfg.Rate, set.Sim.Replay, set.Sim.StopAfter, set.Sim.CheckpointEvery = rc.Rate, rc.Replay, rc.StopAfter, rc.CheckpointEvery
	r.replay = rec
	return r, nil
}

// empty reports whether the replay is of a run that stopped before its
// first tick: nothing to step or show.
func (r *runRecorder) empty() bool { return r != nil && r.replay != nil && r.replay.FinalTick == 0 }

// checkEmpty checks an empty recording against the world as built.
func (r *runRecorder) checkEmpty() error {
	rec := r.replay
	if err := rec.Verify(nil, 0, r.world.(simthread.Hasher).Hash()); err != nil {
		return errors.New("app: " + err.Error())
	}
	fmt.Fprintf(r.out, "%s: replay matches the recording: it ends at tick 0 (the recorded run stopped before its first tick), state hash %016x\n",
		r.name, rec.FinalHash)
	return nil
}

// finish writes the recording to path, or checks the replay against its
// recording when the run ended cleanly. A recording holds the run up to
// its last complete tick (sim.Sim.Final): after the world panicked
// at tick T, up to T−1, which it says on out; a run stopped before its
// first tick leaves a recording of tick 0 alone.
func (r *runRecorder) finish(s *sim.Sim, path string, runErr error) error {
	if r.replay == nil {
		params, err := r.cfg.params(r.set) // as the run ended: an app may settle a flag's value once its window opens
		if err != nil {
			return err
		}
		last, panicked, ok := s.Final()
		if !ok {
			// The simulation never started: the world is as built.
			last = sim.Checkpoint{Tick: 0, Hash: r.world.(simthread.Hasher).Hash()}
		}
		cfg := s.Config()
		log := &record.Log{
			Header: record.Header{World: r.name, Build: record.CurrentBuild(), Rate: cfg.Rate, CheckpointEvery: cfg.CheckpointEvery,
				Seed: r.seed, Params: params},
			Inputs:      append([]simthread.TickInput{}, s.InputLog()...),
			Checkpoints: s.Checkpoints(),
			FinalTick:   last.Tick,
			FinalHash:   last.Hash,
		}
		if err := outfile.Write(path, func(w io.Writer) error { return record.Write(w, log) }); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		if panicked {
			fmt.Fprintf(r.out, "%s: -record %s: recorded up to tick %d, the last before the world panicked; a replay stops there\n",
				r.name, path, last.Tick)
		}
		return nil
	}
	final, hash := s.Telemetry().Ticks(), r.world.(simthread.Hasher).Hash()
	if runErr != nil {
		return nil // the run's error says what went wrong
	}
	rec := r.replay
	if !s.Stopped() {
		return fmt.Errorf("app: replay stopped at tick %d, before the recording's end at tick %d: nothing verified", final, rec.FinalTick)
	}
	if err := rec.Verify(s.Checkpoints(), final, hash); err != nil {
		return errors.New("app: " + err.Error())
	}
	fmt.Fprintf(r.out, "%s: replay matches the recording: %d inputs, %d checkpoints, final tick %d, state hash %016x\n",
		r.name, len(rec.Inputs), len(rec.Checkpoints), rec.FinalTick, rec.FinalHash)
	return nil
}
