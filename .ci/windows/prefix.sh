#!/usr/bin/env bash
# Prepares the Wine prefix that the Windows tests run in and prints its
# path: a 64-bit prefix (copied from a template made once, about 8 s, and
# kept in the user's cache directory: a copy takes a second, and each run
# still has a prefix, and so a wineserver, of its own), and in its system32 the
# ProcessPrng shim (processprng.c) built afresh with mingw-w64, since Go's
# runtime (1.26 here) needs bcryptprimitives.dll!ProcessPrng at start-up
# and Wine 8 has no such DLL. The prefix lives in TICKFRAME_WINEPREFIX, by default
# under the user's cache directory; nothing here touches ~/.wine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for tool in wine wineserver x86_64-w64-mingw32-gcc; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "windows: $tool is missing: run make deps (Debian: wine wine64 gcc-mingw-w64-x86-64)" >&2
		exit 1
	fi
done
prefix=${TICKFRAME_WINEPREFIX:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tickframe/wine-$(id -u)}
export WINEPREFIX=$prefix WINEARCH=win64 WINEDEBUG=-all
# No Mono or Gecko: they would be downloaded, and nothing here needs them.
export WINEDLLOVERRIDES="mscoree,mshtml="
mkdir -p "$(dirname "$prefix")"
# made makes the prefix $1 with wineboot unless it is there.
made() {
	if [ ! -f "$1/system.reg" ] || [ ! -d "$1/drive_c/windows/system32" ]; then
		rm -rf "$1"
		WINEPREFIX=$1 wine wineboot -i >/dev/null 2>&1 || true
		WINEPREFIX=$1 wineserver -w
		if [ ! -d "$1/drive_c/windows/system32" ]; then
			echo "windows: wineboot did not create the prefix $1" >&2
			exit 1
		fi
	fi
}
template=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tickframe/wine-template-$(id -u)
if [ ! -f "$prefix/system.reg" ] || [ ! -d "$prefix/drive_c/windows/system32" ]; then
	if [ "$prefix" = "$template" ]; then
		made "$prefix"
	else
		mkdir -p "$(dirname "$template")"
		(
			flock 9
			made "$template"
		) 9>"$template.lock"
		rm -rf "$prefix"
		cp -a "$template" "$prefix"
	fi
fi
dll=$prefix/drive_c/windows/system32/bcryptprimitives.dll
x86_64-w64-mingw32-gcc -O2 -shared -s -o "$dll.new" "$here/processprng.c" "$here/processprng.def" -lbcrypt
mv "$dll.new" "$dll"
echo "$prefix"
