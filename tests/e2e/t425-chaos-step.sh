#!/usr/bin/env bash
# --chaos step: the preload library holds threads up before single
# instructions that touch shared memory, where no pthread call is (told by
# the fixture itself, so every check is deterministic); the program's own
# SIGTRAP handler (set with sigaction, or with the raw system call as Go's
# runtime does) and a thread that blocks every signal are unharmed; the
# configuration is recorded and replayed; and a wrong mode says what the
# modes are.
. "$(dirname "$0")/../lib.sh"
P=$FIX/step_probe
if [ "$(uname -m)" != x86_64 ]; then
	echo "ok - # SKIP --chaos step works on x86-64 only"
	exit 0
fi

"$JOSTLE" run -q -n 20 -j 2 --chaos step --seed 3 -o "$TMP/held" -- "$P" held > /dev/null 2>&1
check_eq "step: every run that stepped the looping thread (ordinal 1) held it up, and no other run (20 of 20)" \
	"$(json "$TMP/held/runs.jsonl" 'sum((r["config"]["step_threads"] & 2 != 0) == (r["exit"] == 1) for r in rows)')" 20
check_eq "step: which threads, drawn per run: every one but the first, every one, or one alone" \
	"$(json "$TMP/held/runs.jsonl" '(set(r["config"]["step_threads"] for r in rows) <= {254, 255, 1, 2, 4, 8}, len(set(r["exit"] for r in rows)))')" \
	"(True, 2)"
check_eq "step: each run's configuration says so" \
	"$(json "$TMP/held/runs.jsonl" 'sorted({(r["config"]["arm"], r["config"]["chaos"], r["config"]["sync_prob"], r["config"]["sync_max_us"], r["config"]["sync_budget_us"], r["config"]["steps"]) for r in rows})')" \
	"[('step', 'step', 0, 5000, 20000, 60000)]"

"$JOSTLE" run -q -n 20 -j 2 --chaos sync --chaos-level 2 --seed 3 -o "$TMP/sync" -- "$P" held > /dev/null 2>&1
check_eq "sync: no pthread call in the loop, so no run was held up in it" \
	"$(json "$TMP/sync/runs.jsonl" '[r["exit"] for r in rows].count(0)')" 20

"$JOSTLE" run -q -n 40 -j 2 --chaos step --seed 4 -o "$TMP/trap" -- "$P" trap > /dev/null 2>&1
check_eq "step: the program's SIGTRAP handler ran for its own trap, and blocking every signal killed nothing (40 of 40 pass)" "$?" 0

"$JOSTLE" run -q -n 20 -j 2 --chaos step --seed 5 -o "$TMP/raw" -- "$P" raw > /dev/null 2>&1
check_eq "step: a SIGTRAP handler set with the raw system call turns stepping off (20 of 20 pass)" "$?" 0

"$JOSTLE" run -q -n 20 -j 2 --chaos step --seed 6 -o "$TMP/badset" -- "$P" badset > /dev/null 2>&1
check_eq "step: rt_sigprocmask on an unmapped set fails with EFAULT as unstepped, nothing crashes (20 of 20 pass)" \
	"$(json "$TMP/badset/runs.jsonl" '[r["outcome"] for r in rows].count("pass")')" 20

# a trap with no step status in a stepped thread (icebp: TRAP_BRKPT, as a
# step whose status a hypervisor lost) is taken as a step: the process lives
FIX_OUT=$TMP/icebp.txt "$JOSTLE" run -q -n 12 -j 2 --chaos step --seed 1 -o "$TMP/icebp" -- "$P" icebp > /dev/null 2>&1
check_eq "step: a stepped thread's icebp does not kill the process (12 of 12 pass)" "$?" 0
check "step: some of those runs executed it stepped" grep -q '^icebp: stepped=1$' "$TMP/icebp.txt"

"$JOSTLE" run -q -n 2 --replay "$TMP/held:5" -o "$TMP/rep" -- "$P" held > /dev/null 2>&1
check_eq "replay: the recorded run's configuration and seed, held up again" \
	"$(json "$TMP/rep/runs.jsonl" 'sorted({(r["config"]["chaos"], r["seed"], r["exit"]) for r in rows})')" \
	"$(json "$TMP/held/runs.jsonl" '[(r["config"]["chaos"], r["seed"], r["exit"]) for r in rows if r["run"] == 5]')"

# auto sizes the instruction budget (config.steps); a replay keeps it
/usr/bin/python3 - "$TMP/held/runs.jsonl" "$TMP/budget.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        r = json.loads(line)
        if r.get("type") == "run" and r["run"] == 5:
            r["config"]["steps"] = 12345
        out.write(json.dumps(r) + "\n")
PY
mkdir -p "$TMP/budget" && mv "$TMP/budget.jsonl" "$TMP/budget/runs.jsonl"
"$JOSTLE" run -q -n 1 --replay "$TMP/budget:5" -o "$TMP/rep2" -- "$P" held > /dev/null 2>&1
check_eq "replay: the recorded instruction budget" \
	"$(json "$TMP/rep2/runs.jsonl" '[r["config"]["steps"] for r in rows]')" "[12345]"

# the threads stepped are part of a condition: a reproducer that names
# them steps those alone
for who in 1 2; do
	/usr/bin/python3 - "$TMP/who$who.json" "$who" <<'PY'
import json, sys
cond = {"arm": "step", "chaos": "step", "level": 1, "sync_prob": 0, "sync_max_us": 5000,
        "sync_budget_us": 20000, "steps": 60000, "step_threads": int(sys.argv[2]), "span_ms": 0,
        "jobs": 1, "cpus": "", "noise": "", "sites": []}
json.dump({"version": 1, "condition": cond}, open(sys.argv[1], "w"))
PY
	"$JOSTLE" run -q -n 3 --reproducer "$TMP/who$who.json" -o "$TMP/rw$who" -- "$P" held > /dev/null 2>&1
done
check_eq "reproducer: the first thread alone: the looping thread never held up (3 runs)" \
	"$(json "$TMP/rw1/runs.jsonl" '[(r["config"]["step_threads"], r["exit"]) for r in rows]')" "[(1, 0), (1, 0), (1, 0)]"
check_eq "reproducer: the looping thread alone: held up every time (3 runs)" \
	"$(json "$TMP/rw2/runs.jsonl" '[(r["config"]["step_threads"], r["exit"]) for r in rows]')" "[(2, 1), (2, 1), (2, 1)]"

"$JOSTLE" run -n 1 --chaos steps -o "$TMP/bad" -- "$P" held > /dev/null 2> "$TMP/bad.err"
check_eq "a wrong mode: exit 2" "$?" 2
check "a wrong mode: the message lists step" grep -q "expected none, threads, sync, step, all or auto" "$TMP/bad.err"
