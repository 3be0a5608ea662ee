package verify

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// writeTable writes the results as a table for people, at most about 120
// columns wide: one line per row grouped by simulation rate, the failures
// spelled out, a summary per rate and mode, and notes saying what the
// columns mean and which bounds applied.
func writeTable(w io.Writer, res *Results) error {
	bw := bufio.NewWriter(w)
	dw := len("display")
	for i := range res.Rows {
		dw = max(dw, utf8.RuneCountInString(res.Rows[i].Display))
	}
	line := func(sim, disp, mode, disc, clamp, p99, pmax, a99, amax, late, early, meas, rec, wake, hash, result string) {
		s := fmt.Sprintf("%4s %-*s %-7s %5s %5s %6s %6s %6s %6s %5s %5s %4s %3s %5s %-4s %s",
			sim, dw, disp, mode, disc, clamp, p99, pmax, a99, amax, late, early, meas, rec, wake, hash, result)
		bw.WriteString(strings.TrimRight(s, " "))
		bw.WriteByte('\n')
	}

	title := "tickframe verify"
	if res.Broken != "" {
		title += " with the broken renderer " + res.Broken
	}
	fmt.Fprintf(bw, "%s: %d rows, %v of simulated time each, seed %d, %d bodies, step cost %v, hash at %v\n\n",
		title, len(res.Rows), res.Duration, res.Seed, res.Bodies, res.StepCost, res.HashAt)
	// The first heading line names the column groups; the widths are those
	// of line's format.
	fmt.Fprintf(bw, "%*s %5s %5s %-13s %-13s %-16s %3s %5s\n", 4+1+dw+1+7, "", "disc", "clamp",
		"pos (ticks)", "anim (ms)", "-- frames ------", "", "wake")
	line("sim", "display", "mode", "ticks", "ms", "p99", "max", "p99", "max", "late", "early", "meas", "rec", "ms", "hash", "result")
	for i := range res.Rows {
		r := &res.Rows[i]
		if i > 0 && r.Sim != res.Rows[i-1].Sim {
			fmt.Fprintln(bw)
		}
		disc, clamp, late, early, wake := "-", "-", "-", "-", "-"
		if r.Mode != Naive {
			disc = strconv.FormatUint(r.DiscardedTicks, 10)
			clamp = strconv.FormatFloat(float64(r.Clamped)/float64(time.Millisecond), 'f', 0, 64)
			late, early = strconv.FormatUint(r.Late, 10), strconv.FormatUint(r.Early, 10)
			wake = strconv.FormatFloat(r.Lateness.Max, 'f', 1, 64)
			if r.Lateness.Max >= 100 {
				wake = strconv.FormatFloat(r.Lateness.Max, 'f', 0, 64)
			}
			if !r.Within && r.Kind != Overload {
				wake += ">"
			}
		}
		meas := "-"
		if n := uint64(r.Frames) - r.PausedFrames; n > 0 {
			meas = strconv.FormatFloat(100*float64(r.PosSamples)/float64(n), 'f', 1, 64)
			if r.PosSamples == n {
				meas = "100"
			}
		}
		rec := "-"
		if r.Stalls > 0 && r.LateKind == Calm {
			rec = strconv.Itoa(r.Recovery)
		}
		hash := "ok"
		switch {
		case !r.Hashed:
			hash = "none"
		case r.Hash != r.RefHash:
			hash = "DIFF"
		}
		result := "ok"
		switch {
		case r.Baseline && !r.Pass:
			result = "(" + shortFailed(r) + ")"
		case !r.Pass:
			result = "FAIL " + shortFailed(r)
		}
		pos, anim := stat(r.PosErr, r.PosSamples), stat(r.AnimErr, r.AnimSamples)
		line(strconv.Itoa(r.Sim), r.Display, modeLabel(r), disc, clamp,
			pos[1], pos[2], anim[1], anim[2], late, early, meas, rec, wake, hash, result)
	}

	writeSummary(bw, res)
	writeMotions(bw, res)

	fmt.Fprintln(bw)
	failed := 0
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Baseline || r.Pass {
			continue
		}
		failed++
		for _, c := range r.Checks {
			if !c.OK {
				fmt.Fprintf(bw, "FAIL %d Hz × %s %s: %s: %s\n", r.Sim, r.Display, modeLabel(r), c.Name, c.Detail)
			}
		}
	}
	if failed > 0 {
		fmt.Fprintln(bw)
	}
	bw.WriteString(notes)
	bw.WriteString(bounceNotes)
	if slices.ContainsFunc(res.Rows, func(r Row) bool { return r.Kind == Panel }) {
		bw.WriteString(panelNotes)
	}
	if res.Pass {
		fmt.Fprintf(bw, "\nPASS: %s\n", hashSummary(res))
	} else {
		fmt.Fprintf(bw, "\nFAIL: %d of %d checked rows failed\n", res.Failed, checkedRows(res))
	}
	return bw.Flush()
}

