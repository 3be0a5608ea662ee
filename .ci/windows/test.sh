#!/usr/bin/env bash
# make test-windows: the test suite cross-built for Windows with mingw-w64
# and run under Wine on an X display (go test -exec .ci/windows/exec), then
# the demo under Wine, checked by TestWindowsDemoUnderWine on Linux.
#
#   .ci/windows/test.sh          the suite and the demo (make test-windows)
#   .ci/windows/test.sh core     the packages with Windows code of their own
#                                (sim's clock, sched's levers): make test
#   .ci/windows/test.sh demo     the demo only
#   .ci/windows/test.sh measure  the demo RUNS (3) times, its figures only
#
# What Wine cannot do is excluded below by name, each with its reason;
# everything else must pass.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
GO=${GO:-go}

if [ -z "${DISPLAY:-}" ] || ! xdpyinfo >/dev/null 2>&1; then
	exec .ci/with-display "$0" "$@"
fi
# A prefix of the run's own (about 15 s to make), so that no other run of
# Wine on the machine shares its server, and none is ended by this one's.
work=$(mktemp -d)
export TICKFRAME_WINEPREFIX=${TICKFRAME_WINEPREFIX:-$work/prefix}
WINEPREFIX=$(.ci/windows/prefix.sh)
export WINEPREFIX WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
# One wineserver for the whole run, ended with it: a server left behind
# would hold a desktop on a display that is gone.
wineserver -p
trap 'wineserver -k 2>/dev/null || true; wineserver -w 2>/dev/null || true; rm -rf "$work"' EXIT
# Start Wine's own services (explorer, services, winedevice) now, writing
# nowhere: started by the first test binary, they would hold its output
# pipe open after it exits, and go test would wait for them.
wine cmd /c exit >/dev/null 2>&1 </dev/null || true

demo() {
	# The demo check runs on Linux: it cross-builds tickframe.exe, runs it
	# under Wine (in TICKFRAME_WINEPREFIX, this run's) and compares it with
	# what Linux computes.
	"$GO" test -count=1 -run '^TestWindowsDemoUnderWine$' -v ./platform/internal/tickframe
}

if [ "${1:-}" = demo ]; then
	demo
	exit
fi
# The Windows figures of docs/platforms.md: the demo under Wine RUNS times
# (10 s each, 320×240, 64 bodies, 144 Hz emulated, 120 Hz simulation).
if [ "${1:-}" = measure ]; then
	"$GO" test -count="${RUNS:-3}" -run '^TestWindowsDemoUnderWine$' -v ./platform/internal/tickframe | grep -E 'under Wine:|^(ok|FAIL|---)'
	exit "${PIPESTATUS[0]}"
fi

# Packages left out, and why:
#  platform/internal/tickframe (the tickframe command's body): its TestMain builds the command with the go tool, which
#    the Windows test binary cannot run under Wine; the demo's Windows
#    build is tested by TestWindowsDemoUnderWine instead.
excluded_pkgs=(
	github.com/tickframe/tickframe/platform/internal/tickframe
)
# Tests left out, and why (go test -skip patterns):
skips=(
	# Windows has no permission bits: Go reports 0666 for every writable
	# file, and these check the 0644 a Unix umask gives.
	'^TestWriteIsAtomic$'
	# They send X input with xdotool, a Linux program that the Windows
	# binary can neither find on Wine's PATH nor start; the window's input
	# under Wine is the Win32 backend's, fed by Wine's X11 driver.
	'^TestRealKeysAndButtons$' '^TestCaptureCursor$' '^TestBounceRun$'
	# They build the example with the go tool, which the Windows test
	# binary has none of under Wine (examples/minimal, examples/flyer).
	'^TestBadValuesExitTwoBeforeAWindow$' '^TestReport$' '^TestRecordAndReplay$'
	'^TestRunDrawsTheScoreAndReplays$'
	# It times the GPU's timestamps against time.Now, Go's clock, which on
	# Windows moves in interrupt-timer steps (under Wine it stood still
	# from a frame's start to its poll): the app gives the renderer the QPC
	# clock instead (renderer.Options.Now).
	'^TestProbeTimestamps$'
	# Its bound (animation error p99 under 0.01 tick at 60 Hz across a
	# pause) holds where the simulation and render threads are raised;
	# Wine passes no thread priority to Linux (every host thread stays at
	# nice 0, docs/platforms.md), and under Wine on a busy 2-core machine
	# it measured 0.0125 and 0.046 tick.
	'^TestPausedFramesAreNotMeasured$'
)

# Worked around: Wine 8 answers NtSetInformationFile's
# FileDispositionInformationEx (class 64) with STATUS_NOT_IMPLEMENTED, which
# Go's os.RemoveAll does not take for "unsupported" (it falls back only on
# STATUS_INVALID_INFO_CLASS, _INVALID_PARAMETER and _NOT_SUPPORTED), so
# every t.TempDir clean-up failed. The test binaries, and only they, are
# built with an overlay of the standard library that falls back on it too.
at=$("$GO" env GOROOT)/src/internal/syscall/windows/at_windows.go
sed 's|^\tcase STATUS_INVALID_INFO_CLASS,|\tcase NTStatus(0xC0000002), // STATUS_NOT_IMPLEMENTED: Wine 8\n\t\tSTATUS_INVALID_INFO_CLASS,|' "$at" >"$work/at_windows.go"
if cmp -s "$at" "$work/at_windows.go"; then
	echo "test-windows: $at changed: the Wine RemoveAll work-around no longer applies; update .ci/windows/test.sh" >&2
	exit 1
fi
printf '{"Replace":{"%s":"%s"}}\n' "$at" "$work/at_windows.go" >"$work/overlay.json"
if [ "${1:-}" = core ]; then
	pkgs=(./platform/internal/sim ./platform/internal/sched)
else
	pkgs=()
fi
# Packages with files for Windows (some are Linux's alone: an X11 client).
[ "${1:-}" = core ] || for p in $(GOOS=windows CGO_ENABLED=1 "$GO" list -e -f '{{if or .GoFiles .CgoFiles .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do
	keep=1
	for x in "${excluded_pkgs[@]}"; do [ "$p" = "$x" ] && keep=0; done
	[ $keep = 1 ] && pkgs+=("$p")
done
skip=$(IFS='|'; echo "${skips[*]}")
args=(-count=1 -p 1 -overlay "$work/overlay.json" -exec "$root/.ci/windows/exec")
[ -n "$skip" ] && args+=(-skip "$skip")
echo "test-windows: ${#pkgs[@]} packages under Wine ($(wine --version)); left out: ${excluded_pkgs[*]}; tests skipped: ${skips[*]}" >&2
GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=x86_64-w64-mingw32-gcc "$GO" test "${args[@]}" "${pkgs[@]}"
[ "${1:-}" = core ] || demo
