#!/usr/bin/env bash
# bench/hang_throughput.sh: does hang diagnosis cost jostle hangs per minute?
#
# A fixture that deadlocks in PCT percent of runs (tests/fixtures/hang.c,
# mode "share": by JOSTLE_SEED under jostle, at random under the peer),
# JOBS runs at a time, a TIMEOUT per run, BUDGET seconds per tool, side by
# side in one script run:
#   stall     jostle run -j JOBS --timeout TIMEOUT      (the default: a deadlock is
#             called when no thread can run again, before its deadline)
#   diag      jostle run ... --no-stall-check           (diagnosis on: workers off the loop)
#   nodiag    jostle run ... --no-stall-check --no-diag (killed at the deadline)
#   p8        golang-stress -p JOBS -timeout TIMEOUT     (the peer)
# and prints hangs per minute of each, diag / nodiag and diag / p8.
#
# Then the deadline test: a burst of BURST runs that all hang at once
# (-j BURST, PCT 100). Every run's record says how late after its deadline
# the engine saw it (diag.late_ms) and how long it waited for a worker
# (diag.queued_ms); the table gives late_ms for the runs whose deadline came
# while at least 5 others were being diagnosed or waiting for it.
#
# Then a crash storm: NCRASH runs of a fixture that dies of SIGSEGV, 8 at a
# time, with and without the crash handler (whose records jostle unwinds
# when it records the run): jostle's own CPU per crash (the end line's
# jostle_cpu_s), which is how long the event loop spends on each.
#
# Environment: BUDGET=60 JOBS=8 TIMEOUT=2 PCT=40 BURST=8 NCRASH=400 BUILD=build
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
BUDGET=${BUDGET:-60}
JOBS=${JOBS:-8}
TIMEOUT=${TIMEOUT:-2}
PCT=${PCT:-40}
BURST=${BURST:-8}
NCRASH=${NCRASH:-400}
JOSTLE=$PWD/$B/jostle
HANG=$PWD/$B/fixtures/hang
CRASH=$PWD/$B/fixtures/crash
for f in "$JOSTLE" "$HANG" "$CRASH"; do
	[ -x "$f" ] || { echo "hang_throughput: '$f' is not built (make)" >&2; exit 2; }
done
command -v golang-stress >/dev/null || { echo "hang_throughput: golang-stress is not installed (apt-get install golang-golang-x-tools)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hang-throughput.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "hang_throughput: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# jostle_hangs DIR: "hangs elapsed_s"
jostle_hangs() {
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1] + "/runs.jsonl") if l.strip()]
rows = [o for o in objs if o.get("type") == "run"]
end = [o for o in objs if o.get("type") == "end"][-1]
print(sum(1 for r in rows if r["outcome"] == "hang"), end["elapsed_s"])
PY
}

echo "hang_throughput: jostle (stall check on, the default), ${BUDGET}s" >&2
"$JOSTLE" run -q -j "$JOBS" --timeout "${TIMEOUT}s" --time "${BUDGET}s" -o "$tmp/stall" -- "$HANG" share "$PCT" > /dev/null 2>&1
read -r h_stall s_stall < <(jostle_hangs "$tmp/stall")
echo "hang_throughput: jostle with diagnosis, no stall check, ${BUDGET}s" >&2
"$JOSTLE" run -q -j "$JOBS" --timeout "${TIMEOUT}s" --time "${BUDGET}s" --no-stall-check -o "$tmp/diag" -- "$HANG" share "$PCT" > /dev/null 2>&1
read -r h_diag s_diag < <(jostle_hangs "$tmp/diag")
echo "hang_throughput: jostle --no-diag, ${BUDGET}s" >&2
"$JOSTLE" run -q -j "$JOBS" --timeout "${TIMEOUT}s" --time "${BUDGET}s" --no-stall-check --no-diag -o "$tmp/nodiag" -- "$HANG" share "$PCT" > /dev/null 2>&1
read -r h_nodiag s_nodiag < <(jostle_hangs "$tmp/nodiag")
echo "hang_throughput: golang-stress -p $JOBS, ${BUDGET}s" >&2
# golang-stress prints "N runs so far, M failures" every 5 s: run a whole
# number of reports and read the last one
secs=$(( (BUDGET + 4) / 5 * 5 ))
timeout -s INT "$((secs + 1))" setsid golang-stress -p "$JOBS" -timeout "${TIMEOUT}s" -o "$tmp/gsf-" "$HANG" share "$PCT" > "$tmp/gs.out" 2>&1
pkill -f "$HANG share" 2>/dev/null
last=$(grep -ao '[0-9]* runs so far, [0-9]* failures' "$tmp/gs.out" | tail -1)
h_p8=$(echo "$last" | cut -d' ' -f5)
runs_p8=$(echo "$last" | cut -d' ' -f1)
s_p8=$(grep -c 'runs so far' "$tmp/gs.out")
s_p8=$((s_p8 * 5))

