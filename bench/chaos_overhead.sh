#!/usr/bin/env bash
# bench/chaos_overhead.sh [BUILD]: the cost of libjostle-chaos.so on a
# lock-heavy loop. The fixture mutex_ops does ITERS uncontended mutex
# lock/unlock pairs in one thread (plus a few rwlock/cond/sem calls); we time
# it without the library, with it at probability 0 (interposition and
# counting only), and at the library's default probability (0.05, delays up
# to 100 us) and jostle's chaos levels. Prints a table: ns per lock/unlock pair.
#
#   ITERS=10000000 CHAOS_ITERS=200000 bash bench/chaos_overhead.sh build
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
ITERS=${ITERS:-10000000}
CHAOS_ITERS=${CHAOS_ITERS:-200000}
REPS=${REPS:-3}
LIB=$PWD/$B/libjostle-chaos.so
FIX=$PWD/$B/fixtures/mutex_ops
[ -x "$FIX" ] && [ -f "$LIB" ] || { echo "build first: make" >&2; exit 2; }

# best of REPS wall times, in ns per iteration
measure() { # ITERS ENV...
	local iters=$1; shift
	local best=
	for _ in $(seq "$REPS"); do
		local t0 t1
		t0=$(date +%s%N)
		env "$@" "$FIX" "$iters" 1 >/dev/null
		t1=$(date +%s%N)
		local ns=$(( (t1 - t0) / iters ))
		if [ -z "$best" ] || [ "$ns" -lt "$best" ]; then best=$ns; fi
	done
	echo "$best"
}

printf '%-34s %10s %14s\n' "configuration" "iters" "ns/lock+unlock"
base=$(measure "$ITERS" JOSTLE_UNUSED=1)
printf '%-34s %10s %14s\n' "no preload" "$ITERS" "$base"
p0=$(measure "$ITERS" LD_PRELOAD="$LIB" JOSTLE_CHAOS_PROB=0)
printf '%-34s %10s %14s\n' "preload, prob 0 (count only)" "$ITERS" "$p0"
pd=$(measure "$CHAOS_ITERS" LD_PRELOAD="$LIB")
printf '%-34s %10s %14s\n' "preload, default (0.05, 100us)" "$CHAOS_ITERS" "$pd"
for lv in "0.01 50 level-0" "0.05 200 level-1" "0.1 1000 level-2"; do
	set -- $lv
	v=$(measure "$CHAOS_ITERS" LD_PRELOAD="$LIB" JOSTLE_CHAOS_PROB="$1" JOSTLE_CHAOS_MAX_US="$2")
	printf '%-34s %10s %14s\n' "preload, $3 ($1, ${2}us)" "$CHAOS_ITERS" "$v"
done
