#!/usr/bin/env bash
# bench/peer_anatomy.sh: what does golang-stress -p N do that jostle does
# not? Side by side on one program (default the zoo's spin_handshake), each
# mode SECS seconds, ROUNDS times interleaved, every tool in its own session:
#   p8        golang-stress -p 8 -timeout RUN_TIMEOUT
#   j8        jostle run -j 8 --chaos none (the "crowd" of auto, alone)
#   j8-lean   the same with --no-crash-handler --no-diag
#   auto      jostle run --chaos auto
# and for each: runs, failures (and how many were timeouts), the failure
# rate per run, the mean number of the program's processes alive (sampled
# every 50 ms from the tool's children), the tool's own CPU time (its
# threads, not its children's), and the time from a run's end to the next
# start (jostle's records; golang-stress: not recorded).
#
# Environment: PROG="build/zoo/spin_handshake" ARGS="" SECS=30 ROUNDS=2
#   RUN_TIMEOUT=10 MODES="p8 j8 j8-lean auto" BUILD=build
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
PROG=${PROG:-$B/zoo/spin_handshake}
ARGS=${ARGS:-}
SECS=${SECS:-30}
ROUNDS=${ROUNDS:-2}
RT=${RUN_TIMEOUT:-10}
MODES=${MODES:-p8 j8 j8-lean auto}
JOSTLE=$PWD/$B/jostle
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
[ -x "$JOSTLE" ] && [ -x "$PROG" ] || { echo "peer_anatomy: build first (make)" >&2; exit 2; }
command -v golang-stress >/dev/null || { echo "peer_anatomy: golang-stress is not installed" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/peer-anatomy.XXXXXX")
bg=
trap '[ -n "$bg" ] && kill -KILL -- "-$bg" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# sample PID SECS: mean count of PID's descendants running PROG, every 50 ms,
# and PID's own CPU seconds (utime + stime of its threads) at the end
sample() {
	/usr/bin/python3 - "$1" "$2" "$(basename "$PROG")" <<'PY'
import os, sys, time
pid, secs, name = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3][:15]
tick = os.sysconf("SC_CLK_TCK")
def kids(p):
    out = []
    try:
        for t in os.listdir("/proc/%d/task" % p):
            try:
                out += [int(x) for x in open("/proc/%d/task/%s/children" % (p, t)).read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out
def cpu(p):
    try:
        f = open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / tick
    except (OSError, IndexError, ValueError):
        return None
n = total = 0
last = None
end = time.monotonic() + secs
while time.monotonic() < end:
    c = 0
    todo = kids(pid)
    while todo:
        k = todo.pop()
        try:
            if open("/proc/%d/comm" % k).read().strip() == name:
                c += 1
        except OSError:
            pass
        todo += kids(k)
    total += c
    n += 1
    last = cpu(pid) if cpu(pid) is not None else last
    time.sleep(0.05)
print("%.2f %.2f" % (total / max(n, 1), last or 0))
PY
}

row() { # MODE -> one table row
	local mode=$1 d=$tmp/$1.$RANDOM runs fails hangs conc cpu gap
	mkdir -p "$d"
	case $mode in
	p*)
		setsid golang-stress -p "${mode#p}" -timeout "${RT}s" -o "$d/f-" "$PROG" $ARGS > "$d/out" 2>&1 &
		bg=$!
		read -r conc cpu < <(sample "$bg" "$SECS")
		kill -TERM -- "-$bg" 2>/dev/null; sleep 0.3; kill -KILL -- "-$bg" 2>/dev/null; wait "$bg" 2>/dev/null; bg=
		# its count of runs comes every 5 s; every failure is a file at once
		runs=$(grep -ao '[0-9]* runs so far' "$d/out" | tail -1 | cut -d' ' -f1)
		fails=$(find "$d" -name 'f-*' | wc -l)
		[ "${runs:-0}" -ge "$fails" ] || runs=$fails
		hangs=$(grep -l 'timed out' "$d"/f-* 2>/dev/null | wc -l)
		gap=-
		;;
	*)
		local opts=(-q --no-report --time "${SECS}s" --timeout "${RT}s" -o "$d/j")
		case $mode in
		j8) opts+=(-j 8 --chaos none) ;;
		j8-lean) opts+=(-j 8 --chaos none --no-crash-handler --no-diag) ;;
		auto) opts+=(--chaos auto) ;;
		esac
		setsid "$JOSTLE" run "${opts[@]}" -- "$PROG" $ARGS > /dev/null 2>&1 &
		bg=$!
		read -r conc cpu < <(sample "$bg" "$SECS")
		wait "$bg"; bg=
		read -r runs fails hangs cpu gap < <(/usr/bin/python3 - "$d/j/runs.jsonl" <<'PY'
import bisect, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
runs = [r for r in rows if r.get("type") == "run"]
end = [r for r in rows if r.get("type") == "end"]
starts = sorted(r["t"] for r in runs)
gaps = []
for r in runs:
    e = r["t"] + r["wall_s"]
    i = bisect.bisect_left(starts, e)
    if i < len(starts):
        gaps.append(starts[i] - e)
gaps.sort()
print(len(runs), sum(r["outcome"] in ("fail", "crash", "hang") for r in runs),
      sum(r["outcome"] == "hang" for r in runs), end[0].get("jostle_cpu_s", 0) if end else 0,
      "%.1f" % (1e3 * gaps[len(gaps) // 2]) if gaps else "-")
PY
)
		;;
	esac
	runs=${runs:-0}
	local pct
	pct=$(awk -v f="$fails" -v n="$runs" 'BEGIN { printf "%.1f", n ? 100 * f / n : 0 }')
	echo "| $mode | $runs | $fails | $hangs | $pct% | $conc | $cpu | $gap | $(cut -d' ' -f1 /proc/loadavg) |"
}

echo "### peer_anatomy.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "\`PROG=$PROG ARGS=\"$ARGS\" SECS=$SECS ROUNDS=$ROUNDS RUN_TIMEOUT=$RT MODES=\"$MODES\" bash bench/peer_anatomy.sh\`"
echo
echo "| mode | runs | failures | of which timeouts | failing runs | programs alive (mean) | tool CPU s | end to next start, median ms | load |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for r in $(seq "$ROUNDS"); do
	for m in $MODES; do
		echo "peer_anatomy: round $r $m" >&2
		row "$m"
	done
done