echo "hang_throughput: a burst of $BURST hangs at once" >&2
"$JOSTLE" run -q -n "$BURST" -j "$BURST" --timeout "${TIMEOUT}s" --no-stall-check -o "$tmp/burst" -- "$HANG" share 100 > /dev/null 2>&1

echo "hang_throughput: crash storm, $NCRASH crashes, 8 at a time" >&2
"$JOSTLE" run -q -n "$NCRASH" -j 8 -o "$tmp/crash" -- "$CRASH" segv > /dev/null 2>&1
"$JOSTLE" run -q -n "$NCRASH" -j 8 --no-crash-handler -o "$tmp/crash0" -- "$CRASH" segv > /dev/null 2>&1

/usr/bin/python3 - "$tmp" "$h_stall" "$s_stall" "$h_diag" "$s_diag" "$h_nodiag" "$s_nodiag" "${h_p8:-0}" "$s_p8" "${runs_p8:-0}" "$TIMEOUT" <<'PY'
import json, sys
tmp = sys.argv[1]
h_stall, s_stall, h_diag, s_diag, h_nodiag, s_nodiag, h_p8, s_p8, runs_p8, timeout = sys.argv[2:]
def rate(h, s):
    return 60.0 * float(h) / float(s) if float(s) > 0 else 0.0
r_diag, r_nodiag, r_p8 = rate(h_diag, s_diag), rate(h_nodiag, s_nodiag), rate(h_p8, s_p8)
r_stall = rate(h_stall, s_stall)
print("| tool | hangs | seconds | hangs/min |")
print("| --- | ---: | ---: | ---: |")
print(f"| jostle (the default: stall check and diagnosis on) | {h_stall} | {float(s_stall):.1f} | {r_stall:.1f} |")
print(f"| jostle --no-stall-check (diagnosis on) | {h_diag} | {float(s_diag):.1f} | {r_diag:.1f} |")
print(f"| jostle --no-stall-check --no-diag | {h_nodiag} | {float(s_nodiag):.1f} | {r_nodiag:.1f} |")
print(f"| golang-stress -p 8 ({runs_p8} runs) | {h_p8} | {s_p8} | {r_p8:.1f} |")
print()
print(f"diag / nodiag = {r_diag / r_nodiag if r_nodiag else float('nan'):.2f}x (target >= 0.95); "
      f"diag / golang-stress = {r_diag / r_p8 if r_p8 else float('inf'):.2f}x (target >= 1.0); "
      f"default / golang-stress = {r_stall / r_p8 if r_p8 else float('inf'):.2f}x")

def rows(d):
    objs = [json.loads(l) for l in open(f"{tmp}/{d}/runs.jsonl") if l.strip()]
    return [o for o in objs if o.get("type") == "run"], [o for o in objs if o.get("type") == "end"][-1]

def deadline_table(name, rs):
    T = float(timeout)
    iv = []
    for r in rs:
        dg = r.get("diag")
        if r["outcome"] != "hang" or not dg or "late_ms" not in dg:
            continue
        dl = r["t"] + T
        busy_to = dl + (dg["late_ms"] + dg["queued_ms"] + dg["elapsed_ms"]) / 1000.0
        iv.append((dl, busy_to, dg["late_ms"], dg["queued_ms"]))
    crowded = []
    for dl, _, late, _ in iv:
        others = sum(1 for d2, b2, _, _ in iv if d2 < dl <= b2)
        if others >= 5:
            crowded.append(late)
    lates = sorted(x[2] for x in iv)
    if not lates:
        print(f"{name}: no diagnosed hang")
        return
    med = lates[len(lates) // 2]
    print(f"{name}: {len(lates)} hangs, late_ms median {med:.1f}, max {lates[-1]:.1f}; "
          f"{len(crowded)} deadlines came while >= 5 others were diagnosed or waiting: "
          f"late_ms max {max(crowded) if crowded else float('nan'):.1f} (target < 100); "
          f"queued_ms max {max(x[3] for x in iv):.0f}")

print()
deadline_table("60 s series", rows("diag")[0])
deadline_table(f"burst", rows("burst")[0])

c, ce = rows("crash")
c0, c0e = rows("crash0")
n = len([r for r in c if r["outcome"] == "crash"])
named = len([r for r in c if r.get("frames")])
per = (ce["jostle_cpu_s"] - c0e["jostle_cpu_s"]) / max(n, 1) * 1000.0
print()
print(f"crash storm: {n} crashes 8 at a time, {named} with frames from the crash record; "
      f"jostle CPU {ce['jostle_cpu_s']:.2f} s with records vs {c0e['jostle_cpu_s']:.2f} s without: "
      f"{per:.2f} ms per crash on the event loop, so 8 at once hold it about {8 * per:.1f} ms")
PY
