#!/usr/bin/env bash
# jostle reproduce: on site_race (a run fails exactly when the sync chaos
# library delayed the lock in take_slot; never without the library), the
# search writes a reproducer.json that delays at that lock, the printed
# command fails every run where the plain loop never fails, compare says
# "fixed under the reproducer" on the fixed mode (site_race none), a
# rebuilt binary (other offsets) still gets its delay by function and
# line, a build without the function says the site is gone, --gdb points
# at the failing run, bad input exits 2 with one line. Everything follows
# from --seed and -n (no wall-clock threshold).
. "$(dirname "$0")/../lib.sh"
S=$FIX/site_race

"$JOSTLE" reproduce -n 200 -j 2 --seed 7 -o "$TMP/r" -- "$S" one > "$TMP/r.out" 2> "$TMP/r.err"
check_eq "reproduce: exit 1 (a reproducer written)" "$?" 1
R=$TMP/r/reproducer.json
check_eq "json: version 1" "$(json "$R" 'd["version"]')" 1
check_eq "json: delays at the lock in take_slot" \
	"$(json "$R" '[(s["call"], s["function"], s["file"].endswith("site_race.c"), s["line"] > 0, s["module"] == "'"$S"'", s["offset"].startswith("0x")) for s in d["condition"]["sites"]][:1]')" \
	"[('pthread_mutex_lock', 'take_slot', True, True, True, True)]"
check_eq "json: only decisive sites" "$(json "$R" 'all(s["function"] == "take_slot" for s in d["condition"]["sites"])')" True
check_eq "json: the condition is complete" \
	"$(json "$R" 'sorted(k for k in d["condition"] if k in ("arm","chaos","level","sync_max_us","steps","jobs","cpus","noise","sites"))')" \
	"['arm', 'chaos', 'cpus', 'jobs', 'level', 'noise', 'sites', 'steps', 'sync_max_us']"
check_eq "json: sync chaos, -j set" "$(json "$R" '(d["condition"]["chaos"], d["condition"]["jobs"] >= 1)')" "('sync', True)"
check_eq "json: the measured rate beats the natural one" \
	"$(json "$R" '(d["measured"]["fails"] == d["measured"]["runs"] >= 20, d["measured"]["lo"] > 0.8, d["natural"]["fails"], d["natural"]["runs"] > 0, d["measured"]["from"])')" \
	"(True, True, 0, True, 'confirmation')"
check_eq "json: the search's steps" "$(json "$R" '[s["step"] for s in d["search"]][:2] + [d["search"][-1]["step"]]')" \
	"['natural', 'auto', 'confirm']"
check "search: auto's arms raced side by side" \
	test "$(json "$R" 'sum(s["step"].startswith("auto\x27s arm ") for s in d["search"])')" -ge 2
check_eq "search: the stated condition is the last one kept" \
	"$(json "$R" '[s["condition"] for s in d["search"] if s["kept"]][-1] == d["search"][-1]["condition"]')" True
check_eq "search: -j 2 is a start, not a bound: auto's crowd runs 16 at a time" \
	"$(json "$TMP/r/auto/runs.jsonl" 'any(r["config"]["arm"].startswith("crowd") and r["config"]["jobs"] == 16 for r in rows)')" True
check "terminal: the rate with its interval and the natural rate" \
	grep -Eq '^jostle: fails 100% of runs \[[0-9]+%, 100%\], [0-9.]+ failures/min; natural rate 0 of [0-9]+ runs' "$TMP/r.err"
check_eq "stdout: one command" "$(cat "$TMP/r.out")" "jostle run --reproducer $R -- $S one"

# a budget that reaches the tune race: the leader pushed every way that
# applies, each a condition of its own, the leader racing with them
"$JOSTLE" reproduce -q -n 400 -j 2 --seed 7 -o "$TMP/t" -- "$S" one > /dev/null 2>&1
check_eq "tune: exit 1" "$?" 1
T=$TMP/t/reproducer.json
check_eq "tune: the leader's -j and preemptions tried, among others" \
	"$(json "$T" '(lambda v: (len(v) >= 3, "twice the runs at a time" in v, "more preemptions" in v))(set(s["step"] for s in d["search"]) & {"twice the runs at a time", "half the runs at a time", "stronger delays", "all runs on one CPU", "more preemptions"})')" \
	"(True, True, True)"
V='("twice the runs at a time", "half the runs at a time", "stronger delays", "all runs on one CPU", "more preemptions")'
check_eq "tune: every variant a condition of its own" \
	"$(json "$T" '(lambda v, fin: (len(set(v)) == len(v), all(c != fin for c in v) or any(s["kept"] for s in d["search"] if s["step"] in '"$V"')))([s["condition"] for s in d["search"] if s["step"] in '"$V"'], d["search"][-1]["condition"])')" \
	"(True, True)"

