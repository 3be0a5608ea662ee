#!/usr/bin/env bash
# make test N times in a row (default 5), each from a fresh clone of this
# checkout's HEAD, beside a `go build -a ./...` loop of another module
# (gonum.org/v1/plot, from the module cache): issue 22's check that the
# suite never fails for the machine's noise. Logs and a summary line per
# run go to OUT (default ./beside-build-loop), and a failing run's files
# (frame logs, reports, the observer's JSON) to OUT/keptN.
#
#   .ci/beside-build-loop.sh [N] [OUT]
set -u
cd "$(dirname "$0")/.."
n=${1:-5}
out=$(realpath -m "${2:-beside-build-loop}")
repo=$(pwd)
commit=$(git rev-parse HEAD)
mkdir -p "$out"
work=$(mktemp -d)
trap 'kill "$loop" 2>/dev/null; wait "$loop" 2>/dev/null; rm -rf "$work"' EXIT
plot=$(go list -m -f '{{.Dir}}' gonum.org/v1/plot 2>/dev/null)
if [ -z "$plot" ]; then
	echo "beside-build-loop: gonum.org/v1/plot is not in the module cache (go mod download)" >&2
	exit 1
fi
cp -r "$plot" "$work/loop" && chmod -R u+w "$work/loop"
( cd "$work/loop" && while :; do go build -a ./... >/dev/null 2>&1; done ) &
loop=$!
pass=0
for i in $(seq 1 "$n"); do
	rm -rf "$work/clone"
	git clone -q "$repo" "$work/clone" && git -C "$work/clone" checkout -q "$commit"
	start=$(date +%s)
	mkdir -p "$out/kept$i"
	(cd "$work/clone" && TICKFRAME_KEEP_FAILED="$out/kept$i" .ci/run) >"$out/run$i.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] && pass=$((pass + 1))
	echo "run $i of $n: commit $commit exit $rc in $(($(date +%s) - start)) s (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/summary"
	grep -E '^(--- FAIL|FAIL)' "$out/run$i.log" | tee -a "$out/summary"
done
echo "$pass of $n passed" | tee -a "$out/summary"
[ "$pass" = "$n" ]
