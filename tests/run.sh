#!/usr/bin/env bash
# tests/run.sh BUILD...: run every unit test and end-to-end test against each
# build folder (normally build and build-asan) and print the closing line
# "N passed, N failed, N skipped". A TAP line "ok ... # SKIP reason" (any
# case) counts as skipped, not passed: a GPU test on a machine without a
# GPU. Exit 1 when anything failed.
set -u
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- build
pass=0 fail=0 skip=0 failed_names=()
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

tally() { # NAME LOGFILE RC
	local p f s
	s=$(grep -ciE '^ok .*# skip' "$2")
	p=$(($(grep -c '^ok ' "$2") - s))
	f=$(grep -c '^not ok ' "$2")
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "not ok - $1 exited $3" >> "$2"; fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		failed_names+=("$1"); echo "FAIL $1 ($p passed, $f failed, $s skipped)"; grep -A3 '^not ok' "$2" | head -40
	elif [ "$s" -gt 0 ]; then
		echo "ok   $1 ($p, $s skipped)"; grep -iE '^ok .*# skip' "$2" | head -3
	else
		echo "ok   $1 ($p)"
	fi
}

for b in "$@"; do
	[ -x "$b/jostle" ] || { echo "tests/run.sh: '$b/jostle' is not built; run 'make check'" >&2; exit 2; }
	export JOSTLE=$PWD/$b/jostle FIX=$PWD/$b/fixtures ZOO=$PWD/$b/zoo BUILD=$PWD/$b
	# Every test's full output is kept here, for the failure that happens once.
	logs=$b/test-logs
	rm -rf "$logs" && mkdir -p "$logs"
	for t in "$b"/tests/test_*; do
		[ -x "$t" ] || continue
		log=$logs/$(basename "$t").log
		timeout 300 "$t" > "$log" 2>&1; rc=$?
		tally "$b: unit $(basename "$t")" "$log" $rc
	done
	for t in tests/e2e/t*.sh; do
		[ -f "$t" ] || continue
		log=$logs/$(basename "$t" .sh).log
		timeout 600 bash "$t" > "$log" 2>&1; rc=$?
		tally "$b: $(basename "$t")" "$log" $rc
	done
done
[ ${#failed_names[@]} -eq 0 ] || printf 'failed: %s\n' "${failed_names[@]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
