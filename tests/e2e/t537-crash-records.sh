#!/usr/bin/env bash
# jostle run: crash records sampled once a crash repeats (src/run/recsample.h).
# (A failed assert: SIGABRT, which ASan leaves to us, so that the ASan
# build's run crashes by the signal too.) -j 1 makes the count exact: each run starts after the one before ended.
# Runs 0-31 keep their records (32 runs to look back at); then, a quarter of
# them or more crashed and every crash known by 16 records of one signature,
# one run in eight keeps its record (39, 47) and the others take that
# signature. Two sites with the same bare
# key ("killed by SEGV", no output) are never sampled; --all-crash-records
# keeps every record.
. "$(dirname "$0")/../lib.sh"

runs() { json "$1/runs.jsonl" "$2"; }
asan=false
[ "$(basename "$BUILD")" = build-asan ] && asan=true

"$JOSTLE" run -q -n 48 -j 1 -o "$TMP/same" -- "$FIX/crash" assert > /dev/null 2>&1
check_eq "one site: exit 1" "$?" 1
check_eq "one site: runs 32-38 and 40-46 go without a record" \
	"$(runs "$TMP/same" '[r["run"] for r in rows if r.get("crash_record") is False]')" \
	"[32, 33, 34, 35, 36, 37, 38, 40, 41, 42, 43, 44, 45, 46]"
check_eq "one site: every run is the same signature" "$(runs "$TMP/same" 'len({r["sig_id"] for r in rows})')" 1
check_eq "one site: with the first record's frames" \
	"$(runs "$TMP/same" 'all(r["frames"] == rows[0]["frames"] and r["frames_from"] == 0 for r in rows if r.get("crash_record") is False)')" True
check_eq "one site: the end record counts them" \
	"$(runs "$TMP/same" '[(o.get("runs_without_crash_record"), o.get("crashes_signed_from_records")) for o in d if o["type"] == "end"]')" \
	"[(14, 14)]"
check_eq "one site: frames from the records" "$(runs "$TMP/same" '"check_invariant" in rows[40]["frames"]')" True
check_eq "one site: 34 records written" "$(ls "$TMP/same/crashes" | grep -c '\.txt$')" 34
check_eq "one site: the report counts the runs" "$(json "$TMP/same/summary.json" 'd["runs"]')" 48

# two crash sites, one bare key: every run keeps its record
"$JOSTLE" run -q -n 48 -j 1 -o "$TMP/two" -- sh -c 'if [ $((JOSTLE_RUN % 2)) = 0 ]; then exec "$0" segv; else exec "$0" segv-other; fi' "$FIX/crash" > /dev/null 2>&1
check_eq "two sites: no run without a record" "$(runs "$TMP/two" 'sum(1 for r in rows if r.get("crash_record") is False)')" 0
$asan || check_eq "two sites: two signatures" "$(runs "$TMP/two" 'len({r["sig_id"] for r in rows})')" 2

"$JOSTLE" run -q -n 48 -j 1 --all-crash-records -o "$TMP/all" -- "$FIX/crash" assert > /dev/null 2>&1
check_eq "--all-crash-records: every run keeps its record" "$(runs "$TMP/all" 'sum(1 for r in rows if r.get("crash_record") is False)')" 0
check_eq "--all-crash-records: 48 records" "$(ls "$TMP/all/crashes" | grep -c '\.txt$')" 48

# passes among the crashes: one run in five crashes (at most 7 of any 32), never sampled
"$JOSTLE" run -q -n 48 -j 1 -o "$TMP/some" -- "$FIX/crash" on "$(seq -s, 0 5 45)" assert > /dev/null 2>&1
check_eq "passes among them: 10 crashes" "$(runs "$TMP/some" 'sum(1 for r in rows if r["outcome"] == "crash")')" 10
check_eq "passes among them: every run keeps its record" \
	"$(runs "$TMP/some" 'sum(1 for r in rows if r.get("crash_record") is False)')" 0
# half the runs crash (a quarter is enough): sampled as where every run crashes
"$JOSTLE" run -q -n 48 -j 1 -o "$TMP/half" -- "$FIX/crash" on "$(seq -s, 0 2 46)" assert > /dev/null 2>&1
check_eq "half crash: runs 32-38 and 40-46 start without a record" \
	"$(runs "$TMP/half" '[r["run"] for r in rows if r.get("crash_record") is False]')" \
	"[32, 33, 34, 35, 36, 37, 38, 40, 41, 42, 43, 44, 45, 46]"
check_eq "half crash: one signature, the recorded frames" \
	"$(runs "$TMP/half" 'len({r["sig_id"] for r in rows if r["outcome"] == "crash"}) == 1 and all(r["frames"] == rows[0]["frames"] for r in rows if r["outcome"] == "crash")')" True
