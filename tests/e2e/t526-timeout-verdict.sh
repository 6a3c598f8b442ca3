#!/usr/bin/env bash
# jostle run: past --timeout, a verdict on the program (docs/timeouts.md,
# src/run/late.h). 50 runs of each case, every one classified right:
#   a busy-wait barrier, oversubscribed (its own affinity puts its two
#   spinning threads on one CPU): a `busy-wait` failure, at -j 8 on the
#   plain arm and under --chaos auto, with its CPU factor and frames;
#   a correct program that sync chaos (level 2) slows past the timeout:
#   `slow`, slow_why "chaos delay";
#   a real deadlock: hang deadlock; a real retry livelock: hang livelock.
. "$(dirname "$0")/../lib.sh"

runs() { json "$1/runs.jsonl" "$2"; }

# (No leak check in the fixtures: in the ASan build LeakSanitizer stops an
# exiting process under ptrace, and a diagnosis that looks then sees it
# stopped: t525.)
export LSAN_OPTIONS=detect_leaks=0

# --- a: the busy-wait barrier at -j 8, plain: every other run passes at once ---
"$JOSTLE" run -q -n 50 -j 8 --timeout 5s -o "$TMP/a" -- "$FIX/spin_barrier" 2 > /dev/null 2>&1
check_eq "busy-wait, plain: exit 1 (failures)" "$?" 1
check_eq "busy-wait, plain: the runs that have nobody to wait for pass" \
	"$(runs "$TMP/a" 'sorted(r["run"] for r in rows if r["outcome"] == "pass") == list(range(0, 50, 2))')" True
check_eq "busy-wait, plain: every other run is a busy-wait hang, spinning" \
	"$(runs "$TMP/a" 'sorted(set((r["outcome"], r["sig_kind"], r.get("late")) for r in rows if r["run"] % 2))')" \
	"[('hang', 'busy-wait', 'spinning')]"
check_eq "busy-wait, plain: 25 of them" "$(runs "$TMP/a" 'sum(1 for r in rows if r.get("sig_kind") == "busy-wait")')" 25
check_eq "busy-wait, plain: at least 4x the CPU of a passing run, recorded" \
	"$(runs "$TMP/a" 'all(r.get("cpu_factor", 0) >= 4 for r in rows if r["outcome"] == "hang")')" True
check_eq "busy-wait, plain: the hottest threads' frames (when unwound)" \
	"$(runs "$TMP/a" 'all(r["frames"] in ([], ["spin_until"]) for r in rows if r["outcome"] == "hang") and any(r["frames"] for r in rows)')" True
first=$(runs "$TMP/a" 'min(r["run"] for r in rows if r["outcome"] == "hang" and r["frames"])')
check "busy-wait, plain: the stacks file says how much CPU" \
	grep -Eq '^busy-wait: [0-9]+x the CPU of a passing run' "$TMP/a/stacks/$first.txt"

# --- a, under --chaos auto: a failure under every arm ---
"$JOSTLE" run -q -n 50 --chaos auto --timeout 5s -o "$TMP/aa" -- "$FIX/spin_barrier" 2 > /dev/null 2>&1
check_eq "busy-wait, auto: exit 1" "$?" 1
check_eq "busy-wait, auto: the runs with nobody to wait for pass (or are slowed by load)" \
	"$(runs "$TMP/aa" 'all(r["outcome"] == "pass" or r.get("slow_why") == "load" for r in rows if r["run"] % 2 == 0)')" True
check_eq "busy-wait, auto: every other run is a hang of the livelock family, whatever its arm" \
	"$(runs "$TMP/aa" 'sorted(set((r["outcome"], r["sig_kind"] in ("busy-wait", "livelock")) for r in rows if r["run"] % 2))')" \
	"[('hang', True)]"
check_eq "busy-wait, auto: a busy-wait wherever its CPU was 4x a passing run's" \
	"$(runs "$TMP/aa" 'all(r["sig_kind"] == "busy-wait" for r in rows if r["run"] % 2 and r.get("cpu_factor", 0) >= 4)')" True
check "busy-wait, auto: most of them busy-waits" \
	test "$(runs "$TMP/aa" 'sum(1 for r in rows if r.get("sig_kind") == "busy-wait")')" -ge 13

# --- b: a correct program that sync chaos slows past the timeout ---
"$JOSTLE" run -q -n 50 -j 4 --chaos sync --chaos-level 2 --timeout 500ms -o "$TMP/b" -- \
	"$FIX/chaos_slowed" > /dev/null 2>&1
check_eq "chaos-slowed: exit 0 (slow is no failure)" "$?" 0
check_eq "chaos-slowed: every run slow, explained by the delay jostle injected" \
	"$(runs "$TMP/b" 'sorted(set((r["outcome"], r.get("slow_why"), r.get("late")) for r in rows))')" \
	"[('slow', 'chaos delay', 'progressing')]"
check_eq "chaos-slowed: 50 runs, the delay recorded" \
	"$(runs "$TMP/b" '(len(rows), all(r["chaos_delay_s"] > 0.25 for r in rows))')" "(50, True)"
check_eq "chaos-slowed: no failure in the summary" "$(json "$TMP/b/summary.json" '(d["failures"], d["slow"])')" "(0, 50)"
# the same program alone passes at once: the delay was all of it
"$JOSTLE" run -q -n 3 --timeout 10s -o "$TMP/b0" -- "$FIX/chaos_slowed" > /dev/null 2>&1
check_eq "chaos-slowed: alone it passes" "$(runs "$TMP/b0" '[r["outcome"] for r in rows]')" "['pass', 'pass', 'pass']"

# --- d: a real deadlock ---
"$JOSTLE" run -q -n 50 -j 4 --timeout 300ms -o "$TMP/d" -- "$FIX/hang" deadlock > /dev/null 2>&1
check_eq "deadlock: exit 1" "$?" 1
check_eq "deadlock: every run a deadlock hang, stuck" \
	"$(runs "$TMP/d" '(len(rows), sorted(set((r["outcome"], r["sig_kind"], r.get("late")) for r in rows)))')" \
	"(50, [('hang', 'deadlock', 'stuck')])"

# --- e: a real two-thread retry livelock (no run ever passes) ---
"$JOSTLE" run -q -n 50 -j 4 --timeout 300ms -o "$TMP/e" -- "$FIX/retry_livelock" > /dev/null 2>&1
check_eq "livelock: exit 1" "$?" 1
check_eq "livelock: every run a livelock hang, stuck" \
	"$(runs "$TMP/e" '(len(rows), sorted(set((r["outcome"], r["sig_kind"], r.get("late")) for r in rows)))')" \
	"(50, [('hang', 'livelock', 'stuck')])"
check_eq "livelock: one signature" "$(runs "$TMP/e" 'len(set(r["sig_id"] for r in rows))')" 1
