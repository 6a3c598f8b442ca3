#!/usr/bin/env bash
# jostle explain LOG: crash evidence and signature grouping on reports from the
# crash fixture (real ASan/UBSan reports under build-asan) and canned reports
# (TSan: we do not build with TSan here; compute-sanitizer: no GPU).
. "$(dirname "$0")/../lib.sh"

D=$ROOT/tests/data
explain() { "$JOSTLE" explain --format json "$1" > "$TMP/$2.json"; }

if [ "$(basename "$BUILD")" = build-asan ]; then
	# Two runs of the same use-after-free, and a different bug.
	for i in 1 2; do "$FIX/crash" uaf > "$TMP/uaf$i.log" 2>&1; done
	"$FIX/crash" double-free > "$TMP/df.log" 2>&1
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$FIX/crash" overflow > "$TMP/ub.log" 2>&1
	uaf1=$TMP/uaf1.log uaf2=$TMP/uaf2.log df=$TMP/df.log ub=$TMP/ub.log
else
	uaf1=$D/asan_uaf.txt df=$D/asan_double_free.txt ub=$D/ubsan_overflow.txt
	# A second copy of the report from another run: other addresses, pid, paths.
	sed -e 's/0x[0-9a-f]*/0xdeadbeef/g; s/==[0-9]*==/==4242==/; s#tests/fixtures#/other/checkout/tests/fixtures#' \
		"$D/asan_uaf.txt" > "$TMP/uaf2.txt"
	uaf2=$TMP/uaf2.txt
fi

explain "$uaf1" uaf1; rc=$?
check_eq "uaf: exit 0" "$rc" 0
check_eq "uaf: kind" "$(json "$TMP/uaf1.json" 'd["crash"]["kind"]')" asan-heap-use-after-free
check_eq "uaf: frames" "$(json "$TMP/uaf1.json" '",".join(d["crash"]["frames"])')" "read_freed_block,crash,main"
check_eq "uaf: free stack" "$(json "$TMP/uaf1.json" '[s for s in d["crash"]["stacks"] if s["title"]=="freed"][0]["frames"][1]')" release_block
explain "$uaf2" uaf2
check_eq "uaf: same signature in two runs" "$(json "$TMP/uaf2.json" 'd["sig_id"]')" "$(json "$TMP/uaf1.json" 'd["sig_id"]')"
explain "$df" df
check_eq "double free: kind" "$(json "$TMP/df.json" 'd["crash"]["kind"]')" asan-double-free
check "double free: another signature" test "$(json "$TMP/df.json" 'd["sig_id"]')" != "$(json "$TMP/uaf1.json" 'd["sig_id"]')"
explain "$ub" ub
check_eq "ubsan: kind" "$(json "$TMP/ub.json" 'd["crash"]["kind"]')" ubsan
check_eq "ubsan: culprit" "$(json "$TMP/ub.json" 'd["crash"]["frames"][0]')" add_overflow

# Real glibc abort and assertion from the plain build's fixture, when not under ASan.
if [ "$(basename "$BUILD")" != build-asan ]; then
	"$FIX/crash" double-free > "$TMP/glibc.log" 2>&1
	explain "$TMP/glibc.log" glibc
	check_eq "glibc: kind" "$(json "$TMP/glibc.json" 'd["crash"]["kind"]')" heap-corruption
	check_eq "glibc: key line" "$(json "$TMP/glibc.json" 'd["crash"]["key_line"]')" "free(): double free detected in tcache 2"
fi
"$FIX/crash" assert > "$TMP/assert.log" 2>&1
explain "$TMP/assert.log" assert
check_eq "assert: culprit" "$(json "$TMP/assert.json" 'd["crash"]["frames"][0]')" check_invariant

