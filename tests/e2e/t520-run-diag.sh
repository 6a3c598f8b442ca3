#!/usr/bin/env bash
# jostle run: hang diagnosis before the kill (DIR/stacks/RUN.txt, the record's
# "diag", signature kind and frames), Python frames read from outside and
# faulthandler as their fallback,
# crash evidence in "diag", and --core.
. "$(dirname "$0")/../lib.sh"

runs() { json "$1/runs.jsonl" "$2"; }

# --- deadlock: two runs, one signature ---
"$JOSTLE" run -q -n 2 -j 2 --timeout 1s -o "$TMP/dl" -- "$FIX/hang" deadlock > /dev/null 2>&1
check_eq "deadlock: both hang" "$(runs "$TMP/dl" '[r["outcome"] for r in rows]')" "['hang', 'hang']"
check_eq "deadlock: kind" "$(runs "$TMP/dl" '[r["sig_kind"] for r in rows]')" "['deadlock', 'deadlock']"
check_eq "deadlock: key" "$(runs "$TMP/dl" 'rows[0]["sig_key"]')" "hang: deadlock"
check_eq "deadlock: culprit frame" "$(runs "$TMP/dl" 'rows[0]["frames"][0]')" take_second_lock
check_eq "deadlock: one signature" "$(runs "$TMP/dl" 'len({r["sig_id"] for r in rows})')" 1
check_eq "deadlock: diag kind" "$(runs "$TMP/dl" 'rows[0]["diag"]["kind"]')" deadlock
check_eq "deadlock: diag counts" "$(runs "$TMP/dl" 'rows[0]["diag"]["counts"]["S"]')" 3
check "deadlock: stacks file" grep -q 'take_second_lock <- lock_a_then_b' "$TMP/dl/stacks/0.txt"
check "deadlock: stacks file of run 1" grep -q '^deadlock: ' "$TMP/dl/stacks/1.txt"
check_eq "deadlock: signal null for a hang" "$(runs "$TMP/dl" 'rows[0]["signal"]')" None

# --- hangs that happen together: diagnosed by workers off the event loop,
# at most one per CPU at a time, the others waiting their turn still hung ---
"$JOSTLE" run -q -n 4 -j 4 --timeout 1s -o "$TMP/tog" -- "$FIX/hang" spin 2 > /dev/null 2>&1
check_eq "together: all four diagnosed as livelock" "$(runs "$TMP/tog" '[r["sig_kind"] for r in rows]')" \
	"['livelock', 'livelock', 'livelock', 'livelock']"
check_eq "together: each has its stacks" "$(ls "$TMP/tog/stacks" | wc -l)" 4
check_eq "together: the record says when the engine saw the deadline and how long it waited" \
	"$(runs "$TMP/tog" 'all("late_ms" in r["diag"] and "queued_ms" in r["diag"] and "held_ms" not in r["diag"] for r in rows)')" True
check "together: nothing left stopped or running" no_leftovers "$FIX/hang spin 2"

# --- seed 003's shape: another signature ---
"$JOSTLE" run -q -n 1 --timeout 1s -o "$TMP/hs" -- "$FIX/hang" handshake 16 > /dev/null 2>&1
check_eq "handshake: kind" "$(runs "$TMP/hs" 'rows[0]["sig_kind"]')" livelock
check_eq "handshake: frames (the spinners' culprit only)" "$(runs "$TMP/hs" '",".join(rows[0]["frames"])')" "aicore_execute"
check_eq "handshake: top folded stack" "$(runs "$TMP/hs" 'rows[0]["diag"]["stacks"][0].split(" <- ")[0]')" "16 x aicore_execute"
check "handshake: not the deadlock's signature" test "$(runs "$TMP/hs" 'rows[0]["sig_id"]')" != "$(runs "$TMP/dl" 'rows[0]["sig_id"]')"

