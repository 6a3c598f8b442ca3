#!/usr/bin/env bash
# Chaos: the preload library is loaded and counts every interposed call
# without changing results, the user's LD_PRELOAD is kept, thread chaos
# reaches the run's threads, and `auto` records each run's configuration.
. "$(dirname "$0")/../lib.sh"
M=$FIX/mutex_ops

# sync: mutex_ops does 500 lock/unlock pairs x 2 threads + 5 rounds of 7
# calls x 2 + 2 creates = 2072 interposed calls, exactly.
FIX_OUT=$TMP/s.txt JOSTLE_CHAOS_STATS=$TMP/stats.txt "$JOSTLE" run -q -n 4 -j 2 --chaos sync -o "$TMP/s" -- "$M" 500 2 2>/dev/null
check_eq "sync: all runs pass (no change of semantics)" "$?" 0
check_eq "sync: the library was loaded in every run" "$(grep -c 'preload=yes' "$TMP/s.txt")" 4
check_eq "sync: it counted every interposed call" "$(grep -c 'calls=2072 min_calls=2072' "$TMP/s.txt")" 4
check_eq "sync: the counter reached the stats file at exit" "$(grep -c ': 2072 calls interposed' "$TMP/stats.txt")" 4
check_eq "sync: the counter is exact (total)" "$(grep -c 'total=1000 ' "$TMP/s.txt")" 4
check_eq "sync: the settings are recorded" \
	"$(json "$TMP/s/runs.jsonl" '[(r["config"]["chaos"], r["config"]["sync_prob"], r["config"]["sync_max_us"]) for r in rows][0]')" \
	"('sync', 0.05, 200)"

# a new thread's malloc state is the program's: the library's start record
# is not malloc'd or freed in the thread (that would map the thread's arena
# before its code runs, and take a slow first allocation out of a race
# window); 300 threads at once, at the heaviest step and sync settings
JOSTLE_CHAOS_STATS=$TMP/ar.txt "$JOSTLE" run -q -n 2 --chaos sync --chaos-level 2 -o "$TMP/ar" -- "$FIX/arena_probe" 300 2>/dev/null
check_eq "thread start: no heap but the main one before the first thread allocates (ASan: its allocator), every thread ran" "$?" 0
check_eq "thread start: the library was loaded" "$(grep -c ': 30[0-9] calls interposed' "$TMP/ar.txt")" 2
if [ "$(uname -m)" = x86_64 ]; then
	"$JOSTLE" run -q -n 2 --chaos step -o "$TMP/ars" -- "$FIX/arena_probe" 300 2>/dev/null
	check_eq "thread start, step chaos: the same" "$?" 0
fi

# the signal waits are interposed too (a thread held up before it waits
# for a signal misses the one that comes then): one call each, counted,
# every wait returning as it must
"$JOSTLE" run -q -n 1 --chaos sync --chaos-level 2 -o "$TMP/sw" -- "$FIX/sigwaits" 2>/dev/null
check_eq "signal waits: the run passes" "$?" 0
check "signal waits: pause, sigsuspend, sigwait, sigwaitinfo, sigtimedwait counted" \
	grep -q '^sigwaits: waits=5 preload=yes calls=5$' "$TMP/sw/logs/0.log"

# sync at level 2 perturbs a lot and still changes nothing
FIX_OUT=$TMP/s2.txt "$JOSTLE" run -q -n 2 -j 2 --chaos sync --chaos-level 2 -o "$TMP/s2" -- "$M" 300 3 2>/dev/null
check_eq "sync level 2: runs pass, counters exact" "$(grep -c 'total=900 .*preload=yes' "$TMP/s2.txt")" 2

# the user's LD_PRELOAD stays, after ours
if command -v cc >/dev/null; then
	echo 'int jostle_test_user_lib(void) { return 1; }' > "$TMP/u.c"
	cc -shared -fPIC -o "$TMP/libuser.so" "$TMP/u.c"
	# (an ASan-built jostle must accept the preload for itself too)
	ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 FIX_OUT=$TMP/u.txt LD_PRELOAD=$TMP/libuser.so "$JOSTLE" run -q -n 1 --chaos sync -o "$TMP/u" -- "$M" 10 1 2>/dev/null
	check "user LD_PRELOAD: kept after the library" grep -q "ld_preload=.*libjostle-chaos.so:\([^:]*libjostle-crash.so:\)\?$TMP/libuser.so$" "$TMP/u.txt"
	check "user LD_PRELOAD: the library still counts" grep -q "preload=yes" "$TMP/u.txt"
else
	ok "# skip no C compiler"; ok "# skip no C compiler"
fi

# without chaos the library is not there (unless inherited: a jostle running
# this test with --chaos sync, as bench/selftest.sh does)
FIX_OUT=$TMP/n.txt env -u LD_PRELOAD "$JOSTLE" run -q -n 1 -o "$TMP/n" -- "$M" 10 1 2>/dev/null
check "no chaos: no preload" grep -q 'preload=no calls=0' "$TMP/n.txt"

# threads: some thread of every run is made SCHED_IDLE / nice 19 from outside
FIX_OUT=$TMP/t.txt "$JOSTLE" run -q -n 3 -j 2 --chaos threads --timeout 60s -o "$TMP/t" -- "$FIX/cpuinfo" 3 1 2>/dev/null
# (every run: change points go on, at doubling gaps, for as long as the run
# lasts, so a run that starts its threads late is still reached)
check_eq "threads: every run saw a low-priority thread" "$(grep -c 'saw_idle=1' "$TMP/t.txt")" 3
check_eq "threads: recorded" "$(json "$TMP/t/runs.jsonl" 'sorted({r["config"]["chaos"] for r in rows})')" "['threads']"

