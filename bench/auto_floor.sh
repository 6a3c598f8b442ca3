#!/usr/bin/env bash
# bench/auto_floor.sh: is `jostle run --chaos auto` ever below what users run
# today, on programs whose bug fails often without help? (issue 43, item 5)
#
#   BUDGET=30 REPS=3 bash bench/auto_floor.sh > floor.md
#
# Side by side in this one script run, interleaved (each repetition goes
# through every program, each program through the four tools, the tools'
# order turned by one each repetition, so that a busy minute of the shared
# machine falls on each tool alike), each tool runs each program for BUDGET
# seconds:
#   loop   a plain serial shell loop: one run at a time, nothing done to it
#   copies golang-stress with its default -p: one copy per CPU at once
#   p8     golang-stress -p 8 (a crowd: 4 per CPU on two CPUs)
#   auto   jostle run --chaos auto (no other option but the budget and the
#          timeout)
# and the table gives each tool's failures per minute (the median of the
# repetitions; a failure is a non-zero exit, a signal or a run past
# RUN_TIMEOUT; for jostle every outcome but pass, ignored, skipped, slow and
# cut, and only runs that ended within the budget), auto over the best of the
# three baselines, and auto's floor: docs/auto.md promises at least a sixth
# of the best baseline's rate past its first 5 s of machine time, so `floor`
# is auto / best >= (BUDGET - 5) / (6 BUDGET). The last column: auto's three
# arms with the most runs (failures/runs), from its last repetition.
#
# The programs: by default five of the bugs corpus that fail often natively
# (its README: 10-33% of plain runs) and bench/lock_twice.c, a shape the
# corpus does not have and auto was not tuned on (a lock created twice by
# racing threads, one unlocks the other's: abort). The corpus is read-only:
# it is built out of tree (bench/corpuslib.sh) into CORPUS_BUILD, with
# lock_twice beside it.
#
# Environment (all optional):
#   BUDGET=30 REPS=3 RUN_TIMEOUT=10
#   PROGRAMS="conn_pool_checkout stats_counter metrics_registry_once
#     logger_start bank_transfer lock_twice"   (corpus names, or lock_twice)
#   BUILD=build (its jostle; a folder of the repo or an absolute path)
#   CORPUS=/work/shared/corpora/bugs  CORPUS_BUILD=$BUILD/floor-corpus
#   SCRATCH=DIR (the tools' files; default /dev/shm if tmpfs, else TMPDIR)
#   PREBUILT=1: CORPUS_BUILD holds the programs built already (a machine
#     without a compiler or the corpus: carry that folder and a bundle,
#     BUILD=.../bundle/jostle-VERSION)
# Prints a Markdown table on stdout (with date, machine, load, commit and
# command), progress on stderr. Bad settings: one line, exit 2.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
B=${BUILD:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
BUDGET=${BUDGET:-30}
REPS=${REPS:-3}
RT=${RUN_TIMEOUT:-10}
PROGRAMS=${PROGRAMS:-conn_pool_checkout stats_counter metrics_registry_once logger_start bank_transfer lock_twice}
TOOLS="loop copies p8 auto"
CB=${CORPUS_BUILD:-$B/floor-corpus}
case $CB in /*) ;; *) CB=$ROOT/$CB ;; esac
JOSTLE=$B/jostle

die() { echo "auto_floor: $*" >&2; exit 2; }
for v in BUDGET REPS RT; do
	case ${!v} in '' | *[!0-9]*) die "$v='${!v}' is not a whole number; set it to a positive count (seconds for BUDGET and RUN_TIMEOUT)" ;; esac
	[ "${!v}" -gt 0 ] || die "$v must be positive, got ${!v}"
done
[ -x "$JOSTLE" ] || die "no jostle at $JOSTLE; build it (make) or set BUILD=DIR"
command -v golang-stress > /dev/null || die "golang-stress is not installed (apt-get install golang-golang-x-tools)"
# shellcheck source=bench/corpuslib.sh
. bench/corpuslib.sh
if [ "${PREBUILT:-0}" != 1 ]; then
	corpus_find || die "no bugs corpus found; set CORPUS=DIR (the folder with the NAME.c programs and their Makefile)"
	corpus_build "$CB" || die "the corpus does not build; see $CB/build.log"
	cc -O1 -g -pthread -o "$CB/lock_twice" bench/lock_twice.c 2>> "$CB/build.log" ||
		die "bench/lock_twice.c does not build; see $CB/build.log"
fi
[ -x "$CB/lock_twice" ] || die "no $CB/lock_twice; build without PREBUILT=1 first"
for p in $PROGRAMS; do
	if [ "$p" = lock_twice ]; then
		continue
	fi
	[ -x "$CB/src/build/$p" ] || die "unknown program '$p': not lock_twice, nor a program of the corpus built in $CB"
done
bin_of() { if [ "$1" = lock_twice ]; then echo "$CB/lock_twice"; else echo "$CB/src/build/$1"; fi; }

SCRATCH=${SCRATCH:-}
if [ -z "$SCRATCH" ]; then
	SCRATCH=${TMPDIR:-/tmp}
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ] && SCRATCH=/dev/shm
fi
tmp=$(mktemp -d "$SCRATCH/floor.XXXXXX" 2>/dev/null) || die "cannot make a folder in SCRATCH='$SCRATCH'"
# shellcheck source=bench/bglib.sh
. bench/bglib.sh   # bg, stop_bg, the traps
corpus_nap_open || die "cannot make a FIFO in '$tmp'"

# Each tool's cell: bench/corpuslib.sh's runners, "runs fails ttff secs
# extra" (extra: auto's arms, arm:failures/runs)
cell_loop() { corpus_cell_loop "$BUDGET" 0 0 "$1"; }
cell_copies() { corpus_cell_gstress "$(nproc)" "$BUDGET" 0 "$1"; }
cell_p8() { corpus_cell_gstress 8 "$BUDGET" 0 "$1"; }
cell_auto() { corpus_cell_jostle "$BUDGET" 0 1 "$JOSTLE" "" "$1"; }

started=$(date -u '+%Y-%m-%d %H:%M UTC')
load0=$(cut -d' ' -f1-3 /proc/loadavg)
tools=($TOOLS)
: > "$tmp/cells"
for rep in $(seq "$REPS"); do
	for p in $PROGRAMS; do
		for i in "${!tools[@]}"; do
			tool=${tools[$(((i + rep) % ${#tools[@]}))]}
			echo "auto_floor: $p $tool rep $rep (load $(cut -d' ' -f1 /proc/loadavg))" >&2
			read -r runs fails _ _ arms < <("cell_$tool" "$(bin_of "$p")")
			echo "$p $tool $rep $runs $fails $arms" >> "$tmp/cells"
		done
	done
done
finished=$(date -u '+%Y-%m-%d %H:%M UTC')
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "### auto_floor.sh: $started - $finished"
echo
echo "- machine: $(nproc) CPUs, Linux $(uname -r); load average $load0 at the start, $load1 at the end (a shared machine: the tools are interleaved)"
echo "- jostle: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+changes') ($JOSTLE)"
echo "- command: \`BUDGET=$BUDGET REPS=$REPS RUN_TIMEOUT=$RT PROGRAMS=\"$PROGRAMS\" bash bench/auto_floor.sh\`"
echo
/usr/bin/python3 - "$tmp/cells" "$BUDGET" "$PROGRAMS" "$(nproc)" <<'PY'
import re, statistics, sys
path, budget, programs, ncpu = sys.argv[1], float(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
cells = {}
arms = {}
for line in open(path):
    p, tool, rep, runs, fails, arm = line.split()
    cells.setdefault((p, tool), []).append((int(runs), int(fails)))
    if tool == "auto":
        # the three arms with the most runs
        top = [re.fullmatch(r"(.*):(\d+)/(\d+)", x).groups() for x in arm.split(",") if x != "-"]
        top.sort(key=lambda x: -int(x[2]))
        arms[p] = ",".join("%s:%s/%s" % x for x in top[:3]) or "-"
floor = max(budget - 5, 0) / budget / 6
baselines = ("loop", "copies", "p8")
print("Failures per minute, median of the repetitions (failures/runs of all of them in brackets);"
      " copies: golang-stress -p %s (its default, one per CPU)." % ncpu)
print("floor: auto / best >= %.2f (a sixth of the best baseline past 5 s, docs/auto.md)." % floor)
print()
print("| program | loop | copies | p8 | auto | auto / best | floor | auto's arms (last repetition) |")
print("|---|---:|---:|---:|---:|---:|:---:|---|")
held = 0
for p in programs:
    per = {}
    text = {}
    for tool in baselines + ("auto",):
        c = cells.get((p, tool), [])
        per[tool] = statistics.median(f * 60.0 / budget for r, f in c) if c else 0.0
        r = sum(x for x, y in c)
        f = sum(y for x, y in c)
        text[tool] = "%.0f (%d/%d)" % (per[tool], f, r)
    best = max(per[t] for t in baselines)
    ratio = per["auto"] / best if best > 0 else float("inf")
    ok = ratio >= floor
    held += ok
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (p, text["loop"], text["copies"], text["p8"], text["auto"],
          "%.2fx" % ratio if best > 0 else "-", "yes" if ok else "NO", arms.get(p, "-")))
print()
print("The floor held on %d of %d programs." % (held, len(programs)))
PY
