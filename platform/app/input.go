package app

import (
	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/tickframe/tickframe/platform"
)

// handle applies the window's events.
func (a *App) handle(events []platform.Event) {
	for _, e := range events {
		switch e.Kind {
		case platform.KeyEvent:
			if e.Action != glfw.Press {
				if e.Action == glfw.Repeat {
					a.forward(e)
				}
				continue
			}
			switch e.Key {
			case glfw.KeyEscape:
				a.quit = true
			case glfw.KeySpace:
				a.userPaused = !a.userPaused
			case glfw.KeyF:
				a.win.ToggleFullscreen()
			case glfw.KeyV:
				a.win.SetVSync(!a.win.VSync())
			case glfw.KeyH:
				a.rend.HUD().Visible = !a.rend.HUD().Visible
			case glfw.KeyF12:
				a.shotRequested = true
			default:
				a.forward(e)
			}
		case platform.ButtonEvent:
			if e.Button == glfw.MouseButtonLeft {
				a.dragging = e.Action == glfw.Press
				a.dragX, a.dragY = e.X, e.Y
				continue
			}
			a.forward(e)
		case platform.CursorEvent:
			if a.dragging {
				a.cam.Orbit(float32(e.X-a.dragX), float32(e.Y-a.dragY))
				a.dragX, a.dragY = e.X, e.Y
			}
		case platform.ScrollEvent:
			a.cam.Zoom(float32(e.Y))
		case platform.IconifyEvent:
			a.iconified = e.On
		case platform.FocusEvent:
			a.unfocused = !e.On
		case platform.CloseEvent:
			a.quit = true
		}
	}
	want := a.userPaused || a.iconified || (a.unfocused && !a.cfg.KeepRunningUnfocused)
	if want != a.simPaused {
		a.simPaused = want
		if want {
			a.sim.Pause()
			a.planner.Pause()
		} else {
			a.planner.Resume(a.sim.Clock().Now())
			a.sim.Resume()
		}
	}
}

// forward hands an event to Config.Input and queues what it returns.
func (a *App) forward(e platform.Event) {
	if a.cfg.Input == nil {
		return
	}
	if in, ok := a.cfg.Input(e); ok {
		a.sim.Send(in)
	}
}

