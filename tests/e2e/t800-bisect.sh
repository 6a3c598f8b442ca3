#!/usr/bin/env bash
# jostle bisect on small histories built here: the fixture `seeded` fails
# by JOSTLE_SEED as the file `mod` of each commit says, so every count and
# every verdict is a function of --seed.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/bisect_repo.sh"

# 1. the culprit, its probability, the files; an unrelated flake (another
#    signature, from the good revision on) does not mislead.
make_repo "$TMP/r1" 8 5 "4 error: lost update in counter" -1 "40 error: unrelated timeout"
want=$(hash_of "$TMP/r1" HEAD~3)
echo dirty >> "$TMP/r1/n"   # an uncommitted change: bisect needs nothing of the checkout
before=$(git -C "$TMP/r1" status --porcelain)
(cd "$TMP/r1" && timeout 300 "$JOSTLE" bisect --good HEAD~8 --bad HEAD --build 'cat n' \
	-j 2 --seed 7 -o "$TMP/o1" -- "$S" mod) > "$TMP/o1.out" 2> "$TMP/o1.err"
check_eq "culprit found: exit 0" "$?" 0
check_eq "bisect.json names the culprit" "$(json "$TMP/o1/bisect.json" 'd["culprit"]["hash"]')" "$want"
check "its probability holds the confidence" test "$(json "$TMP/o1/bisect.json" 'd["culprit"]["p"] >= 0.95')" = True
check "the verdict line" grep -q "^culprit: ${want:0:10} (#5 of 8) \"c5\", probability 0\.9" "$TMP/o1.out"
check "git show --stat of it" grep -q "^ mod | 1 +" "$TMP/o1.out"
check "the table has a rate with its interval" grep -Eq '^ +8 +[0-9a-f]{10} +[0-9]+ +[0-9]+ +[0-9.]+% \[' "$TMP/o1.out"
check_eq "only the bad signature counts" "$(json "$TMP/o1/bisect.json" 'd["signature"]["key_line"]')" "error: lost update in counter"
check "the other signature was recorded, not counted" test "$(json "$TMP/o1/bisect.json" \
	'any(c.get("recorded_fails", 0) > c.get("fails", 0) for c in d["commits"])')" = True
check "a results directory per commit tested" test -s "$TMP/o1/commits/${want:0:12}/runs.jsonl"
check "jostle report works on it" "$JOSTLE" report "$TMP/o1/commits/${want:0:12}"
check "the Markdown report" grep -q "^| 5 | \`${want:0:10}\` |" "$TMP/o1/report.md"
check_eq "the checkout is untouched" "$(git -C "$TMP/r1" status --porcelain)" "$before"
check_eq "no worktree left" "$(git -C "$TMP/r1" worktree list | wc -l)" 1
runs1=$(json "$TMP/o1/bisect.json" 'd["runs"]')

# 3. the culprit right after a commit that does not build: one of the two
make_repo "$TMP/r3" 8 5 "10 error: lost update" 4
(cd "$TMP/r3" && timeout 300 "$JOSTLE" bisect --good HEAD~8 --bad HEAD --build 'echo building; test ! -e broken' \
	-j 2 --seed 3 -o "$TMP/o3" -- "$S" mod) > "$TMP/o3.out" 2> "$TMP/o3.err"
check_eq "culprit among skipped commits: exit 1" "$?" 1
check "says which two" grep -q "the culprit is one of 2 commits" "$TMP/o3.out"
check_eq "the commit that does not build is skipped" "$(json "$TMP/o3/bisect.json" \
	'[c["i"] for c in d["commits"] if c["skipped"]]')" "[4]"
check "and said so" grep -q "#4 [0-9a-f]* does not build" "$TMP/o3.err"
check "its build log is kept" test -s "$TMP/o3/commits/$(hash_of "$TMP/r3" HEAD~4 | cut -c1-12)/build.log"

# 8. bad input: one line, exit 2
bad() { # DESCRIPTION PATTERN DIR ARGS...
	local what=$1 pat=$2 dir=$3; shift 3
	(cd "$dir" && "$JOSTLE" bisect "$@") > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err"; then
		ok "$what"
	else
		not_ok "$what (rc=$rc)"; sed 's/^/#   /' "$TMP/err"
	fi
}
mkdir -p "$TMP/plain"
bad "no git repository" "is not in a git repository" "$TMP/plain" --good a --bad b -o "$TMP/e1" -- "$S" mod
bad "unknown good revision" "--good 'nosuch' is not a commit" "$TMP/r1" --good nosuch --bad HEAD -o "$TMP/e2" -- "$S" mod
bad "unknown bad revision" "--bad 'nosuch' is not a commit" "$TMP/r1" --good HEAD~3 --bad nosuch -o "$TMP/e3" -- "$S" mod
bad "good not an ancestor of bad" "is not an ancestor of --bad" "$TMP/r1" --good HEAD --bad HEAD~3 -o "$TMP/e4" -- "$S" mod
bad "the same commit" "are the same commit" "$TMP/r1" --good HEAD --bad HEAD -o "$TMP/e5" -- "$S" mod
bad "missing --good" "--good REV is missing" "$TMP/r1" --bad HEAD -- "$S" mod
bad "bad --confidence" "--confidence '2' is not a probability" "$TMP/r1" --good HEAD~1 --bad HEAD --confidence 2 -- "$S" mod
bad "--until refused" "--until is not a bisection option" "$TMP/r1" --good HEAD~1 --bad HEAD --until first-failure -- "$S" mod
bad "missing --" "missing '--'" "$TMP/r1" --good HEAD~1 --bad HEAD "$S" mod
bad "command that cannot start names the commit" "at commit [0-9a-f]\{10\} (#8): command './nosuch' not found" \
	"$TMP/r1" -q --good HEAD~8 --bad HEAD -o "$TMP/e6" -- ./nosuch
check_eq "a command that cannot start: the error only, no table of untested commits" \
	"$(wc -l < "$TMP/out")" 0
bad "--resume of a directory without a bisection" "cannot read" "$TMP/r1" --resume "$TMP/plain"
bad "--resume with a command" "runs the recorded command" "$TMP/r1" --resume "$TMP/o1" -- "$S"
bad "--resume cannot change --good" "cannot be changed when resuming" "$TMP/r1" --resume "$TMP/o1" --good HEAD
bad "--resume cannot change -j, named as --jobs (runopt's getopt pass)" "^jostle: --jobs cannot be changed when resuming" \
	"$TMP/r1" --resume "$TMP/o1" -j 2
bad "an existing bisection" "already holds a bisection" "$TMP/r1" --good HEAD~1 --bad HEAD -o "$TMP/o1" -- "$S" mod
check_eq "no worktree left after errors" "$(git -C "$TMP/r1" worktree list | wc -l)" 1
