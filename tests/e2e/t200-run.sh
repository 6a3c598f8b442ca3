#!/usr/bin/env bash
# jostle run: outcomes, counts, stopping rules, records, environment.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky

# Failures every 7th run: exact counts, one signature, logs.
"$JOSTLE" run -q -n 21 -j 3 -o "$TMP/a" -- "$F" fail-every 7 2>"$TMP/a.err"
check_eq "fail-every: exit 1 when runs failed" "$?" 1
check_eq "fail-every: 21 runs in summary" "$(json "$TMP/a/summary.json" 'd["runs"]')" 21
check_eq "fail-every: 3 failures" "$(json "$TMP/a/summary.json" 'd["failures"]')" 3
check_eq "fail-every: one signature of 3" "$(json "$TMP/a/summary.json" '[s["count"] for s in d["signatures"]]')" "[3]"
check_eq "fail-every: signature key normalized" "$(json "$TMP/a/summary.json" 'd["signatures"][0]["key"]')" "AssertionError: value was N at 0x<hex>"
check_eq "fail-every: 21 run records" "$(json "$TMP/a/runs.jsonl" 'len(rows)')" 21
check_eq "fail-every: one series line first" "$(json "$TMP/a/runs.jsonl" 'd[0]["type"]')" series
check_eq "fail-every: failing run indices" "$(json "$TMP/a/runs.jsonl" 'sorted(r["run"] for r in rows if r["outcome"]=="fail")')" "[6, 13, 20]"
check_eq "fail-every: exit code recorded" "$(json "$TMP/a/runs.jsonl" 'sorted(set(r["exit"] for r in rows if r["outcome"]=="fail"))')" "[1]"
check "fail-every: logs of failing runs" test -s "$TMP/a/logs/6.log" -a -s "$TMP/a/logs/13.log" -a -s "$TMP/a/logs/20.log"
check_eq "fail-every: one passing log" "$(ls "$TMP/a/logs" | wc -l)" 4
check "fail-every: log holds the output" grep -q "AssertionError: value was 42" "$TMP/a/logs/6.log"
check "fail-every: summary printed with rate" grep -q "14.3%" "$TMP/a.err"
check_eq "fail-every: run seeds distinct" "$(json "$TMP/a/runs.jsonl" 'len(set(r["seed"] for r in rows))')" 21

# Crash and hang.
"$JOSTLE" run -q -n 6 -j 2 -o "$TMP/c" -- "$F" crash-on 2 ABRT 2>/dev/null
check_eq "crash: exit 1" "$?" 1
check_eq "crash: run 2 crashed with SIGABRT" "$(json "$TMP/c/runs.jsonl" '[(r["run"], r["signal"]) for r in rows if r["outcome"]=="crash"]')" "[(2, 'SIGABRT')]"
check_eq "crash: exit is null" "$(json "$TMP/c/runs.jsonl" '[r["exit"] for r in rows if r["outcome"]=="crash"]')" "[None]"
# Only the hanging run may reach the timeout: a loaded machine (ASan, CI)
# can make any run slow, so the passing runs get no deadline race.
"$JOSTLE" run -q -n 1 --timeout 300ms --grace 100ms -o "$TMP/h" -- "$F" hang-on 0 2>/dev/null
check_eq "hang: exit 1" "$?" 1
check_eq "hang: run 0 is a hang" "$(json "$TMP/h/runs.jsonl" '[r["run"] for r in rows if r["outcome"]=="hang"]')" "[0]"
check "hang: wall time at least the timeout" test "$(json "$TMP/h/runs.jsonl" '[r["wall_s"] >= 0.3 for r in rows if r["outcome"]=="hang"][0]')" = True
check "hang: its output is kept" grep -q "run 0 hangs" "$TMP/h/logs/0.log"

