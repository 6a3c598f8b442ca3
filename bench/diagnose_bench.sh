#!/usr/bin/env bash
# bench/diagnose_bench.sh: how long the hang diagnosis of a 100-thread process
# takes (tree, 200 ms sampling window, stacks of every thread, folding), and
# jostle's peak RSS while doing it. Prints Markdown tables.
#   REPS=5 bash bench/diagnose_bench.sh
set -u
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
J=build/jostle F=build/fixtures/hang
T=$(mktemp -d /tmp/jostle-diagbench.XXXXXX)
trap 'rm -rf "$T"' EXIT

echo "jostle stacks PID (wall and peak RSS of the jostle process, $REPS repetitions):"
echo
echo "| fixture | threads | wall min / median / max (ms) | diagnosis phases, median (sampling + stacks, ms) | jostle peak RSS max (KB) | class |"
echo "| --- | ---: | --- | --- | ---: | --- |"
for mode in "spin 99" "handshake 99" "deadlock"; do
	setsid $F $mode > "$T/out" 2>&1 &
	pid=$!
	for _ in $(seq 1 500); do grep -q ready "$T/out" 2>/dev/null && break; sleep 0.01; done
	: > "$T/walls"; : > "$T/phases"; : > "$T/rss"
	for _ in $(seq 1 "$REPS"); do
		/usr/bin/time -f "%e %M" -o "$T/time" $J stacks "$pid" --format json > "$T/j.json"
		read -r wall rss < "$T/time"
		echo "$wall" >> "$T/walls"; echo "$rss" >> "$T/rss"
		/usr/bin/python3 -c "import json;d=json.load(open('$T/j.json'));print(round(d['sampling_ms']),round(d['stacks_ms']),d['threads'],d['kind'])" >> "$T/phases"
	done
	kill -KILL -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	/usr/bin/python3 - "$mode" "$T" <<'PY'
import sys, statistics
mode, t = sys.argv[1], sys.argv[2]
walls = sorted(float(x) * 1000 for x in open(t + "/walls"))
ph = [l.split() for l in open(t + "/phases")]
rss = max(int(x) for x in open(t + "/rss"))
samp = statistics.median(int(p[0]) for p in ph); st = statistics.median(int(p[1]) for p in ph)
print("| hang %s | %s | %.0f / %.0f / %.0f | %.0f + %.0f | %d | %s |" % (mode, ph[0][2], walls[0],
      statistics.median(walls), walls[-1], samp, st, rss, ph[0][3]))
PY
done

echo
echo "Inside jostle run (timeout to end of diagnosis, from the record's diag.elapsed_ms; jostle's peak RSS for the series):"
echo
/usr/bin/time -f "%M" -o "$T/rrss" $J run -q -n "$REPS" -j 1 --timeout 1s -o "$T/run" -- $F handshake 99 > /dev/null 2>&1
/usr/bin/python3 - "$T/run/runs.jsonl" "$(tail -n 1 "$T/rrss")" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get("type") == "run"]
e = sorted(r["diag"]["elapsed_ms"] for r in rows)
print("| runs | threads | diag elapsed min / median / max (ms) | jostle peak RSS (KB) | signature |")
print("| ---: | ---: | --- | ---: | --- |")
print("| %d | %d | %.0f / %.0f / %.0f | %s | %s %s |" % (len(rows), rows[0]["diag"]["threads"], e[0],
      statistics.median(e), e[-1], sys.argv[2], rows[0]["sig_kind"], ",".join(rows[0]["frames"])))
PY
