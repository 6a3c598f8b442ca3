#!/usr/bin/env bash
# jostle run --tests (issue 19): a Google Test program (Debian's libgtest-dev)
# run 50 times, one deterministic flaky test among stable and disabled ones;
# a run that crashes mid-suite; the command writing its own JUnit file
# (--tests junit, junit:PATTERN); the option's checks.
. "$(dirname "$0")/../lib.sh"
G=$FIX/gtest_suite
lacks() { ! grep -Eq -- "$1" "$2"; }   # lacks REGEX FILE

if [ -x "$G" ]; then
	"$JOSTLE" run -n 50 -j 2 --tests auto -o "$TMP/g" -- "$G" > /dev/null 2> "$TMP/g.err"
	check_eq "gtest x50: exit 1 (a test failed)" "$?" 1
	check_eq "gtest x50: every run gave per-test results, from its JUnit file" \
		"$(json "$TMP/g/runs.jsonl" '(len(rows), sum(r.get("tests_from") == "junit" for r in rows))')" "(50, 50)"
	check_eq "gtest x50: exactly Drain.Handshake is flaky, 10 of 50, with its interval" \
		"$(json "$TMP/g/summary.json" '[(t["name"], t["fails"], t["runs"], round(t["rate_lo"], 3), round(t["rate_hi"], 3)) for t in d["tests"] if t["flaky"]]')" \
		"[('Drain.Handshake', 10, 50, 0.112, 0.33)]"
	check_eq "gtest x50: the tests, the disabled one skipped in every run" \
		"$(json "$TMP/g/summary.json" 'sorted((t["name"], t["runs"], t["skips"]) for t in d["tests"])')" \
		"[('Drain.DISABLED_Slow', 0, 50), ('Drain.Handshake', 50, 0), ('Queue.Empty', 50, 0), ('Queue.PushPop', 50, 0), ('Zz.CrashWhenAsked', 50, 0)]"
	check "gtest x50: its message is the assertion's" \
		test "$(json "$TMP/g/summary.json" '[m["key_line"] for t in d["tests"] if t["flaky"] for m in t["messages"]]')" != "[]"
	check "gtest x50: the closing summary names it with its rate" \
		grep -Eq 'Drain\.Handshake +10/50 +20\.0% \(95% CI 11\.2%.33\.0%\)' "$TMP/g.err"
	check "gtest x50: report.md names it in the flaky table" \
		grep -Eq '^\| `Drain\.Handshake` \| 10/50 \| 20\.0% \| 11\.2%.33\.0% \|' "$TMP/g/report.md"
	check "gtest x50: report.md says 1 flaky" grep -q '\*\*1 flaky\*\*' "$TMP/g/report.md"

	# A crash in the last test on run 4: the three before it from the
	# program's lines, and the crash as Zz.CrashWhenAsked.
	FIX_CRASH_RUN=4 "$JOSTLE" run -n 6 -j 2 --tests auto -o "$TMP/c" -- "$G" > /dev/null 2> "$TMP/c.err"
	# (under ASan the fixture's SEGV is AddressSanitizer's report and exit 1: a fail)
	check_eq "crash: run 4 failed" "$(json "$TMP/c/runs.jsonl" '[r["outcome"] in ("crash", "fail") for r in rows if r["run"] == 4]')" "[True]"
	check_eq "crash: the tests it finished, and the crash" \
		"$(json "$TMP/c/runs.jsonl" '[(r["tests_from"], [(t["name"], t["outcome"]) for t in r["tests"]]) for r in rows if r["run"] == 4]')" \
		"[('output', [('Queue.PushPop', 'pass'), ('Queue.Empty', 'pass'), ('Drain.Handshake', 'pass'), ('Zz.CrashWhenAsked', 'crash')])]"
	check_eq "crash: Zz.CrashWhenAsked is flaky by its crash" \
		"$(json "$TMP/c/summary.json" '[(t["fails"], t["crashes"]) for t in d["tests"] if t["name"] == "Zz.CrashWhenAsked"]')" "[(1, 1)]"
else
	echo "ok - # SKIP $G is not built (libgtest-dev is not installed; scripts/setup.sh installs it)"
fi

