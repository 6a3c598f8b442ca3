#!/usr/bin/env bash
# bench/failcost.sh: what a FAILING run costs jostle, against golang-stress
# (issue 12: on programs that fail in every run, failures per minute are
# runs per minute, and a crash's record, unwinding and symbols are paid per
# run). Side by side in this one script, ROUNDS times interleaved, each
# contender SECS seconds on each program:
#   jostle     `jostle run -j J` (this build; the crash handler preloaded)
#   old        the same with OLD=DIR/jostle (another build), if given
#   auto       `jostle run --chaos auto` (default -j, as bench/corpus.sh)
#   p8         golang-stress -p J
# and prints per program and contender: runs, failures and the tool's own
# CPU per run (its threads' user+system time, not its runs'), medians.
#
# Environment: PROGS="PATH[,ARG...] ..." (default: the crash fixture's failed
#   assert, which fails every run, and the zoo's drain_election, about half;
#   PROGS_EXTRA is appended: say build/corpus/src/build/stats_counter, as
#   bench/corpus.sh builds it) SECS=8
#   ROUNDS=2 J=8 RUN_TIMEOUT=4 OLD= TOOLS="jostle old auto p8" BUILD=build
# Prints a Markdown table on stdout (date, machine, load, command).
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
SECS=${SECS:-8}
ROUNDS=${ROUNDS:-2}
J=${J:-8}
RT=${RUN_TIMEOUT:-4}
OLD=${OLD:-}
TOOLS=${TOOLS:-jostle old auto p8}
JOSTLE=$PWD/$B/jostle
PROGS=${PROGS:-$B/fixtures/crash,assert $B/zoo/drain_election}
die() { echo "failcost: $*" >&2; exit 2; }
[ -x "$JOSTLE" ] || die "no $JOSTLE: build first (make)"
[ -z "$OLD" ] || [ -x "$OLD" ] || die "OLD='$OLD' is not an executable jostle"
command -v golang-stress > /dev/null || die "golang-stress is not installed (apt-get install golang-golang-x-tools)"
for v in SECS ROUNDS J RT; do
	case ${!v} in '' | *[!0-9]* | 0) die "$v='${!v}' is not a positive whole number" ;; esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/failcost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# one TOOL PROG [ARG...]: "runs fails ms_per_run" of one contender's SECS seconds
one() {
	local tool=$1 bin cmd=()
	shift
	rm -rf "$tmp/o" "$tmp/gs"
	case $tool in
	jostle | old)
		bin=$JOSTLE
		[ "$tool" = old ] && bin=$OLD
		cmd=("$bin" run -q --no-report --time "${SECS}s" --timeout "${RT}s" -j "$J" -o "$tmp/o" -- "$@") ;;
	auto) cmd=("$JOSTLE" run -q --no-report --time "${SECS}s" --timeout "${RT}s" --chaos auto -o "$tmp/o" -- "$@") ;;
	p8)
		mkdir -p "$tmp/gs"
		cmd=(timeout -s INT "$SECS" golang-stress -p "$J" -timeout "${RT}s" -o "$tmp/gs/f-" "$@") ;;
	esac
	/usr/bin/python3 - "$tmp" "$tool" "${cmd[@]}" <<'PY'
import json, os, re, subprocess, sys, time
tmp, tool, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE if tool == "p8" else subprocess.DEVNULL,
                     stderr=subprocess.STDOUT, start_new_session=True, cwd=tmp)
last = None
out = b""
if tool == "p8":
    out = p.communicate()[0]
else:
    while p.poll() is None:
        try:
            last = open("/proc/%d/stat" % p.pid).read().rsplit(")", 1)[1].split()
        except OSError:
            pass
        time.sleep(0.05)
runs = fails = 0
if tool == "p8":
    m = re.findall(rb"(\d+) runs so far, (\d+) failures", out)
    fails = len(os.listdir(tmp + "/gs"))
    runs = max(int(m[-1][0]) if m else 0, fails)
    cpu = "-"
else:
    for line in open(tmp + "/o/runs.jsonl"):
        o = json.loads(line)
        if o.get("type") == "run" and o.get("outcome") != "cut":
            runs += 1
            fails += o.get("outcome") in ("fail", "crash", "hang")
    tck = os.sysconf("SC_CLK_TCK")
    own = (int(last[11]) + int(last[12])) / tck if last else 0
    cpu = "%.2f" % (1000 * own / max(runs, 1))
print(runs, fails, cpu)
PY
}

started=$(date -u '+%Y-%m-%d %H:%M UTC')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$tmp/cells"
for r in $(seq 1 "$ROUNDS"); do
	for entry in $PROGS ${PROGS_EXTRA:-}; do
		IFS=, read -r -a argv <<< "$entry"
		case ${argv[0]} in /*) ;; *) argv[0]=$PWD/${argv[0]} ;; esac
		[ -x "${argv[0]}" ] || die "'${argv[0]}' is not an executable program"
		name=$(basename "${argv[0]}")${argv[1]:+-${argv[1]}}
		for t in $TOOLS; do
			[ "$t" = old ] && [ -z "$OLD" ] && continue
			echo "failcost: round $r $name $t" >&2
			echo "$name $t $(one "$t" "${argv[@]}")" >> "$tmp/cells"
		done
	done
done
echo "### failcost.sh: $started - $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $(nproc) CPUs, $(uname -sr); load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "- jostle: $(git rev-parse --short HEAD 2>/dev/null || echo '?')${OLD:+; old: $OLD}"
echo "- command: \`SECS=$SECS ROUNDS=$ROUNDS J=$J RUN_TIMEOUT=$RT TOOLS=\"$TOOLS\" bash bench/failcost.sh\` (PROGS=\"$PROGS${PROGS_EXTRA:+ $PROGS_EXTRA}\")"
echo
echo "Medians of $ROUNDS rounds of $SECS s each: runs, failures, and the tool's own CPU per run in ms (its threads, not its runs; golang-stress: not measured)."
echo
echo "| program | tool | runs | failures | own CPU ms/run |"
echo "| --- | --- | ---: | ---: | ---: |"
awk '{ k = $1 " " $2; n[k]++; runs[k, n[k]] = $3; fails[k, n[k]] = $4; cpu[k, n[k]] = $5; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
	function med(a, k, c,   i, j, t, v) { for (i = 1; i <= c; i++) v[i] = a[k, i]; for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t } return v[int((c + 1) / 2)] }
	END { for (i = 1; i <= m; i++) { k = order[i]; split(k, p, " "); printf "| %s | %s | %s | %s | %s |\n", p[1], p[2], med(runs, k, n[k]), med(fails, k, n[k]), med(cpu, k, n[k]) } }' "$tmp/cells"
