#!/usr/bin/env bash
# bench/fuzz.sh SECONDS [TARGET...]: run each libFuzzer target (make fuzz;
# tests/fuzz/README.md) for SECONDS of wall time on the checked-in corpus
# plus what earlier runs found (build-fuzz/corpus/TARGET, kept between
# runs), and print one table row per target: executions, coverage edges,
# features, corpus size, and findings (inputs that crashed, leaked, timed
# out or ran out of memory, saved in build-fuzz/findings/TARGET/).
#
#   JOBS=2 bench/fuzz.sh 600            two targets at a time
#   NICE=10 (default)                   the machine is shared: fuzz politely
# A finding is fixed by a change to src/ and its input copied to
# tests/fuzz/corpus/TARGET/regress-NAME; the log of each run stays in
# build-fuzz/logs/TARGET.log.
set -u
cd "$(dirname "$0")/.."
secs=${1:?usage: bench/fuzz.sh SECONDS [TARGET...]}; shift
jobs=${JOBS:-1} nice=${NICE:-10}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || for f in tests/fuzz/fuzz_*.c; do t=${f##*/fuzz_}; targets+=("${t%.c}"); done
make -s fuzz >/dev/null || { echo "bench/fuzz.sh: make fuzz failed" >&2; exit 2; }
mkdir -p build-fuzz/logs
# lsan.supp names functions: symbolize even where the caller said not to
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$PWD/tests/fuzz/lsan.supp:symbolize=1
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}symbolize=1
# run copies, so that a rebuild meanwhile (make fuzz) does not touch them
bin=$(mktemp -d build-fuzz/run.XXXXXX); trap 'rm -rf "$bin"' EXIT
cp build-fuzz/fuzz/fuzz_* "$bin"/

one() { # TARGET: run it, leave its log
	local t=$1 work=build-fuzz/corpus/$1 found=build-fuzz/findings/$1
	mkdir -p "$work" "$found"
	nice -n "$nice" "$bin/fuzz_$t" -max_total_time="$secs" -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$found/" \
		"$work" "tests/fuzz/corpus/$t" > "build-fuzz/logs/$t.log" 2>&1
	echo "rc $?" >> "build-fuzz/logs/$t.log"
}

running=0
for t in "${targets[@]}"; do
	[ -x build-fuzz/fuzz/fuzz_"$t" ] || { echo "bench/fuzz.sh: no target '$t'" >&2; exit 2; }
	one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

printf '%-10s %8s %12s %8s %8s %8s %s\n' target seconds executions edges features corpus findings
bad=0
for t in "${targets[@]}"; do
	log=build-fuzz/logs/$t.log
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	time=$(sed -n 's/^stat::.*//; s/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
	last=$(grep -E '^#[0-9]+' "$log" | grep -E 'cov: ' | tail -1)
	edges=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	rc=$(sed -n 's/^rc //p' "$log")
	finding=$(grep -m1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)[^ ]*: [a-z-]+|SUMMARY: UndefinedBehaviorSanitizer.*|runtime error: .*' "$log" | head -1)
	[ "$rc" = 0 ] || bad=$((bad + 1))
	printf '%-10s %8s %12s %8s %8s %8s %s\n' "$t" "${time:-$secs}" "${execs:-?}" "${edges:-?}" \
		"${ft:-?}" "${corp:-?}" "$([ "$rc" = 0 ] && echo 0 || echo "1: ${finding:-rc $rc} (build-fuzz/logs/$t.log)")"
done
exit $((bad > 0))
