#!/usr/bin/env bash
# --noise: hogs run during the series, pinned with the runs, and none
# survives jostle: after a normal end and after Ctrl-C.
. "$(dirname "$0")/../lib.sh"
M=$TMP/noise-marker-$$-$RANDOM     # in jostle's argv, so in every hog's too

# hogs PID: the noise processes of jostle PID (its children named jostle-noise)
hogs() { pgrep -P "$1" -x jostle-noise 2>/dev/null | wc -l; }

"$JOSTLE" run -q -n 4 -j 2 --noise cpu:2,mem:1M,cache:1 --chaos none -o "$M-a" -- "$FIX/flaky" pass 2>/dev/null
check_eq "normal end: exit 0" "$?" 0
check_eq "normal end: every run recorded the noise" \
	"$(json "$M-a/runs.jsonl" 'sorted({r["config"]["noise"] for r in rows})')" "['cpu:2,mem:1048576,cache:1']"
check "normal end: no hog left" no_leftovers "$M-a"

# Ctrl-C while a run hangs and the hogs spin
"$JOSTLE" run -q -j 1 --cpus 0 --noise cpu:2 --chaos none --timeout 60s -o "$M-b" -- "$FIX/flaky" hang-on 0 > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do [ "$(hogs $pid)" -ge 2 ] && break; sleep 0.05; done
check_eq "Ctrl-C: two hogs were running" "$(hogs $pid)" 2
hog=$(pgrep -P $pid -x jostle-noise | head -1)
check_eq "Ctrl-C: hogs pinned to the runs' CPUs (--cpus 0)" "$(taskset -pc "$hog" 2>/dev/null | sed 's/.*: //')" 0
check "Ctrl-C: hogs are in their own process group" test "$(ps -o pgid= -p "$hog" | tr -d ' ')" != "$(ps -o pgid= -p $pid | tr -d ' ')"
kill -INT $pid
wait $pid
check_eq "Ctrl-C: exit 130" "$?" 130
check "Ctrl-C: no hog left" no_leftovers "$M-b"

# jitter: one preempter per CPU of the set, each pinned to its own CPU
"$JOSTLE" run -q -j 1 --noise jitter:2 --chaos none --timeout 60s -o "$M-j" -- "$FIX/flaky" hang-on 0 > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do [ "$(hogs $pid)" -ge 2 ] && break; sleep 0.05; done
check_eq "jitter: two preempters" "$(hogs $pid)" 2
if [ "$(nproc)" -ge 2 ]; then
	# (whatever the CPU ids: two single CPUs, not the same one)
	sets=$(for h in $(pgrep -P $pid -x jostle-noise); do taskset -pc "$h" | sed 's/.*: //'; done | sort -u)
	check_eq "jitter: each pinned to one CPU, in turn" "$(echo "$sets" | grep -cx '[0-9]*')" 2
fi
kill -INT $pid
wait $pid
check_eq "jitter: exit 130" "$?" 130
check "jitter: no preempter left" no_leftovers "$M-j"
"$JOSTLE" run -q -n 3 -j 2 --noise jitter:2 --chaos none -o "$M-k" -- "$FIX/flaky" pass 2>/dev/null
check_eq "jitter: recorded" "$(json "$M-k/runs.jsonl" 'sorted({r["config"]["noise"] for r in rows})')" "['jitter:2']"
check "jitter: none left after a normal end" no_leftovers "$M-k"

# SIGKILL of jostle itself: the hogs die with it (parent-death signal)
"$JOSTLE" run -q -j 1 --noise cpu:1 --chaos none --timeout 60s -o "$M-c" -- "$FIX/flaky" hang-on 0 > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 400); do [ "$(hogs $pid)" -ge 1 ] && break; sleep 0.05; done
{ kill -KILL $pid; wait $pid; } 2>/dev/null
for _ in $(seq 1 100); do no_leftovers "$M-c" && break; sleep 0.05; done
check "SIGKILL: no hog left" no_leftovers "$M-c"
