#!/usr/bin/env bash
# Python stacks read from outside and merged into the native ones
# (diagnose/pystack.c): tests/fixtures/py_stacks.py wedged four ways, under
# Debian's python3 and every interpreter listed in JOSTLE_TEST_PYTHONS
# (space-separated paths, e.g. other CPython versions), plain and embedded
# in a program that is not python (tests/fixtures/py_embed.c); every thread's
# function and line, the signature, the failure modes; every process alive
# afterwards. tests/tools/pyoffsets_check.c against the headers installed.
. "$(dirname "$0")/../lib.sh"

pids=()
cleanup() { for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup EXIT

SCRIPT=$ROOT/tests/fixtures/py_stacks.py
line_of() { grep -n "# line: $1\$" "$SCRIPT" | cut -d: -f1; }
L_LOCK=$(line_of lock) L_AB=$(line_of a_then_b) L_BA=$(line_of b_then_a)
L_SPIN=$(line_of spin) L_NAP=$(line_of nap) L_JOIN=$(line_of join)

# start NAME CMD...: run CMD, output to $TMP/NAME.out; sets $pid.
start() {
	local name=$1; shift
	"$@" > "$TMP/$name.out" 2>&1 &
	pid=$!
	pids+=("$pid")
}

# in_syscall PID NR COUNT: at least COUNT threads of PID blocked in syscall NR
in_syscall() {
	local n
	n=$(cat /proc/"$1"/task/*/syscall 2>/dev/null | awk -v nr="$2" '$1 == nr' | wc -l)
	[ "$n" -ge "$3" ]
}
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.T' /proc/"$1"/status; }
stop() { kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }

# threads_ok FILE LABEL...: every thread of the diagnosis shows one of the
# labels among its frames ("wait_on_lock (py_stacks.py:36)"), each label is
# shown by some thread.
threads_ok() {
	/usr/bin/python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = sys.argv[2:]
found = set()
for p in d["processes"]:
    for t in p["threads"]:
        hit = [w for w in want if w in t["frames"]]
        if not hit:
            print("# thread", t["tid"], t["comm"], "shows none of", want, "in", t["frames"][:16])
            sys.exit(1)
        found.update(hit)
if set(want) - found:
    print("# no thread shows", sorted(set(want) - found))
    sys.exit(1)
PY
}

# wedge TAG MODE CMD...: start the fixture in MODE, wait until it is in place
wedge() {
	local tag=$1 mode=$2; shift 2
	start "$tag" "$@" "$SCRIPT" "$mode"
	wait_for "$tag ready" ready "$tag" || { cat "$TMP/$tag.out"; return 1; }
	case $mode in
	lock) wait_for "$tag: 2 futex waits" in_syscall "$pid" 202 2 ;;
	deadlock) wait_for "$tag: 3 futex waits" in_syscall "$pid" 202 3 ;;
	busy) wait_for "$tag: main joins" in_syscall "$pid" 202 1 ;;
	ctypes) wait_for "$tag: asleep in libc" in_syscall "$pid" 230 1 && in_syscall "$pid" 202 1 ;;
	esac
}

# check_python TAG VERSION CMD...: the four hangs under interpreter command CMD
check_python() {
	local tag=$1 v=$2; shift 2

	wedge "$tag-lock" lock "$@"
	"$JOSTLE" stacks "$pid" --format json > "$TMP/$tag-lock.json"
	check_eq "$tag lock: exit 0" "$?" 0
	check_eq "$tag lock: Python frames read" "$(json "$TMP/$tag-lock.json" 'd["processes"][0]["python_stacks"]')" frames
	check_eq "$tag lock: version" "$(json "$TMP/$tag-lock.json" 'd["processes"][0]["python_version"]')" "$v"
	check "$tag lock: every thread's function and line" threads_ok "$TMP/$tag-lock.json" \
		"wait_on_lock (py_stacks.py:$L_LOCK)" "main (py_stacks.py:$L_JOIN)"
	check_eq "$tag lock: the named thread waits on the lock" \
		"$(json "$TMP/$tag-lock.json" '[t for t in d["processes"][0]["threads"] if t["comm"] == "waiter"][0]["frames"].count("wait_on_lock (py_stacks.py:'"$L_LOCK"')")')" 1
	check_eq "$tag lock: no interpreter frame left" \
		"$(json "$TMP/$tag-lock.json" 'sum(f.startswith("_PyEval_EvalFrameDefault") for p in d["processes"] for t in p["threads"] for f in t["frames"])')" 0
	check_eq "$tag lock: the signature names the Python functions" \
		"$(json "$TMP/$tag-lock.json" '",".join(d["signature"]["frames"])')" "py_stacks.py:main,py_stacks.py:wait_on_lock"
	check "$tag lock: alive afterwards" alive "$pid"
	"$JOSTLE" stacks "$pid" > "$TMP/$tag-lock.txt"
	check "$tag lock: text shows the merged stack" grep -q "<- wait_on_lock (py_stacks.py:$L_LOCK) <- " "$TMP/$tag-lock.txt"
	check "$tag lock: text names the interpreter" grep -q "\[python $v: Python frames of 2 threads\]" "$TMP/$tag-lock.txt"
	"$JOSTLE" stacks "$pid" --native-only --format json > "$TMP/$tag-native.json"
	check_eq "$tag --native-only: interpreter frames kept" \
		"$(json "$TMP/$tag-native.json" 'any(f == "_PyEval_EvalFrameDefault" for t in d["processes"][0]["threads"] for f in t["frames"])')" True
	check_eq "$tag --native-only: no Python frame" "$(grep -c 'py_stacks.py:' "$TMP/$tag-native.json")" 0
	check "$tag lock: alive after --native-only" alive "$pid"
	stop

	wedge "$tag-dl" deadlock "$@"
	"$JOSTLE" stacks "$pid" --format json > "$TMP/$tag-dl.json"
	check_eq "$tag deadlock: kind" "$(json "$TMP/$tag-dl.json" 'd["kind"]')" deadlock
	check "$tag deadlock: every thread's function and line" threads_ok "$TMP/$tag-dl.json" \
		"take_b_after_a (py_stacks.py:$L_AB)" "take_a_after_b (py_stacks.py:$L_BA)" "main (py_stacks.py:$L_JOIN)"
	check_eq "$tag deadlock: signature" "$(json "$TMP/$tag-dl.json" '",".join(d["signature"]["frames"])')" \
		"py_stacks.py:main,py_stacks.py:take_a_after_b,py_stacks.py:take_b_after_a"
	check "$tag deadlock: alive afterwards" alive "$pid"
	stop

	wedge "$tag-busy" busy "$@"
	"$JOSTLE" stacks "$pid" --format json > "$TMP/$tag-busy.json"
	check_eq "$tag busy: kind" "$(json "$TMP/$tag-busy.json" 'd["kind"]')" livelock
	check "$tag busy: every thread's function and line" threads_ok "$TMP/$tag-busy.json" \
		"spin (py_stacks.py:$L_SPIN)" "main (py_stacks.py:$L_JOIN)"
	check_eq "$tag busy: signature" "$(json "$TMP/$tag-busy.json" '",".join(d["signature"]["frames"])')" "py_stacks.py:spin"
	check "$tag busy: alive afterwards" alive "$pid"
	stop

	wedge "$tag-ct" ctypes "$@"
	"$JOSTLE" stacks "$pid" --format json > "$TMP/$tag-ct.json"
	check "$tag ctypes: every thread's function and line" threads_ok "$TMP/$tag-ct.json" \
		"nap (py_stacks.py:$L_NAP)" "main (py_stacks.py:$L_JOIN)"
	check_eq "$tag ctypes: libc sleep under the Python frame" \
		"$(json "$TMP/$tag-ct.json" '[f for t in d["processes"][0]["threads"] for f in t["frames"] if f in ("sleep", "nap (py_stacks.py:'"$L_NAP"')")]')" \
		"['sleep', 'nap (py_stacks.py:$L_NAP)']"
	check "$tag ctypes: alive afterwards" alive "$pid"
	stop
}

pythons=(/usr/bin/python3)
read -r -a extra <<< "${JOSTLE_TEST_PYTHONS:-}"
pythons+=("${extra[@]}")
for py in "${pythons[@]}"; do
	[ -x "$py" ] || { ok "# SKIP $py is not installed"; continue; }
	mm=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	tag=$(basename "$py")
	if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
		v=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
		check_python "$tag" "$v" "$py"
		# the same, embedded: a program named py_embed that loads libpython
		lib=$("$py" -c 'import sysconfig as s; print("%s/%s" % (s.get_config_var("LIBDIR"), s.get_config_var("INSTSONAME")))' 2>/dev/null)
		if [ -f "$lib" ]; then
			check_python "embed-$tag" "$v" "$FIX/py_embed" "$lib"
		else
			ok "# SKIP embedded $tag: no libpython found ('$lib')"
		fi
	else
		wedge "$tag-old" lock "$py"
		"$JOSTLE" stacks "$pid" > "$TMP/$tag-old.txt"
		check "$tag: says the version is not supported" grep -q "python $pid .*not supported" "$TMP/$tag-old.txt"
		check "$tag: native stacks still shown" grep -q "_PyEval_EvalFrameDefault" "$TMP/$tag-old.txt"
		check "$tag: alive afterwards" alive "$pid"
		stop
	fi
done

# --- failure modes ---
# An interpreter without _PyRuntime (stripped, or not Python at all): one
# line, the native stack still shown.
cp "$FIX/hang" "$TMP/python3.11"
start stripped "$TMP/python3.11" sleep
wait_for "stripped ready" ready stripped
wait_for "asleep" in_syscall "$pid" 230 1
"$JOSTLE" stacks "$pid" > "$TMP/stripped.txt"; rc=$?
check_eq "stripped: exit 0" "$rc" 0
check_eq "stripped: one line says why" "$(grep -c "python $pid python3.11: no _PyRuntime symbol in 'python3.11'" "$TMP/stripped.txt")" 1
check "stripped: native stack still shown" grep -q "1 x .*main" "$TMP/stripped.txt"
check "stripped: alive afterwards" alive "$pid"
stop

# --python-abort leaves alone a process whose frames were read
start fh env PYTHONFAULTHANDLER=1 /usr/bin/python3 "$SCRIPT" lock
wait_for "fh ready" ready fh
wait_for "fh: 2 futex waits" in_syscall "$pid" 202 2
"$JOSTLE" stacks "$pid" --python-abort --format json > "$TMP/fh.json"
check_eq "python-abort: frames read" "$(json "$TMP/fh.json" 'd["processes"][0]["python_stacks"]')" frames
check "python-abort: not aborted when the frames were read" alive "$pid"
stop

# --- the built-in layouts against the interpreters' own headers ---
for inc in /usr/include/python3.1[1-9] ${JOSTLE_TEST_PYTHON_INCLUDES:-}; do
	[ -f "$inc/internal/pycore_frame.h" ] || continue
	if cc -std=c17 -D_GNU_SOURCE -DPy_BUILD_CORE -I"$inc" -iquote "$ROOT/src" \
	      "$ROOT/tests/tools/pyoffsets_check.c" "$ROOT/src/diagnose/pyoffsets.c" \
	      -o "$TMP/pyoffsets_check" 2> "$TMP/cc.err"; then
		"$TMP/pyoffsets_check" > "$TMP/offsets.txt"; rc=$?
		check "layouts match $inc ($(grep -o '[0-9]* checked' "$TMP/offsets.txt"))" test "$rc" -eq 0
		grep '^not ok' "$TMP/offsets.txt"
	else
		not_ok "pyoffsets_check builds against $inc"
		head -5 "$TMP/cc.err"
	fi
done

# --- jostle run on a hanging pytest test: the test's own function, 20 of 20 ---
# All twenty at once, so the suite waits one timeout: three times what twenty
# pytest start-ups take on this machine's CPUs now (one start-up measured
# first), at least 20 s. The test prints "hanging" first: a run still
# starting pytest when its time ran out (the machine got busier meanwhile)
# is told apart, said, and left out of the signature checks, never taken for
# a wrong signature.
pt() { PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "$@" -q -s -p no:cacheprovider "$ROOT/tests/fixtures/py_pytest_hang.py"; }
t0=$(date +%s%N)
pt /usr/bin/python3 -m pytest --collect-only > /dev/null 2>&1
startup_ms=$((($(date +%s%N) - t0) / 1000000))
timeout_s=$((startup_ms * 3 * 20 / $(nproc) / 1000 + 1))
[ "$timeout_s" -lt 20 ] && timeout_s=20
[ "$timeout_s" -gt 180 ] && timeout_s=180
pt "$JOSTLE" run -q -n 20 -j 20 --timeout "${timeout_s}s" -o "$TMP/pt" -- /usr/bin/python3 -m pytest > /dev/null 2>&1
reached=$(json "$TMP/pt/runs.jsonl" '" ".join(str(r["run"]) for r in rows if open("'"$TMP/pt/"'" + r["log"]).read().startswith("hanging"))')
nreached=$(wc -w <<< "$reached")
if [ "$nreached" -eq 20 ]; then
	ok "pytest: every run reached the hang before its timeout (${timeout_s} s)"
else
	ok "# SKIP pytest: only $nreached of 20 runs reached the hang in ${timeout_s} s (one start-up took ${startup_ms} ms before: the machine is overloaded); the others are left out"
fi
if [ "$nreached" -gt 0 ]; then
	check_eq "pytest: one signature, the test's own function, in every run that hung there" \
		"$(json "$TMP/pt/runs.jsonl" 'sorted({(r["outcome"], r["sig_kind"], ",".join(r["frames"])) for r in rows if str(r["run"]) in "'"$reached"'".split()})')" \
		"[('hang', 'deadlock', 'py_pytest_hang.py:test_waits_for_ever')]"
	first=${reached%% *}
	check "pytest: the stacks file shows the line" grep -q "test_waits_for_ever (py_pytest_hang.py:$(grep -n '# line: hang' "$ROOT/tests/fixtures/py_pytest_hang.py" | cut -d: -f1))" "$TMP/pt/stacks/$first.txt"
fi
check_eq "pytest: Python frames read from outside in every run" \
	"$(json "$TMP/pt/runs.jsonl" '{r["diag"]["python"]["stacks"] for r in rows}')" "{'frames'}"
check "pytest: no faulthandler output in any log" test -z "$(grep -l 'most recent call first\|Fatal Python error' "$TMP"/pt/logs/*.log)"
