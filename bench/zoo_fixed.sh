#!/usr/bin/env bash
# bench/zoo_fixed.sh: are the fixes really fixes? Runs every zoo program's
# --fixed variant under the harshest conditions we can make on a small box:
# golang-stress -p 8 (oversubscribed copies) with stress-ng --cpu 2 noise in
# the background, until at least ZOO_MIN_RUNS runs completed (or the time cap
# passed), and counts failures (any non-zero exit, signal or per-run timeout).
# Appends a table to a dated file in bench/history/ (RESULTS below).
#
# Environment (all optional):
#   ZOO_DIR       zoo build folder (default build-asan/zoo: ASan+UBSan)
#   ZOO_PROGRAMS  programs (default: all five)
#   ZOO_MIN_RUNS  runs to reach per program (default 2000)
#   ZOO_MAX_TIME  cap in seconds per program (default 600)
#   ZOO_PARALLEL  golang-stress -p (default 8)
#   ZOO_NOTE      a note for the results header
#   RESULTS       where to append the table (default
#                 bench/history/DATE-zoo_fixed.md, one file per measurement; "-" =
#                 nowhere); the current table goes in bench/RESULTS.md by hand
set -u
cd "$(dirname "$0")/.."
dir=${ZOO_DIR:-build-asan/zoo}
programs=${ZOO_PROGRAMS:-registry_aba deferred_cleanup spin_handshake drain_uaf drain_election}
min_runs=${ZOO_MIN_RUNS:-2000}
max_time=${ZOO_MAX_TIME:-600}
par=${ZOO_PARALLEL:-8}
results=${RESULTS:-bench/history/$(date -u +%F)-zoo_fixed.md}

command -v golang-stress >/dev/null || { echo "zoo_fixed: golang-stress is not installed" >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "zoo_fixed: stress-ng is not installed" >&2; exit 2; }
for p in $programs; do
	[ -x "$dir/$p" ] || { echo "zoo_fixed: '$dir/$p' is not built" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zoo-fixed.XXXXXX")
noise_pid= stress_pid=
cleanup() {
	[ -n "$stress_pid" ] && kill -TERM -- "-$stress_pid" 2>/dev/null && wait "$stress_pid" 2>/dev/null
	[ -n "$noise_pid" ] && kill "$noise_pid" 2>/dev/null && wait "$noise_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

{
	echo "### zoo fixed variants under stress, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "- machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), Linux $(uname -r), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
	[ -n "${ZOO_NOTE:-}" ] && echo "- note: $ZOO_NOTE"
	echo "- jostle: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo '+changes') (the zoo's sources)"
	echo "- command: \`ZOO_DIR=$dir ZOO_MIN_RUNS=$min_runs bash bench/zoo_fixed.sh\`: golang-stress -p $par -timeout 60s on \`$dir/NAME --fixed\`, stress-ng --cpu 2 in the background"
	echo
	echo "| program | build | runs | failures | seconds |"
	echo "|---|---|---:|---:|---:|"
} > "$tmp/table"
cat "$tmp/table"

for p in $programs; do
	stress-ng --cpu 2 --timeout "$((max_time + 30))s" --quiet >/dev/null 2>&1 &
	noise_pid=$!
	rm -f "$tmp"/fail-*
	start=$(date +%s)
	# golang-stress runs in its own process group (setsid) so that ending it
	# by PID group also ends the copies in flight.
	setsid golang-stress -p "$par" -timeout 60s -o "$tmp/fail-" "$dir/$p" --fixed > "$tmp/out" 2>&1 &
	stress_pid=$!
	n=0 f=0
	while :; do
		sleep 5
		line=$(grep -E 'runs so far' "$tmp/out" | tail -1)
		if [ -n "$line" ]; then
			n=$(sed -E 's/^[^:]*: ([0-9]+) runs.*/\1/' <<<"$line")
			f=$(sed -E 's/.* ([0-9]+) failures.*/\1/' <<<"$line")
		fi
		[ "$n" -ge "$min_runs" ] && break
		[ $(( $(date +%s) - start )) -ge "$max_time" ] && break
		kill -0 "$stress_pid" 2>/dev/null || break
	done
	# golang-stress first (so that it records no copy we end as a failure),
	# then the copies still in flight, by its process group.
	kill -TERM "$stress_pid" 2>/dev/null
	wait "$stress_pid" 2>/dev/null
	kill -TERM -- "-$stress_pid" 2>/dev/null
	stress_pid=
	kill "$noise_pid" 2>/dev/null
	wait "$noise_pid" 2>/dev/null
	noise_pid=
	secs=$(( $(date +%s) - start ))
	# Each failure leaves one log file: that count is exact, the progress line lags.
	f=$(ls "$tmp"/fail-* 2>/dev/null | wc -l)
	echo "| $p --fixed | $(basename "$(dirname "$dir")") | $n | $f | $secs |" | tee -a "$tmp/table"
	if [ "$f" -gt 0 ]; then
		echo "zoo_fixed: $p --fixed failed; first failure:" >&2
		head -20 "$(ls "$tmp"/fail-* | head -1)" >&2
	fi
done
echo >> "$tmp/table"
[ "$results" = "-" ] || cat "$tmp/table" >> "$results"
