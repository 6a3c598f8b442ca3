#!/usr/bin/env bash
# What a new user tripped over (issue 19): the bound of a clean series, checks
# before anything is created, messages, conditions only when asked, the
# per-arm table, a seed any shell can do arithmetic on.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky
lacks() { ! grep -Eq -- "$1" "$2"; }   # lacks REGEX FILE

# A proven bound is rounded up, the same in the closing line and the reports:
# 0 of 300 is 0.9936%, not "< 0.99%".
"$JOSTLE" run -n 300 -j 2 -o "$TMP/clean" -- "$F" pass > /dev/null 2> "$TMP/clean.err"
check_eq "clean 300: exit 0" "$?" 0
check "clean 300: closing line rounds the bound up" grep -q "0 of 300 failed: failure rate < 0.994% with 95% confidence" "$TMP/clean.err"
check "clean 300: report.md says the same" grep -q "failure rate < 0.994% with 95% confidence" "$TMP/clean/report.md"
check_eq "clean 300: summary.json proof" "$(json "$TMP/clean/summary.json" 'd["proof"]')" \
	"0 of 300 runs failed: failure rate < 0.994% with 95% confidence"

# Everything is checked before anything is created: no "results in", no folder.
"$JOSTLE" run -n 1 --cpus 99 -o "$TMP/none/out" -- "$F" pass > "$TMP/cpus.out" 2>&1
check_eq "--cpus 99: exit 2" "$?" 2
check_eq "--cpus 99: one line, the error" "$(wc -l < "$TMP/cpus.out")" 1
check "--cpus 99: no 'results in'" lacks "results in" "$TMP/cpus.out"
check "--cpus 99: no results folder" test ! -e "$TMP/none"
"$JOSTLE" run -n 1 --chaos-level 2 -o "$TMP/none/out" -- "$F" pass > "$TMP/lvl.out" 2>&1
check_eq "--chaos-level without --chaos: exit 2" "$?" 2
check "--chaos-level without --chaos: says what to add" grep -q "^jostle: --chaos-level needs a chaos mode" "$TMP/lvl.out"
check "--chaos-level without --chaos: no results folder" test ! -e "$TMP/none"

# A path with a slash is not looked up in PATH, so the message does not say so.
"$JOSTLE" run -n 1 -o "$TMP/none/out" -- /nonexistent/cmd > "$TMP/slash.out" 2>&1
check_eq "/nonexistent/cmd: exit 2" "$?" 2
check "/nonexistent/cmd: not found" grep -q "^jostle: command '/nonexistent/cmd' not found" "$TMP/slash.out"
check "/nonexistent/cmd: no 'checked PATH'" lacks "PATH" "$TMP/slash.out"
"$JOSTLE" run -n 1 -o "$TMP/none/out" -- no-such-cmd-jostle > "$TMP/bare.out" 2>&1
check "bare name: 'checked PATH'" grep -q "not found (checked PATH)" "$TMP/bare.out"

# --cpus alone restricts the CPUs and nothing else: no --chaos auto.
JOSTLE_CGROUP=off "$JOSTLE" run -q -n 4 -j 2 --cpus 1 -o "$TMP/c1" -- "$F" pass 2> "$TMP/c1.err"
check_eq "--cpus alone: settings say chaos none" "$(json "$TMP/c1/runs.jsonl" 'series[0]["settings"]["chaos"]')" none
check_eq "--cpus alone: every run in one configuration" \
	"$(json "$TMP/c1/runs.jsonl" 'sorted({(r["config"]["arm"], r["config"]["chaos"], r["config"]["cpus"]) for r in rows})')" \
	"[('none', 'none', '0')]"
check "--cpus alone: the summary says fixed, not auto" grep -q "failure rate per configuration (fixed" "$TMP/c1.err"

# The per-arm table (from runs.jsonl) lists the arms that ran, never one
# with [0%, 100%].
"$JOSTLE" run -q -n 1 -j 1 --chaos auto -o "$TMP/a1" -- "$F" pass 2> "$TMP/a1.err"
check "auto, one run: no arm that never ran" lacks 'not run' "$TMP/a1.err"
check "auto, one run: no empty interval shown" lacks '\[0.0%, 100.0%\]' "$TMP/a1.err"
check_eq "auto, one run: one arm ran" "$(grep -Ec '^  [a-z0-9-]+ +1 +0 ' "$TMP/a1.err")" 1

# JOSTLE_SEED is unsigned 64-bit; JOSTLE_SEED32 fits any shell's arithmetic.
"$JOSTLE" run -q -n 4 -j 2 --seed 0xffffffffffffffff -o "$TMP/s" -- \
	dash -c 'echo "seed=$JOSTLE_SEED seed32=$JOSTLE_SEED32 mod=$((JOSTLE_SEED32 % 10))"; exit 1' 2>/dev/null
