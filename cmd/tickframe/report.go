package main

import (
	"math"

	"github.com/tickframe/tickframe/platform/app"
)

// Report is the live timing report (-report FILE.json): platform/app's,
// with the demo's loads filled in.
type Report = app.Report

// buildReport gathers the run's measurements; the simulation has stopped.
func buildReport(a *app.App, o *options) *Report {
	r := a.Report()
	r.Stress = o.stress
	r.StepCostMs = round(float64(o.stepCost)/1e6, 4)
	r.GCPressureMBs = o.gcPressureMB
	return r
}

func round(v float64, digits int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func writeReport(path string, r *Report) error { return r.WriteFile(path) }

// writePlot plots the run (App.WritePlot).
func writePlot(path string, a *app.App, r *Report) error { return a.WritePlot(path, r) }
