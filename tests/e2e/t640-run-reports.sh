#!/usr/bin/env bash
# jostle run's report features: --until confident:RATE (the planned-n rule),
# --matrix (exact, interleaved allocation; environment, JOSTLE_CELL, cpus=;
# the cell that fails more is marked), and report.md/report.html/summary.json
# written at the end (or not, with --no-report).
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky

"$JOSTLE" run -q -j 2 --until confident:5% -o c1 -- "$F" pass 2>err; rc=$?
check_eq "confident, clean: exit 0" "$rc" 0
check_eq "confident, clean: exactly the 59 runs that bound 5%" "$(json c1/runs.jsonl 'len(rows)')" 59
check_eq "confident, clean: the end line says so" "$(json c1/runs.jsonl '[o["stop"] for o in d if o["type"] == "end"]')" \
	"['confident: 0 of 59 failed, failure rate < 5.0% with 95% confidence']"
check_eq "confident, clean: summary.json proof" "$(json c1/summary.json 'd["proof"]')" \
	"0 of 59 runs failed: failure rate < 4.96% with 95% confidence"
check_eq "confident, clean: summary.json stop" "$(json c1/summary.json 'd["stop"]')" \
	"confident: 0 of 59 failed, failure rate < 5.0% with 95% confidence"
check "report.md written at the end" grep -q '^\*\*0 of 59 runs failed' c1/report.md
check "report.html written at the end" grep -q 'id="proof"' c1/report.html

"$JOSTLE" run -q -j 2 --until confident:0.05 -o c2 -- "$F" fail-every 10 2>err; rc=$?
check_eq "confident, failing: exit 1" "$rc" 1
check_eq "confident, failing: stopped at the failure" "$(json c2/summary.json 'd["stop"]')" \
	"a failure appeared before the bound was reached"
check_eq "confident, failing: run 9 failed" "$(json c2/runs.jsonl '[r["run"] for r in rows if r["outcome"] not in ("pass", "cut")]')" "[9]"

"$JOSTLE" run -q -j 2 -n 10 --until confident:5% -o c3 -- "$F" pass 2>err; rc=$?
check_eq "confident, -n too small: exit 0" "$rc" 0
check "confident, -n too small: warned" grep -q 'fewer than the 59 clean runs' err
check_eq "confident, -n too small: not confident" "$(json c3/summary.json 'd["stop"]')" \
	"all runs done before the bound reached 5.0% (10 of 59 clean runs)"

for bad in confident:2 confident:0 confident:abc confident:; do
	"$JOSTLE" run --until "$bad" -- "$F" pass 2>err; rc=$?
	check_eq "--until $bad: exit 2" "$rc" 2
	check "--until $bad: one line naming it" grep -q "^jostle: --until '$bad': the rate is not a fraction" err
done

"$JOSTLE" run -q -n 3 --no-report -o nr -- "$F" pass 2>/dev/null
check "--no-report: no report.md" test ! -e nr/report.md
check "--no-report: summary.json still written" test -s nr/summary.json

"$JOSTLE" run -q -j 2 -n 60 --matrix A=x,y --matrix B=1,2,3 -o m -- \
	sh -c 'echo "cell=$JOSTLE_CELL A=$A B=$B run=$JOSTLE_RUN"; test "$A$B" = y1 && exit 1; exit 0' 2>err; rc=$?
check_eq "matrix: exit 1 (a cell fails)" "$rc" 1
check_eq "matrix: 10 runs in each of 6 cells" "$(json m/runs.jsonl 'sorted(set((r["cell"], sum(1 for q in rows if q["cell"] == r["cell"])) for r in rows))')" \
	"[('A=x,B=1', 10), ('A=x,B=2', 10), ('A=x,B=3', 10), ('A=y,B=1', 10), ('A=y,B=2', 10), ('A=y,B=3', 10)]"
check_eq "matrix: interleaved, run i in cell i mod 6" \
	"$(json m/runs.jsonl 'all(r["cell"] == ["A=x,B=1","A=x,B=2","A=x,B=3","A=y,B=1","A=y,B=2","A=y,B=3"][r["run"] % 6] for r in rows)')" True
check_eq "matrix: the child saw its cell" "$(head -1 m/logs/3.log)" "cell=A=y,B=1 A=y B=1 run=3"
check_eq "matrix: the failing cell is marked" "$(json m/summary.json '[c["cell"] for c in d["cells"] if c["differs"]]')" "['A=y,B=1']"
check "matrix: the table is printed" grep -q '^A=y,B=1  *10  *10 .*FAILS MORE' err
check_eq "matrix: the axes are in the settings" "$(json m/runs.jsonl 'series[0]["settings"]["matrix"]')" \
	"[{'name': 'A', 'values': ['x', 'y']}, {'name': 'B', 'values': ['1', '2', '3']}]"

if [ "$(nproc)" -ge 2 ]; then   # (under a one-CPU arm of bench/selftest.sh: not)
	"$JOSTLE" run -q -j 2 -n 4 --matrix cpus=1,2 -o cp -- sh -c 'grep Cpus_allowed_list /proc/self/status; exit 1' 2>/dev/null
	check_eq "cpus=1: one CPU allowed" "$(grep -h Cpus_allowed_list cp/logs/0.log cp/logs/2.log | sort -u | awk '{print $2}' | grep -c '^[0-9]*$')" 1
	check_eq "cpus=N recorded as the run's config (a CPU list)" \
		"$(json cp/runs.jsonl 'sorted(set((r["cell"], r["config"]["cpus"].isdigit()) for r in rows))')" \
		"[('cpus=1', True), ('cpus=2', False)]"
else
	ok "# SKIP cpus=1,2 needs two CPUs"; ok "# SKIP cpus=1,2 needs two CPUs"
fi
taskset -c 0 "$JOSTLE" run -q -n 2 --matrix cpus=1,2 -o cp1 -- "$F" pass 2>err; rc=$?
check_eq "cpus=N past the CPUs jostle may use: exit 2" "$rc" 2
check "and it says how many there are" grep -q "^jostle: --matrix cpus=2: only 1 CPU is available to jostle; use at most cpus=1" err

"$JOSTLE" run --matrix X -- "$F" pass 2>err; rc=$?
check_eq "--matrix without values: exit 2" "$rc" 2
check_eq "--matrix without values: message" "$(cat err)" \
	"jostle: --matrix 'X' is not an axis; expected NAME=v1,v2,... with NAME a variable name or cpus"
"$JOSTLE" run --matrix cpus=0 -- "$F" pass 2>/dev/null; check_eq "--matrix cpus=0: exit 2" "$?" 2
