#!/usr/bin/env bash
# Prints the module's packages in one of two sets, which make test runs
# apart (both together are every package, each once):
#   lab      the observer (platform/internal/observe), the tickframe
#            command's body (platform/internal/tickframe), the glTF
#            loader (renderer/gltf) and the commands (cmd/...,
#            platform/lab): long deterministic analyses, golden-case
#            replays and live runs of a separately built binary, which
#            the race detector slows five to ten times and where no
#            goroutine of an app's runs in the test process.
#   runtime  the rest: what an app runs, and the verifier; make test
#            runs them with -race.
set -euo pipefail
cd "$(dirname "$0")/.."
lab='^github\.com/tickframe/tickframe/(platform/internal/(observe|tickframe)|renderer/gltf|cmd|platform/lab)(/|$)'
case "${1:-}" in
lab) ${GO:-go} list ./... | grep -E "$lab" ;;
runtime) ${GO:-go} list ./... | grep -v -E "$lab" ;;
*)
	echo "usage: $0 lab|runtime" >&2
	exit 2
	;;
esac