# Stopping rules (-j 1 so the count is exact).
"$JOSTLE" run -q -n 100 -j 1 --until first-failure -o "$TMP/u1" -- "$F" fail-every 5 2>/dev/null
check_eq "until first-failure: stops after run 4" "$(json "$TMP/u1/summary.json" '(d["runs"], d["failures"], d["stop"])')" "(5, 1, 'first failure')"
"$JOSTLE" run -q -n 100 -j 1 --until failures:2 -o "$TMP/u2" -- "$F" fail-every 3 2>/dev/null
check_eq "until failures:2: 6 runs" "$(json "$TMP/u2/summary.json" '(d["runs"], d["failures"])')" "(6, 2)"
"$JOSTLE" run -q --time 2s -j 2 -o "$TMP/t" -- "$F" pass 2>/dev/null
check_eq "time budget: stops and says so" "$(json "$TMP/t/summary.json" 'd["stop"]')" "time budget spent"
check "time budget: ran some runs" test "$(json "$TMP/t/summary.json" 'd["runs"] > 0')" = True

# What counts as failure.
"$JOSTLE" run -q -n 4 -j 2 --fail-on 'LEAK DETECTED' -o "$TMP/fo" -- "$F" fail-text 2 "LEAK DETECTED: 3 blocks" 2>/dev/null
check_eq "fail-on: run 2 fails although it exits 0" "$(json "$TMP/fo/runs.jsonl" '[(r["run"], r["exit"]) for r in rows if r["outcome"]=="fail"]')" "[(2, 0)]"
"$JOSTLE" run -q -n 6 -j 2 --ignore 'AssertionError' -o "$TMP/ig" -- "$F" fail-every 2 2>"$TMP/ig.err"
check_eq "ignore: exit 0 when every failure is ignored" "$?" 0
check "ignore: ignored runs are left out of the bound" grep -q "0 of 3 failed: failure rate < 63.2%" "$TMP/ig.err"
check_eq "ignore: 3 ignored, 0 failures" "$(json "$TMP/ig/summary.json" '(d["ignored"], d["failures"])')" "(3, 0)"
"$JOSTLE" run -q -n 6 -j 2 -o "$TMP/s1" -- "$F" two-errors 3 2>/dev/null
check_eq "signatures: two distinct errors give two signatures" "$(json "$TMP/s1/summary.json" 'sorted(s["count"] for s in d["signatures"])')" "[3, 3]"
"$JOSTLE" run -q -n 6 -j 2 --signature '(Error)' -o "$TMP/s2" -- "$F" two-errors 3 2>/dev/null
check_eq "--signature: one user-defined key" "$(json "$TMP/s2/summary.json" '[(s["count"], s["key"]) for s in d["signatures"]]')" "[(6, 'Error')]"

# Environment and seeds.
"$JOSTLE" run -q -n 3 -j 1 --seed 42 -o "$TMP/e1" -- "$F" env 2>/dev/null
"$JOSTLE" run -q -n 3 -j 3 --seed 42 -o "$TMP/e2" -- "$F" env 2>/dev/null
check "env: JOSTLE_RUN, JOSTLE_OUT and empty stdin" grep -q "run=0 seed=[0-9]* out=$TMP/e1 stdin=empty" "$TMP/e1/logs/0.log"
check_eq "seeds: same master seed, same run seeds" "$(json "$TMP/e1/runs.jsonl" 'sorted((r["run"], r["seed"]) for r in rows)')" "$(json "$TMP/e2/runs.jsonl" 'sorted((r["run"], r["seed"]) for r in rows)')"
check_eq "seeds: master seed recorded" "$(json "$TMP/e1/runs.jsonl" 'series[0]["seed"]')" "0x000000000000002a"
check "seeds: JOSTLE_SEED is the recorded seed" grep -q "seed=$(json "$TMP/e1/runs.jsonl" 'int([r for r in rows if r["run"]==0][0]["seed"], 16)') " "$TMP/e1/logs/0.log"

# Default results directory under ./jostle-out.
(cd "$TMP" && "$JOSTLE" run -n 1 -- "$F" pass 2>"$TMP/d.err")
check "default out: jostle-out/<stamp>/ created" test -s "$(ls -d "$TMP"/jostle-out/*/ | head -1)runs.jsonl"
check "default out: printed at start" grep -q "results in $TMP/jostle-out/" "$TMP/d.err"
