#!/usr/bin/env bash
# bench/corpus.sh: does `jostle run --chaos auto` find real bugs it was not
# tuned on, faster than the tools people use instead?
#
# The corpus: the 30 programs of ../shared/corpora/bugs (written for jostle,
# MIT; each NAME.c has one concurrency bug and takes --fixed for its
# corrected path; its README gives each program's measured plain rate),
# built OUT OF TREE with the corpus's own Makefile into $CORPUS_BUILD
# (default build/corpus/, ignored by git; the sources are copied there, as
# the corpus may be read-only), plus the zoo (every build/zoo program and the
# ASan build of drain_uaf). For each program, side by side in this one script
# run, each tool gets BUDGET seconds, REPS times:
#   seq       a plain sequential shell loop
#   stressng  the same loop with `stress-ng --cpu NCPU` in the background
#   p2, p8    golang-stress -p 2 / -p 8
#   auto      jostle run --chaos auto (no other option but the budget/timeout)
# and, to compare variants side by side in the same minutes (A/B; not peers,
# not in the ratio):
#   jostle:ARGS  jostle run with ARGS, commas for spaces (jostle:-j,8,--chaos,none)
#   old          --chaos auto of another build, OLD_JOSTLE=PATH (its jostle binary)
#   old:PATH     the same with the jostle binary at PATH (several builds at once)
# A failure is a non-zero exit, a signal or a run past RUN_TIMEOUT (a hang),
# for every tool (jostle: any outcome but pass, ignored, skipped, slow, or
# cut by the end of the budget).
#
# What a cell measures: the tool runs for BUDGET seconds; its failures per
# minute are the failures that ENDED within the budget. If nothing failed and
# CAP > BUDGET, a fresh start of the same tool hunts for a first failure for
# the remaining CAP - BUDGET seconds (jostle with --until first-failure: it
# starts its learning again, which is not in its favour); the time to first
# failure is then BUDGET + that time. "Found within CAP s" = a failure within
# CAP seconds in the median repetition. The correct programs (every corpus
# program's and zoo program's --fixed mode) run under auto for BUDGET seconds
# each: there must be 0 failures; the table's "--fixed" column shows them
# next to their buggy mode.
#
# The ratio auto / best peer per program compares median failures per minute;
# a 0 (of auto or of a peer) counts as ONE failure in the budget (the
# resolution of the measurement), and the report says so.
#
# Environment (all optional; every loop is bounded in time):
#   BUDGET=60 CAP=60 REPS=3 RUN_TIMEOUT=10 TOOLS="seq stressng p2 p8 auto"
#   PROGRAMS="bank_transfer ... zoo:registry_aba asan:drain_uaf"  (default: all;
#     a name selects its --fixed mode too)
#   CORRECT=1 (0: skip the --fixed modes)
#   CORPUS=../shared/corpora/bugs  CORPUS_BUILD=build/corpus  BUILD=build (jostle
#     and its zoo; a folder of the repo or an absolute path)
#   ASAN_BUILD=build-asan (its zoo/drain_uaf is asan:drain_uaf, when built)
#   JOSTLE_COMMIT=HASH: the commit BUILD was made from, for the header (default:
#     the repository's HEAD when the run starts, "+changes" if the tree is dirty)
#   BUILD_ONLY=1: build the corpus, print the program list, stop
#   RAW=FILE: also keep every cell's raw line there
#   SCRATCH=DIR: where the tools' files go (default /dev/shm if tmpfs, else TMPDIR)
# Prints Markdown tables on stdout (with date, machine, load, the commit and
# the command), progress on stderr.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
B=${BUILD:-build}
BUDGET=${BUDGET:-60}
CAP=${CAP:-$BUDGET}
REPS=${REPS:-3}
RT=${RUN_TIMEOUT:-10}
TOOLS=${TOOLS:-seq stressng p2 p8 auto}
NCPU=$(nproc)
CORRECT=${CORRECT:-1}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
JOSTLE=$B/jostle
AB=${ASAN_BUILD:-build-asan}
case $AB in /*) ;; *) AB=$ROOT/$AB ;; esac
CB=${CORPUS_BUILD:-$ROOT/build/corpus}
case $CB in /*) ;; *) CB=$ROOT/$CB ;; esac

die() { echo "corpus: $*" >&2; exit 2; }
# shellcheck source=bench/corpuslib.sh
. bench/corpuslib.sh
corpus_find || die "no bugs corpus found; set CORPUS=DIR (the folder with the NAME.c programs and their Makefile)"
case $CB/ in "$CORPUS"/*) die "CORPUS_BUILD must be outside the corpus (build out of tree)" ;; esac
for v in BUDGET CAP REPS RT; do
	case ${!v} in '' | *[!0-9]*) die "$v='${!v}' is not a whole number of seconds" ;; esac
done
[ "$BUDGET" -gt 0 ] && [ "$REPS" -gt 0 ] && [ "$RT" -gt 0 ] || die "BUDGET, REPS and RUN_TIMEOUT must be positive"

# ---- build, out of tree ------------------------------------------------
# list line: NAME KIND BINARY ARGS...  (KIND: bug, fixed, zoo, zoo-fixed)
build_corpus() {
	local f n
	corpus_build "$CB" || die "the corpus does not build in '$CB' (see $CB/build.log)"
	: > "$CB/list.new"
	for n in $(corpus_names); do
		[ -x "$CB/src/build/$n" ] || { echo "corpus: $n was not built (see $CB/build.log)" >&2; continue; }
		echo "$n bug $CB/src/build/$n" >> "$CB/list.new"
		echo "$n-fixed fixed $CB/src/build/$n --fixed" >> "$CB/list.new"
	done
	for f in "$B"/zoo/*; do
		[ -x "$f" ] && [ -f "$f" ] || continue
		case $f in *.so) continue ;; esac
		# a program that needs what this machine lacks says so (77: skipped,
		# e.g. no CUDA driver; 2: it needs arguments): not a benchmark here
		timeout 30 "$f" --fixed > /dev/null 2>&1
		case $? in 77 | 2) continue ;; esac
		n=$(basename "$f")
		echo "zoo:$n zoo $f" >> "$CB/list.new"
		echo "zoo:$n-fixed zoo-fixed $f --fixed" >> "$CB/list.new"
	done
	if [ -x "$AB/zoo/drain_uaf" ]; then
		echo "asan:drain_uaf zoo $AB/zoo/drain_uaf" >> "$CB/list.new"
		echo "asan:drain_uaf-fixed zoo-fixed $AB/zoo/drain_uaf --fixed" >> "$CB/list.new"
	fi
	mv "$CB/list.new" "$CB/list"
}
build_corpus
nbugs=$(awk '$2 == "bug"' "$CB/list" | wc -l)
if [ "${BUILD_ONLY:-0}" = 1 ]; then
	cat "$CB/list"
	exit 0
fi
[ -x "$JOSTLE" ] || die "build jostle first (make)"
for t in $TOOLS; do
	case $t in
	seq | auto | jostle | jostle:?*) ;;
	old) [ -x "${OLD_JOSTLE:-}" ] || die "tool 'old' needs OLD_JOSTLE=PATH, a jostle binary" ;;
	old:?*) [ -x "${t#old:}" ] || die "tool '$t': ${t#old:} is not a jostle binary" ;;
	stressng) command -v stress-ng >/dev/null || die "stress-ng is not installed" ;;
	p[0-9]*) command -v golang-stress >/dev/null || die "golang-stress is not installed" ;;
	*) die "unknown tool '$t'; expected seq, stressng, pN (golang-stress -p N), jostle, jostle:ARGS, old, old:PATH or auto" ;;
	esac
done

# Every tool's files (golang-stress's failure outputs, jostle's results) go
# to SCRATCH, a tmpfs where there is one: on this VM's ext4 (no journal) a
# file created in the minutes after many were deleted waits while the
# allocator skips the recently deleted inodes, so a cell's rate on a program
# where every run fails depended on how many files the previous cell had
# made and removed (jostle -j 16 on lazy01_bad: 260 runs/s for its first 7 s
# after such a cell, 1,150 after; session 36)
SCRATCH=${SCRATCH:-}
if [ -z "$SCRATCH" ]; then
	SCRATCH=${TMPDIR:-/tmp}
	[ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ] && [ -w /dev/shm ] && SCRATCH=/dev/shm
fi
tmp=$(mktemp -d "$SCRATCH/corpus.XXXXXX" 2>/dev/null) || die "cannot make a folder in SCRATCH='$SCRATCH'"
# shellcheck source=bench/bglib.sh
. bench/bglib.sh   # bg, stop_bg, the traps

# the runners (corpus_cell_*) are bench/corpuslib.sh's
corpus_nap_open || die "cannot make a FIFO in '$tmp'"

cell() { # TOOL SECS FIRST BIN ARGS...
	local tool=$1
	shift
	case $tool in
	seq) corpus_cell_loop "$1" "$2" 0 "${@:3}" ;;
	jostle:*) corpus_cell_jostle "$1" "$2" 0 "$JOSTLE" "${tool#jostle:}" "${@:3}" ;;
	old) corpus_cell_jostle "$1" "$2" 1 "$OLD_JOSTLE" "" "${@:3}" ;;
	old:*) corpus_cell_jostle "$1" "$2" 1 "${tool#old:}" "" "${@:3}" ;;
	stressng) corpus_cell_loop "$1" "$2" "$NCPU" "${@:3}" ;;
	p[0-9]*) corpus_cell_gstress "${tool#p}" "$@" ;;
	jostle) corpus_cell_jostle "$1" "$2" 0 "$JOSTLE" "" "${@:3}" ;;
	auto) corpus_cell_jostle "$1" "$2" 1 "$JOSTLE" "" "${@:3}" ;;
	esac
}

# The selection: PROGRAMS names list entries (zoo:NAME, asan:drain_uaf).
awk '$2 == "bug" || $2 == "zoo"' "$CB/list" > "$tmp/bugs"
awk '$2 != "bug" && $2 != "zoo"' "$CB/list" > "$tmp/correct"
if [ -n "${PROGRAMS:-}" ]; then
	for s in bugs correct; do
		: > "$tmp/$s.sel"
		for p in $PROGRAMS; do
			awk -v p="$p" '$1 == p || $1 == p "-fixed"' "$tmp/$s" >> "$tmp/$s.sel"
		done
		mv "$tmp/$s.sel" "$tmp/$s"
	done
fi
[ "$CORRECT" = 1 ] || : > "$tmp/correct"

started=$(date -u '+%Y-%m-%d %H:%M UTC')
# the commit when the run starts (others may commit while it runs); with
# BUILD outside the repository, JOSTLE_COMMIT says what that build is of
rev=${JOSTLE_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+changes')}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$tmp/cells"
while read -r name kind bin args; do
	load=$(cut -d' ' -f1 /proc/loadavg)
	for rep in $(seq "$REPS"); do
		for tool in $TOOLS; do
			echo "corpus: $name $tool rep $rep (load $(cut -d' ' -f1 /proc/loadavg))" >&2
			# shellcheck disable=SC2086
			read -r runs fails ttff secs extra < <(cell "$tool" "$BUDGET" 0 "$bin" $args)
			if [ "$fails" = 0 ] && [ "$CAP" -gt "$BUDGET" ]; then
				# shellcheck disable=SC2086
				read -r r2 f2 t2 s2 x2 < <(cell "$tool" $((CAP - BUDGET)) 1 "$bin" $args)
				if [ "$f2" -gt 0 ]; then
					ttff=$(awk -v a="$BUDGET" -v b="$t2" 'BEGIN { printf "%.3f", a + b }')
				fi
			fi
			echo "$name $kind $tool $rep $runs $fails $ttff $secs $load $extra" >> "$tmp/cells"
		done
	done
done < "$tmp/bugs"
while read -r name kind bin args; do
	echo "corpus: $name (correct) auto (load $(cut -d' ' -f1 /proc/loadavg))" >&2
	# shellcheck disable=SC2086
	read -r runs fails ttff secs extra < <(cell auto "$BUDGET" 0 "$bin" $args)
	echo "$name $kind auto 1 $runs $fails $ttff $secs $(cut -d' ' -f1 /proc/loadavg) $extra" >> "$tmp/cells"
done < "$tmp/correct"
finished=$(date -u '+%Y-%m-%d %H:%M UTC')
load1=$(cut -d' ' -f1-3 /proc/loadavg)
[ -n "${RAW:-}" ] && cp "$tmp/cells" "$RAW"

echo "### corpus.sh: $started - $finished"
echo
echo "- machine: $NCPU CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), Linux $(uname -r), autogroup $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo '?') (every tool runs in its own session); load average $load0 at the start, $load1 at the end; the tools' files in $SCRATCH ($(stat -f -c %T "$SCRATCH"))"
echo "- jostle: $rev$([ -z "${JOSTLE_COMMIT:-}" ] || echo " (JOSTLE_COMMIT; binary $JOSTLE)")"
echo "- command: \`BUDGET=$BUDGET CAP=$CAP REPS=$REPS RUN_TIMEOUT=$RT TOOLS=\"$TOOLS\"${PROGRAMS:+ PROGRAMS=\"$PROGRAMS\"}$([ "$CORRECT" = 1 ] || echo " CORRECT=$CORRECT") bash bench/corpus.sh\`"
echo
/usr/bin/python3 - "$tmp/cells" "$BUDGET" "$CAP" "$REPS" "$TOOLS" "$nbugs" "$CORPUS/README.md" <<'PY'
import math, re, sys
path, budget, cap, reps, tools, nbugs = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5].split(), int(sys.argv[6])
# the corpus README's measured plain rate per program ("| name | class | signal | n/runs ... | 10.0% | ...")
readme = {}
try:
    for line in open(sys.argv[7]):
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) >= 5 and re.fullmatch(r"[0-9.]+%", c[4]):
            readme[c[0]] = c[4]
except OSError:
    pass
cells = {}
loads = {}
kinds = {}
order = []
for line in open(path):
    c = line.split()
    if len(c) < 9:
        continue
    name, kind, tool = c[0], c[1], c[2]
    runs, fails, ttff, secs, load = int(c[4]), int(c[5]), float(c[6]), float(c[7]), c[8]
    extra = c[9] if len(c) > 9 else "-"
    if name not in kinds:
        order.append(name)
    kinds[name] = kind
    loads.setdefault(name, load)
    cells.setdefault((name, tool), []).append((runs, fails, ttff, secs, extra))

def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

def fpm(r):
    return 60.0 * r[1] / r[3] if r[3] > 0 else 0.0

def summary(name, tool):
    rs = cells.get((name, tool))
    if not rs:
        return None
    m = median([fpm(r) for r in rs])
    f = median([r[1] for r in rs])
    t = median([r[2] if r[2] >= 0 else math.inf for r in rs])
    return {"fpm": m, "fails": f, "ttff": t, "found": t <= cap, "runs": median([r[0] for r in rs]),
            "extra": rs[0][4]}

peers = [t for t in tools if t not in ("auto", "jostle", "old") and not t.startswith(("jostle:", "old:"))]
bugs = [n for n in order if kinds[n] in ("bug", "zoo")]
floor = 60.0 / budget  # one failure in the budget, per minute
print("Cells: failures per minute over the %g s budget (median of %d), and in brackets the median time to"
      " first failure in s (\">%g\": none within %g s)." % (budget, reps, cap, cap))
print("auto / best peer: median failures per minute, where a 0 (auto's or a peer's) counts as one failure in"
      " the %g s budget (%.1f/min)." % (budget, floor))
print()
def fixed(n):
    rs = cells.get((n + "-fixed", "auto"), [])
    return (sum(r[1] for r in rs), sum(r[0] for r in rs)) if rs else None

print("README: the plain rate the corpus README measured (its own loop, 200 runs or fewer). --fixed: the"
      " program's --fixed mode under auto for %g s, failures / runs (must be 0)." % budget)
print()
print("| program | README | load | " + " | ".join(tools) + " | best peer | auto / best peer | --fixed |")
print("| --- | ---: | ---: | " + " | ".join("---:" for _ in tools) + " | --- | ---: | ---: |")
ratios = {"bug": [], "zoo": []}
below = []
found = {t: {"bug": 0, "zoo": 0} for t in tools}
for n in bugs:
    row = []
    for t in tools:
        s = summary(n, t)
        if not s:
            row.append("-")
            continue
        found[t][kinds[n]] += s["found"]
        tt = ">%g" % cap if not s["found"] else "%.2f" % s["ttff"]
        row.append("%.1f (%s)" % (s["fpm"], tt))
    best, bs = None, None
    for t in peers:
        s = summary(n, t)
        if s and (bs is None or s["fpm"] > bs["fpm"]):
            best, bs = t, s
    a = summary(n, "auto")
    ratio = "-"
    if a and bs:
        r = max(a["fpm"], floor) / max(bs["fpm"], floor)
        ratios[kinds[n]].append(r)
        ratio = "%.2f" % r
        if r < 0.8 and bs["fails"] >= 10:
            below.append("%s (%.2fx of %s, which found %g)" % (n, r, best, bs["fails"]))
    fx = fixed(n)
    print("| %s | %s | %s | %s | %s | %s | %s |" % (n, readme.get(n, "-"), loads[n], " | ".join(row), best or "-", ratio,
                                               "%d / %d" % fx if fx else "-"))
print()
gm = lambda v: math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
nb = sum(1 for n in bugs if kinds[n] == "bug")
nz = sum(1 for n in bugs if kinds[n] == "zoo")
print("| summary | " + " | ".join(tools) + " |")
print("| --- | " + " | ".join("---:" for _ in tools) + " |")
print("| corpus bugs found within %g s (of %d run; %d in the corpus) | %s |" % (
    cap, nb, nbugs, " | ".join(str(found[t]["bug"]) for t in tools)))
print("| zoo bugs found within %g s (of %d) | %s |" % (cap, nz, " | ".join(str(found[t]["zoo"]) for t in tools)))
print()
print("- geometric mean of auto / best peer: corpus %.2f (%d programs), zoo %.2f (%d), all %.2f (%d)" % (
    gm(ratios["bug"]), len(ratios["bug"]), gm(ratios["zoo"]), len(ratios["zoo"]),
    gm(ratios["bug"] + ratios["zoo"]), len(ratios["bug"]) + len(ratios["zoo"])))
print("- programs where auto is below 0.8x of a best peer that found >= 10 failures: %s" % (
    "; ".join(below) if below else "none"))
if any(kinds[n] == "bug" and summary(n, "auto") for n in bugs):
    missed = [n for n in bugs if summary(n, "auto") and not summary(n, "auto")["found"]]
    print("- not found by auto within %g s: %s" % (cap, ", ".join(missed) if missed else "none"))
    anyp = [n for n in missed if any((summary(n, t) or {}).get("found") for t in peers)]
    if anyp:
        print("- of those, found by a peer: %s" % ", ".join(anyp))
correct = [n for n in order if kinds[n] not in ("bug", "zoo")]
if correct:
    tr = sum(r[0] for n in correct for r in cells.get((n, "auto"), []))
    tf = sum(r[1] for n in correct for r in cells.get((n, "auto"), []))
    bad = ["%s (%d of %d)" % (n, fixed(n[:-6])[0], fixed(n[:-6])[1]) for n in correct
           if n.endswith("-fixed") and fixed(n[:-6]) and fixed(n[:-6])[0]]
    print("- --fixed modes under auto, %g s each: %d failures in %d runs of %d programs%s" % (
        budget, tf, tr, len(correct), (": " + "; ".join(bad)) if bad else ""))
print()
print("Which arms of auto failed (first repetition, arm:failures/runs, most failures first):")
print()
print("| program | arms |")
print("| --- | --- |")
for n in bugs:
    s = summary(n, "auto")
    if s:
        print("| %s | %s |" % (n, s["extra"].replace(",", ", ")[:300]))
PY
