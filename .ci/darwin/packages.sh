#!/usr/bin/env bash
# Prints the packages that build for macOS without cgo, tests included:
# every one but those that need GL or GLFW (cgo against a Mac's SDK, which
# this machine has not). make test vets these for darwin; the rest is
# compiled for darwin on a Mac only (docs/platforms.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
GOOS=darwin CGO_ENABLED=0 ${GO:-go} list -e -test -f '{{.ImportPath}} {{if or .Error .DepsErrors}}bad{{else}}ok{{end}}' ./... |
	awk '{ p = $1; sub(/\.test$/, "", p); sub(/_test$/, "", p); if ($NF == "bad") bad[p] = 1; else seen[p] = 1 }
		END { for (p in seen) if (!(p in bad)) print p }' | sort
