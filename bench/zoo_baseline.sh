#!/usr/bin/env bash
# bench/zoo_baseline.sh: how often does each buggy zoo program fail without
# jostle? For every program and every mode, runs the program for a fixed time
# budget and counts completed runs and failed ones (exit status != 0, a
# signal, or a per-run timeout). This is the baseline that jostle's pressure
# and chaos have to beat.
#
# Modes:
#   seq     a plain sequential shell loop
#   p2, p8  golang-stress -p 2 / -p 8 (parallel copies in a loop)
#   noise   stress-ng --cpu 2 in the background plus a plain sequential loop
#   quiet   (not in the defaults; needs root) a plain loop with every run
#           under SCHED_FIFO (chrt -f 10): an estimate of an idle machine on a
#           box that other work loads, since no CFS task can take the CPU from
#           the run; host noise (interrupts, steal) still can. Meaningless for
#           spin_handshake: FIFO spinners never time-slice, it livelocks for real.
#   jostle  `jostle run --time BUDGET` with no other option (its defaults:
#           as many concurrent runs as CPUs, no pressure, no chaos)
#
# Environment (all optional):
#   ZOO_BUDGET    seconds per cell (default 20; golang-stress reports every 5 s,
#                 so use a multiple of 5)
#   ZOO_DIR       the zoo build folder (default build/zoo)
#   ZOO_PROGRAMS  programs to measure (default: all five)
#   ZOO_MODES     modes to measure (default: "seq p2 p8 noise jostle")
#   JOSTLE        the jostle binary for the jostle mode (default build/jostle)
#   ZOO_FLAGS     extra flags for every program (e.g. --fixed)
#   ZOO_CPUS      run everything under taskset -c ZOO_CPUS (emulate a small box)
#   ZOO_RUN_TIMEOUT  per-run timeout in seconds (default 10)
#   ZOO_NOTE      a note for the results header (e.g. "other agents loading it")
#   RESULTS       where to append the table (default
#                 bench/history/DATE-zoo_baseline.md, one file per measurement; "-" =
#                 nowhere); the current table goes in bench/RESULTS.md by hand
#
# Every loop is bounded in time; the noise generator is ended by its PID.
set -u
cd "$(dirname "$0")/.."
budget=${ZOO_BUDGET:-20}
dir=${ZOO_DIR:-build/zoo}
programs=${ZOO_PROGRAMS:-registry_aba deferred_cleanup spin_handshake drain_uaf drain_election}
modes=${ZOO_MODES:-seq p2 p8 noise jostle}
jostle=${JOSTLE:-build/jostle}
flags=${ZOO_FLAGS:-}
run_timeout=${ZOO_RUN_TIMEOUT:-10}
results=${RESULTS:-bench/history/$(date -u +%F)-zoo_baseline.md}
pin=()
[ -n "${ZOO_CPUS:-}" ] && pin=(taskset -c "$ZOO_CPUS")

