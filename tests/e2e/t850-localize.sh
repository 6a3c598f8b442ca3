#!/usr/bin/env bash
# jostle localize: on fixtures whose failure depends on a delay at one known
# call site (site_race: the sync chaos library tells the program whether it
# delayed the calling thread, so a run fails exactly when the delay fell on
# that lock), the top site is that lock, exactly; a failure that needs two
# delays together is found as the pair; a replay repeats a run's delayed
# sites; Python programs work through the same library; a static binary and
# a program with no pthread call say so. Everything follows from --seed.
. "$(dirname "$0")/../lib.sh"
S=$FIX/site_race

# one site decides
"$JOSTLE" localize -n 200 -j 2 --seed 7 -o "$TMP/one" -- "$S" one > "$TMP/one.out" 2> "$TMP/one.err"
check_eq "one: exit 1 (sites ranked)" "$?" 1
check_eq "one: the top site is the lock in take_slot" \
	"$(json "$TMP/one/localize.json" '(d["sites"][0]["call"], d["sites"][0]["function"])')" \
	"('pthread_mutex_lock', 'take_slot')"
check_eq "one: its effect is clear of 0" "$(json "$TMP/one/localize.json" 'd["sites"][0]["lo"] > 0.5')" True
check_eq "one: no other site is clear of 0 upwards" \
	"$(json "$TMP/one/localize.json" 'sum(1 for s in d["sites"][1:] if s["lo"] > 0.3)')" 0
check "one: the terminal names the call, function and line" \
	grep -Eq '^ +1 +\+0\.[0-9]+ .*pthread_mutex_lock in take_slot at site_race\.c:[0-9]+$' "$TMP/one.err"
check "one: it stopped on separation" grep -q 'stopped: the leading site is separated' "$TMP/one.err"
check "one: report.md has the table" grep -q '| 1 | `pthread_mutex_lock in take_slot at site_race.c:' "$TMP/one/report.md"
check "one: report.html has the site" grep -q 'pthread_mutex_lock in take_slot at site_race.c:' "$TMP/one/report.html"
check "one: discovery recorded one site table per process" test "$(ls "$TMP/one/discover/sites" | wc -l)" -ge 20
check_eq "one: every round run has a recorded mask" \
	"$(json "$TMP/one/round-1/runs.jsonl" 'all(r["config"]["site_mask"] != "" and r["config"]["sites"].endswith("round-1/plan.txt") for r in rows)')" True

# the same seed, the same findings
"$JOSTLE" localize -q -n 200 -j 2 --seed 7 -o "$TMP/one2" -- "$S" one 2>/dev/null
check_eq "one: same seed, same ranking and numbers" \
	"$(json "$TMP/one2/localize.json" '[(s["function"], s["line"], s["runs_on"], s["fails_on"]) for s in d["sites"]]')" \
	"$(json "$TMP/one/localize.json" '[(s["function"], s["line"], s["runs_on"], s["fails_on"]) for s in d["sites"]]')"

