#!/usr/bin/env bash
# Runs in no rate (issue 43 items 4 and 6): a command that exits 77 skipped
# itself (not a failure, in no rate, shown in every table); a series that
# counted nothing says why in its closing lines, never nothing; the
# per-configuration table names "CPUs via" only when CPUs were restricted; a
# child's native thread that aborts gives its own frames, and is called a crash.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky
lacks() { ! grep -Eq -- "$1" "$2"; }   # lacks REGEX FILE

# --- exit 77: skipped ---
"$JOSTLE" run -n 4 -j 2 -o "$TMP/skip" -- sh -c 'echo "no GPU driver: skipping"; exit 77' > /dev/null 2> "$TMP/skip.err"
check_eq "exit 77: jostle exits 0 (no failure)" "$?" 0
check_eq "exit 77: every record says skip" "$(json "$TMP/skip/runs.jsonl" '[r["outcome"] for r in rows]')" \
	"['skip', 'skip', 'skip', 'skip']"
check_eq "exit 77: no signature" "$(json "$TMP/skip/runs.jsonl" '[r.get("sig_id") for r in rows]')" \
	"[None, None, None, None]"
check_eq "exit 77: summary.json counts them apart" \
	"$(json "$TMP/skip/summary.json" '(d["skip"], d["runs"], d["failures"])')" "(4, 0, 0)"
check "exit 77: the closing line counts them" grep -q "0 failed, 4 skipped (exit status 77: not counted)" "$TMP/skip.err"
check "exit 77: the verdict says every run skipped" grep -q "verdict: not tested: every run skipped itself" "$TMP/skip.err"
check "exit 77: never 'fails 100%'" lacks "100" "$TMP/skip.err"
"$JOSTLE" report "$TMP/skip" --format junit -o "$TMP/skip.xml" > /dev/null 2>&1
check "exit 77: JUnit says skipped" grep -q "<skipped message=\"not tested: all 4 runs skipped themselves" "$TMP/skip.xml"
check "exit 77: JUnit has no failure" lacks "<failure" "$TMP/skip.xml"
check "exit 77: report.md says not tested" grep -q "not tested: all 4 runs skipped themselves" "$TMP/skip/report.md"
# one in three skips: the rate is over the others
"$JOSTLE" run -q -n 6 -o "$TMP/some" -- sh -c 'case $JOSTLE_RUN in 0|3) exit 77;; 1) exit 1;; esac; exit 0' > /dev/null 2>&1
check_eq "some skip: rate over the counted runs" \
	"$(json "$TMP/some/summary.json" '(d["skip"], d["runs"], d["failures"], round(d["rate"], 3))')" "(2, 4, 1, 0.25)"

# --- every run outlasted --timeout: said, with what they were doing ---
"$JOSTLE" run -n 2 -j 1 --timeout 1s -o "$TMP/late" -- "$FIX/busy" compile 4 > /dev/null 2> "$TMP/late.err"
check "outlasted: said in the closing lines" grep -Eq "every run ended late: 2 of 2 runs outlasted --timeout 1s: [0-9]+ progressing, [0-9]+ spinning, [0-9]+ stuck" "$TMP/late.err"
check "outlasted: a verdict that names --timeout" grep -Eq "^  verdict: .*raise --timeout" "$TMP/late.err"
check_eq "outlasted: summary.json counts them" "$(json "$TMP/late/summary.json" 'd["outlasted"]')" 2

# --- every run cut by --time before its timeout ---
"$JOSTLE" run -j 2 --time 1s --timeout 60s -o "$TMP/cut" -- sh -c 'sleep 30' > /dev/null 2> "$TMP/cut.err"
check "all cut: the closing lines say so" grep -q "verdict: not tested: every run was still going when the series ended (--time 1s); raise --time" "$TMP/cut.err"
check_eq "all cut: summary.json proof says not tested" "$(json "$TMP/cut/summary.json" 'd["proof"].startswith("not tested: no run passed or failed")')" True

# --- CPUs via: only when runs' CPUs were restricted ---
"$JOSTLE" run -q -n 2 --chaos sync -o "$TMP/sync" -- "$F" pass > /dev/null 2> "$TMP/sync.err"
check "no CPU restriction: a table" grep -q "failure rate per configuration (fixed)" "$TMP/sync.err"
check "no CPU restriction: no 'CPUs via'" lacks "CPUs via" "$TMP/sync.err"
JOSTLE_CGROUP=off "$JOSTLE" run -q -n 2 --cpus 1 -o "$TMP/c1" -- "$F" pass > /dev/null 2> "$TMP/c1.err"
check "--cpus 1: 'CPUs via affinity'" grep -q "failure rate per configuration (fixed; CPUs via affinity)" "$TMP/c1.err"
check "the table has slow and cut columns" grep -Eq "^  config +runs +fails +slow +cut +rate" "$TMP/c1.err"

# --- each run's share of the machine (run/share.h): the per-arm fails/min divides by it ---
"$JOSTLE" run -q -n 3 -j 1 -o "$TMP/one" -- "$F" pass > /dev/null 2>&1
check_eq "-j 1: a run's share is its wall time" \
	"$(json "$TMP/one/runs.jsonl" 'all(abs(r["machine_s"] - r["wall_s"]) < 1e-6 for r in rows)')" True
"$JOSTLE" run -q -n 6 -j 3 -o "$TMP/three" -- sh -c 'sleep 0.$((JOSTLE_RUN % 3 + 1))' > /dev/null 2>&1
check_eq "-j 3: no share above its wall time, the first three runs' (started together) below it, all adding up to no more than the series' time" \
	"$(json "$TMP/three/runs.jsonl" 'all(0 < r["machine_s"] <= r["wall_s"] + 1e-6 for r in rows) and all(r["machine_s"] < 0.9 * r["wall_s"] for r in rows if r["run"] < 3) and sum(r["machine_s"] for r in rows) <= max(r["t"] + r["wall_s"] for r in rows) + 1e-6')" True
check_eq "summary.json: each arm's machine_s is its runs' shares" \
	"$(json "$TMP/c1/summary.json" '[a["machine_s"] > 0 for a in d["arms"]]')" "[True]"

# --- a child's native thread aborts (issue 43 item 6): its own frames, a crash ---
"$JOSTLE" run -q -n 2 -o "$TMP/na" -- "$FIX/crash" native-abort > /dev/null 2>&1
check_eq "native abort in a child: the aborting thread's frames, not the listed Python threads'" \
	"$(json "$TMP/na/runs.jsonl" '[r["frames"][:2] for r in rows]')" \
	"[['abort_in_native_thread', 'native_thread'], ['abort_in_native_thread', 'native_thread']]"
check "native abort: report.md calls it a crash" grep -q '^Crash: `python-fatal (report of Python)`' "$TMP/na/report.md"
check "native abort: not 'Hang: diagnosed'" lacks '^Hang: ' "$TMP/na/report.md"