# a window that only a long delay at one site opens (site_race long: 6 ms
# or more at the lock in take_slot; auto's and localize's delays are
# shorter): while nothing found fails most runs, each site localize found
# is tried alone with long delays, and the reproducer delays at that lock
# alone. Where the leader already fails most runs (site_race one, above),
# no such sweep.
"$JOSTLE" reproduce -q -n 400 -j 2 --seed 7 -o "$TMP/l" -- "$S" long > /dev/null 2>&1
check_eq "long: exit 1" "$?" 1
L=$TMP/l/reproducer.json
check_eq "long: sites alone, one site and 20 ms each, at most 24" \
	"$(json "$L" '(lambda v: (1 <= len(v) <= 24, all("delays at 1 site (" in c and "up to 20000 us" in c for c in v)))([s["condition"] for s in {s["step"]: s for s in d["search"] if s["step"].startswith("long delays at site ")}.values()])')" \
	"(True, True)"
check_eq "long: the reproducer delays at the lock in take_slot alone, up to 20 ms" \
	"$(json "$L" '([(s["call"], s["function"]) for s in d["condition"]["sites"]], d["condition"]["sync_max_us"])')" \
	"([('pthread_mutex_lock', 'take_slot')], 20000)"
check_eq "long: no sweep behind a leader that fails most runs" \
	"$(json "$T" 'any(s["step"].startswith("long delays at site ") for s in d["search"])')" False

# one thread stepped alone (step_probe alone fails exactly when its second
# thread is stepped and its first is not: config.step_threads 4): the
# reproducer steps that thread alone, and fails every run; behind a leader
# that fails most runs, no thread is tried alone
if [ "$(uname -m)" = x86_64 ]; then
	"$JOSTLE" reproduce -q -n 700 -j 2 --seed 7 -o "$TMP/a" -- "$FIX/step_probe" alone > /dev/null 2>&1
	check_eq "alone: exit 1" "$?" 1
	# stronger delays for a step leader: its threads' hold budget, four
	# times step chaos's 20 ms
	check_eq "alone: the step leader tuned with longer holds" \
		"$(json "$TMP/a/reproducer.json" '[s["condition"] for s in d["search"] if s["step"] == "stronger delays"]')" \
		"['step (chaos step, thread 2 alone, holds to 80 ms a thread)']"
	check_eq "alone: thread 2 stepped alone, every confirmation run failed" \
		"$(json "$TMP/a/reproducer.json" '(d["condition"]["chaos"], d["condition"]["step_threads"], d["measured"]["fails"] == d["measured"]["runs"] >= 20)')" \
		"('step', 4, True)"
	check_eq "alone: not tried behind a leader that fails most runs" \
		"$(json "$R" 'any(s["step"].endswith(" stepped alone") for s in d["search"])')" False
fi

# the climb: a program whose every run fails by its seed alone (2 in 5,
# whatever the condition). A tune variant that wins the race is pushed
# further (the same way, then every way from it): no kept tune step is the
# search's last before the confirmation. (Which variant wins follows from auto's choice of arms,
# which depends on run times; the rule does not.)
"$JOSTLE" reproduce -q -n 300 -j 2 --seed 7 -o "$TMP/c" -- "$FIX/flaky" fail-seed 5 > /dev/null 2>&1
check_eq "climb: exit 1" "$?" 1
C=$TMP/c/reproducer.json
check_eq "climb: a kept tune step is pushed further" \
	"$(json "$C" '(lambda st: all(any(st[j]["step"] in '"$V"' for j in range(i + 1, len(st))) for i, s in enumerate(st) if s["step"] in '"$V"' and s["kept"]))(d["search"])')" True
check_eq "climb: the stated condition is the last one kept" \
	"$(json "$C" '[s["condition"] for s in d["search"] if s["kept"]][-1] == d["search"][-1]["condition"]')" True

# the printed command runs, and fails every run
cmd=$(sed "s#^jostle #$JOSTLE #; s# -- # -q -o $TMP/before -- #" "$TMP/r.out")
$cmd > /dev/null 2>&1
check_eq "run --reproducer: exit 1" "$?" 1
check_eq "run --reproducer: 20 of 20 runs failed" \
	"$(json "$TMP/before/runs.jsonl" '(len(rows), sum(r["outcome"] == "fail" for r in rows))')" "(20, 20)"
check_eq "run --reproducer: fresh seeds" "$(json "$TMP/before/runs.jsonl" 'len(set(r["seed"] for r in rows))')" 20
check_eq "run --reproducer: the site matched in the same build" \
	"$(json "$TMP/before/reproducer.json" 'd["condition"]["sites"][0]["matched"]')" "same build"

# the fixed mode under the same reproducer: --until confident takes its rate
"$JOSTLE" run -q --reproducer "$R" --until confident -o "$TMP/after" -- "$S" none > /dev/null 2>&1
check_eq "fixed: exit 0" "$?" 0
"$JOSTLE" compare "$TMP/before" "$TMP/after" > "$TMP/cmp.out" 2>/dev/null
check_eq "compare: exit 0" "$?" 0
check "compare: fixed under the reproducer" \
	grep -Eq '^fixed under the reproducer: 0/[0-9]+ after vs 20/20 before \(p = ' "$TMP/cmp.out"

# a rebuilt program: other offsets, the same function and line
cc_ok=false
if command -v cc > /dev/null; then
	{ printf 'static volatile int pad_v; static void pad(void) { for (int i = 0; i < 9; i++) pad_v += i * pad_v; } void (*keep_pad)(void) = pad; '
	  cat "$ROOT/tests/fixtures/site_race.c"; } > "$TMP/site_race.c"
	cc -g -O2 -o "$TMP/site_race" "$TMP/site_race.c" -lpthread -ldl && cc_ok=true
	sed 's/take_slot/grab_slot/g' "$ROOT/tests/fixtures/site_race.c" > "$TMP/renamed.c"
	cc -g -O2 -o "$TMP/renamed" "$TMP/renamed.c" -lpthread -ldl || cc_ok=false
fi
if $cc_ok; then
	"$JOSTLE" run -n 10 --reproducer "$R" -o "$TMP/rebuilt" -- "$TMP/site_race" one > /dev/null 2> "$TMP/rebuilt.err"
	check_eq "rebuilt: every run fails" "$?:$(json "$TMP/rebuilt/runs.jsonl" 'sum(r["outcome"] == "fail" for r in rows)')" "1:10"
	check_eq "rebuilt: matched by function and line at another offset" \
		"$(json "$TMP/rebuilt/reproducer.json" '[(s["matched"], s["matched_offset"] != s["offset"], s["matched_line"] == s["line"]) for s in d["condition"]["sites"]][0]')" \
		"('by function and line', True, True)"
	check "rebuilt: said on the terminal" grep -q 'take_slot at site_race.c:[0-9]* matched by function and line' "$TMP/rebuilt.err"
	"$JOSTLE" run -n 10 --reproducer "$R" -o "$TMP/gone" -- "$TMP/renamed" one > /dev/null 2> "$TMP/gone.err"
	check_eq "gone: no run fails (no delay applied)" "$?" 0
	check "gone: the site is said not found" grep -q 'warning: reproducer site pthread_mutex_lock in take_slot .* not found in this build' "$TMP/gone.err"
	"$JOSTLE" compare "$TMP/before" "$TMP/gone" > "$TMP/gone.cmp" 2>/dev/null
	check_eq "gone: compare proves nothing (exit 1)" "$?" 1
	check "gone: compare says the site no longer exists" grep -q 'of the reproducer no longer exists in the new build' "$TMP/gone.cmp"
else
	for i in 1 2 3 4 5 6 7; do ok "# skip no C compiler"; done
fi

# a Python program: the reproducer's site, written for the extension module
# at an offset that is not the call's, is found there by function and line
if [ -x /usr/bin/python3 ]; then
	/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); s=d["condition"]["sites"][0]; s["module"]=sys.argv[2]; s["offset"]="0x1"; d["command"]=None; json.dump(d,open(sys.argv[3],"w"))' \
		"$R" "$FIX/libsite_race.so" "$TMP/py.json"
	"$JOSTLE" run -n 6 --reproducer "$TMP/py.json" -o "$TMP/py" -- /usr/bin/python3 \
		"$ROOT/tests/fixtures/py_site_race.py" "$FIX/libsite_race.so" one > /dev/null 2>&1
	check_eq "python: every run fails" "$?:$(json "$TMP/py/runs.jsonl" 'sum(r["outcome"] == "fail" for r in rows)')" "1:6"
	check_eq "python: the extension's site matched by function and line" \
		"$(json "$TMP/py/reproducer.json" '(d["condition"]["sites"][0]["matched"], d["condition"]["sites"][0]["matched_module"].endswith("libsite_race.so"))')" \
		"('by function and line', True)"
