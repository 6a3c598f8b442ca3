#!/usr/bin/env bash
# bench/reproduce.sh: does `jostle reproduce` turn a rare failure into one
# that fails most runs, and how much cheaper does it make the proof of a fix?
# (issue 44)
#
# For every program of the bugs corpus (../shared/corpora/bugs, built out of
# tree, bench/corpuslib.sh) and of the zoo (build/zoo, each with --fixed):
#   1. the natural rate: a plain loop (`jostle run`, no pressure, -j JOBS,
#      NAT_RUNS runs);
#   2. when it is below 10%: `jostle reproduce --time TIME`, then its
#      reproducer's rate (measured on its own fresh confirmation runs) and the
#      time it took to build it;
#   3. the program's --fixed mode under that reproducer (FIXED_RUNS runs):
#      its failures (0 expected);
#   4. the runs a proof of the fix needs: the smallest n such that n runs
#      before at the rate and n clean runs after give a two-sided Fisher
#      p < 0.05 (what `jostle compare` tests), under the reproducer and at
#      the natural rate ("-" when the natural rate is 0: no finite number).
# Then the table and the issue's targets: reproducer rate >= 50% on >= 80% of
# the programs below 10%, median build time <= 2 min, median runs to prove
# the fix <= 30, the --fixed modes 0 failures.
#
# Environment (all optional):
#   TIME        reproduce's budget per program (default 2m)
#   NAT_RUNS    plain-loop runs for the natural rate (default 100)
#   FIXED_RUNS  runs of --fixed under the reproducer (default 20)
#   JOBS        -j of the plain loop and the search's start (default 2)
#   TIMEOUT     per-run limit (default 5s; hangs are failures)
#   ONLY        programs to run, in this order (names; default all)
#   CORPUS      the bugs corpus (default found by bench/corpuslib.sh)
#   CORPUS_BUILD where to build it (default /tmp/jostle-reproduce-corpus)
#   OUT         results folder (default /tmp/jostle-reproduce-bench)
#   JOSTLE      the binary (default build/jostle); ZOO its zoo (default build/zoo)
#   JOSTLE_COMMIT the commit JOSTLE was built from, for the header (default:
#               this checkout's HEAD; set it for a build of an exported tree)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
. bench/corpuslib.sh
TIME=${TIME:-2m}
NAT_RUNS=${NAT_RUNS:-100}
FIXED_RUNS=${FIXED_RUNS:-20}
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-5s}
OUT=${OUT:-/tmp/jostle-reproduce-bench}
JOSTLE=${JOSTLE:-$ROOT/build/jostle}
ZOO=${ZOO:-$(dirname "$JOSTLE")/zoo}
CORPUS_BUILD=${CORPUS_BUILD:-/tmp/jostle-reproduce-corpus}
PY=/usr/bin/python3

