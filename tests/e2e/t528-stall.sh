#!/usr/bin/env bash
# jostle run: a run in which no thread can run again is a hang before its
# timeout (src/diagnose/stall.h, docs/timeouts.md "Before the timeout"):
#   a deadlock in 40% of the runs (which ones: JOSTLE_SEED): every one a
#   hang of kind deadlock, `late` "stalled", long before --timeout 60s,
#   counted apart in the summary and summary.json; with --no-stall-check
#   the same runs wait for the timeout (`late` "stuck");
#   correct programs whose every thread waits untimed until a timer's
#   signal, a child or a pipe wakes them: all pass, none stalled.
. "$(dirname "$0")/../lib.sh"

runs() { json "$1/runs.jsonl" "$2"; }
export LSAN_OPTIONS=detect_leaks=0   # see t526: LeakSanitizer's tracer stops the tree

# --- a deadlock in 40% of the runs ---
"$JOSTLE" run -n 40 -j 4 --seed 7 --timeout 60s -o "$TMP/a" -- "$FIX/hang" share 40 > "$TMP/a.txt" 2>&1
check_eq "share: exit 1 (failures)" "$?" 1
check_eq "share: every run passed or hung" \
	"$(runs "$TMP/a" 'sorted(set(r["outcome"] for r in rows))')" "['hang', 'pass']"
check "share: some runs hung" test "$(runs "$TMP/a" 'sum(1 for r in rows if r["outcome"] == "hang")')" -ge 5
check_eq "share: every hang a deadlock, found stalled" \
	"$(runs "$TMP/a" 'sorted(set((r["sig_kind"], r.get("late")) for r in rows if r["outcome"] == "hang"))')" \
	"[('deadlock', 'stalled')]"
check_eq "share: each long before the 60 s timeout" \
	"$(runs "$TMP/a" 'all(r["wall_s"] < 30 for r in rows if r["outcome"] == "hang")')" True
check_eq "share: the deadlock's frames" \
	"$(runs "$TMP/a" 'all("take_second_lock" in r["frames"] or not r["frames"] for r in rows if r["outcome"] == "hang") and any(r["frames"] for r in rows if r["outcome"] == "hang")')" True
hangs=$(runs "$TMP/a" 'sum(1 for r in rows if r["outcome"] == "hang")')
check_eq "share: summary.json counts them stalled, none outlasted" \
	"$(json "$TMP/a/summary.json" '(d["stalled"], d["outlasted"])')" \
	"($hangs, 0)"
check "share: the summary says they were found before the timeout" \
	grep -Eq "^  $hangs hangs found before --timeout 60s: no thread could run again" "$TMP/a.txt"

# --- the same runs, the check off: they wait for the timeout ---
"$JOSTLE" run -n 10 -j 5 --seed 7 --timeout 2s --no-stall-check -o "$TMP/b" -- "$FIX/hang" share 40 > /dev/null 2>&1
check_eq "no-stall-check: exit 1" "$?" 1
check_eq "no-stall-check: the same runs hang, as before" \
	"$(runs "$TMP/b" 'sorted(r["run"] for r in rows if r["outcome"] == "hang")')" \
	"$(runs "$TMP/a" 'sorted(r["run"] for r in rows if r["outcome"] == "hang" and r["run"] < 10)')"
check_eq "no-stall-check: stuck at the timeout, not stalled" \
	"$(runs "$TMP/b" 'sorted(set((r.get("late"), r["wall_s"] >= 2) for r in rows if r["outcome"] == "hang"))')" \
	"[('stuck', True)]"

# --- correct programs that wait untimed until something outside wakes them ---
for mode in itimer-pause itimer-sem pipe child; do
	"$JOSTLE" run -n 8 -j 4 --timeout 30s -o "$TMP/w-$mode" -- "$FIX/waits" "$mode" 600 > /dev/null 2>&1
	check_eq "waits $mode: exit 0, every run passed" \
		"$?:$(runs "$TMP/w-$mode" 'sorted(set(r["outcome"] for r in rows))')" "0:['pass']"
done
"$JOSTLE" run -n 8 -j 4 --timeout 30s --chaos auto -o "$TMP/wa" -- "$FIX/waits" itimer-sem 600 > /dev/null 2>&1
check_eq "waits itimer-sem, auto: nothing stalled" \
	"$(runs "$TMP/wa" 'sum(1 for r in rows if r.get("late") == "stalled")')" 0