else
	ok "# skip no /usr/bin/python3"; ok "# skip"
fi

# --gdb: until the first failure, then how to look at it (no crash here: the replay)
"$JOSTLE" reproduce -q --gdb --reproducer "$R" -o "$TMP/g" -- "$S" one > "$TMP/g.out" 2> "$TMP/g.err"
check_eq "gdb: exit 1" "$?" 1
check "gdb: the replay of the failing run" grep -Eq "^jostle run --replay $TMP/g/gdb:[0-9]+ -n 1 -- $S one$" "$TMP/g.out"
check_eq "gdb: it stopped at the first failure" "$(json "$TMP/g/gdb/runs.jsonl" 'sum(r["outcome"] == "fail" for r in rows) >= 1')" True

# a batch's end does not cut a hang short: under --time, runs still going
# when a phase's share is spent may end (the stall check, the timeout)
# before they are cut, so a program whose every run deadlocks counts its
# hangs (the plain loop's share of a 3 s search is 0.3 s, before the stall
# check or a 2 s timeout can see one)
"$JOSTLE" reproduce -q --time 3s --timeout 2s -j 2 --seed 7 -o "$TMP/h" -- "$FIX/hang" deadlock > /dev/null 2>&1
check_eq "hangs: exit 1 (a reproducer written)" "$?" 1
check_eq "hangs: the plain loop's hangs counted, none cut" \
	"$(json "$TMP/h/natural/runs.jsonl" '(sum(r["outcome"] == "hang" for r in rows) >= 1, sum(r["outcome"] == "cut" for r in rows))')" "(True, 0)"