# the run that meets the stopping rule counts in the per-configuration table
"$JOSTLE" run -q -n 10 -j 1 --chaos threads --until first-failure -o "$TMP/ff" -- "$FIX/flaky" fail-every 3 \
	> /dev/null 2> "$TMP/ff.err"
check "first failure: the failing run is in the table" grep -Eq '^  threads +3 +1 ' "$TMP/ff.err"

# auto: every run records its configuration; the summary has a rate per arm
"$JOSTLE" run -q -n 24 -j 2 --chaos auto --seed 5 -o "$TMP/a" -- "$M" 50 2 > /dev/null 2> "$TMP/a.err"
check_eq "auto: every run has a configuration" "$(json "$TMP/a/runs.jsonl" 'sum(1 for r in rows if r["config"].get("arm"))')" 24
check "auto: the unperturbed arm ran" test "$(json "$TMP/a/runs.jsonl" 'sum(1 for r in rows if r["config"]["arm"] == "plain")')" -ge 1
check "auto: several arms ran" test "$(json "$TMP/a/runs.jsonl" 'len({r["config"]["arm"] for r in rows})')" -ge 5
check_eq "auto: summary.json has the runs per arm" "$(json "$TMP/a/summary.json" 'sum(a["runs"] for a in d["arms"])')" 24
check "auto: the closing summary shows the rate per configuration" grep -q "failure rate per configuration" "$TMP/a.err"
check_eq "auto: settings say auto" "$(json "$TMP/a/runs.jsonl" 'series[0]["settings"]["chaos"]')" auto
# the same seed gives the same sequence of configurations (-j 1: no timing)
"$JOSTLE" run -q -n 12 -j 1 --chaos auto --seed 9 -o "$TMP/b1" -- "$M" 20 1 > /dev/null 2>&1
"$JOSTLE" run -q -n 12 -j 1 --chaos auto --seed 9 -o "$TMP/b2" -- "$M" 20 1 > /dev/null 2>&1
# (the first round over the arms; later choices weigh measured run times)
narms=$(json "$TMP/b1/summary.json" 'len(d["arms"])')
check_eq "auto: same seed, same configurations" "$(json "$TMP/b1/runs.jsonl" "[r['config']['arm'] for r in rows][:$narms]")" "$(json "$TMP/b2/runs.jsonl" "[r['config']['arm'] for r in rows][:$narms]")"
# auto without -j may crowd the CPUs (8 runs per CPU, twice golang-stress
# -p 8 on 2 CPUs); every other arm runs one per CPU. Runs of 100 ms or more
# by the clock: the plain crowd's first second of machine time comes before
# the other arms, and with runs of that length it is at most 160 of the 300
# on any machine
"$JOSTLE" run -q -n 300 --chaos auto --seed 5 -o "$TMP/c" -- "$FIX/busy" perturbed 100 100 > /dev/null 2>&1
n=$(nproc)
check_eq "auto: the crowd arm runs 8 per CPU" "$(json "$TMP/c/runs.jsonl" 'sorted({r["config"]["jobs"] for r in rows if r["config"]["arm"] == "crowd"})')" "[$((8 * n))]"
check_eq "auto: plain runs one per CPU" "$(json "$TMP/c/runs.jsonl" 'sorted({r["config"]["jobs"] for r in rows if r["config"]["arm"] == "plain"})')" "[$n]"
# a one-CPU arm runs its copies on every CPU side by side (groups), each
# run on one CPU with as many others as the arm's concurrency
one_cpu='[r for r in rows if r["config"]["arm"].startswith("1cpu")]'
if [ "$n" -ge 2 ]; then
	check_eq "auto: one-CPU arms: each run on one CPU" "$(json "$TMP/c/runs.jsonl" "bool($one_cpu) and all(r['config']['cpus'].isdigit() for r in $one_cpu)")" True
	check_eq "auto: one-CPU arms: on every CPU" "$(json "$TMP/c/runs.jsonl" "len({r['config']['cpus'] for r in $one_cpu})")" "$n"
	check_eq "auto: one-CPU arms: the concurrency of one CPU recorded" "$(json "$TMP/c/runs.jsonl" "sorted({r['config']['jobs'] for r in $one_cpu})")" "[$n]"
fi

# hung runs keep their pressure state while their diagnosis runs and new
# runs take their -j slots: the series goes on (it once stopped with
# "cannot start ...: Device or resource busy")
"$JOSTLE" run -q -n 4 -j 1 --chaos sync --timeout 1s -o "$TMP/hung" -- "$FIX/hang" deadlock > /dev/null 2> "$TMP/hung.err"
check_eq "hangs under chaos: the series completes" "$(json "$TMP/hung/runs.jsonl" 'sum(r["outcome"] == "hang" for r in rows)')" 4
check "hangs under chaos: no start error" sh -c "! grep -q 'cannot start' '$TMP/hung.err'"

# a program that hangs in every run: its first runs are taken for stuck
# after a quarter of --timeout (2 s here), so the next stints start beside
# them instead of waiting for the first timeouts (8 s)
"$JOSTLE" run -q --chaos auto --seed 5 --timeout 8s --time 13s --no-diag -o "$TMP/h" -- "$FIX/hang" deadlock > /dev/null 2>&1
check "auto: hung runs do not hold back the next stints" \
	test "$(json "$TMP/h/runs.jsonl" 'sum(1 for r in rows if r["t"] < 6)')" -ge 4
check_eq "auto: every hung run recorded as a hang (or cut by the end of --time)" "$(json "$TMP/h/runs.jsonl" 'sorted({r["outcome"] for r in rows} - {"cut"})')" "['hang']"
