package interp_test

import (
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// A pipeline refuses a simulation whose history is too short for the
// delay's reach, and takes the one SimConfig sizes.
func TestNewPipelineChecksTheHistory(t *testing.T) {
	pc := interp.PipelineConfig{}
	var world stillWorld
	short := pc.SimConfig()
	short.History = 2
	s, err := sim.New(short, world, new(sim.VirtualClock))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := interp.NewPipeline(pc, s); err == nil || !strings.Contains(err.Error(), "history") {
		t.Errorf("a history of 2 for a pipeline that needs %d: error %v", pc.History(), err)
	}
	s, err = sim.New(pc.SimConfig(), world, new(sim.VirtualClock))
	if err != nil {
		t.Fatal(err)
	}
	p, err := interp.NewPipeline(pc, s)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sim() != s || s.Config().History != pc.History() {
		t.Errorf("the pipeline's simulation %p (history %d), want %p (history %d)", p.Sim(), s.Config().History, s, pc.History())
	}
}

// stillWorld is a world of nothing that never moves.
type stillWorld struct{}

func (stillWorld) Step(uint64, float64, []simthread.Input) {}
func (stillWorld) Snapshot(*simthread.Snapshot)            {}