check_eq "hangs: the natural rate is every run" \
	"$(json "$TMP/h/reproducer.json" '(d["natural"]["fails"] == d["natural"]["runs"] >= 1)')" True

# a search that overran the confirmation's share (every run outlasts the
# budget) still writes its reproducer, with the leader's counts from the
# search, labelled, not "0 of 0"
"$JOSTLE" reproduce --time 2s --timeout 10s -o "$TMP/ns" -- sh -c 'sleep 3; exit 1' > /dev/null 2> "$TMP/ns.err"
check_eq "unconfirmed: exit 1 (a reproducer written)" "$?" 1
check_eq "unconfirmed: the search's counts, labelled" \
	"$(json "$TMP/ns/reproducer.json" '(d["measured"]["from"], d["measured"]["fails"] == d["measured"]["runs"] >= 1)')" "('search', True)"
check "unconfirmed: says so" grep -q 'in the search (not confirmed' "$TMP/ns.err"
check_eq "unconfirmed: it applies" "$("$JOSTLE" run -q --reproducer "$TMP/ns/reproducer.json" -n 1 -o "$TMP/ns-run" -- true > /dev/null 2>&1; echo $?)" 0

# bad input: one line, exit 2, before anything runs
usage() { "$@" > /dev/null 2> "$TMP/u.err"; echo "$?:$(wc -l < "$TMP/u.err")"; }
check_eq "bad: a missing file" "$(usage "$JOSTLE" run --reproducer "$TMP/nope.json" -- "$S" one)" "2:1"
echo '{"version": 1, "condition": ' > "$TMP/cut.json"
check_eq "bad: not JSON" "$(usage "$JOSTLE" run --reproducer "$TMP/cut.json" -- "$S" one)" "2:1"
check "bad: says what to give" grep -q 'is not JSON; expected the reproducer.json' "$TMP/u.err"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["version"]=99; json.dump(d,open(sys.argv[2],"w"))' "$R" "$TMP/v99.json"
check_eq "bad: another version" "$(usage "$JOSTLE" run --reproducer "$TMP/v99.json" -- "$S" one)" "2:1"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["condition"]["sites"][0]["prob"]=7; json.dump(d,open(sys.argv[2],"w"))' "$R" "$TMP/prob.json"
check_eq "bad: a site out of range" "$(usage "$JOSTLE" run --reproducer "$TMP/prob.json" -- "$S" one)" "2:1"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["condition"]["step_threads"]=300; json.dump(d,open(sys.argv[2],"w"))' "$R" "$TMP/who.json"
check_eq "bad: step_threads out of range" "$(usage "$JOSTLE" run --reproducer "$TMP/who.json" -- "$S" one)" "2:1"
check "bad: says the range" grep -q 'step_threads 0..255' "$TMP/u.err"
check_eq "bad: with --chaos" "$(usage "$JOSTLE" run --reproducer "$R" --chaos sync -- "$S" one)" "2:1"
check_eq "bad: --until confident without a rate or reproducer" "$(usage "$JOSTLE" run --until confident -- "$S" one)" "2:1"
check_eq "bad: reproduce --until" "$(usage "$JOSTLE" reproduce --until first-failure -- "$S" one)" "2:1"
check_eq "bad: reproduce --chaos" "$(usage "$JOSTLE" reproduce --chaos auto -- "$S" one)" "2:1"
check_eq "bad: reproduce --reproducer without --gdb" "$(usage "$JOSTLE" reproduce --reproducer "$R" -- "$S" one)" "2:1"
check_eq "bad: a used results directory" "$(usage "$JOSTLE" reproduce -o "$TMP/r" -- "$S" one)" "2:1"
check "help lists --gdb" sh -c "'$JOSTLE' reproduce --help | grep -q -- '--gdb'"
