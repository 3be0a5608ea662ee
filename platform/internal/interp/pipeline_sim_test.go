package interp_test

import (
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/simthread"
)

// A pipeline refuses a simulation whose history is too short for the
// delay's reach, and takes the one SimConfig sizes.
func TestNewPipelineChecksTheHistory(t *testing.T) {
	pc := interp.PipelineConfig{}
	var world stillWorld
	short := pc.SimConfig()
	short.History = 2
	sim, err := simthread.New(short, world, new(simthread.VirtualClock))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := interp.NewPipeline(pc, sim); err == nil || !strings.Contains(err.Error(), "history") {
		t.Errorf("a history of 2 for a pipeline that needs %d: error %v", pc.History(), err)
	}
	sim, err = simthread.New(pc.SimConfig(), world, new(simthread.VirtualClock))
	if err != nil {
		t.Fatal(err)
	}
	p, err := interp.NewPipeline(pc, sim)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sim() != sim || sim.Config().History != pc.History() {
		t.Errorf("the pipeline's simulation %p (history %d), want %p (history %d)", p.Sim(), sim.Config().History, sim, pc.History())
	}
}

// stillWorld is a world of nothing that never moves.
type stillWorld struct{}

func (stillWorld) Step(uint64, float64, []simthread.Input) {}
func (stillWorld) Snapshot(*simthread.Snapshot)            {}