// notes explain the table; keep them true to evaluate, row.go and the
// default patterns.
const notes = `Columns. pos: distance of body 0 from its true position at (frame time − render delay), in ticks of its motion; anim:
PresentMon's animation error, |sim-time advance − display-time advance| between consecutive frames, in ms. Both leave
out the first second of each row (warm-up while the adaptive render delay converges) and the frames with no truth
(across a pause, discarded or clamped time; "-": none had one). disc: ticks discarded by the step cap (MaxSteps), one
step of sim time each; clamp: time beyond MaxDelta not counted. late, early: frames after the warm-up whose render
time was past the newest snapshot (shown as is) or before the oldest held; meas: % of them (paused ones aside) whose
position error was measured; rec: the most frames after a render-thread stall until the last one out of bounds (calm
rows with stalls). wake: the sim's latest wake after its deadline, ms; ">": beyond the row's lateness budget, what its
render delay's limit (max(8 steps, 100 ms)) less a step, the pad and MaxSteps step costs, its step cap (MaxSteps
steps) and MaxDelta cover. hash: world hash at the hashed tick, and at about ten checkpoints per simulated second
before it, against a world stepped directly with the same inputs (per sim rate); a row whose sim lost time runs on
until it gets there, at most 4 times as long. mode: interp lerps and slerps (motion mode lerp, the baseline of the
other two); hermite interpolates with the bodies' velocities; extrap predicts from the newest snapshot at the frame
time itself, no render delay (pos: from the truth at the frame time), blending each correction in over 50 ms; run:
interp with the sim on its own goroutine (Sim.Run) sleeping on the virtual clock, which must match the interp row.
Motion modes side by side: the world's body 1 spins 20 turns a second (240° a 30 Hz tick); spinner: its orientation
error; turned wrong way: frames whose drawn spinner turned against its spin since the frame before, of those judged;
corr: extrap's correction of body 0 at each new snapshot (what the last one predicted minus what the new one does);
kick: the correction of a swarm body at the scripted kick, a velocity change no snapshot announced.
Checks. Every row: hash; ticks + discarded = ⌊(last wake − clamped − paused) × rate⌋ exactly, the ticks pending at the
end explained by the last wake's steps and the next one's lateness; at most MaxSteps steps per wake; nothing
backwards; every frame measured, skipped or paused, and the planner's counts equal its plans'. Rows within their
lateness budget: at least 95 % of frames measured, at most 1 % clamped, p99 pos ≤ 0.05 tick and p99 anim ≤ 0.25 ms;
calm steady, jitter, vrr and pause rows: the max too; calm rows with stalls (hitch): every frame from the 2nd after a
stall on within those bounds and unclamped. Rows beyond it: no error bound; the loss is counted (late, early, skipped,
discarded, clamped). hermite, within the budget: the spinner never turned the wrong way; at 30 Hz, calm: p99 pos at
most 1/100 of the interp row's. extrap: no render delay in any frame; within the budget, the kick's correction counted
(beyond 0.05 tick); calm: the spinner never turned the wrong way, and at 30 Hz p99 corr ≤ 0.05 tick; its pos under
stress is the prediction's over the lateness, shown, not bounded.
  hitch: the render thread stalls 100 ms once a second while the sim runs on.
  pause: the window hides 5 s and the app pauses the sim and the planner. The paused time must match the hidden time
         within a step, the lateness and the step costs; the frames after the show that the planner marks paused
         (their bracket still holds a pre-pause snapshot) must end within render delay + step + lateness + a frame
         (extrap: its reach + lateness + a frame, for the prediction to catch up with the frozen time).
  overload: each step costs 1.25 steps on a 60 Hz display: the lost time must be counted (discarded ticks, or at
         30 Hz clamped time, where 8 steps outlast MaxDelta), steps per wake capped; errors shown, not bounded.
Displays: jitter ±25 %, hitch and pause at 144 Hz; vrr: random intervals between 1/165 s and 1/48 s. Lateness: calm,
the sim wakes late by U(0, 2 ms); @stress, lognormal with median 15 ms and p99 40 ms, and the render thread stalls 10
to 20 ms about once a second, missing frames; @heavy, the same with p99 100 ms. Each step costs the step cost, so
snapshots are published after their tick time. The planner keeps enough snapshots to reach back by the delay's limit.
Baselines never fail the run; the checks they fail are in parentheses. noint: fixed step, newest snapshot shown as is;
naive: variable step by the last measured frame interval, shown a frame later (no ticks: its hash differs).
`

