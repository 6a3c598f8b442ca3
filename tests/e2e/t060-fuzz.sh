#!/usr/bin/env bash
# The libFuzzer targets (tests/fuzz/README.md) replay their checked-in corpus,
# the regression inputs of fixed findings included, and fuzz one second
# each: a smoke run of about 20 s, once per suite (under the normal build;
# the targets are their own ASan+UBSan build, build-fuzz/). The long runs
# are bench/fuzz.sh's.
. "$(dirname "$0")/../lib.sh"
FUZZ=$ROOT/build-fuzz/fuzz

if [ "$(basename "$BUILD")" != build ]; then
	echo "ok 1 # SKIP the fuzz smoke runs once per suite, with the normal build"
	exit 0
fi
rt=$(clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
if [ ! -f "$rt" ]; then
	echo "ok 1 # SKIP clang's fuzzer runtime is missing (scripts/setup.sh installs clang libclang-rt-14-dev)"
	exit 0
fi
if ! ls "$FUZZ"/fuzz_* >/dev/null 2>&1; then
	echo "ok 1 # SKIP the fuzz targets are not built (make fuzz)"
	exit 0
fi

# lsan.supp names a leak of a dependency by function: the sanitizers must
# symbolize (under `jostle run`, as in bench/selftest.sh, runs get
# symbolize=0: the last value in the options wins)
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$ROOT/tests/fuzz/lsan.supp:symbolize=1
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}symbolize=1
for src in "$ROOT"/tests/fuzz/fuzz_*.c; do
	t=${src##*/fuzz_}; t=${t%.c}
	if [ ! -x "$FUZZ/fuzz_$t" ]; then not_ok "$t: built (make fuzz)"; continue; fi
	mkdir -p "$TMP/new-$t" "$TMP/found-$t"
	timeout 120 "$FUZZ/fuzz_$t" -max_total_time=1 -timeout=20 -rss_limit_mb=2048 \
		-artifact_prefix="$TMP/found-$t/" "$TMP/new-$t" "$ROOT/tests/fuzz/corpus/$t" \
		> "$TMP/$t.log" 2>&1; rc=$?
	n=$(find "$ROOT/tests/fuzz/corpus/$t" -type f | wc -l)
	if [ "$rc" -eq 0 ]; then
		ok "$t: $n corpus inputs and a second of fuzzing"
	else
		not_ok "$t: $n corpus inputs and a second of fuzzing (exit $rc)"
		grep -m3 -E 'ERROR|SUMMARY|runtime error|Test unit written' "$TMP/$t.log" | sed 's/^/#   /'
	fi
done