got=$(cat "$TMP"/s/logs/*.log | /usr/bin/python3 -c '
import re, sys
ok = 0
for line in sys.stdin:
    m = re.match(r"seed=(\d+) seed32=(\d+) mod=(\d+)", line)
    if m:
        s, s32, mod = map(int, m.groups())
        ok += s32 == (s ^ (s >> 32)) & 0xffffffff and mod == s32 % 10 and s32 < 2**32
print(ok)')
check_eq "JOSTLE_SEED32: the seed folded to 32 bits, usable in dash" "$got" 4
check "JOSTLE_SEED: some seed above 2^63 (why SEED32 exists)" test "$(json "$TMP/s/runs.jsonl" 'any(int(r["seed"], 16) >= 2**63 for r in rows)')" = True

# jostle stacks from a shell: jostle itself is not part of the tree it
# examines, and a tree where nothing runs is no livelock.
bash -c 'sleep 60 & sleep 60 & "$0" stacks $$ --no-stacks > "$1"; kill %1 %2' "$JOSTLE" "$TMP/st.txt"
check "stacks of a shell: not a livelock" lacks "^livelock" "$TMP/st.txt"
check "stacks of a shell: jostle is not in the tree" lacks '^ +[0-9]+ jostle ' "$TMP/st.txt"
check "stacks of a shell: the sleeps are" grep -Eq '^ +[0-9]+ sleep ' "$TMP/st.txt"

# Runs still going when --time ends are recorded as cut: not passed, not
# failed, in no rate, counted and shown.
# Run 0 hangs; a quick run may also be in flight when the budget ends (how
# many depends on the load), so the count is read from runs.jsonl.
"$JOSTLE" run -n 40 -j 2 --time 1s --timeout 120s -o "$TMP/cut" -- "$F" hang-on 0 > /dev/null 2> "$TMP/cut.err"
check_eq "cut: exit 0 (no failure)" "$?" 0
check_eq "cut: run 0 recorded as cut by the time budget, as any other cut" \
	"$(json "$TMP/cut/runs.jsonl" '(0 in [r["run"] for r in rows if r["outcome"] == "cut"], set(r["cut_by"] for r in rows if r["outcome"] == "cut"))')" \
	"(True, {'time budget spent'})"
ncut=$(json "$TMP/cut/runs.jsonl" 'sum(r["outcome"] == "cut" for r in rows)')
check_eq "cut: in no rate, counted apart" \
	"$(json "$TMP/cut/summary.json" '(d["cut"], d["runs"] == d["pass"], d["failures"])')" "($ncut, True, 0)"
check "cut: the closing line says so ($ncut cut)" grep -q "$ncut cut (still running when the series ended: not counted)" "$TMP/cut.err"
check "cut: report.md says so" grep -q "$ncut more cut" "$TMP/cut/report.md"
check "cut: its output is kept" grep -q "run 0 hangs" "$TMP/cut/logs/0.log"

# The CPU time of a run counts what it left behind: an orphaned grandchild
# that burnt 300 ms is not in the run's rusage, but in its record.
"$JOSTLE" run -q -n 1 -o "$TMP/cpu" -- "$F" burn-leave 300 2>/dev/null
check "cpu: the grandchild's CPU is in the record ($(json "$TMP/cpu/runs.jsonl" 'rows[0]["user_s"] + rows[0]["sys_s"]') s)" \
	test "$(json "$TMP/cpu/runs.jsonl" 'rows[0]["user_s"] + rows[0]["sys_s"] >= 0.29')" = True

# Frames agree between stacks/RUN.txt, runs.jsonl and the closing summary
# (a hung Python program: its frames come from the tracebacks in the log).
"$JOSTLE" run -n 1 --timeout 5s --grace 200ms -o "$TMP/py" -- /usr/bin/python3 "$ROOT/tests/fixtures/py_hang.py" \
	> /dev/null 2> "$TMP/py.err"
frames=$(json "$TMP/py/runs.jsonl" '" ".join(rows[0]["frames"])')
check "py hang: frames recorded" test -n "$frames"
check_eq "py hang: stacks/0.txt names the same frames" \
	"$(sed -n 's/^signature: [a-z-]*; frames: \([^(]*[^( ]\)\( (.*)\)\{0,1\}$/\1/p' "$TMP/py/stacks/0.txt")" "$frames"
check_eq "py hang: one signature line in stacks/0.txt" "$(grep -c '^signature: ' "$TMP/py/stacks/0.txt")" 1
check "py hang: the closing summary shows them" grep -q "frames: ${frames// / <- }" "$TMP/py.err"

# -o into a folder of the user's own (issue 45): refused, nothing written
# over; an empty folder is fine.
mkdir -p "$TMP/notes" "$TMP/emptydir"
echo "my notes" > "$TMP/notes/report.md"
echo '{"mine":1}' > "$TMP/notes/summary.json"
"$JOSTLE" run -q -n 1 -o "$TMP/notes" -- true > /dev/null 2> "$TMP/notes.err"
check_eq "-o a non-empty folder without runs.jsonl: exit 2" "$?" 2
check_eq "-o a non-empty folder: one line" "$(wc -l < "$TMP/notes.err")" 1
check "-o a non-empty folder: says why" grep -q "is not empty and holds no runs.jsonl" "$TMP/notes.err"
check_eq "-o a non-empty folder: the user's files untouched" \
	"$(cat "$TMP/notes/report.md" "$TMP/notes/summary.json"; ls "$TMP/notes" | wc -l)" "my notes
{\"mine\":1}
2"
"$JOSTLE" run -q -n 1 -o "$TMP/emptydir" -- true > /dev/null 2>&1
check_eq "-o an empty folder: exit 0, runs.jsonl written" "$?:$(test -s "$TMP/emptydir/runs.jsonl"; echo $?)" "0:0"
