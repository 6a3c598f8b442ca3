#!/usr/bin/env bash
# jostle stacks PID: classification, folded stacks and signature frames of
# fixture programs that hang in known ways (tests/fixtures/hang.c, py_hang.py).
. "$(dirname "$0")/../lib.sh"

pids=()
cleanup() { for p in "${pids[@]}"; do kill -KILL -- "-$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT

# start NAME CMD...: run CMD in its own session (so the whole tree can be
# killed), stdout to $TMP/NAME.out, stderr to $TMP/NAME.err; sets $pid.
start() {
	local name=$1; shift
	setsid "$@" > "$TMP/$name.out" 2> "$TMP/$name.err" &
	pid=$!
	pids+=("$pid")
}


# all_in_syscall PID NR COUNT: COUNT threads of PID, all blocked in syscall NR
all_in_syscall() {
	local n
	n=$(cat /proc/"$1"/task/*/syscall 2>/dev/null | awk -v nr="$2" '$1 == nr' | wc -l)
	[ "$n" -eq "$3" ]
}

# stop_tree: kill the session of the last fixture and reap it quietly.
stop_tree() { kill -KILL -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }

stacks_json() { "$JOSTLE" stacks "$1" --format json > "$TMP/$2.json" 2> "$TMP/$2.jerr"; }

# --- two-mutex deadlock ---
start dl "$FIX/hang" deadlock
wait_for "deadlock" all_in_syscall "$pid" 202 3
stacks_json "$pid" dl; rc=$?
check_eq "deadlock: exit 0" "$rc" 0
check_eq "deadlock: kind" "$(json "$TMP/dl.json" 'd["kind"]')" deadlock
check_eq "deadlock: 3 futex waits" "$(json "$TMP/dl.json" 'd["roles"]["futex"]')" 3
check "deadlock: lock_a_then_b folded" grep -q 'take_second_lock <- lock_a_then_b' "$TMP/dl.json"
check "deadlock: lock_b_then_a folded" grep -q 'take_second_lock <- lock_b_then_a' "$TMP/dl.json"
check_eq "deadlock: culprit frame" "$(json "$TMP/dl.json" 'd["signature"]["frames"][0]')" take_second_lock
check_eq "deadlock: signature kind" "$(json "$TMP/dl.json" 'd["signature"]["kind"]')" deadlock
"$JOSTLE" stacks "$pid" > "$TMP/dl.txt"
check "deadlock: text names the class" grep -q '^deadlock: all threads blocked in futex waits' "$TMP/dl.txt"
check "deadlock: text lists threads" grep -q 'futex' "$TMP/dl.txt"
check_eq "deadlock: still alive after diagnosis" "$(kill -0 "$pid" && echo yes)" yes
stop_tree

# --- pure busy-spin livelock: 8 threads + main ---
start spin "$FIX/hang" spin 8
wait_for "spin ready" ready spin
stacks_json "$pid" spin
check_eq "spin: kind" "$(json "$TMP/spin.json" 'd["kind"]')" livelock
check_eq "spin: 9 busy threads" "$(json "$TMP/spin.json" 'd["roles"]["busy"]')" 9
check_eq "spin: top fold" "$(json "$TMP/spin.json" 'd["stacks"][0].split(" <- start_thread")[0]')" "8 x spin_wait <- spin_thread"
check_eq "spin: culprit" "$(json "$TMP/spin.json" 'd["signature"]["frames"][0]')" spin_wait
check_eq "spin: resumed after diagnosis (not stopped)" "$(awk '{print $3}' /proc/"$pid"/stat)" R
stop_tree

# --- seed 003: one scheduler waiting, 16 cores spinning ---
start hs "$FIX/hang" handshake 16
wait_for "handshake ready" ready hs
wait_for "scheduler waiting" all_in_syscall "$pid" 202 2
stacks_json "$pid" hs
check_eq "handshake: kind" "$(json "$TMP/hs.json" 'd["kind"]')" livelock
check_eq "handshake: 16 x aicore_execute first" "$(json "$TMP/hs.json" 'd["stacks"][0].split(" <- ")[0]')" "16 x aicore_execute"
check "handshake: handshake_all_cores folded once" grep -q '"1 x [^"]*handshake_all_cores <- scheduler_main' "$TMP/hs.json"
check_eq "handshake: signature frames (the spinners' culprit only)" "$(json "$TMP/hs.json" '",".join(d["signature"]["frames"])')" "aicore_execute"
stop_tree

# --- hang in a grandchild ---
start gc "$FIX/hang" grandchild
wait_for "grandchild ready" ready gc
stacks_json "$pid" gc
check_eq "grandchild: 3 processes" "$(json "$TMP/gc.json" 'len(d["processes"])')" 3
check_eq "grandchild: depths" "$(json "$TMP/gc.json" '[p["depth"] for p in d["processes"]]')" "[0, 1, 2]"
check_eq "grandchild: kind" "$(json "$TMP/gc.json" 'd["kind"]')" livelock
check_eq "grandchild: parents wait for children" "$(json "$TMP/gc.json" 'd["roles"]["wait-child"]')" 2
check "grandchild: grandchild_spin folded" grep -q '"1 x spin_wait <- grandchild_spin <- main' "$TMP/gc.json"
check_eq "grandchild: culprit" "$(json "$TMP/gc.json" 'd["signature"]["frames"][0]')" spin_wait
stop_tree

# --- sleeping, blocked on a pipe ---
start sl "$FIX/hang" sleep
wait_for "sleep ready" ready sl
wait_for "asleep" all_in_syscall "$pid" 230 1
stacks_json "$pid" sl
check_eq "sleep: kind" "$(json "$TMP/sl.json" 'd["kind"]')" sleeping
stop_tree
start pp "$FIX/hang" pipe
wait_for "pipe ready" ready pp
wait_for "reading" all_in_syscall "$pid" 0 1
stacks_json "$pid" pp
check_eq "pipe: kind" "$(json "$TMP/pp.json" 'd["kind"]')" blocked-io
check "pipe: culprit is main" grep -q '"frames":\["main"\]' "$TMP/pp.json"
stop_tree

# --- stopped ---
start st "$FIX/hang" sleep
wait_for "sleep ready" ready st
kill -STOP "$pid"
wait_for "stopped" grep -q '^State:.T' /proc/"$pid"/status
stacks_json "$pid" st
check_eq "stopped: kind" "$(json "$TMP/st.json" 'd["kind"]')" stopped
check_eq "stopped: stays stopped" "$(awk '{print $3}' /proc/"$pid"/stat)" T
stop_tree

# --- held by a tracer of its own (LeakSanitizer's at exit): not "stopped" ---
start tr "$FIX/hang" traced
wait_for "traced ready" ready tr
stacks_json "$pid" tr
check "traced: not called stopped" test "$(json "$TMP/tr.json" 'd["kind"]')" != stopped
check_eq "traced: the held thread waits for its tree" \
	"$(json "$TMP/tr.json" '[t["role"] for p in d["processes"] for t in p["threads"] if p["pid"] == '"$pid"'][0]')" wait-child
stop_tree

# --- Python: hung in known functions, faulthandler prints every thread ---
start py env PYTHONFAULTHANDLER=1 /usr/bin/python3 "$ROOT/tests/fixtures/py_hang.py"
wait_for "python ready" ready py || { cat "$TMP/py.err"; ps -o pid,stat,wchan,cmd -p "$pid"; }
stacks_json "$pid" py
check_eq "python: detected" "$(json "$TMP/py.json" 'd["processes"][0]["python"]')" True
check_eq "python: faulthandler detected" "$(json "$TMP/py.json" 'd["processes"][0]["faulthandler"]')" True
check_eq "python: kind" "$(json "$TMP/py.json" 'd["kind"]')" deadlock
"$JOSTLE" stacks "$pid" --no-stacks --python-abort > /dev/null
wait "$pid" 2>/dev/null
check "python: traceback of wait_for_never" grep -q 'line [0-9]* in wait_for_never' "$TMP/py.err"
check "python: traceback of worker_blocked" grep -q 'line [0-9]* in worker_blocked' "$TMP/py.err"

# --- errors ---
"$JOSTLE" stacks 12x > /dev/null 2>&1; check_eq "bad pid: exit 2" "$?" 2
"$JOSTLE" stacks "$pid" > /dev/null 2> "$TMP/gone.err"; check_eq "gone pid: exit 1" "$?" 1
check "gone pid: message" grep -q "^jostle: process $pid does not exist" "$TMP/gone.err"
"$JOSTLE" stacks $$ --window 0 > /dev/null 2> "$TMP/w.err"; check_eq "bad window: exit 2" "$?" 2
check "bad window: names the option" grep -q "'--window'" "$TMP/w.err"
"$JOSTLE" stacks $$ --format xml > /dev/null 2>&1; check_eq "bad format: exit 2" "$?" 2
"$JOSTLE" stacks --help | grep -q -- '--python-abort'; check_eq "help lists options" "$?" 0
