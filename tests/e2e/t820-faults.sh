#!/usr/bin/env bash
# Faults from outside the runs: the results folder on a disk that fills up
# mid-series, the results folder removed while jostle runs, few file
# descriptors at -j 64, jostle itself stopped and continued; and the clock
# rule (deadlines and durations on the monotonic clock only).
# (kill -9 of jostle: t830-kill9.sh)
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky
not() { ! "$@"; }
jsonl_ok() { # FILE: every line is a complete JSON object
	[ ! -s "$1" ] || [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] && json "$1" 'len(d)' >/dev/null
}

# --- a full disk: jostle says so once, keeps every complete record, exits 3
full=$TMP/full
mkdir -p "$full"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=48k jostle-test-full "$full" 2>/dev/null; then
	trap 'umount "$full" 2>/dev/null; rm -rf "$TMP"' EXIT
	timeout 300 "$JOSTLE" run -q -n 2000 -j 2 -o "$full/r" -- "$F" fail-every 7 > "$TMP/full.out" 2>&1
	check_eq "full disk: exit 3" "$?" 3
	check_eq "full disk: said once" "$(grep -c 'No space left on device' "$TMP/full.out")" 1
	check "full disk: runs.jsonl holds complete lines only" jsonl_ok "$full/r/runs.jsonl"
	n=$(json "$full/r/runs.jsonl" 'len(rows)')
	check "full disk: the runs before it are kept ($n)" test "$n" -gt 0 -a "$n" -lt 2000
	"$JOSTLE" report "$full/r" > "$TMP/full.report" 2>&1
	check "full disk: report reads what is left" test $? -le 1
	check "full disk: and counts nothing as skipped" not grep -q "unreadable" "$TMP/full.report"
	umount "$full"
else
	echo "ok # SKIP full disk: needs root and a tmpfs mount"
fi

# --- the results folder removed while the series runs
"$JOSTLE" run -q -n 100000 -j 2 -o "$TMP/gone" -- "$F" fail-every 3 > "$TMP/gone.out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
	[ "$(cat "$TMP/gone/runs.jsonl" 2>/dev/null | wc -l)" -ge 6 ] && break
	sleep 0.05
done
# rm -rf races the runs' log files still being written into the folder
# ("Directory not empty", the folder left behind): remove until it is gone
for _ in $(seq 1 50); do rm -rf "$TMP/gone" 2>/dev/null; [ -e "$TMP/gone" ] || break; sleep 0.02; done
for _ in $(seq 1 1200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then
	not_ok "removed folder: jostle stops"
	kill -INT "$pid"
fi
wait "$pid"
check_eq "removed folder: exit 3" "$?" 3
check_eq "removed folder: said once" "$(grep -c 'removed' "$TMP/gone.out")" 1
check_eq "removed folder: and nothing else" "$(grep -c '^jostle: ' "$TMP/gone.out")" 1
check "removed folder: not made again" test ! -e "$TMP/gone"

# --- few file descriptors at -j 64: every run runs, crashes are diagnosed
(ulimit -n 100; exec "$JOSTLE" run -q -n 200 -j 64 -o "$TMP/nofile" -- "$FIX/crash" on 3,50,120 segv) \
	> "$TMP/nofile.out" 2>&1
check_eq "ulimit -n 100, -j 64: exit 1 (three crashes)" "$?" 1
check_eq "ulimit -n 100, -j 64: every run recorded" "$(json "$TMP/nofile/runs.jsonl" 'len(rows)')" 200
# (a crash in the ASan+UBSan build is UBSan's report: a failure, with frames)
check_eq "ulimit -n 100, -j 64: the crashes with their frames" \
	"$(json "$TMP/nofile/runs.jsonl" 'sorted(r["run"] for r in rows if r["outcome"] != "pass" and r["frames"])')" "[3, 50, 120]"
check "ulimit -n 100, -j 64: one warning says how many run at a time" \
	grep -q 'warning: -j 64 needs about .* file descriptors and the limit is 100 (ulimit -n): running [0-9]* at a time' "$TMP/nofile.out"
check "ulimit -n 100, -j 64: no start error" not grep -q 'Too many open files' "$TMP/nofile.out"
(ulimit -n 100; for fd in $(seq 10 40); do eval "exec $fd</dev/null"; done
 exec "$JOSTLE" run -q -n 100 -j 64 -o "$TMP/inherit" -- sleep 0.1) > "$TMP/inherit.out" 2>&1
check_eq "ulimit -n 100 and 31 descriptors inherited, -j 64: every run" \
	"$(json "$TMP/inherit/runs.jsonl" 'len(rows)'):$(grep -c 'Too many open files' "$TMP/inherit.out")" "100:0"
(ulimit -S -n 70; exec "$JOSTLE" run -q -n 64 -j 64 -o "$TMP/soft" -- sh -c 'ulimit -n; [ "$JOSTLE_RUN" != 0 ] || exit 1') \
	> "$TMP/soft.out" 2>&1
check_eq "soft limit 70, -j 64: raised for jostle, no warning" "$(grep -c warning "$TMP/soft.out")" 0
check_eq "soft limit 70, -j 64: every run" "$(json "$TMP/soft/runs.jsonl" 'len(rows)')" 64
check_eq "soft limit 70: the runs still get 70" "$(head -1 "$TMP/soft/logs/0.log")" 70

# --- jostle stopped (SIGSTOP) past a run's timeout, then continued: the run
# ended meanwhile, so it passed; nothing is lost
for i in 1 2; do
	"$JOSTLE" run -q -n 6 -j 2 --timeout 2s -o "$TMP/stop$i" -- sleep 0.5 > "$TMP/stop$i.out" 2>&1 &
	pid=$!
	sleep 0.3
	kill -STOP "$pid"
	sleep 3
	kill -CONT "$pid"
	wait "$pid"
	check_eq "SIGSTOP/SIGCONT of jostle ($i): exit 0" "$?" 0
	check_eq "SIGSTOP/SIGCONT of jostle ($i): six passes, no false hang" \
		"$(json "$TMP/stop$i/runs.jsonl" '[r["outcome"] for r in rows]')" "['pass', 'pass', 'pass', 'pass', 'pass', 'pass']"
done

# --- the clock rule: deadlines and durations use CLOCK_MONOTONIC (clock.h);
# the realtime clock is read only through clock_real_ns(), for timestamps,
# seeds and ids, and to compare with file times the kernel stamps (cores,
# crash records)
direct=$(grep -rnE 'CLOCK_REALTIME|gettimeofday|[^_a-z.]time\((NULL|0)?\)' "$ROOT/src" "$ROOT/preload" |
	 grep -v '^[^:]*src/util/clock.c:')
check_eq "no realtime clock read outside util/clock.c" "$direct" ""
uses=$(grep -rn 'clock_real_ns()' "$ROOT/src" | grep -vE 'src/util/clock\.[ch]:' |
       grep -vE 'start_real = clock_real_ns|seed = .*clock_real_ns|idstate = .*clock_real_ns|clock_stamp\(clock_real_ns' || true)
check_eq "realtime only for timestamps, seeds and ids" "$uses" ""
