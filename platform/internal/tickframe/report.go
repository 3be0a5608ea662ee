package tickframe

import (
	"math"

	"github.com/tickframe/tickframe/platform/app"
)

// Loads are the demo's own figures in its timing report (-report
// FILE.json), written after platform/app's keys through app.Report.Extra:
// the loads it was asked to run under.
type Loads struct {
	Stress        int     `json:"stress"`          // -stress: goroutines of busy work
	StepCostMs    float64 `json:"stepcost_ms"`     // -stepcost: busy work added to every step
	GCPressureMBs float64 `json:"gcpressure_mb_s"` // -gcpressure: garbage allocated on a side goroutine
}

// loads returns the demo's figures for o.
func loads(o *options) Loads {
	return Loads{Stress: o.stress, StepCostMs: round(float64(o.stepCost)/1e6, 4), GCPressureMBs: o.gcPressureMB}
}

// Report is a demo report as read back: the runtime's keys (app.Report)
// and the demo's (Loads). Write one through app.Report.Extra, not by
// marshalling this type (app.Report's MarshalJSON would drop Loads).
type Report struct {
	app.Report
	Loads
}

func round(v float64, digits int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
