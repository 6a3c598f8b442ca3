#!/usr/bin/env bash
# scripts/bundle.sh JOSTLE DIR FILE...: lay out a relocatable jostle in DIR
# (mk/bundle.mk): JOSTLE (linked with an $ORIGIN/lib rpath) as DIR/jostle,
# each FILE beside it, and in DIR/lib every shared library ldd resolves for
# it, except the base system's (the C library and the loader, which every
# Linux machine has); then checks the result as --check does.
#
# scripts/bundle.sh --check DIR: with nothing from the environment (no
# LD_LIBRARY_PATH, no LD_PRELOAD), every library DIR/jostle loads must come
# from DIR/lib or be a base library, and `DIR/jostle --version` must run. A
# library missing from lib/ resolves elsewhere or not at all: named on
# stderr, exit 1.
set -eu
usage() { echo "usage: scripts/bundle.sh JOSTLE DIR [FILE...] | --check DIR" >&2; exit 2; }
[ $# -ge 2 ] || usage

# base_lib SONAME: true for the libraries of the C library itself.
base_lib() {
	case "$1" in
	linux-vdso.so.*|ld-linux*.so.*|libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|libutil.so.*) return 0 ;;
	*) return 1 ;;
	esac
}

check() { # DIR
	local dir=$1 real bad
	real=$(cd "$dir" && pwd -P)
	bad=$(env -i PATH=/usr/bin:/bin ldd "$dir/jostle" | while read -r name arrow path _; do
		[ "$arrow" = "=>" ] || continue
		base_lib "$name" && continue
		case "$path" in "$real"/lib/*) ;; *) echo "$name => $path" ;; esac
	done)
	if [ -n "$bad" ]; then
		printf 'bundle: libraries resolved outside %s/lib:\n%s\n' "$dir" "$bad" >&2
		return 1
	fi
	env -i PATH=/usr/bin:/bin "$dir/jostle" --version >/dev/null
}

if [ "$1" = --check ]; then
	[ $# -eq 2 ] || usage
	check "$2"
	exit
fi
bin=$1 dir=$2; shift 2
rm -rf "$dir"
mkdir -p "$dir/lib"
cp "$bin" "$dir/jostle"
for f in "$@"; do cp "$f" "$dir/"; done
# ldd lists the libraries of the whole tree (libdw's libelf, libz, liblzma ...).
ldd "$dir/jostle" | while read -r name arrow path _; do
	[ "$arrow" = "=>" ] || continue
	base_lib "$name" && continue
	if [ "$path" = "not" ] || [ ! -f "$path" ]; then
		echo "bundle: '$name' is not found on this machine; run scripts/setup.sh" >&2
		exit 1
	fi
	cp -L "$path" "$dir/lib/$name"
done

check "$dir"
echo "bundle: $dir ($(ls "$dir/lib" | wc -l) libraries)"