# CTest (Debian's cmake): --tests auto adds --output-junit; a failure's
# message is the test's output (CTest writes an empty one).
if command -v cmake > /dev/null && command -v ctest > /dev/null; then
	mkdir -p "$TMP/ct"
	cat > "$TMP/ct/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.21)
project(ct NONE)
enable_testing()
add_test(NAME stable COMMAND sh -c "true")
add_test(NAME handshake COMMAND sh -c "[ $((JOSTLE_RUN % 5)) != 3 ] || { echo 'ack never came'; exit 1; }")
add_test(NAME also_stable COMMAND sh -c "exit 0")
CM
	cmake -S "$TMP/ct" -B "$TMP/ct/b" > "$TMP/cmake.out" 2>&1
	"$JOSTLE" run -n 50 -j 2 --tests auto -o "$TMP/ctr" -- ctest --test-dir "$TMP/ct/b" > /dev/null 2> "$TMP/ctr.err"
	check_eq "ctest x50: exit 1" "$?" 1
	check "ctest x50: says --output-junit is added" grep -q "ctest gets --output-junit" "$TMP/ctr.err"
	check_eq "ctest x50: exactly handshake is flaky, 10 of 50, its message the test's output" \
		"$(json "$TMP/ctr/summary.json" '[(t["name"], t["fails"], t["runs"], [m["key_line"] for m in t["messages"]]) for t in d["tests"] if t["flaky"]]')" \
		"[('handshake', 10, 50, ['ack never came'])]"
	check_eq "ctest x50: three tests" "$(json "$TMP/ctr/summary.json" 'len(d["tests"])')" 3
else
	echo "ok - # SKIP cmake is not installed (scripts/setup.sh installs it)"
fi

# --tests junit: the command writes $JOSTLE_JUNIT itself; junit:PATTERN
# reads the files it names ({run} is the run's index).
cat > "$TMP/w.sh" <<'SH'
#!/bin/sh
out=${1:-$JOSTLE_JUNIT}
out=$(printf '%s' "$out" | sed "s/{run}/$JOSTLE_RUN/")
if [ $((JOSTLE_RUN % 2)) = 1 ]; then f='<failure message="odd run">boom</failure>'; else f=''; fi
printf '<testsuite><testcase classname="a" name="even">%s</testcase><testcase classname="a" name="ok"/></testsuite>\n' "$f" > "$out"
SH
chmod +x "$TMP/w.sh"
"$JOSTLE" run -q -n 4 -j 2 --tests junit -o "$TMP/j" -- "$TMP/w.sh" 2> "$TMP/j.err"
check_eq "junit: the command's own file read" \
	"$(json "$TMP/j/summary.json" 'sorted((t["name"], t["fails"], t["runs"], t["flaky"]) for t in d["tests"])')" \
	"[('a.even', 2, 4, True), ('a.ok', 0, 4, False)]"
mkdir -p "$TMP/pat"
"$JOSTLE" run -q -n 4 -j 2 --tests "junit:$TMP/pat/{run}.xml" -o "$TMP/p" -- "$TMP/w.sh" "$TMP/pat/{run}.xml" 2> "$TMP/p.err"
check_eq "junit:PATTERN: the files named read" \
	"$(json "$TMP/p/summary.json" 'sorted((t["name"], t["fails"], t["runs"]) for t in d["tests"])')" \
	"[('a.even', 2, 4), ('a.ok', 0, 4)]"

# The option's checks: one line, exit 2, nothing created.
"$JOSTLE" run -n 1 --tests xml -o "$TMP/bad1" -- true 2> "$TMP/bad1.err"
check_eq "--tests xml: exit 2" "$?" 2
check "--tests xml: says what is expected" grep -q "expected auto, junit" "$TMP/bad1.err"
check "--tests xml: nothing created" test ! -e "$TMP/bad1"
"$JOSTLE" run -n 2 -j 2 --tests junit:one.xml -o "$TMP/bad2" -- true 2> "$TMP/bad2.err"
check_eq "--tests junit:one.xml -j 2: exit 2 (the runs would share the file)" "$?" 2
check_eq "--tests junit:one.xml -j 2: one line" "$(wc -l < "$TMP/bad2.err")" 1
check "--tests junit:one.xml -j 2: nothing created" test ! -e "$TMP/bad2"
check "--tests is run's alone (bisect refuses it)" lacks "tests" <("$JOSTLE" bisect --help)
