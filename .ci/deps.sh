#!/usr/bin/env bash
# Installs what a fresh Debian or Ubuntu machine lacks, and nothing when it
# is all there. `deps.sh run` (make build, make run) installs what building
# and running tickframe needs: a C compiler and pkg-config, the X11 and
# OpenGL headers that GLFW's cgo build needs, the Present and XSync headers
# (libxpresent-dev, libxext-dev) of the X11 build's present feedback and
# frame sync, and Xvfb, xauth and Mesa's software OpenGL (llvmpipe) for
# running without a display (x11-utils' xdpyinfo tells whether there is
# one). `deps.sh test` (make test and the other targets) adds what the
# suite and the tools use: xdotool, with which the tests press keys in the
# demo's window; jq (make soak reads the reports) and glxgears
# (mesa-utils, the scale make bench-instruments measures against); D-Bus,
# polkit and RealtimeKit, against which platform/internal/sched's tests ask for
# priority as an ordinary user (.ci/rtkit-env), and the xdg desktop portal
# that test asks first; Weston (nested in Xvfb, with XWayland) and the
# Wayland headers, for the -tags wayland build and its tests
# (wayland-protocols to regenerate platform/internal/present's protocol glue;
# not libdecor, whose decorations move the window's content off the place
# the observer reads the marker at: docs/platforms.md);
# Mutter, GNOME's compositor, nested in Xvfb, under whose XWayland the X11
# build's frame timings are tested against the observer; mingw-w64 and
# Wine, with which make test cross-builds for Windows and runs the Windows
# code (.ci/windows).
set -euo pipefail

run_packages=(
	gcc pkg-config
	libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
	libxpresent-dev libxext-dev
	xvfb xauth libgl1-mesa-dri x11-utils
)
test_packages=(
	xdotool jq mesa-utils
	dbus polkitd rtkit xdg-desktop-portal
	weston libwayland-dev libxkbcommon-dev xwayland wayland-protocols mutter
	gcc-mingw-w64-x86-64 wine wine64
)

case "${1:-test}" in
run) packages=("${run_packages[@]}") ;;
test) packages=("${run_packages[@]}" "${test_packages[@]}") ;;
*)
	echo "deps: unknown set ${1@Q}: want run or test" >&2
	exit 2
	;;
esac

if ! command -v go >/dev/null 2>&1; then
	echo "deps: Go is not installed: get Go 1.26 or later from https://go.dev/dl/" >&2
	exit 1
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: not a Debian or Ubuntu system; install by hand: a C compiler, the X11 and GL headers (Xcursor, Xrandr, Xinerama, Xi, Xxf86vm), Xvfb (make test: also xdotool, Weston, Mutter, Wine)" >&2
	exit 0
fi

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "deps: missing packages and no sudo: run as root: apt-get install ${missing[*]}" >&2
		exit 1
	fi
	sudo=(sudo)
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
