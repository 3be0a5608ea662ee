// Command alone is the README's runtime without the instruments: a world
// run by app.Run with Bare on the main thread, with no report, HUD
// figures or flags. TestReadmeRuntimeAlone builds and runs it, and holds
// the README's block to its main.
package main

import (
	"context"
	"log"
	"math"
	"os"
	"os/signal"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/simthread"
)

// ring is a world: one cube going round a circle, a radian a second.
type ring struct{ angle float64 }

func (w *ring) Step(_ uint64, dt float64, _ []simthread.Input) { w.angle += dt }

func (w *ring) Snapshot(dst *simthread.Snapshot) {
	s, c := math.Sincos(w.angle)
	dst.Bodies = append(dst.Bodies[:0], simthread.NewBody(mgl32.Vec3{3 * float32(c), 1, 3 * float32(s)}))
}

func main() { // main's goroutine: the runtime pinned it to the main thread
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt) // Ctrl-C ends the run
	defer stop()
	// Until the window closes, Esc or Ctrl-C; no flags are parsed.
	if err := app.Run(ctx, app.Config{Title: "ring"}, &ring{}, app.Bare()); err != nil {
		log.Print(err)
		os.Exit(app.ExitCode(err)) // 2: a bad setting, before any window; 1: any other failure
	}
}