explain "$D/tsan_race.txt" t1; explain "$D/tsan_race_swapped.txt" t2
check_eq "tsan: kind" "$(json "$TMP/t1.json" 'd["crash"]["kind"]')" tsan-data-race
check_eq "tsan: both sides" "$(json "$TMP/t1.json" '",".join(d["crash"]["frames"])')" "registry_insert,registry_lookup"
check_eq "tsan: same race either order, same frames" "$(json "$TMP/t2.json" '",".join(d["crash"]["frames"])')" "registry_insert,registry_lookup"
check_eq "tsan: signature kind as jostle run records it" "$(json "$TMP/t1.json" 'd["sig_kind"]')" tsan-data-race
check_eq "tsan: same race either order, one signature" "$(json "$TMP/t2.json" 'd["sig_id"]')" "$(json "$TMP/t1.json" 'd["sig_id"]')"

explain "$D/python_segv.txt" py
check_eq "python: kind" "$(json "$TMP/py.json" 'd["crash"]["kind"]')" python-fatal
check_eq "python: frames" "$(json "$TMP/py.json" '",".join(d["crash"]["frames"])')" "worker.py:crash_in_run,worker.py:<module>"
explain "$D/cs_memcheck.txt" cs1; explain "$D/cs_memcheck_new.txt" cs2
check_eq "compute-sanitizer: kind" "$(json "$TMP/cs1.json" 'd["crash"]["kind"]')" compute-sanitizer-memcheck
check_eq "compute-sanitizer: two formats, one signature" "$(json "$TMP/cs2.json" 'd["sig_id"]')" "$(json "$TMP/cs1.json" 'd["sig_id"]')"

# Real reports of compute-sanitizer on an H200 (tests/data/cs_*_h200.txt).
# racecheck exits 0 after its report: the run fails all the same, and run,
# explain and the report's kind agree; memcheck's report holds the API error
# the bad write causes, and stays one memcheck report.
for tool in racecheck memcheck; do
	explain "$D/cs_${tool}_h200.txt" "h200-$tool"
	"$JOSTLE" run -q -n 2 -o "$TMP/run-$tool" -- cat "$D/cs_${tool}_h200.txt" > /dev/null 2>&1; rc=$?
	check_eq "$tool (H200): a run that exits 0 with the report fails" "$rc" 1
	check_eq "$tool (H200): outcome and exit" "$(json "$TMP/run-$tool/runs.jsonl" '[(r["outcome"], r["exit"]) for r in rows]')" \
		"[('fail', 0), ('fail', 0)]"
	check_eq "$tool (H200): explain's kind" "$(json "$TMP/h200-$tool.json" 'd["crash"]["kind"]')" "compute-sanitizer-$tool"
	check_eq "$tool (H200): the run's signature is explain's" "$(json "$TMP/run-$tool/runs.jsonl" 'rows[0]["sig_id"]')" \
		"$(json "$TMP/h200-$tool.json" 'd["sig_id"]')"
	check_eq "$tool (H200): one kind for the report" "$(json "$TMP/run-$tool/runs.jsonl" 'rows[0]["sig_kind"]')" "compute-sanitizer-$tool"
done
printf '========= COMPUTE-SANITIZER\nall fine\n========= ERROR SUMMARY: 0 errors\n' > "$TMP/cs-clean.log"
"$JOSTLE" run -q -n 1 -o "$TMP/run-clean" -- cat "$TMP/cs-clean.log" > /dev/null 2>&1
check_eq "compute-sanitizer without errors: the run passes" "$?" 0

printf 'all fine\n' > "$TMP/clean.log"
"$JOSTLE" explain "$TMP/clean.log" > "$TMP/clean.out"; check_eq "no report: exit 1" "$?" 1
check "no report: says so" grep -q 'no crash report found' "$TMP/clean.out"
"$JOSTLE" explain "$TMP/nope.log" 2> "$TMP/nope.err"; check_eq "missing file: exit 2" "$?" 2
check "missing file: message" grep -q "^jostle: cannot read '.*nope.log'" "$TMP/nope.err"
"$JOSTLE" explain < "$D/lsan_leak.txt" - > "$TMP/stdin.out"; check_eq "stdin: exit 0" "$?" 0
check "stdin: lsan" grep -q '^kind: lsan' "$TMP/stdin.out"