# --- a hang in a grandchild; an orphan reparented to jostle ---
"$JOSTLE" run -q -n 1 --timeout 1s -o "$TMP/gc" -- "$FIX/hang" grandchild > /dev/null 2>&1
check_eq "grandchild: 3 processes" "$(runs "$TMP/gc" 'rows[0]["diag"]["processes"]')" 3
check_eq "grandchild: culprit" "$(runs "$TMP/gc" 'rows[0]["frames"][0]')" spin_wait
check "grandchild: its stack" grep -q 'spin_wait <- grandchild_spin' "$TMP/gc/stacks/0.txt"
"$JOSTLE" run -q -n 1 --timeout 1s -o "$TMP/or" -- "$FIX/hang" orphan > /dev/null 2>&1
check_eq "orphan: 2 processes" "$(runs "$TMP/or" 'rows[0]["diag"]["processes"]')" 2
check "orphan: marked reparented" grep -q 'reparented to jostle' "$TMP/or/stacks/0.txt"
check_eq "orphan: livelock" "$(runs "$TMP/or" 'rows[0]["sig_kind"]')" livelock
check "orphan: nothing left" no_leftovers "$FIX/hang orphan"

# --- Python: frames read from outside (no SIGABRT), Python frames in the signature ---
"$JOSTLE" run -q -n 1 --timeout 2s -o "$TMP/py" -- /usr/bin/python3 "$ROOT/tests/fixtures/py_hang.py" > /dev/null 2>&1
check_eq "python: hang" "$(runs "$TMP/py" 'rows[0]["outcome"]')" hang
check_eq "python: kind" "$(runs "$TMP/py" 'rows[0]["sig_kind"]')" deadlock
check_eq "python: frames" "$(runs "$TMP/py" '",".join(rows[0]["frames"])')" "py_hang.py:wait_for_never,py_hang.py:worker_blocked"
check_eq "python: stacks read from outside" "$(runs "$TMP/py" 'rows[0]["diag"]["python"]["stacks"]')" frames
check "python: no faulthandler traceback in the log" test -z "$(grep 'most recent call first' "$TMP/py/logs/0.log")"
check "python: merged stack in the stacks file" grep -q 'wait (threading.py:[0-9]*) <- wait_for_never (py_hang.py:[0-9]*)' "$TMP/py/stacks/0.txt"
# a "python" whose frames cannot be read falls back to faulthandler (tests/fixtures/hang.c
# faulthandler fakes one): SIGABRT, the traceback into the log, its frames in the signature
cp "$FIX/hang" "$TMP/python3.11"
"$JOSTLE" run -q -n 1 --timeout 1s -o "$TMP/pyfh" -- "$TMP/python3.11" faulthandler > /dev/null 2>&1
check_eq "python fallback: faulthandler used" "$(runs "$TMP/pyfh" 'rows[0]["diag"]["python"]["stacks"]')" faulthandler
check_eq "python fallback: why, in the record" "$(runs "$TMP/pyfh" 'rows[0]["diag"]["python"]["problems"][0].split(" (")[0]')" "no _PyRuntime symbol in 'python3.11'"
check "python fallback: traceback in the log" grep -q 'line 3 in fake_wait' "$TMP/pyfh/logs/0.log"
check_eq "python fallback: frames from the traceback" "$(runs "$TMP/pyfh" '",".join(rows[0]["frames"])')" "fake.py:fake_wait"

# --- sanitizers print module+offset (jostle names the frames): their options ---
# (the suite's own sanitizer options set aside, and those a jostle running
# this test gives it (bench/selftest.sh); the crash handler may append
# verify_asan_link_order=0 to ASAN_OPTIONS)
nosan="env -u UBSAN_OPTIONS -u TSAN_OPTIONS -u MSAN_OPTIONS -u LSAN_OPTIONS"
$nosan ASAN_OPTIONS=detect_leaks=0 "$JOSTLE" run -q -n 1 -o "$TMP/env" -- /usr/bin/env > /dev/null 2>&1
check "sanitizer options: the user's kept, symbolize=0 added" grep -Eq '^ASAN_OPTIONS=detect_leaks=0:symbolize=0(:|$)' "$TMP/env/logs/0.log"
check "sanitizer options: set where unset" grep -qx 'UBSAN_OPTIONS=symbolize=0' "$TMP/env/logs/0.log"
$nosan ASAN_OPTIONS=detect_leaks=0 TSAN_OPTIONS=symbolize=1 "$JOSTLE" run -q -n 1 -o "$TMP/env1" -- /usr/bin/env > /dev/null 2>&1
check "sanitizer options: the user's symbolize= decides for all" test -z "$(grep 'symbolize=0' "$TMP/env1/logs/0.log")"
$nosan ASAN_OPTIONS=detect_leaks=0 "$JOSTLE" run -q -n 1 --sanitizer-symbolize -o "$TMP/env2" -- /usr/bin/env > /dev/null 2>&1
check "--sanitizer-symbolize: options untouched" grep -Eq '^ASAN_OPTIONS=detect_leaks=0(:verify_asan_link_order=0)?$' "$TMP/env2/logs/0.log"
check "--sanitizer-symbolize: nothing added" test -z "$(grep '^UBSAN_OPTIONS=' "$TMP/env2/logs/0.log")"

# --- --no-diag, bad window ---
"$JOSTLE" run -q -n 1 --timeout 500ms --no-diag -o "$TMP/nd" -- "$FIX/hang" sleep > /dev/null 2>&1
check_eq "no-diag: plain hang kind" "$(runs "$TMP/nd" 'rows[0]["sig_kind"]')" hang
check_eq "no-diag: no diag member" "$(runs "$TMP/nd" '"diag" in rows[0]')" False
check_eq "no-diag: one key, not the last line printed" "$(runs "$TMP/nd" 'rows[0]["sig_key"]')" "hang: not diagnosed"
check "no-diag: no stacks folder" test ! -e "$TMP/nd/stacks/0.txt"
"$JOSTLE" run --diag-window 0 -- true > /dev/null 2> "$TMP/bw.err"; check_eq "bad window: exit 2" "$?" 2
check "bad window: names the option" grep -q "^jostle: --diag-window '0'" "$TMP/bw.err"
"$JOSTLE" run --help | grep -q -- '--keep-cores'; check_eq "help lists --keep-cores" "$?" 0

# --- crash evidence in the record ---
if [ "$(basename "$BUILD")" = build-asan ]; then
	"$JOSTLE" run -q -n 2 -j 2 -o "$TMP/uaf" -- "$FIX/crash" uaf > /dev/null 2>&1
	check_eq "uaf: finer kind in diag" "$(runs "$TMP/uaf" 'rows[0]["diag"]["crash"]["kind"]')" asan-heap-use-after-free
	check_eq "uaf: frames in diag" "$(runs "$TMP/uaf" 'rows[0]["diag"]["crash"]["frames"][0]')" read_freed_block
	check_eq "uaf: one signature" "$(runs "$TMP/uaf" 'len({r["sig_id"] for r in rows})')" 1
	# the report's frames were named by jostle (module+offset kept), not by ASan
	check "uaf: frame named by jostle in the log" grep -Eq '#0 0x[0-9a-f]+ in read_freed_block .*crash\.c:[0-9]+ \(/.*/crash\+0x[0-9a-f]+\)$' "$TMP/uaf/logs/0.log"
	"$JOSTLE" run -q -n 1 --sanitizer-symbolize -o "$TMP/uafs" -- "$FIX/crash" uaf > /dev/null 2>&1
	check "uaf --sanitizer-symbolize: ASan named it" grep -Eq '#0 0x[0-9a-f]+ in read_freed_block .*crash\.c:[0-9]+' "$TMP/uafs/logs/0.log"
	check "uaf --sanitizer-symbolize: not jostle" test -z "$(grep -E '#0 0x[0-9a-f]+ in read_freed_block .*\+0x' "$TMP/uafs/logs/0.log")"
	check_eq "uaf: the same signature either way" "$(runs "$TMP/uafs" 'rows[0]["sig_id"]')" "$(runs "$TMP/uaf" 'rows[0]["sig_id"]')"
	ASAN_OPTIONS=symbolize=1 "$JOSTLE" run -q -n 1 -o "$TMP/uafu" -- "$FIX/crash" uaf > /dev/null 2>&1
	check "uaf: the user's symbolize=1 is kept" test -z "$(grep -E '#0 0x[0-9a-f]+ in read_freed_block .*\+0x' "$TMP/uafu/logs/0.log")"
	check_eq "uaf: user's choice, same signature" "$(runs "$TMP/uafu" 'rows[0]["sig_id"]')" "$(runs "$TMP/uaf" 'rows[0]["sig_id"]')"
else
	"$JOSTLE" run -q -n 1 -o "$TMP/df" -- "$FIX/crash" double-free > /dev/null 2>&1
	check_eq "double free: glibc abort in diag" "$(runs "$TMP/df" 'rows[0]["diag"]["crash"]["kind"]')" heap-corruption
	check_eq "double free: signal" "$(runs "$TMP/df" 'rows[0]["signal"]')" SIGABRT
fi

# --- --core: the crashing thread's stack from the core (plain build only:
# under UBSan the null store is reported and the fixture exits instead) ---
pattern=$(cat /proc/sys/kernel/core_pattern)
if [ "$(basename "$BUILD")" = build-asan ]; then
	ok "# skip --core under ASan"
elif [ "${pattern:0:1}" = "|" ] || [ "$(ulimit -Hc)" = 0 ]; then
	ok "# skip --core: core_pattern '$pattern', hard core limit $(ulimit -Hc)"
else
	mkdir "$TMP/cwd" && cd "$TMP/cwd" || exit 1
	"$JOSTLE" run -q -n 1 --core -o "$TMP/core" -- "$FIX/crash" segv > /dev/null 2> "$TMP/core.err"
	check_eq "core: dumped" "$(runs "$TMP/core" 'rows[0]["core"]')" True
	check_eq "core: frames from the core" "$(runs "$TMP/core" 'rows[0]["frames"][0]')" write_through_null
	check "core: stack file" grep -q 'write_through_null' "$TMP/core/stacks/0.txt"
	check_eq "core: deleted after reading" "$(ls "$TMP/cwd" | grep -c core)" 0
	"$JOSTLE" run -q -n 1 --keep-cores -o "$TMP/kc" -- "$FIX/crash" segv > /dev/null 2>&1
	check "keep-cores: kept in DIR/cores" test -s "$TMP/kc/cores/0.core"
	cd "$TMP" || exit 1
fi

# --- interrupted or killed while a diagnosis runs: nothing survives ---
# threads_of PID: how many threads jostle has (a diagnosis worker is one)
threads_of() { ls "/proc/$1/task" 2>/dev/null | wc -l; }
# wait_worker PID: until a diagnosis worker thread exists (at most 20 s)
wait_worker() {
	for _ in $(seq 1 400); do
		[ "$(threads_of "$1")" -ge 2 ] && return 0
		sleep 0.05
	done
	return 1
}
# gone MARKER: no process with MARKER in its command line within 5 s
gone() {
	for _ in $(seq 1 100); do
		no_leftovers "$1" && return 0
		sleep 0.05
	done
	return 1
}
"$JOSTLE" run -q -n 1 --timeout 500ms --diag-window 5000 -o "$TMP/int" -- "$FIX/hang" grandchild 2>/dev/null &
pid=$!
check "SIGINT during a diagnosis: a worker was diagnosing" wait_worker $pid
kill -INT $pid
wait $pid
check_eq "SIGINT during a diagnosis: exit 130" "$?" 130
check "SIGINT during a diagnosis: runs.jsonl readable" json "$TMP/int/runs.jsonl" 'len(d)'
check "SIGINT during a diagnosis: no process left" gone "$FIX/hang grandchild"
"$JOSTLE" run -q -n 1 --timeout 500ms --diag-window 5000 -o "$TMP/k9" -- "$FIX/hang" spin 3 2>/dev/null &
pid=$!
check "SIGKILL during a diagnosis: a worker was diagnosing" wait_worker $pid
kill -KILL $pid
wait $pid 2>/dev/null
check "SIGKILL during a diagnosis: the hung run died with jostle" gone "$FIX/hang spin 3"

# --- pressure on (a CPU set), every run hangs: runs being diagnosed gave their
# slot up, and the runs started in their place still find room in the pressure
# layer (it once ran out of room and stopped the series with "cannot start") ---
"$JOSTLE" run -q -n 8 -j 2 --cpus 0 --timeout 300ms -o "$TMP/pz" -- "$FIX/hang" share 100 > /dev/null 2> "$TMP/pz.err"
check_eq "pressure on, all runs hang: exit 1" "$?" 1
check_eq "pressure on, all runs hang: 8 hangs recorded" "$(runs "$TMP/pz" 'sum(1 for r in rows if r["outcome"] == "hang")')" 8
check "pressure on, all runs hang: no start error" test -z "$(grep 'cannot start' "$TMP/pz.err")"
