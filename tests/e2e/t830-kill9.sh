#!/usr/bin/env bash
# kill -9 of jostle at 100 moments of a series (from its start to after its
# end), each followed by `jostle report` and `jostle merge` on what is left,
# and again on the same leftover with runs.jsonl cut at a byte (what a
# writer killed inside its write, or a full disk, leaves): every file is
# readable, no half line is taken as a run, and what was dropped is counted.
# The moments and the cuts come from a seed (KILL_SEED, default 18): a
# failure names its trial, and the same seed replays it.
. "$(dirname "$0")/../lib.sh"
seed=${KILL_SEED:-18} trials=${KILL_TRIALS:-100}
RANDOM=$seed

# report and merge on $1, their outputs kept in $2 for the check below
read_left() {
	mkdir -p "$2"
	cp "$1/runs.jsonl" "$2/left.jsonl"
	"$JOSTLE" report "$1" > "$2/report" 2>&1; echo $? > "$2/report.rc"
	"$JOSTLE" report "$1" --format json -o "$2/report.json" >/dev/null 2>&1
	"$JOSTLE" merge "$1" -o "$2/m" > "$2/merge" 2>&1; echo $? > "$2/merge.rc"
}

for i in $(seq 1 "$trials"); do
	d=$TMP/k$i
	delay=$((RANDOM % 400)) cutat=$RANDOM
	"$JOSTLE" run -n 60 -j 4 -o "$d" -- "$FIX/flaky" fail-every 3 >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '0.%03d' "$delay")"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "$delay" > "$TMP/delay$i"
	[ -f "$d/runs.jsonl" ] || continue
	read_left "$d" "$TMP/t$i.kill"
	size=$(stat -c %s "$d/runs.jsonl")
	[ "$size" -gt 0 ] || continue
	truncate -s $((cutat % size)) "$d/runs.jsonl"
	read_left "$d" "$TMP/t$i.cut"
	echo "$((cutat % size)) of $size bytes" > "$TMP/t$i.cut/at"
	rm -rf "$d"
done

/usr/bin/python3 - "$TMP" "$trials" "$seed" <<'PY'
import json, os, sys
tmp, trials, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def count(path):
    """What a reader must accept: complete lines that parse as objects."""
    data = open(path, "rb").read()
    lines = data.split(b"\n")
    last = lines.pop()          # b"" when the file ends with its newline
    runs = bad = cut = 0
    for l in lines:
        l = l.rstrip(b"\r")
        if not l:
            continue
        try:
            o = json.loads(l)
            if not isinstance(o, dict) or b"\0" in l:
                raise ValueError
            runs += o.get("type") == "run"
        except ValueError:
            bad += 1
    if last.rstrip(b"\r"):
        bad, cut = bad + 1, 1
    return runs, bad, cut

def check(t):
    runs, bad, cut = count(f"{t}/left.jsonl")
    rc = int(open(f"{t}/report.rc").read())
    if rc > 1:
        return f"report exited {rc}", bad, cut
    text = open(f"{t}/report").read()
    if bad and f"skipped:  {bad} unreadable lines" not in text:
        return f"report does not say {bad} lines were skipped", bad, cut
    d = json.load(open(f"{t}/report.json"))
    got = (d["runs"] + d["ignored"], d["bad_lines"], d["cut_lines"])
    if got != (runs, bad, cut):
        return f"report json {got}, expected {(runs, bad, cut)}", bad, cut
    rc = int(open(f"{t}/merge.rc").read())
    if rc != 0:
        return f"merge exited {rc}", bad, cut
    m = count(f"{t}/m/runs.jsonl")
    if m != (runs, 0, 0):
        return f"merged {m} (runs, bad, cut), expected ({runs}, 0, 0)", bad, cut
    if bad and f"{bad} unreadable lines dropped" not in open(f"{t}/merge").read():
        return f"merge does not say {bad} lines were dropped", bad, cut
    return None, bad, cut

n = fails = left = dropped = cuts = 0
for i in range(1, trials + 1):
    delay = open(f"{tmp}/delay{i}").read().strip()
    for kind in ("kill", "cut"):
        t = f"{tmp}/t{i}.{kind}"
        if not os.path.isdir(t):
            continue
        left += kind == "kill"
        why, bad, cut = check(t)
        dropped, cuts = dropped + bad, cuts + cut
        if why:
            fails += 1
            at = f", cut at {open(t + '/at').read().strip()}" if kind == "cut" else ""
            n += 1
            print(f"not ok {n} - kill -9 trial {i} (seed {seed}, after {delay} ms{at}): {why}")
if not fails:
    n += 1
    print(f"ok {n} - kill -9 at {trials} moments (seed {seed}): report and merge read every "
          f"leftover and every leftover cut at a byte ({left} left a runs.jsonl; "
          f"{dropped} lines dropped, {cuts} cut short)")
n += 1
print(f"{'ok' if left >= trials // 4 else 'not ok'} {n} - most kills left a results folder "
      f"({left} of {trials})")
PY
