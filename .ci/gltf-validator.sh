#!/usr/bin/env bash
# Installs the Khronos glTF validator (the npm package gltf-validator, at the
# version pinned below) into a cache directory when it is not there yet, and
# prints that directory. renderer/gltf's validator tests run it through node
# (.ci/gltf-validator.js) as the oracle for the loader. Needs node and npm:
# installed from Debian's packages when missing. make test runs it.
set -euo pipefail

version=2.0.0-dev.3.10
dir="${TICKFRAME_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tickframe}/gltf-validator-$version"

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "gltf-validator: node and npm are missing: install Node.js (https://nodejs.org)" >&2
		exit 1
	fi
	sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 || { echo "gltf-validator: node and npm are missing and there is no sudo: run as root: apt-get install nodejs npm" >&2; exit 1; }
		sudo=(sudo)
	fi
	echo "gltf-validator: installing nodejs npm" >&2
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -qq
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

if [ ! -f "$dir/node_modules/gltf-validator/package.json" ]; then
	mkdir -p "$dir"
	echo "gltf-validator: installing gltf-validator@$version into $dir" >&2
	# A private prefix, so that a package.json above it is not touched.
	echo '{"private": true}' >"$dir/package.json"
	npm install --prefix "$dir" --no-audit --no-fund --no-save --silent "gltf-validator@$version" >&2
fi
echo "$dir"
