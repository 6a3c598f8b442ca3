#!/usr/bin/env bash
# t320-zoo-python: the pytest entry point of the zoo (zoo/python/test_zoo.py
# over libzoo.so through ctypes). The fixed variants pass; a buggy run either
# passes or fails in pytest's own words (FAILED ...::test_... - Error: ...).
. "$(dirname "$0")/../lib.sh"

export PYTHONDONTWRITEBYTECODE=1 COLUMNS=200 ZOO_LIB="$ZOO/libzoo.so"
tests=$ROOT/zoo/python/test_zoo.py

check "libzoo.so is built" test -f "$ZOO_LIB"
if ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
	echo "ok - # SKIP python3-pytest is not installed"
	exit 0
fi
# The ASan build of the library needs the ASan runtime loaded first.
if readelf -d "$ZOO_LIB" 2>/dev/null | grep -q 'libasan'; then
	export LD_PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
	export ASAN_OPTIONS=detect_leaks=0
fi

pyt() { timeout 120 /usr/bin/python3 -m pytest -q -p no:cacheprovider "$tests" "$@"; }

for i in 1 2 3; do
	ZOO_FIXED=1 pyt > "$TMP/out" 2>&1; rc=$?
	check_eq "fixed pytest run $i passes" "$rc" 0
	check "fixed pytest run $i ran both tests" grep -q '^2 passed' "$TMP/out"
done

ZOO_ITERS=1 pyt > "$TMP/out" 2>&1; rc=$?
if [ $rc -eq 0 ]; then
	check "buggy pytest run: both tests passed" grep -q '^2 passed' "$TMP/out"
else
	check_eq "buggy pytest run: failures exit 1" "$rc" 1
	# the exception's name, its message when it has one (once in CI the
	# line did not match the message form; the lines are shown now)
	words='^FAILED .*test_zoo.py::test_[a-z_]+ - (test_zoo\.CUDAError|RuntimeError|AssertionError)(: |$)'
	grep -qE "$words" "$TMP/out" || grep -E '^(FAILED|E ) ' "$TMP/out" | head -8 | sed 's/^/# /'
	check "buggy pytest run: failure in pytest's words" grep -qE "$words" "$TMP/out"
fi

ZOO_LIB=$TMP/missing.so pyt > "$TMP/out" 2>&1; rc=$?
check_eq "a missing library fails the tests" "$rc" 1