// shortFailed lists the row's failed checks, but for a failed maximum
// whose p99 failed too.
func shortFailed(r *Row) string {
	var names []string
	failed := make(map[string]bool)
	for _, c := range r.Checks {
		failed[c.Name] = failed[c.Name] || !c.OK
	}
	for _, c := range r.Checks {
		p, isMax := strings.CutSuffix(c.Name, " max")
		if !c.OK && !(isMax && failed[p]) {
			names = append(names, c.Name)
		}
	}
	return strings.Join(names, ",")
}

// modeLabel is the row's mode as the table shows it: "run" for an
// interpolated row whose Sim ran through Sim.Run, "hermite" and "extrap"
// for the interpolated rows in those motion modes, "interp" for lerp.
func modeLabel(r *Row) string {
	switch {
	case r.Driver == ByRun:
		return "run"
	case r.Motion == "hermite":
		return "hermite"
	case r.Motion == "extrapolate":
		return "extrap"
	}
	return string(r.Mode)
}

// writeSummary writes, per simulation rate and mode, the worst p99 of both
// errors over the rows within their lateness budget, and the loss counted
// on the rows beyond it (overload rows left out: they lose time by design).
func writeSummary(w io.Writer, res *Results) {
	type key struct {
		sim  int
		mode string
	}
	type agg struct {
		rows, beyond       int
		pos, ani           float64
		frames, late, skip uint64
		disc               uint64
	}
	var order []key
	sums := make(map[key]*agg)
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Kind == Overload || r.Err != "" {
			continue
		}
		k := key{r.Sim, modeLabel(r)}
		a := sums[k]
		if a == nil {
			a = new(agg)
			sums[k] = a
			order = append(order, k)
		}
		if r.Within {
			a.rows++
			a.pos = max(a.pos, r.PosErr.P99)
			a.ani = max(a.ani, r.AnimErr.P99)
			continue
		}
		a.beyond++
		a.frames += uint64(r.Frames) - r.PausedFrames
		a.late += r.Late + r.Early
		a.skip += r.Skipped
		a.disc += r.DiscardedTicks
	}
	fmt.Fprintf(w, "\nworst p99 of the rows within their lateness budget, loss counted on the rows beyond it (overload left out):\n")
	fmt.Fprintf(w, "%4s %-7s %6s %12s %12s %7s %8s %8s %10s\n",
		"sim", "mode", "within", "pos (ticks)", "anim (ms)", "beyond", "clamped", "skipped", "discarded")
	pct := func(n, of uint64) string {
		if of == 0 {
			return "-"
		}
		return strconv.FormatFloat(100*float64(n)/float64(of), 'f', 1, 64) + "%"
	}
	for _, k := range order {
		a := sums[k]
		pos, ani := "-", "-"
		if a.rows > 0 {
			pos, ani = num(a.pos), num(a.ani)
		}
		disc := "-"
		if a.beyond > 0 {
			disc = strconv.FormatUint(a.disc, 10)
		}
		fmt.Fprintf(w, "%4d %-7s %6d %12s %12s %7d %8s %8s %10s\n",
			k.sim, k.mode, a.rows, pos, ani, a.beyond, pct(a.late, a.frames), pct(a.skip, a.frames), disc)
	}
}

