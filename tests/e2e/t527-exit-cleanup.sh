#!/usr/bin/env bash
# jostle run: a Python process busy in its exit cleanup when --timeout
# fires (freeing tens of millions of objects, finalizers running) is `slow`,
# slow_why "exit cleanup", never a hang: the diagnosis sees its interpreter
# tearing down (diagnose/motion.h). 50 runs, each right (issue 43, Done
# when). The fixture returns from main 4 s after it started and its cleanup
# takes 3 s of CPU, so the timeout a second later lands in the cleanup at
# any load (tests/fixtures/py_exit_cleanup.py says why; half a second
# later, 1 run in 50 of the ASan build was still short of its cleanup beside
# a reproduce search, load 6); each run is ended once diagnosed, about 6 s. Why 4 s and not less: a run being
# diagnosed gives its -j slot to the next one, and the diagnoses (at nice
# -10, 1-2.5 s each in the ASan build) can starve the next runs' start-up
# for seconds; at 2 s, 1 run in 12 of the ASan build was still starting
# when its timeout came (load 30). A Python process that is stuck at
# exit (its main thread joining a thread that spins for ever) is still a
# hang.
. "$(dirname "$0")/../lib.sh"

FIXPY=$ROOT/tests/fixtures/py_exit_cleanup.py
runs() { json "$1/runs.jsonl" "$2"; }

"$JOSTLE" run -q -n 50 -j 2 --chaos none --timeout 5s -o "$TMP/ec" -- \
	/usr/bin/python3 "$FIXPY" 4 > "$TMP/ec.out" 2>&1
check_eq "exit cleanup: exit 0 (slow is no failure)" "$?" 0
check_eq "exit cleanup: 50 runs recorded" "$(runs "$TMP/ec" 'len(rows)')" 50
check_eq "exit cleanup: every run reached its cleanup before the timeout (the fixture's mark in its log)" \
	"$(runs "$TMP/ec" 'sum(1 for r in rows if "exit cleanup started" in open("'"$TMP/ec"'/" + r["log"]).read())')" 50
check_eq "exit cleanup: every run slow" "$(runs "$TMP/ec" 'sorted(set(r["outcome"] for r in rows))')" "['slow']"
check_eq "exit cleanup: every run's slow_why is exit cleanup" \
	"$(runs "$TMP/ec" 'sorted(set(str(r.get("slow_why")) for r in rows))')" "['exit cleanup']"
check_eq "exit cleanup: late, progressing" "$(runs "$TMP/ec" 'sorted(set(str(r.get("late")) for r in rows))')" "['progressing']"
check_eq "exit cleanup: the diagnosis says progressing, in exit cleanup" \
	"$(runs "$TMP/ec" 'sorted(set((r["diag"]["kind"], str(r["diag"].get("exit_cleanup"))) for r in rows))')" \
	"[('progressing', 'True')]"
check_eq "exit cleanup: no signature" "$(runs "$TMP/ec" 'sorted(set(str(r.get("sig_id")) for r in rows))')" "['None']"
check_eq "exit cleanup: summary counts them slow, none failed" \
	"$(json "$TMP/ec/summary.json" '(d["slow"], d["failures"])')" "(50, 0)"
check "exit cleanup: the stacks file says why" \
	grep -q '^stuck or slow: exit cleanup: Python process [0-9]* is tearing its interpreter down' "$TMP/ec/stacks/0.txt"
check "exit cleanup: the process is marked" grep -q '\[exit cleanup\]' "$TMP/ec/stacks/0.txt"
if [ "$(runs "$TMP/ec" 'sum(r["outcome"] != "slow" or r.get("slow_why") != "exit cleanup" for r in rows)')" != 0 ]; then
	runs "$TMP/ec" '"\n".join("# run %d: %s %s %s" % (r["run"], r["outcome"], r.get("slow_why"), r.get("diag", {}).get("summary")) for r in rows if r["outcome"] != "slow" or r.get("slow_why") != "exit cleanup")'
fi

# --- stuck at exit: the main thread joins a thread that spins for ever ---
cat > "$TMP/join_spin.py" <<'EOF'
import threading
def spin():
    while True:
        pass
threading.Thread(target=spin).start()
print("main done", flush=True)
EOF
"$JOSTLE" run -q -n 1 --chaos none --timeout 1s -o "$TMP/js" -- /usr/bin/python3 "$TMP/join_spin.py" > /dev/null 2>&1
check_eq "joining a spinning thread at exit: a hang, not exit cleanup" \
	"$(runs "$TMP/js" '(rows[0]["outcome"], rows[0]["diag"]["kind"], rows[0]["diag"].get("exit_cleanup"))')" \
	"('hang', 'livelock', None)"
