#!/usr/bin/env bash
# jostle run --shard (issue 17): shard K of N runs the indices i mod N == K of
# the series of its master seed; the merged shards are that series: the same
# (index, seed) pairs, counts, rates, intervals and bound. Shards come from
# the option, JOSTLE_SHARD, a Slurm array's variables or a Kubernetes Indexed
# Job's JOB_COMPLETION_INDEX (N local processes stand in for the Job).
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky
FACTS="/usr/bin/python3 $ROOT/tests/series_facts.py"
run() { timeout 120 "$JOSTLE" run -q -j 2 --seed 42 "$@"; }

run -n 100 -o "$TMP/one" -- "$F" fail-every 7 >/dev/null 2>&1
check_eq "one series: 100 runs, 14 failures" "$(json "$TMP/one/summary.json" '(d["runs"], d["failures"])')" "(100, 14)"

for k in 0 1 2 3; do
	run --shard "$k/4" -n 25 -o "$TMP/s$k" -- "$F" fail-every 7 >/dev/null 2>&1
done
check_eq "shard 1/4 ran the indices 1, 5, 9, ..." \
	"$(json "$TMP/s1/runs.jsonl" 'sorted(r["run"] for r in rows) == list(range(1, 100, 4))')" True
check_eq "the series line records the shard" \
	"$(json "$TMP/s2/runs.jsonl" 'series[0]["shard"]')" "{'index': 2, 'count': 4, 'from': 'option'}"
check_eq "a shard's runs have the seeds one series gives them" \
	"$(json "$TMP/s3/runs.jsonl" 'sorted((r["run"], r["seed"]) for r in rows)')" \
	"$(json "$TMP/one/runs.jsonl" 'sorted((r["run"], r["seed"]) for r in rows if r["run"] % 4 == 3)')"
check "a shard's report says to merge" grep -q "| shards | 1 of 4 (shard 2; jostle merge the 4 shards" "$TMP/s2/report.md"

out=$("$JOSTLE" merge "$TMP/s3" "$TMP/s1" "$TMP/s0" "$TMP/s2" -o "$TMP/all" 2>&1); rc=$?
check_eq "merge of 4 shards: exit 0" "$rc" 0
check "merge says all 4 shards are there" grep -qx "shards: 4 of 4" <<<"$out"
check_eq "merged: the same run set as one series" "$($FACTS runs "$TMP/all")" "$($FACTS runs "$TMP/one")"
check_eq "merged: the same counts, rates, intervals and bound as one series" \
	"$($FACTS summary "$TMP/all")" "$($FACTS summary "$TMP/one")"
check_eq "summary.json: shards" "$(json "$TMP/all/summary.json" 'd["shards"]')" \
	"{'count': 4, 'present': 4, 'missing': [], 'partial': []}"
check "report.md: shards" grep -q "| shards | 4 of 4 |" "$TMP/all/report.md"

# the replay of a merged run is the run of the series
"$JOSTLE" run -q -n 1 --replay "$TMP/all:13" -o "$TMP/rp" -- "$F" env >/dev/null 2>&1
want=$(json "$TMP/one/runs.jsonl" '[int(r["seed"], 16) for r in rows if r["run"] == 13][0]')
check "replay of merged run 13: JOSTLE_RUN and JOSTLE_SEED of run 13 of one series" \
	grep -q "^run=13 seed=$want " "$TMP/rp/logs/0.log"

# shards from the environment: N local processes, as an Indexed Job runs them
for k in 0 1 2 3; do
	JOB_COMPLETION_INDEX=$k run --shard auto/4 -n 25 -o "$TMP/k$k" -- "$F" fail-every 7 >/dev/null 2>&1 &
done
wait
"$JOSTLE" merge "$TMP"/k? -o "$TMP/kall" >/dev/null 2>&1
check_eq "JOB_COMPLETION_INDEX 0-3 with --shard auto/4: one series" "$($FACTS summary "$TMP/kall")" "$($FACTS summary "$TMP/one")"
check_eq "JOB_COMPLETION_INDEX: recorded as the source" "$(json "$TMP/k1/runs.jsonl" 'series[0]["shard"]["from"]')" JOB_COMPLETION_INDEX
SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_STEP=1 SLURM_ARRAY_TASK_COUNT=4 \
	run --shard auto -n 25 -o "$TMP/slurm2" -- "$F" fail-every 7 >/dev/null 2>&1
check_eq "a Slurm array task 3 of 1-4 is shard 2/4" "$($FACTS runs "$TMP/slurm2")" "$($FACTS runs "$TMP/s2")"
JOSTLE_SHARD=1/4 run -n 1 -o "$TMP/nest" -- env >/dev/null 2>&1
check "the runs see JOSTLE_RUN but not JOSTLE_SHARD" sh -c "grep -q '^JOSTLE_RUN=1\$' '$TMP/nest/logs/1.log' && ! grep -q JOSTLE_SHARD '$TMP/nest/logs/1.log'"

# --until is per shard: shard 3 of fail-every 4 fails at once, shard 0 never
# (-j 1: no second run in flight when shard 3 stops, to be recorded as cut)
for k in 0 3; do
	run -j 1 --shard "$k/4" -n 10 --until first-failure -o "$TMP/u$k" -- "$F" fail-every 4 >/dev/null 2>&1
done
check_eq "--until first-failure stops shard 3 at its first failure" "$($FACTS count "$TMP/u3")" 1
check_eq "--until first-failure leaves shard 0 running" "$($FACTS count "$TMP/u0")" 10
# --until confident:RATE: each shard plans its share of the runs, the merge proves the bound
run --until confident:0.05 -o "$TMP/c" -- "$F" pass >/dev/null 2>&1
for k in 0 1 2 3; do
	run --shard "$k/4" --until confident:0.05 -o "$TMP/c$k" -- "$F" pass >/dev/null 2>&1
done
"$JOSTLE" merge "$TMP"/c? -o "$TMP/call" >/dev/null 2>&1
check_eq "--until confident: the shards' shares add up to the series, with its bound" \
	"$($FACTS summary "$TMP/call")" "$($FACTS summary "$TMP/c")"

# bad shards: one line, exit 2, nothing run
err() { "$JOSTLE" run -q -n 1 -o "$TMP/bad" "$@" -- "$F" pass 2>&1 >/dev/null; echo "rc=$?"; }
o=$(err --shard 1/4); check "--shard without --seed: exit 2, says why" grep -q "needs --seed S.*rc=2" <<<"$(echo $o)"
o=$(err --shard 4/4 --seed 1); check "--shard 4/4: exit 2" grep -q "shard 4 of 4 does not exist.*rc=2" <<<"$(echo $o)"
o=$(err --shard 1 --seed 1); check "--shard 1: exit 2" grep -q "expected K/N.*rc=2" <<<"$(echo $o)"
o=$(err --shard auto --seed 1); check "--shard auto without an environment: exit 2" grep -q "no shard in the environment.*rc=2" <<<"$(echo $o)"
o=$(JOB_COMPLETION_INDEX=1 err --shard auto --seed 1); check "JOB_COMPLETION_INDEX without N: exit 2" grep -q "auto/N.*rc=2" <<<"$(echo $o)"
o=$(err --shard 0/2 --seed 1 --replay "$TMP/all:13"); check "--shard with --replay: exit 2" grep -q "cannot be combined.*rc=2" <<<"$(echo $o)"
check "no results of refused runs" test ! -e "$TMP/bad/runs.jsonl"
