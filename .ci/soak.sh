#!/usr/bin/env bash
# make soak: the demo for SOAK_DURATION (default 30m) at 320x240, paced at
# 144 Hz, under an Xvfb of tickframe observe's own whose fake CRTC runs at
# 144 Hz, watched from outside by the observer. It prints one table: the
# demo's RSS at the start (SOAK_WARM, default 10 s, in) and at the end (its
# last sample, every 10 s), the report's GC cycles and allocations after
# the warm-up, the worst frame as the observer saw it and as the app
# reports it, and the vblanks that showed no new frame as each counts them
# (the app's missed_vblanks and repeated_frames beside the observer's
# repeated).
#
#   make soak                         30 minutes
#   make soak SOAK_DURATION=1m        a short check
#
# Its files stay in SOAK_DIR (default soak/): report.json (the demo's
# -report), observe.json (the observer's -json), frames.log, rss.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${SOAK_DURATION:-30m}
warm=${SOAK_WARM:-10}
dir=${SOAK_DIR:-soak}
bin=${TICKFRAME:-bin/tickframe}
for tool in jq awk; do
	command -v "$tool" >/dev/null || { echo "make soak: $tool is missing (.ci/deps.sh installs it)" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "make soak: $bin is missing: make build" >&2; exit 2; }
mkdir -p "$dir"
rm -f "$dir/report.json" "$dir/observe.json" "$dir/frames.log" "$dir/rss.txt" "$dir/pid"

# The demo runs under a shell that writes its pid and then becomes it, so
# that its RSS can be sampled from /proc.
"$bin" observe -fps 144 -framelog "$dir/frames.log" -json "$dir/observe.json" -- \
	sh -c 'echo $$ >"$0/pid"; shift; exec "$@"' "$dir" -- "$bin" -marker -framelog "$dir/frames.log" \
	-duration "$dur" -refresh 144 -width 320 -height 240 -report "$dir/report.json" >"$dir/observe.txt" 2>&1 &
obs=$!
pid=
for _ in $(seq 100); do
	[ -s "$dir/pid" ] && pid=$(cat "$dir/pid") && break
	sleep 0.1
done
[ -n "$pid" ] || { echo "make soak: the demo did not start (see $dir/observe.txt)" >&2; wait $obs || true; exit 1; }
start=$(date +%s)
# One sample every 10 s (the first at SOAK_WARM s), seconds since the start
# and VmRSS in kB, until the demo exits.
(
	sleep "$warm"
	while rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$rss" ]; do
		echo "$(($(date +%s) - start)) $rss" >>"$dir/rss.txt"
		sleep 10
	done
) &
sampler=$!
rc=0
wait $obs || rc=$?
wait $sampler 2>/dev/null || true
if [ $rc != 0 ] || [ ! -s "$dir/report.json" ] || [ ! -s "$dir/observe.json" ]; then
	echo "make soak: the run failed (exit $rc); its output:" >&2
	cat "$dir/observe.txt" >&2
	exit 1
fi
[ -s "$dir/rss.txt" ] || { echo "make soak: no RSS sample (the run was shorter than SOAK_WARM=${warm}s)" >&2; exit 1; }
read -r t0 rss0 < <(head -1 "$dir/rss.txt")
read -r t1 rss1 < <(tail -1 "$dir/rss.txt")
r=$dir/report.json
o=$dir/observe.json
printf 'make soak: %s at 320x240, paced at 144 Hz, Xvfb fake CRTC at 144 Hz (%s)\n' "$dur" "$(jq -r .present_time_source "$r")"
printf '  %-44s %s\n' \
	"run" "$(jq -r '"\(.duration_s) s, \(.frames) frames, \(.ticks) ticks"' "$r")" \
	"RSS (kB) at ${t0} s / at ${t1} s" "$rss0 / $rss1 ($((rss1 - rss0)) kB)" \
	"GC cycles after the warm-up" "$(jq -r .gc_cycles "$r") (pauses $(jq -r .gc_pause_total_ms "$r") ms)" \
	"allocations after the warm-up" "$(jq -r '"\(.steady_alloc_objects) (\(.alloc_objects_per_frame) a frame; the runtime'"'"'s for GOMAXPROCS: \(.sched_alloc_objects))"' "$r")" \
	"worst frame, observer (frame time max)" "$(jq -r '.frames.frame_time_ms[2]' "$o") ms (p99 $(jq -r '.frames.frame_time_ms[1]' "$o"))" \
	"worst frame, app (frame interval max)" "$(jq -r '.frame_interval_ms.max' "$r") ms (p99 $(jq -r '.frame_interval_ms.p99' "$r"); between display changes p99 $(jq -r '.between_display_change_ms.p99' "$r"))" \
	"vblanks without a new frame, observer" "$(jq -r '.frames.repeated[0]' "$o") repeated" \
	"  app" "$(jq -r --slurpfile r "$r" '"\(.frames.repeated[1]) repeated (report: \($r[0].repeated_frames)); missed_vblanks \($r[0].missed_vblanks)"' "$o")" \
	"displayed / dropped, observer vs app" "$(jq -r '"\(.frames.displayed[0]) / \(.frames.dropped[0]) vs \(.frames.displayed[1]) / \(.frames.dropped[1])"' "$o")" \
	"observer's poll gap p99 / max" "$(jq -r '"\(.poll_gap_ms[1]) / \(.poll_gap_ms[2]) ms"' "$o")"
