#!/usr/bin/env bash
# jostle run: the crash handler (libjostle-crash.so) gives a plain crash its
# stack without a core: frames in the signature, DIR/stacks/RUN.txt, one
# signature per crashing function, also through a handler of the program's
# that passes the signal on; the exit status is the same as without it; the user's LD_PRELOAD is kept; --no-crash-handler turns it off; an
# ASan program keeps its own report (its runtime's handler comes first).
. "$(dirname "$0")/../lib.sh"

runs() { json "$1/runs.jsonl" "$2"; }
asan=false
[ "$(basename "$BUILD")" = build-asan ] && asan=true

# --- the preload and the environment, in both builds ---
"$JOSTLE" run -q -n 1 -o "$TMP/env" -- "$FIX/crash" disposition > /dev/null 2>&1
if $asan; then
	check "asan: the runtime's SIGSEGV handler stays" grep -q 'SIGSEGV handled' "$TMP/env/logs/0.log"
else
	check "handler installed where the disposition was default" grep -q 'SIGSEGV handled' "$TMP/env/logs/0.log"
fi
"$JOSTLE" run -q -n 1 --no-crash-handler -o "$TMP/noenv" -- "$FIX/crash" disposition > /dev/null 2>&1
$asan || check "--no-crash-handler: default disposition" grep -q 'SIGSEGV default' "$TMP/noenv/logs/0.log"
check "--no-crash-handler: no crashes folder" test ! -e "$TMP/noenv/crashes"
# (an ASan-built jostle itself needs the link-order check off to start with a preload)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
LD_PRELOAD="$BUILD/libjostle-chaos.so" "$JOSTLE" run -q -n 1 -o "$TMP/pre" -- "$FIX/crash" preloads > /dev/null 2>&1
check "the user's LD_PRELOAD is kept and loaded" grep -q "^$BUILD/libjostle-chaos.so loaded" "$TMP/pre/logs/0.log"
check "the crash handler is loaded too" grep -q "^$BUILD/libjostle-crash.so loaded" "$TMP/pre/logs/0.log"
LD_PRELOAD="$BUILD/libjostle-chaos.so" "$JOSTLE" run -q -n 1 --no-crash-handler -o "$TMP/pre2" -- "$FIX/crash" preloads > /dev/null 2>&1
check_eq "--no-crash-handler: only the user's LD_PRELOAD" "$(cat "$TMP/pre2/logs/0.log")" "$BUILD/libjostle-chaos.so loaded"

# --- ASan: the report's signature, no record of ours for SIGSEGV ---
if $asan; then
	"$JOSTLE" run -q -n 2 -j 2 -o "$TMP/as" -- "$FIX/crash" segv-other > /dev/null 2>&1
	check_eq "asan: report-based kind" "$(runs "$TMP/as" 'rows[0]["sig_kind"]')" asan-segv
	check_eq "asan: report frames" "$(runs "$TMP/as" 'rows[0]["frames"][0]')" store_through_bad_pointer
	check_eq "asan: one signature" "$(runs "$TMP/as" 'len({r["sig_id"] for r in rows})')" 1
	check_eq "asan: no crash record (ASan's handler ran)" "$(ls "$TMP/as/crashes" | wc -l)" 0
	"$JOSTLE" run -q -n 1 -o "$TMP/aa" -- "$FIX/crash" assert > /dev/null 2>&1
	check_eq "asan: assert still an assert" "$(runs "$TMP/aa" 'rows[0]["sig_kind"]')" assert
	check_eq "asan: assert still SIGABRT" "$(runs "$TMP/aa" 'rows[0]["signal"]')" SIGABRT
	check "asan: assert's stack recorded" grep -q 'check_invariant' "$TMP/aa/stacks/0.txt"
	exit 0
fi

# --- a plain SIGSEGV: frames without --core ---
"$JOSTLE" run -q -n 3 -j 3 -o "$TMP/sv" -- "$FIX/crash" segv > /dev/null 2>&1
check_eq "segv: crashes" "$(runs "$TMP/sv" '[r["outcome"] for r in rows]')" "['crash', 'crash', 'crash']"
check_eq "segv: no core needed" "$(runs "$TMP/sv" 'rows[0]["core"]')" False
check_eq "segv: culprit frame" "$(runs "$TMP/sv" '{r["frames"][0] for r in rows}')" "{'write_through_null'}"
check_eq "segv: one signature for three runs" "$(runs "$TMP/sv" 'len({r["sig_id"] for r in rows})')" 1
check "segv: stacks file" grep -q '#0 write_through_null in crash' "$TMP/sv/stacks/0.txt"
check "segv: stacks file names the signal" grep -q '^crash of run 0 (pid [0-9]*, tid [0-9]*, SIGSEGV at 0x0)' "$TMP/sv/stacks/0.txt"
check "segv: records kept" test "$(ls "$TMP/sv/crashes" | grep -c '^[0-2]\.[0-9]*\.txt$')" = 3

