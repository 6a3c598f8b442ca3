#!/usr/bin/env bash
# bench/shards.sh [TOTAL] [MERGE_RUNS]: shards are one series (issue 17).
#
# 1. One series of TOTAL runs (default 2000) of the flaky fixture in its
#    seed-driven mode (fails when the run's seed % 13 is 0 or 1: two
#    signatures), against 4 shards of TOTAL/4 runs each with the same master
#    seed, run one after the other here and merged: the run sets (index,
#    seed, outcome, signature) and the summaries (counts, rates, intervals,
#    bound, per signature) must be identical.
# 2. `jostle merge` of 4 shards of MERGE_RUNS runs in all (default 100000,
#    written by tests/gen_runs.py --shard: 1.2% failing over 3 signatures,
#    one log per failure), 5 times: wall, user and sys seconds, peak RSS.
#    Each attempt writes a new directory and they are removed only at the
#    end: removing one just before the next merge made ext4 scan its freed
#    inodes at every file the merge created (perf: 29% of a merge's time in
#    recently_deleted()), a cost of the benchmark's loop, not of a merge;
#    and the input is synced first, so its writeback does not run during them.
# Prints tables; exit 1 when the sets differ.
set -eu
cd "$(dirname "$0")/.."
TOTAL=${1:-2000}
MERGE_RUNS=${2:-100000}
J=${JOSTLE:-build/jostle}
F=${FIX:-build/fixtures}/flaky
FACTS="/usr/bin/python3 tests/series_facts.py"
D=$(mktemp -d "${TMPDIR:-/tmp}/jostle-shards.XXXXXX")
trap 'rm -rf "$D"' EXIT
SEED=0x5eed
per=$((TOTAL / 4))
TOTAL=$((per * 4))

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo
echo "### one series of $TOTAL runs vs 4 shards of $per (flaky fail-seed 13, seed $SEED, -j 2)"
echo
t0=$(date +%s.%N)
"$J" run -q -j 2 --seed "$SEED" -n "$TOTAL" -o "$D/one" -- "$F" fail-seed 13 >/dev/null 2>&1 || [ $? -eq 1 ]
t1=$(date +%s.%N)
for k in 0 1 2 3; do
	"$J" run -q -j 2 --seed "$SEED" --shard "$k/4" -n "$per" -o "$D/s$k" -- "$F" fail-seed 13 >/dev/null 2>&1 || [ $? -eq 1 ]
done
t2=$(date +%s.%N)
"$J" merge "$D"/s? -o "$D/all" > "$D/merge.out"
t3=$(date +%s.%N)
row() { # NAME DIR SECONDS
	local stats
	stats=$(/usr/bin/python3 -c "import json; d = json.load(open('$2/summary.json')); print('%d | %d | %d | %s' % (d['runs'], d['failures'], len(d['signatures']), d['proof']))")
	printf '| %s | %s | %s | %.1f |\n' "$1" "$stats" "$($FACTS runs "$2" | sha256sum | cut -c1-12)" "$3"
}
printf '| series | runs | failures | signatures | statement | run set (sha256 of index, seed, outcome, signature) | wall s |\n'
printf '| --- | ---: | ---: | ---: | --- | --- | ---: |\n'
row "one series" "$D/one" "$(echo "$t1 - $t0" | bc -l)"
row "4 shards, merged" "$D/all" "$(echo "$t3 - $t1" | bc -l)"
same=1
if [ "$($FACTS runs "$D/one")" = "$($FACTS runs "$D/all")" ]; then echo; echo "run sets: identical ($TOTAL runs)"
else echo; echo "run sets: DIFFERENT"; same=0; fi
if [ "$($FACTS summary "$D/one")" = "$($FACTS summary "$D/all")" ]; then echo "summaries (counts, rates, intervals, bound, signatures): identical"
else echo "summaries: DIFFERENT"; diff <($FACTS summary "$D/one") <($FACTS summary "$D/all") || true; same=0; fi
echo "merge: $(tail -1 "$D/merge.out")"

echo
echo "### jostle merge of 4 shards, $MERGE_RUNS runs in all (5 times)"
echo
q=$((MERGE_RUNS / 4))
for k in 0 1 2 3; do
	/usr/bin/python3 tests/gen_runs.py "$D/g$k" --runs "$q" --shard "$k/4" --series "$(printf '%016x' $((k + 1)))" \
		--sig aaaa0001:fail:$((q / 100)) --sig bbbb0002:fail:$((q / 500)) --sig cccc0003:hang:$((q / 5000 + 1))
done
sync   # the generator's writes reach the disk now, not during the merges
echo "input: $(cat "$D"/g?/runs.jsonl | wc -l) lines, $(du -cm "$D"/g?/runs.jsonl | tail -1 | cut -f1) MB of runs.jsonl, $(ls "$D"/g?/logs | wc -l) logs"
printf '\n| attempt | wall s | user s | sys s | peak RSS MiB |\n| ---: | ---: | ---: | ---: | ---: |\n'
walls=()
for i in 1 2 3 4 5; do
	/usr/bin/time -f '%e %U %S %M' -o "$D/time" "$J" merge "$D"/g? -o "$D/m$i" > /dev/null
	read -r e u s m < "$D/time"
	walls+=("$e")
	printf '| %d | %s | %s | %s | %.1f |\n' "$i" "$e" "$u" "$s" "$(echo "$m / 1024" | bc -l)"
done
echo
echo "median wall: $(printf '%s\n' "${walls[@]}" | sort -n | sed -n 3p) s; $(grep -c '"type":"run"' "$D/m5/runs.jsonl") runs merged; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$same" = 1 ]
