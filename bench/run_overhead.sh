#!/usr/bin/env bash
# bench/run_overhead.sh: the harness costs of `jostle run` (issue 2).
#   1. runs/s of `jostle run -n N -j 1 -q -- /bin/true` vs a minimal
#      posix_spawn+waitpid loop (target: >= 0.8x)
#   2. runs/s at -j 2 vs golang-stress -p 2 over the same time (target: >= 1x)
#   3. jostle's peak RSS over 100,000 runs, and while 4 runs print 1 GiB each
#      (target: < 16 MiB each)
#   4. hang detection: time from a run's deadline to the SIGTERM it receives
#      (target: <= 100 ms) with --no-diag, and with the hang diagnosis that
#      runs before the kill by default (5 runs hanging together)
# Every jostle row runs the default configuration, which preloads the crash
# handler (libjostle-crash.so) into each run; one row shows -j 1 without it.
# Prints a Markdown table: it replaces the run_overhead.sh section of
# bench/RESULTS.md (with date, machine, command and commit), the section it
# replaces moves to bench/history/DATE-run-overhead.md.
# Env: N (default 20000), SECS (golang-stress window, default 10), BIG (100000),
# ROUNDS (interleaved rounds, median reported; default 3).
set -eu
cd "$(dirname "$0")/.."
N=${N:-20000} SECS=${SECS:-10} BIG=${BIG:-100000} ROUNDS=${ROUNDS:-3}
make -s -j2 all >/dev/null
J=$PWD/build/jostle
T=$(mktemp -d /tmp/jostle-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
cc -O2 -o "$T/spawn_loop" bench/spawn_loop.c

# The machine may be shared and noisy: interleave the contenders over ROUNDS
# rounds and report the median of each, so a burst of load hits both sides.
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
L=() J1=() J1N=() G=() J2=()
for r in $(seq 1 "$ROUNDS"); do
	L+=("$("$T/spawn_loop" "$N" /bin/true | awk '{print $3}')")
	rm -rf "$T/j1"
	"$J" run -q -n "$N" -j 1 -o "$T/j1" -- /bin/true 2>/dev/null
	J1+=("$(/usr/bin/python3 -c "import json; d=json.load(open('$T/j1/summary.json')); print(d['runs']/d['elapsed_s'])")")
	rm -rf "$T/j1n"
	"$J" run -q -n "$N" -j 1 --no-crash-handler -o "$T/j1n" -- /bin/true 2>/dev/null
	J1N+=("$(/usr/bin/python3 -c "import json; d=json.load(open('$T/j1n/summary.json')); print(d['runs']/d['elapsed_s'])")")
	# golang-stress has no run limit: run it for SECS and read its last count,
	# from report lines like "10s: 10081 runs so far, 0 failures".
	timeout -s INT "$((SECS + 1))" golang-stress -p 2 /bin/true > "$T/gs.out" 2>&1 || true
	G+=("$(awk -F'[s: ]+' '/runs so far/ {secs=$1; runs=$2} END {print (secs ? runs/secs : 0)}' "$T/gs.out")")
	rm -rf "$T/j2"
	"$J" run -q --time "${SECS}s" -j 2 -o "$T/j2" -- /bin/true 2>/dev/null
	J2+=("$(/usr/bin/python3 -c "import json; d=json.load(open('$T/j2/summary.json')); print(d['runs']/d['elapsed_s'])")")
done
loop=$(med "${L[@]}") j1=$(med "${J1[@]}") j1n=$(med "${J1N[@]}") gs=$(med "${G[@]}") j2=$(med "${J2[@]}")

/usr/bin/time -f %M -o "$T/rss1" "$J" run -q -n "$BIG" -j 2 -o "$T/big" -- /bin/true 2>/dev/null
/usr/bin/time -f %M -o "$T/rss2" "$J" run -q -n 4 -j 4 -o "$T/gib" -- build/fixtures/flaky print 1073741824 2>/dev/null
gib_s=$(/usr/bin/python3 -c "import json; print(json.load(open('$T/gib/summary.json'))['elapsed_s'])")

latency() { # DIR -> worst deadline-to-SIGTERM of its term-stamp runs, in ms
	/usr/bin/python3 - "$1" <<'PY'
import glob, sys
worst = 0.0
for f in glob.glob(sys.argv[1] + "/logs/*.log"):
    v = dict(l.split("=") for l in open(f).read().split() if "=" in l)
    if "start" in v and "term" in v:
        worst = max(worst, float(v["term"]) - float(v["start"]) - 1.0)
print("%.1f" % (worst * 1000))
PY
}
"$J" run -q -n 5 -j 5 --timeout 1s --grace 100ms --no-diag -o "$T/hang" -- build/fixtures/flaky term-stamp 2>/dev/null || true
lat=$(latency "$T/hang")
"$J" run -q -n 5 -j 5 --timeout 1s --grace 100ms -o "$T/hangd" -- build/fixtures/flaky term-stamp 2>/dev/null || true
latd=$(latency "$T/hangd")

printf '\n### run overhead: %s, %s, %s CPUs\n\n' "$(date -u +%Y-%m-%d)" "$(uname -srm)" "$(nproc)"
printf 'Command: `bash bench/run_overhead.sh` (N=%s, SECS=%s, BIG=%s, ROUNDS=%s; medians)\n\n' "$N" "$SECS" "$BIG" "$ROUNDS"
printf '| measure | value | target |\n| --- | --- | --- |\n'
printf '| posix_spawn+waitpid loop, /bin/true | %.0f runs/s | |\n' "$loop"
printf '| jostle run -j 1 -n %s /bin/true | %.0f runs/s (%.2fx the loop) | >= 0.8x |\n' "$N" "$j1" "$(echo "$j1 / $loop" | bc -l)"
printf '| jostle run -j 1 --no-crash-handler -n %s /bin/true | %.0f runs/s (%.2fx the loop) | |\n' "$N" "$j1n" "$(echo "$j1n / $loop" | bc -l)"
printf '| golang-stress -p 2 /bin/true | %.0f runs/s | |\n' "$gs"
printf '| jostle run -j 2 --time %ss /bin/true | %.0f runs/s (%.2fx golang-stress) | >= 1x |\n' "$SECS" "$j2" "$(echo "$j2 / $gs" | bc -l)"
printf '| jostle peak RSS, %s runs | %s KiB | < 16384 |\n' "$BIG" "$(cat "$T/rss1")"
printf '| jostle peak RSS, 4 concurrent runs printing 1 GiB each | %s KiB (%.1f s) | < 16384 |\n' "$(cat "$T/rss2")" "$gib_s"
printf '| hang detection (--no-diag): deadline to SIGTERM, worst of 5 hanging together | %s ms | <= 100 |\n' "$lat"
printf '| hang with diagnosis: deadline to SIGTERM, worst of 5 hanging together | %s ms | |\n' "$latd"