# --replay of a localize run repeats its site mask (and so its failure)
rp=$(json "$TMP/one/localize.json" 'd["replay"]')
"$JOSTLE" run -q -n 3 -j 1 --replay "$TMP/one/$rp" -o "$TMP/rp" -- "$S" one > /dev/null 2>&1
check_eq "replay: a failing run with the site on fails again" "$?" 1
check_eq "replay: every repetition failed" "$(json "$TMP/rp/runs.jsonl" 'sum(r["outcome"] == "fail" for r in rows)')" 3
dir=${rp%%:*}
run=${rp##*:}
check_eq "replay: the same mask" \
	"$(json "$TMP/rp/runs.jsonl" 'rows[0]["config"]["site_mask"]')" \
	"$(json "$TMP/one/$dir/runs.jsonl" "[r for r in rows if r['run'] == $run][0]['config']['site_mask']")"

# two sites together, neither alone
"$JOSTLE" localize -q -n 300 -j 2 --seed 3 -o "$TMP/pair" -- "$S" pair 2>/dev/null
check_eq "pair: exit 1" "$?" 1
check_eq "pair: the pair is lock_left and lock_right" \
	"$(json "$TMP/pair/localize.json" 'sorted([d["pair"]["a"]["function"], d["pair"]["b"]["function"]])')" \
	"['lock_left', 'lock_right']"
check_eq "pair: it matters together, neither alone" \
	"$(json "$TMP/pair/localize.json" '(d["pair"]["matters"], d["pair"]["neither_alone"])')" "(True, True)"
check_eq "pair: the two are the top sites" \
	"$(json "$TMP/pair/localize.json" 'sorted(s["function"] for s in d["sites"][:2])')" "['lock_left', 'lock_right']"

# nothing fails: nothing to localize
"$JOSTLE" localize -n 60 -j 2 --seed 1 -o "$TMP/none" -- "$S" none > /dev/null 2> "$TMP/none.err"
check_eq "none: exit 0" "$?" 0
check "none: says no run failed" grep -q 'no run failed' "$TMP/none.err"

# a Python program: the lock of its C extension among the interpreter's
if [ -x /usr/bin/python3 ]; then
	"$JOSTLE" localize -q -n 200 -j 2 --seed 2 -o "$TMP/py" -- /usr/bin/python3 \
		"$ROOT/tests/fixtures/py_site_race.py" "$FIX/libsite_race.so" one 2>/dev/null
	check_eq "python: exit 1" "$?" 1
	check_eq "python: the top site is the extension's lock" \
		"$(json "$TMP/py/localize.json" '(d["sites"][0]["function"], d["sites"][0]["module"].endswith("libsite_race.so"))')" \
		"('take_slot', True)"
	check "python: the interpreter's sites were tested too" \
		test "$(json "$TMP/py/localize.json" 'sum(1 for s in d["sites"] + d["untested"] if "python" in s["module"])')" -ge 3
else
	ok "# skip no /usr/bin/python3"; ok "# skip"; ok "# skip"
fi

# nothing to interpose
if [ -x "$FIX/static_hello" ]; then
	"$JOSTLE" localize -o "$TMP/st" -- "$FIX/static_hello" > /dev/null 2> "$TMP/st.err"
	check_eq "static: exit 2" "$?" 2
	check "static: says so plainly" grep -q "is statically linked: the sync chaos library cannot interpose" "$TMP/st.err"
else
	ok "# skip no static C library"; ok "# skip"
fi
"$JOSTLE" localize -n 4 -o "$TMP/true" -- /bin/true > /dev/null 2> "$TMP/true.err"
check_eq "no pthread call: exit 2" "$?" 2
check "no pthread call: says so" grep -q 'no call site was recorded in 4 runs' "$TMP/true.err"

# usage errors: one line, exit 2, before anything runs
usage() { "$JOSTLE" localize "$@" > /dev/null 2> "$TMP/u.err"; echo "$?:$(wc -l < "$TMP/u.err")"; }
check_eq "usage: --density out of range" "$(usage --density 1.5 -- "$S" one)" "2:1"
check_eq "usage: --chaos threads" "$(usage --chaos threads -- "$S" one)" "2:1"
check "usage: --chaos says why" grep -q 'use --chaos sync' "$TMP/u.err"
check_eq "usage: --replay points at jostle run" "$(usage --replay x:1 -- "$S" one)" "2:1"
check "usage: --replay hint" grep -q "jostle run --replay DIR/round-K:RUN" "$TMP/u.err"
check_eq "usage: --until" "$(usage --until first-failure -- "$S" one)" "2:1"
check_eq "usage: no --" "$(usage "$S" one)" "2:1"
check_eq "usage: an unknown option" "$(usage --frob -- "$S" one)" "2:1"
check_eq "usage: a used results directory" "$(usage -o "$TMP/one" -- "$S" one)" "2:1"
check "help lists the localize options" sh -c "'$JOSTLE' localize --help | grep -q -- '--round-runs N'"
