#!/usr/bin/env bash
# jostle merge: series and runs of every input, logs and stacks copied under
# names that cannot collide, references rewritten, reports written.
. "$(dirname "$0")/../lib.sh"
DATA=$ROOT/tests/data
G="/usr/bin/python3 $ROOT/tests/gen_runs.py"

$G "$TMP/a" --runs 200 --sig aaaa0001:fail:4 --series 00000000000000aa
$G "$TMP/b" --runs 300 --sig aaaa0001:fail:2 --sig cccc0003:hang:1 --series 00000000000000bb
out=$("$JOSTLE" merge "$TMP/a" "$TMP/b" "$DATA/small" -o "$TMP/all"); rc=$?
check_eq "merge exits 0" "$rc" 0
check "merge says what it did" grep -q "^merged 3 directories into $TMP/all: 3 series, 512 runs" <<<"$out"
check_eq "three series lines" "$(grep -c '"type":"series"' "$TMP/all/runs.jsonl")" 3
check_eq "every run kept" "$(grep -c '"type":"run"' "$TMP/all/runs.jsonl")" 512
check_eq "summary: counted runs and failures" "$(json "$TMP/all/summary.json" '(d["runs"], d["failures"], len(d["series_list"]))')" "(511, 12, 3)"
check_eq "summary: a signature seen on two machines" "$(json "$TMP/all/summary.json" '[s["count"] for s in d["signatures"] if s["id"] == "aaaa0001"]')" "[6]"
check_eq "log references rewritten without collisions" \
	"$(json "$TMP/all/runs.jsonl" 'len(set(r["log"] for r in rows if r.get("log")))')" \
	"$(json "$TMP/all/runs.jsonl" 'len([r for r in rows if r.get("log")])')"
check "every referenced log exists" /usr/bin/python3 -c "
import json, os, sys
rows = [json.loads(l) for l in open('$TMP/all/runs.jsonl') if l.strip()]
sys.exit(0 if all(os.path.isfile(os.path.join('$TMP/all', r['log'])) for r in rows if r.get('log')) else 1)"
check "logs of input 0 and 1 both kept" test -f "$TMP/all/logs/0-75.log" -a -f "$TMP/all/logs/1-75.log"
check "stacks found by run index and copied" test -f "$TMP/all/stacks/2-7.txt"
check_eq "stacks reference added" "$(json "$TMP/all/runs.jsonl" '[r.get("stacks") for r in rows if r["run"] == 7 and r["series"] == "5f0c2a9e11d04b7a"]')" "['stacks/2-7.txt']"
check "the merged report shows the folded stacks" grep -q '98 x' "$TMP/all/report.md"
check "report.html written" test -s "$TMP/all/report.html"
check_eq "unparsable lines dropped" "$(grep -c 'not JSON' "$TMP/all/runs.jsonl")" 0

"$JOSTLE" merge "$TMP/a" -o "$TMP/all" >/dev/null 2>&1
check_eq "a non-empty OUT is refused" "$?" 2
err=$("$JOSTLE" merge "$TMP/a" "$TMP/a" -o "$TMP/twice" 2>&1 >/dev/null)
check "the same series twice is warned about" grep -q 'series appear in more than one input' <<<"$err"
"$JOSTLE" merge "$TMP/a" 2>/dev/null; check_eq "no -o: exit 2" "$?" 2
"$JOSTLE" merge -o "$TMP/x" 2>/dev/null; check_eq "no input: exit 2" "$?" 2

# Bad input (issue 45): garbage, or no runs.jsonl in any DIR, is one line
# and exit 2, and OUT is not created (it was an empty merge, exit 0).
mkdir -p "$TMP/garbage" "$TMP/none1" "$TMP/none2"
head -c 4096 /dev/urandom > "$TMP/garbage/runs.jsonl"
"$JOSTLE" merge -o "$TMP/g.out" "$TMP/garbage" > /dev/null 2> "$TMP/g.err"
check_eq "merge of garbage: exit 2" "$?" 2
check_eq "merge of garbage: one line" "$(wc -l < "$TMP/g.err")" 1
check "merge of garbage: names it" grep -q "'$TMP/garbage/runs.jsonl' holds no jostle records" "$TMP/g.err"
check "merge of garbage: OUT not created" test ! -e "$TMP/g.out"
"$JOSTLE" merge -o "$TMP/n.out" "$TMP/none1" > /dev/null 2> "$TMP/n.err"
check_eq "merge of a DIR without runs.jsonl: exit 2" "$?" 2
check_eq "merge of a DIR without runs.jsonl: says so" "$(cat "$TMP/n.err")" \
	"jostle: merge: '$TMP/none1' holds no runs.jsonl; give directories written by jostle run"
"$JOSTLE" merge -o "$TMP/n2.out" "$TMP/none1" "$TMP/none2" > /dev/null 2> "$TMP/n2.err"
check_eq "merge where no DIR holds runs.jsonl: exit 2, one line, no OUT" \
	"$?:$(wc -l < "$TMP/n2.err"):$(test -e "$TMP/n2.out"; echo $?)" "2:1:1"
