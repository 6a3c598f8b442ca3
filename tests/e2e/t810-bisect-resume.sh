#!/usr/bin/env bash
# jostle bisect, the longer searches (t800 has the first and bad input): the fixture `seeded` fails
# by JOSTLE_SEED as the file `mod` of each commit says, so every count and
# every verdict is a function of --seed.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/bisect_repo.sh"

make_repo "$TMP/r1" 8 5 "4 error: lost update in counter" -1 "40 error: unrelated timeout"
want=$(hash_of "$TMP/r1" HEAD~3)
(cd "$TMP/r1" && timeout 300 "$JOSTLE" bisect -q --good HEAD~8 --bad HEAD \
	-j 2 --seed 7 -o "$TMP/o1" -- "$S" mod) > /dev/null 2>&1
runs1=$(json "$TMP/o1/bisect.json" 'd["runs"]')

# 2. the same search again: the same runs (deterministic by --seed)
(cd "$TMP/r1" && timeout 300 "$JOSTLE" bisect -q --good HEAD~8 --bad HEAD \
	-j 2 --seed 7 -o "$TMP/o2" -- "$S" mod) > /dev/null 2>&1
check_eq "same seed, same number of runs" "$(json "$TMP/o2/bisect.json" 'd["runs"]')" "$runs1"

# 4. the good revision fails too: not the culprit search it looks like
make_repo "$TMP/r4" 4 1 "5 error: always was"
(cd "$TMP/r4" && git commit -q --allow-empty -m c5 && timeout 300 "$JOSTLE" bisect -q --good HEAD~4 \
	--bad HEAD -j 2 --seed 5 --runs 3000 -o "$TMP/o4" -- "$S" mod) > "$TMP/o4.out" 2>&1
check_eq "good fails too: exit 1" "$?" 1
check "says the good revision fails too" grep -q "the good revision fails too" "$TMP/o4.out"

# 5. a budget too small: not decisive, with the best candidates
(cd "$TMP/r1" && timeout 300 "$JOSTLE" bisect -q --good HEAD~8 --bad HEAD -n 60 -j 2 --seed 7 \
	-o "$TMP/o5" -- "$S" mod) > "$TMP/o5.out" 2>&1
check_eq "budget spent: exit 1" "$?" 1
check "not decisive, best candidates" grep -q "the best candidates:" "$TMP/o5.out"
check_eq "within the budget" "$(json "$TMP/o5/bisect.json" 'd["runs"] <= 60')" True

# 6. Ctrl-C leaves a valid bisect.json; --resume goes on to the same culprit
#    (where Ctrl-C lands varies, so the runs do: a confidence of 0.999 makes
#    another verdict a one-in-a-thousand event)
(cd "$TMP/r1" && exec "$JOSTLE" bisect -q --good HEAD~8 --bad HEAD -j 2 --seed 7 --confidence 0.999 \
	--batch 10 -o "$TMP/o6" -- "$S" mod 20) > "$TMP/o6.out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
	[ -s "$TMP/o6/bisect.json" ] && [ "$(json "$TMP/o6/bisect.json" 'd["runs"] >= 20' 2>/dev/null)" = True ] && break
	sleep 0.1
done
kill -INT "$pid"
wait "$pid"
check_eq "interrupted: exit 130" "$?" 130
check_eq "bisect.json says interrupted" "$(json "$TMP/o6/bisect.json" 'd["state"]')" interrupted
check_eq "no worktree left after Ctrl-C" "$(git -C "$TMP/r1" worktree list | wc -l)" 1
partial=$(json "$TMP/o6/bisect.json" 'd["runs"]')
timeout 300 "$JOSTLE" bisect --resume "$TMP/o6" -q > "$TMP/o6r.out" 2>&1
check_eq "resumed: exit 0" "$?" 0
check_eq "resumed: the same culprit" "$(json "$TMP/o6/bisect.json" 'd["culprit"]["hash"]')" "$want"
check "resumed: the runs before count" test "$(json "$TMP/o6/bisect.json" "d['runs'] > $partial")" = True
check "resumed: run indices go on" test "$(json "$TMP/o6/commits/$(hash_of "$TMP/r1" HEAD | cut -c1-12)/runs.jsonl" \
	'len(rows) == len({r["run"] for r in rows})')" = True

# 7. --chaos auto: a configuration learned on the bad revision, then fixed
(cd "$TMP/r1" && timeout 300 "$JOSTLE" bisect -q --good HEAD~8 --bad HEAD -j 2 --seed 7 --chaos auto \
	--learn 30 -o "$TMP/o7" -- "$S" mod) > "$TMP/o7.out" 2>&1
check_eq "chaos auto: exit 0" "$?" 0
check_eq "chaos auto: the culprit" "$(json "$TMP/o7/bisect.json" 'd["culprit"]["hash"]')" "$want"
check "chaos auto: the learning runs" test -s "$TMP/o7/learn/runs.jsonl"
arm=$(json "$TMP/o7/bisect.json" 'd["config"]["arm"]')
check_eq "chaos auto: every commit's runs under the learned arm" \
	"$(cat "$TMP"/o7/commits/*/runs.jsonl | /usr/bin/python3 -c '
import json, sys
print(sorted({json.loads(l)["config"]["arm"] for l in sys.stdin if "\"type\":\"run\"" in l}))')" "['$arm']"