# --- another function: another signature ---
"$JOSTLE" run -q -n 2 -j 2 -o "$TMP/so" -- "$FIX/crash" segv-other > /dev/null 2>&1
check_eq "segv-other: culprit frame" "$(runs "$TMP/so" 'rows[0]["frames"][0]')" store_through_bad_pointer
check_eq "segv-other: one signature" "$(runs "$TMP/so" 'len({r["sig_id"] for r in rows})')" 1
check "segv-other: not segv's signature" test "$(runs "$TMP/so" 'rows[0]["sig_id"]')" != "$(runs "$TMP/sv" 'rows[0]["sig_id"]')"

# --- the same status as without the handler ---
status() { runs "$1" '[(r["outcome"], r["exit"], r["signal"], r["core"]) for r in rows]'; }
for m in segv assert recurse own-handler chained; do
	"$JOSTLE" run -q -n 1 -o "$TMP/with-$m" -- "$FIX/crash" $m > /dev/null 2>&1
	"$JOSTLE" run -q -n 1 --no-crash-handler -o "$TMP/without-$m" -- "$FIX/crash" $m > /dev/null 2>&1
	check_eq "$m: same outcome and status with and without the handler" "$(status "$TMP/with-$m")" "$(status "$TMP/without-$m")"
done
check_eq "without the handler: no frames" "$(runs "$TMP/without-segv" 'rows[0]["frames"]')" "[]"
check_eq "assert: frames" "$(runs "$TMP/with-assert" 'rows[0]["frames"][0]')" check_invariant
check "assert: stack through abort" grep -q '#[0-9]* check_invariant in crash' "$TMP/with-assert/stacks/0.txt"
check_eq "stack overflow: caught on the alternate stack" "$(runs "$TMP/with-recurse" 'rows[0]["frames"][0]')" recurse_forever
check_eq "own handler: it wins" "$(runs "$TMP/with-own-handler" 'rows[0]["exit"]')" 7
check_eq "own handler: no record of ours" "$(ls "$TMP/with-own-handler/crashes" | wc -l)" 0

# --- a handler of the program's that passes the signal on to ours from its
# own alternate stack (Python's faulthandler does): the crashing code's stack
# is elsewhere, and is copied too ---
ch=$TMP/with-chained/stacks/0.txt
check "chained: the crashing function, past the program's handler" grep -q '#[0-9]* write_through_null in crash' "$ch"
check_eq "chained: its caller, from the other stack" \
	"$(grep -A1 'write_through_null in crash' "$ch" | tail -1 | awk '{print $2}')" crash

# --- a crash in a grandchild: the run fails, the grandchild's frames ---
"$JOSTLE" run -q -n 1 -o "$TMP/gc" -- "$FIX/crash" grandchild > /dev/null 2>&1
check_eq "grandchild: the run fails" "$(runs "$TMP/gc" 'rows[0]["outcome"]')" fail
check_eq "grandchild: its frames" "$(runs "$TMP/gc" 'rows[0]["frames"][0]')" write_through_null
check "grandchild: marked a child's" grep -q 'a child process of the run' "$TMP/gc/stacks/0.txt"

# --- --core too: the record wins, the core is still collected ---
pattern=$(cat /proc/sys/kernel/core_pattern)
if [ "${pattern:0:1}" = "|" ] || [ "$(ulimit -Hc)" = 0 ]; then
	ok "# skip --core: core_pattern '$pattern', hard core limit $(ulimit -Hc)"
else
	mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 1
	"$JOSTLE" run -q -n 1 --keep-cores -o "$TMP/kc" -- "$FIX/crash" segv > /dev/null 2>&1
	check_eq "with --keep-cores: dumped" "$(runs "$TMP/kc" 'rows[0]["core"]')" True
	check_eq "with --keep-cores: frames" "$(runs "$TMP/kc" 'rows[0]["frames"][0]')" write_through_null
	check "with --keep-cores: core kept" test -s "$TMP/kc/cores/0.core"
	check "with --keep-cores: handler's stack" grep -q "crash handler" "$TMP/kc/stacks/0.txt"
	cd "$TMP" || exit 1
fi
