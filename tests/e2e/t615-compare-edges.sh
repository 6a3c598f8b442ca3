#!/usr/bin/env bash
# jostle compare (issue 19): it says when BEFORE and AFTER ran different
# commands or settings, compares per condition where both sides ran it (and
# warns about the rest, instead of pooling different mixes), and per test.
. "$(dirname "$0")/../lib.sh"
GEN=(/usr/bin/python3 "$ROOT/tests/gen_runs.py")
lacks() { ! grep -Eq -- "$1" "$2"; }   # lacks REGEX FILE

"${GEN[@]}" "$TMP/a" --runs 40 --sig 11111111:fail:4 > /dev/null
"${GEN[@]}" "$TMP/b" --runs 60 --sig 11111111:fail:1 --settings '{"runs": 60}' > /dev/null
"${GEN[@]}" "$TMP/c" --runs 40 --sig 11111111:fail:1 --argv ./t other --settings '{"jobs": 8, "timeout_s": 30}' > /dev/null
"$JOSTLE" compare "$TMP/a" "$TMP/b" > "$TMP/ab.out" 2>&1
check "same command and settings (only the run count differs): no warning" lacks '^warning' "$TMP/ab.out"
"$JOSTLE" compare "$TMP/a" "$TMP/c" > "$TMP/ac.out" 2>&1
check "different commands: warned, both named" \
	grep -q "^warning: BEFORE and AFTER ran different commands: ./t --mode gen vs ./t other" "$TMP/ac.out"
check "different settings: warned, each difference named" \
	grep -q '^warning: BEFORE and AFTER ran with different settings: jobs: 2 -> 8; timeout_s: 10 -> 30$' "$TMP/ac.out"

# before: plain 8 / noise 8 / sync 24; after adds 8 jitter runs.
"${GEN[@]}" "$TMP/m1" --runs 40 --arm plain:8 --arm noise:8 --arm sync:24 --sig 22222222:fail:10 > /dev/null
"${GEN[@]}" "$TMP/m2" --runs 48 --arm plain:8 --arm noise:8 --arm sync:24 --arm jitter:8 --sig 22222222:fail:2 > /dev/null
"$JOSTLE" compare "$TMP/m1" "$TMP/m2" > "$TMP/m.out" 2>&1
check "conditions: a row per condition both ran" grep -q "^per condition (where both ran it):" "$TMP/m.out"
for arm in plain noise sync; do
	want=$(/usr/bin/python3 - "$TMP/m1/runs.jsonl" "$TMP/m2/runs.jsonl" "$arm" <<'PY'
import json, sys
def count(path, arm):
    rows = [json.loads(l) for l in open(path)]
    rows = [r for r in rows if r.get("type") == "run" and r["config"].get("arm") == arm]
    return "%d/%d" % (sum(r["outcome"] != "pass" for r in rows), len(rows))
print(count(sys.argv[1], sys.argv[3]), count(sys.argv[2], sys.argv[3]))
PY
)
	got=$(awk -v a="$arm" '$1 == a {print $2, $5}' "$TMP/m.out")
	check_eq "conditions: $arm before and after" "$got" "$want"
done
check "conditions: the one only AFTER ran is named, not pooled silently" \
	grep -q "^warning: condition 'jitter' ran only AFTER (8 runs, " "$TMP/m.out"
check "conditions: no row for jitter" lacks '^ +jitter ' "$TMP/m.out"

# Per test: "test_x: fixed, 0/300 vs 12/300".
"${GEN[@]}" "$TMP/t1" --runs 300 --test test_x:12 --test test_y:0 --sig 33333333:fail:12 > /dev/null
"${GEN[@]}" "$TMP/t2" --runs 300 --test test_x:0 --test test_y:0 --test test_new:3 --sig 33333333:fail:3 > /dev/null
"$JOSTLE" compare "$TMP/t1" "$TMP/t2" > "$TMP/t.out" 2>&1
check "per test: test_x fixed, 0/300 vs 12/300" grep -q "^  test_x: fixed, 0/300 vs 12/300 (p = " "$TMP/t.out"
check "per test: a new failing test, not run before" grep -q "^  test_new: .*, 3/300 vs 0/0 (p = .*(not run BEFORE)$" "$TMP/t.out"
check "per test: a test that never failed is not listed" lacks "test_y" "$TMP/t.out"

# Garbage is bad input (exit 2, as --help says), not "no evidence" (1).
mkdir -p "$TMP/garbage"
head -c 4096 /dev/urandom > "$TMP/garbage/runs.jsonl"
"$JOSTLE" compare "$TMP/garbage" "$TMP/t2" > "$TMP/g.out" 2> "$TMP/g.err"
check_eq "compare of garbage: exit 2" "$?" 2
check_eq "compare of garbage: one line" "$(wc -l < "$TMP/g.err")" 1
check "compare of garbage: names the file" grep -q "'$TMP/garbage/runs.jsonl' holds no jostle records" "$TMP/g.err"
"$JOSTLE" compare "$TMP/t1" "$TMP/garbage" > /dev/null 2>&1
check_eq "compare with garbage AFTER: exit 2" "$?" 2
