#!/usr/bin/env bash
# bench/pystacks.sh: how long jostle takes to snapshot the Python stacks of a
# 100-thread Python process (tests/fixtures/py_stacks.py many: 100 threads
# parked in Event.wait, DEPTH Python calls deep, plus main), with the native
# stacks, and what reading the Python frames adds (--native-only beside it).
# `jostle stacks PID --window 1` so that the wall time is the snapshot: the
# tree stopped, every thread unwound, the Python frames read and merged.
# Prints a Markdown table.
#   REPS=5 DEPTHS="1 20" PYTHONS="/usr/bin/python3" bash bench/pystacks.sh
set -u
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
DEPTHS=${DEPTHS:-1 20}
PYTHONS=${PYTHONS:-/usr/bin/python3}
J=build/jostle S=tests/fixtures/py_stacks.py
T=$(mktemp -d /tmp/jostle-pybench.XXXXXX)
trap 'rm -rf "$T"' EXIT

echo "| python | threads | Python frames per parked thread | mode | wall min / median / max (ms) | stacks phase, median (ms) | of which Python, median (ms) | threads with park's line |"
echo "| --- | ---: | ---: | --- | --- | ---: | ---: | ---: |"
for py in $PYTHONS; do
	v=$("$py" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
	for depth in $DEPTHS; do
		"$py" $S many 100 "$depth" > "$T/out" 2>&1 &
		pid=$!
		for _ in $(seq 1 1000); do grep -q ready "$T/out" 2>/dev/null && break; sleep 0.01; done
		line=$(grep -n '# line: park$' $S | cut -d: -f1)
		for mode in python native; do
			: > "$T/rows"
			for _ in $(seq 1 "$REPS"); do
				opt=; [ $mode = native ] && opt=--native-only
				/usr/bin/time -f "%e" -o "$T/time" $J stacks "$pid" --window 1 $opt --format json > "$T/j.json"
				/usr/bin/python3 - "$T/j.json" "$(cat "$T/time")" "park (py_stacks.py:$line)" >> "$T/rows" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ths = [t for p in d["processes"] for t in p["threads"]]
parked = [t for t in ths if sys.argv[3] in t["frames"]]
pyf = max([sum(".py:" in f for f in t["frames"]) for t in parked] or [0])
print(float(sys.argv[2]) * 1000, d["stacks_ms"], d["python_ms"], d["threads"], len(parked), pyf)
PY
			done
			/usr/bin/python3 - "$T/rows" "$v" "$depth" "$mode" <<'PY'
import sys, statistics
rows = [[float(x) for x in l.split()] for l in open(sys.argv[1])]
w = sorted(r[0] for r in rows)
med = lambda i: statistics.median(r[i] for r in rows)
print("| %s | %d | %s | %s | %.0f / %.0f / %.0f | %.0f | %.1f | %d |" % (sys.argv[2], rows[0][3],
      "%d" % rows[0][5] if sys.argv[4] == "python" else "(depth %s)" % sys.argv[3], sys.argv[4],
      w[0], statistics.median(w), w[-1], med(1), med(2), rows[0][4]))
PY
		done
		kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	done
done
