package loop

import (
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
)

// applyLook gives the renderer the ground's size cfg asks for (its sky
// and whether it shows the ground went in its Options), before
// Config.Scene may bound the ground further (renderer.SetGroundRect).
func (a *App) applyLook() error {
	if s := a.cfg.Look.Ground.Size; s > 0 && s != DefaultGroundSize {
		return a.rend.SetGroundRect(mgl32.Vec2{-s / 2, -s / 2}, mgl32.Vec2{s / 2, s / 2})
	}
	return nil
}

// showPause keeps the renderer's notice (renderer.SetNotice) saying why
// the simulation is paused, HUD shown or not, so that a paused app never
// looks frozen. It does work only when the reason changes.
func (a *App) showPause() {
	why := ""
	switch c := &a.ctl; {
	case c.userPaused:
		why = "paused"
		if k := a.cfg.Keys.resolved().Pause; k != platform.KeyNone {
			why = "paused: " + keyName(k) + " resumes"
		}
	case c.hidden:
		why = "paused: the window is hidden"
	case c.unfocused && !a.cfg.Display.KeepRunningUnfocused:
		why = "paused: the window lost the focus"
	}
	if why != a.notice {
		a.notice = why
		a.rend.SetNotice(why)
	}
}

// keyName is a key as the HUD's help names it.
func keyName(k platform.Key) string {
	if k == platform.KeyEscape {
		return "Esc"
	}
	return k.String()
}
