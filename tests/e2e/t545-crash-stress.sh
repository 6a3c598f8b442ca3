#!/usr/bin/env bash
# jostle run: the crash handler under stress (issue 13): eight threads of one
# process crash at once, 1000 runs (CRASH_STRESS_N to change it), two at a
# time. Every run leaves exactly one record, none empty, none cut short, and
# the series has one signature with the crashing function's frames. Before
# the handler's rework, 200 such runs left 42 empty records and 105 runs
# without any, and two signatures. --all-crash-records: every run keeps its
# record (not one in eight once every run crashes: src/run/recsample.h).
. "$(dirname "$0")/../lib.sh"

N=${CRASH_STRESS_N:-1000}
# crash-plain: the fixture without sanitizers in both builds (mk/crash_plain.mk)
"$JOSTLE" run -q -n "$N" -j 2 --all-crash-records -o "$TMP/st" -- "$FIX/crash-plain" threads 8 > /dev/null 2>&1
runs() { json "$TMP/st/runs.jsonl" "$1"; }
check_eq "stress: $N runs, every one a crash" "$(runs '(len(rows), {r["outcome"] for r in rows})')" "($N, {'crash'})"
total=0 empty=0 cut=0
for f in "$TMP"/st/crashes/*.txt; do
	[ -e "$f" ] || continue
	total=$((total + 1))
	if [ ! -s "$f" ]; then empty=$((empty + 1)); elif [ "$(tail -c 4 "$f")" != "end" ]; then cut=$((cut + 1)); fi
done
check_eq "stress: one record per run" "$total" "$N"
check_eq "stress: no empty record" "$empty" 0
check_eq "stress: no record cut short" "$cut" 0
check_eq "stress: one signature" "$(runs 'len({r["sig_id"] for r in rows})')" 1
check_eq "stress: the crashing function in every run" "$(runs '{r["frames"][0] if r["frames"] else "" for r in rows}')" \
	"{'write_through_null'}"