command -v golang-stress >/dev/null || { echo "zoo_baseline: golang-stress is not installed (apt-get install golang-golang-x-tools)" >&2; exit 2; }
command -v stress-ng >/dev/null || { echo "zoo_baseline: stress-ng is not installed (apt-get install stress-ng)" >&2; exit 2; }
for p in $programs; do
	[ -x "$dir/$p" ] || { echo "zoo_baseline: '$dir/$p' is not built; run 'make'" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/zoo-baseline.XXXXXX")
noise_pid=
cleanup() {
	[ -n "$noise_pid" ] && kill "$noise_pid" 2>/dev/null && wait "$noise_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# first_line FILE FALLBACK: the line of a failure's output that names it.
first_line() {
	grep -m1 -E '^[A-Za-z.]*Error: |ERROR|^\[aicpu\]|corrupted|runtime error' "$1" ||
		grep -m1 -E 'error|timeout|SUMMARY|signal' "$1" || echo "$2"
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# seq_loop PROG [PREFIX...]: runs and failures of a plain loop, for $budget seconds.
# Prints "RUNS FAILS" and leaves the first failure's first line in $tmp/first.
seq_loop() {
	local end=$(( $(now_ms) + budget * 1000 )) n=0 f=0 rc p=$1
	shift
	while [ "$(now_ms)" -lt "$end" ]; do
		"${pin[@]}" timeout -k 1 "$run_timeout" "$@" "$dir/$p" $flags >/dev/null 2>"$tmp/err"
		rc=$?
		n=$((n + 1))
		if [ $rc -ne 0 ]; then
			f=$((f + 1))
			[ -s "$tmp/first" ] || first_line "$tmp/err" "exit status $rc" > "$tmp/first"
		fi
	done
	echo "$n $f"
}

# stress_loop P PROG: golang-stress -p P for $budget seconds; its last
# progress line ("20s: N runs so far, F failures") gives the counts.
stress_loop() {
	local out=$tmp/stress.out
	rm -f "$tmp"/fail-*
	# timeout signals golang-stress's whole process group: the copies in flight end too.
	"${pin[@]}" timeout -s TERM -k 2 "$budget.5" golang-stress -p "$1" -timeout "${run_timeout}s" \
		-o "$tmp/fail-" "$dir/$2" $flags > "$out" 2>&1
	local line n f
	line=$(grep -E '^[0-9hms.]+: [0-9]+ runs so far' "$out" | tail -1)
	n=$(sed -E 's/^[^:]*: ([0-9]+) runs.*/\1/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failures.*/\1/' <<<"$line")
	[ -n "$line" ] || { n=0; f=0; }
	local first
	first=$(ls "$tmp"/fail-* 2>/dev/null | head -1)
	[ -n "$first" ] && first_line "$first" "" > "$tmp/first"
	echo "$n $f"
}

# jostle_loop PROG: `jostle run --time BUDGET` (no other option); counts from runs.jsonl.
jostle_loop() {
	rm -rf "$tmp/j"
	"${pin[@]}" timeout -k 5 "$((budget + 30))" "$jostle" run --time "${budget}s" -q -o "$tmp/j" \
		-- "$dir/$1" $flags > "$tmp/jostle.out" 2>&1
	local n f
	n=$(grep -c '"type":"run"' "$tmp/j/runs.jsonl" 2>/dev/null)
	f=$(grep '"type":"run"' "$tmp/j/runs.jsonl" 2>/dev/null | grep -vc '"outcome":"pass"')
	grep '"type":"run"' "$tmp/j/runs.jsonl" 2>/dev/null | grep -v '"outcome":"pass"' | head -1 |
		sed -E 's/.*"key_line":"([^"]*)".*/\1/; s/.*"key_line":null.*/(no key line)/' > "$tmp/first"
	echo "${n:-0} ${f:-0}"
}

machine="$(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'))${ZOO_CPUS:+, pinned to CPUs $ZOO_CPUS}, Linux $(uname -r), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
cmd="ZOO_BUDGET=$budget${ZOO_CPUS:+ ZOO_CPUS=$ZOO_CPUS}${flags:+ ZOO_FLAGS='$flags'} bash bench/zoo_baseline.sh"
{
	echo "### zoo baseline, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "- machine: $machine"
	[ -n "${ZOO_NOTE:-}" ] && echo "- note: $ZOO_NOTE"
	echo "- jostle: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo '+changes') (the zoo's sources)"
	echo "- command: \`$cmd\` (programs: $programs; $budget s per cell; per-run timeout ${run_timeout} s)"
	echo
	echo "| program | mode | runs | failures | rate | first failure |"
	echo "|---|---|---:|---:|---:|---|"
} > "$tmp/table"
cat "$tmp/table"

for p in $programs; do
	for m in $modes; do
		rm -f "$tmp/first"
		case $m in
		seq) res=$(seq_loop "$p") ;;
		p2) res=$(stress_loop 2 "$p") ;;
		p8) res=$(stress_loop 8 "$p") ;;
		quiet) res=$(seq_loop "$p" chrt -f 10) ;;
		jostle)
			if ! "$jostle" run --help >/dev/null 2>&1; then
				echo "| $p | jostle | - | - | - | \`$jostle run\` is not available |" | tee -a "$tmp/table"
				continue
			fi
			res=$(jostle_loop "$p") ;;
		noise)
			"${pin[@]}" stress-ng --cpu 2 --timeout "$((budget + 10))s" --quiet >/dev/null 2>&1 &
			noise_pid=$!
			sleep 0.5
			res=$(seq_loop "$p")
			kill "$noise_pid" 2>/dev/null
			wait "$noise_pid" 2>/dev/null
			noise_pid=
			;;
		*) echo "zoo_baseline: unknown mode '$m' (expected seq, p2, p8, noise, quiet or jostle)" >&2; exit 2 ;;
		esac
		read -r n f <<<"$res"
		rate=$(awk -v n="$n" -v f="$f" 'BEGIN { if (n > 0) printf "%.1f%%", 100 * f / n; else print "-" }')
		first=$(head -c 100 "$tmp/first" 2>/dev/null | tr -d '\n|`' || true)
		row="| $p${flags:+ $flags} | $m | $n | $f | $rate | ${first:+\`$first\`} |"
		echo "$row" | tee -a "$tmp/table"
	done
done
echo >> "$tmp/table"
[ "$results" = "-" ] || cat "$tmp/table" >> "$results"
