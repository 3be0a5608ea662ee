package verify

import (
	"bufio"
	"fmt"
	"io"
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
	line := func(sim, disp, mode, ticks, disc, clamp, pause, p50, p99, pmax, a50, a99, amax, back, hash, result string) {
		s := fmt.Sprintf("%4s %-*s %-6s %5s %5s %5s %5s  %6s %6s %6s  %6s %6s %6s %4s %-4s %s",
			sim, dw, disp, mode, ticks, disc, clamp, pause, p50, p99, pmax, a50, a99, amax, back, hash, result)
		bw.WriteString(strings.TrimRight(s, " "))
		bw.WriteByte('\n')
	}

	fmt.Fprintf(bw, "tickframe verify: %d rows, %v of simulated time each, seed %d, %d bodies, step cost %v, hash at %v\n\n",
		len(res.Rows), res.Duration, res.Seed, res.Bodies, res.StepCost, res.HashAt)
	// The first heading line names the column groups; the widths are those
	// of line's format up to the pause column.
	fmt.Fprintf(bw, "%*s %5s %5s %5s  %-20s  %s\n", 4+1+dw+1+6+1+5, "", "disc", "clamp", "pause",
		"-- pos err (ticks) -", "-- anim err (ms) ---")
	line("sim", "display", "mode", "ticks", "ticks", "ms", "s", "p50", "p99", "max", "p50", "p99", "max", "back", "hash", "result")
	for i := range res.Rows {
		r := &res.Rows[i]
		if i > 0 && r.Sim != res.Rows[i-1].Sim {
			fmt.Fprintln(bw)
		}
		ticks, disc, clamp, pause := strconv.FormatUint(r.Ticks, 10), "-", "-", "-"
		if r.Mode != Naive {
			disc = strconv.FormatUint(r.DiscardedTicks, 10)
			clamp = strconv.FormatFloat(float64(r.Clamped)/float64(time.Millisecond), 'f', 0, 64)
			pause = strconv.FormatFloat(r.Paused.Seconds(), 'f', 2, 64)
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
			result = "(" + failedNames(r) + ")"
		case !r.Pass:
			result = "FAIL " + failedNames(r)
		}
		pos, anim := stat(r.PosErr, r.PosSamples), stat(r.AnimErr, r.AnimSamples)
		line(strconv.Itoa(r.Sim), r.Display, string(r.Mode), ticks, disc, clamp, pause,
			pos[0], pos[1], pos[2], anim[0], anim[1], anim[2],
			strconv.FormatUint(r.Backwards, 10), hash, result)
	}

	writeSummary(bw, res)

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
				fmt.Fprintf(bw, "FAIL %d Hz × %s %s: %s: %s\n", r.Sim, r.Display, r.Mode, c.Name, c.Detail)
			}
		}
	}
	if failed > 0 {
		fmt.Fprintln(bw)
	}
	bw.WriteString(notes)
	if res.Pass {
		fmt.Fprintf(bw, "\nPASS: %s\n", hashSummary(res))
	} else {
		fmt.Fprintf(bw, "\nFAIL: %d of %d checked rows failed\n", res.Failed, checkedRows(res))
	}
	return bw.Flush()
}

// notes explain the table; keep them true to evaluate, row.go and the
// default patterns.
const notes = `Columns. pos err: distance of body 0 from its true position at (frame time − render delay), in ticks of its motion.
anim err: PresentMon's animation error, |sim-time advance − display-time advance| between consecutive frames, in ms.
Both leave out the first second of each row (warm-up while the adaptive render delay converges) and the frames with
no truth (across a pause, discarded or clamped time; "-": no frame had one). back: frames whose displayed sim time
went backwards, over the whole row. disc: ticks discarded by the overload policy, one step of sim time each; clamp:
time beyond MaxDelta not counted; pause: time the Sim spent paused. hash: world hash at the hashed tick, and at about
ten checkpoints per simulated second before it, against a world stepped directly with the same inputs (per sim rate).
Checks. Every row: hash; ticks + discarded = ⌊(last wake − clamped − paused) × rate⌋ exactly, at most one tick
pending at the end; at most MaxSteps steps per wake; nothing backwards. Then p99 pos err ≤ 0.05 tick and p99 anim
err ≤ 0.25 ms, on every display pattern but overload:
  hitch: the render thread stalls 100 ms once a second while the sim runs on: the same bounds.
  pause: the window hides 5 s and the app pauses the sim. The paused time must match the hidden time within a step,
         the lateness and the step costs; the frames after the show whose bracket still holds a pre-pause snapshot
         (the meter cannot see the resume before it has a snapshot from after it) are not measured, and must end
         within render delay + step + lateness + a frame.
  overload: each step costs 1.25 steps on a 60 Hz display: the lost time must be counted (discarded ticks, or at
         30 Hz clamped time, where 8 steps outlast MaxDelta), steps per wake capped; errors shown, not bounded.
Displays: jitter ±25 %, hitch and pause at 144 Hz; vrr: random intervals between 1/165 s and 1/48 s. The sim wakes
late by U(0, 2 ms) and each step costs the step cost, so snapshots are published after their tick time.
Baselines never fail the run; the checks they fail are in parentheses. noint: fixed step, newest snapshot shown as
is; naive: variable step by the last measured frame interval, shown a frame later (no ticks: its hash differs).
`

// writeSummary writes, per simulation rate and mode, the worst p99 of both
// errors over the displays the mode ran on (overload rows left out: their
// errors are not bounded).
func writeSummary(w io.Writer, res *Results) {
	type key struct {
		sim  int
		mode Mode
	}
	type agg struct {
		rows     int
		pos, ani float64
	}
	var order []key
	sums := make(map[key]*agg)
	for i := range res.Rows {
		r := &res.Rows[i]
		if r.Kind == Overload || r.Err != "" {
			continue
		}
		k := key{r.Sim, r.Mode}
		a := sums[k]
		if a == nil {
			a = new(agg)
			sums[k] = a
			order = append(order, k)
		}
		a.rows++
		a.pos = max(a.pos, r.PosErr.P99)
		a.ani = max(a.ani, r.AnimErr.P99)
	}
	fmt.Fprintf(w, "\nworst p99 over the displays (overload left out):\n%4s %-6s %4s %12s %12s\n", "sim", "mode", "rows", "pos (ticks)", "anim (ms)")
	for _, k := range order {
		a := sums[k]
		fmt.Fprintf(w, "%4d %-6s %4d %12s %12s\n", k.sim, k.mode, a.rows, num(a.pos), num(a.ani))
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
// significant digits as fit.
func num(v float64) string {
	switch {
	case v == 0:
		return "0"
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