[ -x "$JOSTLE" ] || { echo "bench/reproduce.sh: no jostle at $JOSTLE (make first)" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
progs=()
if corpus_find && corpus_build "$CORPUS_BUILD"; then
	for n in $(corpus_names); do
		[ -x "$CORPUS_BUILD/src/build/$n" ] && progs+=("$n=$CORPUS_BUILD/src/build/$n")
	done
else
	echo "bench/reproduce.sh: no bugs corpus (set CORPUS); the zoo alone" >&2
fi
for p in "$ZOO"/*; do
	n=$(basename "$p")
	case $n in cuda*|*.so|kernel_bugs) continue ;; esac   # a GPU, a library, a kernel module's model
	[ -x "$p" ] && progs+=("$n=$p")
done


rows=$OUT/rows.tsv
: > "$rows"
load() { cut -d' ' -f1-3 /proc/loadavg; }
rev=${JOSTLE_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)}
echo "# bench/reproduce.sh, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(nproc) CPUs, jostle ${rev:-unknown}"
echo "# TIME=$TIME NAT_RUNS=$NAT_RUNS FIXED_RUNS=$FIXED_RUNS JOBS=$JOBS TIMEOUT=$TIMEOUT ONLY=${ONLY:-all}; load at the start: $(load)"
# ONLY's order when given (the first named run first: a run cut short keeps them)
order=()
if [ -n "${ONLY:-}" ]; then
	for n in $ONLY; do
		for entry in "${progs[@]}"; do
			[ "${entry%%=*}" = "$n" ] && order+=("$entry")
		done
	done
else
	order=("${progs[@]}")
fi
for entry in "${order[@]}"; do
	name=${entry%%=*}
	bin=${entry#*=}
	d=$OUT/$name
	rm -rf "$d"
	mkdir -p "$d"
	"$JOSTLE" run -q --no-report -n "$NAT_RUNS" -j "$JOBS" --timeout "$TIMEOUT" -o "$d/natural" -- "$bin" \
		> /dev/null 2>&1
	nat=$($PY - "$d/natural/runs.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get("type") == "run" and r["outcome"] in ("pass", "fail", "crash", "hang")]
print(sum(r["outcome"] != "pass" for r in rows), len(rows))
PY
)
	set -- $nat
	nk=${1:-0} nn=${2:-0}
	if [ "$nn" -eq 0 ] || [ $((nk * 10)) -ge "$nn" ]; then
		printf '%s\t%s\t%s\tskip\n' "$name" "$nk" "$nn" >> "$rows"
		echo "$name: natural $nk/$nn: not below 10%, skipped" >&2
		continue
	fi
	la=$(load)
	t0=$(date +%s.%N)
	"$JOSTLE" reproduce -q --time "$TIME" -j "$JOBS" --timeout "$TIMEOUT" -o "$d/rep" -- "$bin" \
		> "$d/rep.out" 2> "$d/rep.err"
	rc=$?
	t1=$(date +%s.%N)
	fk=- fn=-
	if [ -f "$d/rep/reproducer.json" ]; then
		"$JOSTLE" run -q --no-report --reproducer "$d/rep/reproducer.json" -n "$FIXED_RUNS" \
			--timeout "$TIMEOUT" -o "$d/fixed" -- "$bin" --fixed > /dev/null 2>&1
		set -- $($PY - "$d/fixed/runs.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get("type") == "run" and r["outcome"] in ("pass", "fail", "crash", "hang")]
print(sum(r["outcome"] != "pass" for r in rows), len(rows))
PY
)
		fk=${1:--} fn=${2:--}
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$nk" "$nn" "$rc" "$(echo "$t1 - $t0" | bc)" "$fk" "$fn" "${la%% *}" >> "$rows"
	echo "$name: natural $nk/$nn, reproduce exit $rc, --fixed $fk/$fn, load $la" >&2
done

$PY - "$rows" "$OUT" <<'PY'
import json, math, os, statistics, sys

def fisher2(a, b, c, d):
    """two-sided Fisher exact p of [[a, b], [c, d]]"""
    n1, n2, k = a + b, c + d, a + c
    n = n1 + n2
    def pmf(x):
        return math.comb(n1, x) * math.comb(n2, k - x) / math.comb(n, k)
    lo, hi = max(0, k - n2), min(k, n1)
    p0 = pmf(a)
    return min(1.0, sum(pmf(x) for x in range(lo, hi + 1) if pmf(x) <= p0 * (1 + 1e-7)))

def proof_runs(rate):
    """n runs before at `rate` and n clean after: the smallest n with p < 0.05"""
    if rate <= 0:
        return None
    for n in range(2, 100000):
        k = round(rate * n)
        if k and fisher2(k, n - k, 0, n) < 0.05:
            return n
    return None

rows_path, out = sys.argv[1], sys.argv[2]
table, below = [], []
for line in open(rows_path):
    f = line.rstrip("\n").split("\t")
    name, nk, nn = f[0], int(f[1]), int(f[2])
    nat = nk / nn if nn else 0
    if f[3] == "skip":
        table.append((name, "%d/%d" % (nk, nn), "(natural >= 10%: not measured)", "", "", "", "", "", ""))
        continue
    rc, wall, fk, fn = f[3], float(f[4]), f[5], f[6]
    la = f[7] if len(f) > 7 else "?"
    path = os.path.join(out, name, "rep", "reproducer.json")
    if not os.path.exists(path):
        below.append(dict(name=name, rate=0, build=wall, proof=None, nat=nat, fixed=None))
        table.append((name, "%d/%d" % (nk, nn), "none found (exit %s)" % rc, "%.0f" % wall, "-",
                      "-", str(proof_runs(nat) or "-"), "-", la))
        continue
    d = json.load(open(path))
    m = d["measured"]
    rate = m["fails"] / m["runs"] if m["runs"] else 0
    pr = proof_runs(rate)
    below.append(dict(name=name, rate=rate, build=d["build_s"], proof=pr, nat=nat,
                      fixed=int(fk) if fk != "-" else None))
    table.append((name, "%d/%d" % (nk, nn),
                  "%.0f%% [%.0f%%, %.0f%%] %s" % (100 * rate, 100 * m["lo"], 100 * m["hi"], d["condition"]["arm"]),
                  "%.0f" % d["build_s"], "%.0f" % m["fails_per_min"], str(pr or "-"),
                  str(proof_runs(nat) or "-"), "%s/%s" % (fk, fn), la))
hdr = ("program", "natural", "reproducer rate [95%] arm", "build s", "fails/min", "proof runs", "at natural", "--fixed",
       "load")
w = [max(len(str(r[i])) for r in table + [hdr]) for i in range(len(hdr))]
for r in [hdr] + table:
    print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)))
if below:
    n = len(below)
    good = sum(b["rate"] >= 0.5 for b in below)
    builds = [b["build"] for b in below]
    proofs = [b["proof"] if b["proof"] else 10 ** 9 for b in below]
    fixed = [b["fixed"] for b in below if b["fixed"] is not None]
    print()
    print("programs with a natural rate below 10%%: %d" % n)
    print("reproducer rate >= 50%%: %d of %d (%.0f%%; target >= 80%%)" % (good, n, 100.0 * good / n))
    print("median time to build: %.0f s (target <= 120 s)" % statistics.median(builds))
    # the upper median: a program with no reproducer has no finite proof
    mp = statistics.median_high(proofs)
    print("median runs to prove the fix under the reproducer: %s (target <= 30)" % ("%g" % mp if mp < 10 ** 9 else "none"))
    print("--fixed under the buggy mode's reproducer: %d failures in %d programs (target 0)" % (sum(fixed), len(fixed)))
print()
print("load (1-minute average) at the end: %s" % open("/proc/loadavg").read().split()[0])
PY