// writeMotions writes the motion modes side by side, per simulation rate,
// over the calm interpolated rows within their lateness budget (driven by
// Sim.Wake, overload left out): the largest render delay, the worst p99
// of the position error, of the spinner's orientation error and of
// extrapolate's corrections, the frames that turned the spinner the wrong
// way of those judged, and the largest correction of the kicked body at
// the kick.
func writeMotions(w io.Writer, res *Results) {
	type key struct {
		sim    int
		motion string
	}
	type agg struct {
		rows           int
		delay          time.Duration
		pos, rot, corr float64
		wrong, spins   uint64
		kick           float64
		hasCorr        bool
	}
	var order []key
	sums := make(map[key]*agg)
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Mode != Interpolated || r.Driver != ByWake || r.Kind == Overload || r.Err != "" || r.LateKind != Calm || !r.Within {
			continue
		}
		k := key{r.Sim, r.Motion}
		a := sums[k]
		if a == nil {
			a = new(agg)
			sums[k] = a
			order = append(order, k)
		}
		a.rows++
		a.delay = max(a.delay, r.DelayMax)
		a.pos, a.rot = max(a.pos, r.PosErr.P99), max(a.rot, r.RotErr.P99)
		a.wrong, a.spins, a.kick = a.wrong+r.WrongWay, a.spins+r.Spins, max(a.kick, r.KickMax)
		if r.Corrections > 0 {
			a.corr, a.hasCorr = max(a.corr, r.Correction.P99), true
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintf(w, "\nmotion modes side by side: the calm rows within their budget, worst p99 over them (overload left out):\n")
	fmt.Fprintf(w, "%4s %-7s %4s %8s %11s %10s %19s %10s %10s\n",
		"sim", "mode", "rows", "delay ms", "pos (ticks)", "spinner °", "turned wrong way", "corr ticks", "kick ticks")
	for _, k := range order {
		a := sums[k]
		label := k.motion
		if label == "extrapolate" {
			label = "extrap"
		}
		corr, kicks := "-", "-"
		if a.hasCorr {
			corr, kicks = num(a.corr), num(a.kick)
		}
		rot, wrong := "-", "-"
		if a.spins > 0 {
			rot, wrong = num(a.rot), fmt.Sprintf("%d of %d", a.wrong, a.spins)
		}
		fmt.Fprintf(w, "%4d %-7s %4d %8s %11s %10s %19s %10s %10s\n", k.sim, label, a.rows,
			strconv.FormatFloat(float64(a.delay)/float64(time.Millisecond), 'f', 1, 64), num(a.pos), rot, wrong, corr, kicks)
	}
}

// hashSummary says that every checked row hashed equal to the reference.
func hashSummary(res *Results) string {
	return fmt.Sprintf("%d checked rows; every world hash equal to its sim rate's reference", checkedRows(res))
}

func checkedRows(res *Results) int {
	n := 0
	for i := range res.Rows {
		if !res.Rows[i].Baseline {
			n++
		}
	}
	return n
}

// stat formats a measurement's columns, dashes when nothing was measured.
func stat(s Stat, samples uint64) [3]string {
	if samples == 0 {
		return [3]string{"-", "-", "-"}
	}
	return [3]string{num(s.P50), num(s.P99), num(s.Max)}
}

// num formats a non-negative measurement in at most 6 columns with as many
// significant digits as fit; below 0.001, one digit and the exponent.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 0.001:
		return fmt.Sprintf("%.0e", v)
	case v < 10:
		return strconv.FormatFloat(v, 'f', 4, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case v < 1000:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 10000:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
