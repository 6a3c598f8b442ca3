#!/usr/bin/env bash
# bench/bisect.sh: jostle bisect on a throwaway history with a real race.
#
# Builds, per trial, a git history of COMMITS commits of a small C program
# (two threads incrementing a counter, under a mutex) in which one commit,
# at a position that varies with the trial, introduces a failure:
#   MODE=seed  (default) fails 2% of runs: the lost update is decided by
#              JOSTLE_SEED (seed % 50 == 0), an exact Bernoulli rate that the
#              load of the machine cannot move, so trials compare
#   MODE=raise fails 1% of runs from the start (seed % 100 == 0) and 5% from
#              the culprit on (seed % 20 == 0): a commit that makes a flake worse
#   MODE=race  the culprit drops the mutex: a real lost update; how often it
#              fails depends on ITERS and on the machine (0.3% to 4% measured on
#              the shared 2-CPU VM with ITERS 3e5 to 1e6)
# Runs TRIALS bisections with different seeds and prints one
# line per trial and a summary: right culprit count, median and mean total
# runs, and the runs a fixed-n binary search needs for the same confidence:
# log2(COMMITS) steps of n runs, n = stats_runs_for_confidence(rate, alpha)
# (src/results/stats.c) with the bad rate measured here and alpha the
# per-step share of 1 - CONFIDENCE (1 - CONFIDENCE^(1/steps)).
#
#   TRIALS=20 COMMITS=64 MODE=seed CONFIDENCE=0.95 EXTRA='' bash bench/bisect.sh
#   EXTRA='--chaos auto' ...   every commit under the configuration auto learns
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
J=${JOSTLE:-$ROOT/build/jostle}
TRIALS=${TRIALS:-20} COMMITS=${COMMITS:-64} ITERS=${ITERS:-500000} CONFIDENCE=${CONFIDENCE:-0.95}
MODE=${MODE:-seed}
[ "$MODE" = race ] || ITERS=${ITERS_SEEDED:-1000}
EXTRA=${EXTRA:-} JOBS=${JOBS:-2}
W=$(mktemp -d "${TMPDIR:-/tmp}/jostle-bisect-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cc -O2 -iquote src -o "$W/bisect_n" bench/bisect_n.c src/results/stats.c -lm || exit 1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

program() { # LOCKED(0/1) VERSION
	local racy=0 before=0 after=0
	case $MODE in
	race) [ "$1" = 0 ] && racy=1 ;;
	seed) [ "$1" = 0 ] && after=50 ;;
	raise) before=100; [ "$1" = 0 ] && after=20 ;;
	esac
	cat <<C
/* counter: two threads, ITERS increments each (version $2) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static volatile long counter;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *worker(void *a)
{
	(void)a;
	for (long i = 0; i < $ITERS; i++) {
		if (!$racy) pthread_mutex_lock(&mu);
		long v = counter;
		counter = v + 1;
		if (!$racy) pthread_mutex_unlock(&mu);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[2];
	const char *s = getenv("JOSTLE_SEED");
	unsigned long long seed = s ? strtoull(s, NULL, 10) : 1;
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (($after && seed % $after == 0) || ($before && seed % $before == 0))
		counter--;   /* the seeded lost update */
	if (counter != 2L * $ITERS) {
		fprintf(stderr, "error: lost update: counter %ld, expected %ld\n", counter, 2L * $ITERS);
		return 1;
	}
	return 0;
}
C
}

printf "%5s %8s %8s %6s %7s %6s  %s\n" trial culprit found right runs secs verdict
right=0; all_runs=(); bad_runs=0; bad_fails=0
for t in $(seq 1 "$TRIALS"); do
	R=$W/repo$t
	k=$(( (t * 37 + 11) % COMMITS + 1 ))   # the culprit: 1..COMMITS, spread over the trials
	mkdir -p "$R" && git -C "$R" init -q
	program 1 0 > "$R/counter.c"
	git -C "$R" add . && git -C "$R" commit -qm "c0"
	for i in $(seq 1 "$COMMITS"); do
		locked=1; [ "$i" -ge "$k" ] && locked=0
		program $locked "$i" > "$R/counter.c"
		git -C "$R" commit -qam "c$i"
	done
	want=$(git -C "$R" rev-parse "HEAD~$((COMMITS - k))")
	start=$(date +%s.%N)
	(cd "$R" && "$J" bisect -q --good "HEAD~$COMMITS" --bad HEAD --build 'cc -O1 -o counter counter.c -lpthread' \
		-j "$JOBS" --seed "$t" --confidence "$CONFIDENCE" $EXTRA -o "$W/out$t" -- ./counter) > "$W/out$t.txt" 2>&1
	rc=$?
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	read -r got runs verdict kb kf <<<"$(/usr/bin/python3 - "$W/out$t/bisect.json" "$k" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); k = int(sys.argv[2])
c = d.get("culprit") or {}
after = [x for x in d["commits"] if x["i"] >= k and x.get("tested")]
print(c.get("hash", "-"), d["runs"], d["state"].replace(" ", "_"),
      sum(x["runs"] for x in after), sum(x["fails"] for x in after))
PY
)"
	ok=0; [ "$got" = "$want" ] && ok=1 && right=$((right + 1))
	all_runs+=("$runs"); bad_runs=$((bad_runs + kb)); bad_fails=$((bad_fails + kf))
	printf "%5d %8d %8s %6d %7d %6.0f  %s (exit %d)\n" "$t" "$k" "${got:0:8}" "$ok" "$runs" "$secs" "$verdict" "$rc"
done
median=$(printf '%s\n' "${all_runs[@]}" | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
mean=$(printf '%s\n' "${all_runs[@]}" | awk '{s+=$1} END {printf "%.0f", s/NR}')
rate=$(echo "scale=6; $bad_fails / $bad_runs" | bc)
steps=$(/usr/bin/python3 -c "import math; print(math.ceil(math.log2($COMMITS)))")
alpha=$(/usr/bin/python3 -c "print(1 - $CONFIDENCE ** (1 / $steps))")
n=$("$W/bisect_n" "$rate" "$alpha")
fixed=$((n * steps))
echo
echo "right culprit: $right of $TRIALS"
echo "total runs per bisection: median $median, mean $mean"
echo "bad rate measured (runs at or after the culprit): $bad_fails of $bad_runs = $rate"
echo "fixed-n binary search: $steps steps x n = $n (stats_runs_for_confidence($rate, $alpha)) = $fixed runs"
/usr/bin/python3 -c "print('ratio (fixed-n / median): %.2f' % ($fixed / $median))"
