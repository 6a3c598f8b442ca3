#!/usr/bin/env bash
# Bad input: one line naming the problem, exit 2, nothing run.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky

bad() { # DESCRIPTION PATTERN ARGS...
	local what=$1 pat=$2; shift 2
	"$JOSTLE" "$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err"; then
		ok "$what"
	else
		not_ok "$what (rc=$rc)"; sed 's/^/#   /' "$TMP/err"
	fi
}

bad "-n abc" "runs 'abc'" run -n abc -- "$F"
bad "-n 0" "runs '0'" run -n 0 -- "$F"
bad "--time 5x" "time '5x'" run --time 5x -- "$F"
bad "-j 0" "jobs '0'" run -j 0 -- "$F"
bad "--timeout garbage" "timeout 'x'" run --timeout x -- "$F"
bad "bad regex" "fail-on '(' is not a valid regular expression" run --fail-on '(' -- "$F"
bad "bad --until" "until 'sometimes'" run --until sometimes -- "$F"
bad "--until failures:0" "until 'failures:0'" run --until failures:0 -- "$F"
bad "bad --seed" "seed 'x1'" run --seed x1 -- "$F"
bad "bad --head" "head '12Q'" run --head 12Q -- "$F"
bad "unknown option" "unknown option '--frobnicate'" run --frobnicate -- "$F"
bad "a value for a flag" "option '--timeout-strict' takes no value" run --timeout-strict=1 -- "$F"
bad "an unknown option with a value" "unknown option '--frobnicate=1'" run --frobnicate=1 -- "$F"
bad "option without value" "needs a value" run -n
bad "missing --" "missing '--'" run -n 3 "$F"
bad "no command" "no command" run -n 3 --
bad "command not found" "command 'no-such-cmd-jostle' not found" run -- no-such-cmd-jostle
echo "not a program" > "$TMP/plain" && chmod 644 "$TMP/plain"
bad "not executable" "is not executable" run -- "$TMP/plain"
chmod 755 "$TMP/plain"
"$JOSTLE" run -q -n 5 -o "$TMP/fmt" -- "$TMP/plain" 2>"$TMP/err"
check_eq "exec format error: exit 2 at once" "$?" 2
check "exec format error: says why" grep -q "cannot start '$TMP/plain': Exec format error" "$TMP/err"
check_eq "exec format error: no run recorded" "$(json "$TMP/fmt/runs.jsonl" 'len(rows)')" 0
bad "unwritable -o" "out '/proc/jostle-x' cannot be created" run -o /proc/jostle-x -- "$F"
bad "unknown command" "'frob' is not a command" frob
mkdir -p "$TMP/used" && echo '{}' > "$TMP/used/runs.jsonl"
bad "-o with earlier results" "already holds results" run -o "$TMP/used" -- "$F"
check "bad input ran nothing" test ! -e "$TMP/used/summary.json"

"$JOSTLE" --version | grep -q '^jostle [0-9]'
check_eq "--version" "$?" 0
"$JOSTLE" run --help | grep -q -- '--until RULE'
check_eq "run --help" "$?" 0

# --tests junit:FILE is checked against -j as it will be, not as given: on
# one CPU --chaos auto runs a crowd of 8 at once, which would share FILE.
taskset -c 0 "$JOSTLE" run -n 1 --chaos auto --tests junit:x.xml -o "$TMP/tj" -- "$F" > /dev/null 2> "$TMP/tj.err"
check_eq "--tests junit:FILE, --chaos auto on one CPU: exit 2, one line" "$?:$(wc -l < "$TMP/tj.err")" "2:1"
check "--tests junit:FILE, --chaos auto on one CPU: names the resolved -j 8" grep -q "with -j 8 the runs would write one file" "$TMP/tj.err"
check "--tests junit:FILE: nothing created" test ! -e "$TMP/tj"
