#!/usr/bin/env bash
# --replay DIR:RUN repeats one recorded run's configuration, seed and
# JOSTLE_RUN exactly; bad references are clear errors.
. "$(dirname "$0")/../lib.sh"
F=$FIX/cpuinfo

FIX_OUT=$TMP/rec.txt "$JOSTLE" run -q -n 40 -j 2 --chaos auto --seed 3 -o "$TMP/rec" -- "$F" 1 > /dev/null 2>&1
# the first run on a restricted CPU set without thread chaos (which moves
# threads at moments that depend on timing), the last sync run, and the
# last run with thread chaos (configuration only)
r1=$(json "$TMP/rec/runs.jsonl" '[r["run"] for r in rows if r["config"]["cpus_via"] != "none" and "threads" not in r["config"]["chaos"] and r["config"]["chaos"] != "all"][0]')
r2=$(json "$TMP/rec/runs.jsonl" '[r["run"] for r in rows if r["config"]["chaos"] == "sync"][-1]')
r3=$(json "$TMP/rec/runs.jsonl" '[r["run"] for r in rows if r["config"]["chaos"] in ("threads", "all")][-1]')
# and a run of heavy sync chaos, whose delays have a budget (sync-hi)
r4=$(json "$TMP/rec/runs.jsonl" '[r["run"] for r in rows if r["config"].get("sync_budget_us")][0]')
check "a sync-hi run was recorded with its budget" test -n "$r4"
for r in $r1 $r2 $r3 $r4; do
	FIX_OUT=$TMP/rep$r.txt "$JOSTLE" run -q -n 3 --replay "$TMP/rec:$r" -o "$TMP/rep$r" -- "$F" 1 > /dev/null 2>&1
	check_eq "replay $r: exit 0" "$?" 0
	want=$(json "$TMP/rec/runs.jsonl" "[(r['seed'], r['config']) for r in rows if r['run'] == $r][0]")
	got=$(json "$TMP/rep$r/runs.jsonl" "sorted({str((r['seed'], {k: v for k, v in r['config'].items() if k != 'replay_of'})) for r in rows})")
	check_eq "replay $r: every repetition has the recorded seed and configuration" "$got" "[\"$want\"]"
	check_eq "replay $r: says what it replays" "$(json "$TMP/rep$r/runs.jsonl" "sorted({r['config']['replay_of'] for r in rows})")" "[$r]"
	if [ "$r" = "$r3" ]; then
		filt() { sed 's/ cpuset=[^ ]*//; s/ cpus=[^ ]*//; s/ idle=.*//'; }
	else
		filt() { sed 's/ cpuset=[^ ]*//'; }
	fi
	line=$(grep "run=$r " "$TMP/rec.txt" | filt)
	check_eq "replay $r: the program saw the same JOSTLE_RUN, seed (and CPUs), 3 times" \
		"$(filt < "$TMP/rep$r.txt" | sort -u)" "$line"
	check_eq "replay $r: 3 repetitions" "$(wc -l < "$TMP/rep$r.txt")" 3
done

"$JOSTLE" run -q --replay "$TMP/rec" -o "$TMP/e1" -- "$F" > "$TMP/e1.out" 2>&1
check_eq "replay without :RUN: exit 2" "$?" 2
check "replay without :RUN: says what is expected" grep -q "^jostle: --replay '.*' is not DIR:RUN" "$TMP/e1.out"
"$JOSTLE" run -q --replay "$TMP/rec:999" -o "$TMP/e2" -- "$F" > "$TMP/e2.out" 2>&1
check_eq "replay of a run not recorded: exit 2" "$?" 2
check "replay of a run not recorded: says so" grep -q "has no run 999" "$TMP/e2.out"
"$JOSTLE" run -q --replay "$TMP/nowhere:1" -o "$TMP/e3" -- "$F" > "$TMP/e3.out" 2>&1
check_eq "replay of a missing directory: exit 2" "$?" 2
