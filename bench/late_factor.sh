#!/usr/bin/env bash
# bench/late_factor.sh: the CPU factor of runs past --timeout (src/run/late.h,
# docs/timeouts.md): each late run's own CPU (user + sys, less the chaos
# library's spins and 50 us per stepped instruction) over the median passing
# run's (at least 20 ms), for spinners of the bugs corpus and for fixed modes
# under sync chaos and auto. The threshold LATE_SPIN_FACTOR must sit between
# the highest factor of a correct program and the lowest of a hung spinner.
#
#   bench/late_factor.sh [SECONDS]      (default 40 per series; 9 series)
#   JOSTLE=build/jostle OUT=/tmp/late_factor CORPUS=...
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/corpuslib.sh
J=${JOSTLE:-$PWD/build/jostle}
T=${1:-40}
OUT=${OUT:-/tmp/late_factor}
corpus_find || { echo "no bugs corpus found (CORPUS=...)" >&2; exit 1; }
mkdir -p "$OUT"
corpus_build "$OUT/corpus" || exit 1
B=$OUT/corpus/src/build
echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $(git rev-parse --short HEAD), ${T}s per series"
series() {
	local name=$1; shift
	rm -rf "$OUT/$name"
	"$J" run --time "${T}s" -q -o "$OUT/$name" "$@" > /dev/null 2>&1
}
series spin_plain -j 8 --cpus 2 --timeout 3s -- "$B/phase_spin_stall"
series flag_plain -j 8 --cpus 2 --timeout 3s -- "$B/shutdown_flag_spin"
series spin_auto --chaos auto --cpus 2 --timeout 3s -- "$B/phase_spin_stall"
series flag_auto --chaos auto --cpus 2 --timeout 3s -- "$B/shutdown_flag_spin"
for p in phase_spin_stall jacobi_barrier_reuse spsc_ring_publish; do
	series "fixed_${p}_synchi" -j 2 --cpus 2 --chaos sync --chaos-level 2 --timeout 2s -- "$B/$p" --fixed
	series "fixed_${p}_auto" --chaos auto --cpus 2 --timeout 2s -- "$B/$p" --fixed
done
/usr/bin/python3 - "$OUT" <<'PY'
import json, os, statistics as st, sys
out = sys.argv[1]
print("| series | passes (median CPU) | late runs | factor (min-max) |")
print("|---|---:|---:|---|")
for name in sorted(os.listdir(out)):
    path = os.path.join(out, name, "runs.jsonl")
    if not os.path.exists(path):
        continue
    rows = [json.loads(l) for l in open(path) if l.strip()]
    rows = [r for r in rows if r.get("type") == "run"]
    own = lambda r: max(0.0, r["user_s"] + r["sys_s"] - r.get("chaos_spin_s", 0) - 50e-6 * r.get("chaos_steps", 0))
    passes = [own(r) for r in rows if r["outcome"] == "pass"]
    late = [r for r in rows if r.get("late")]
    if not passes:
        print("| %s | 0 | %d | no passing run |" % (name, len(late)))
        continue
    ref = max(st.median(passes), 0.02)
    f = sorted(own(r) / ref for r in late)
    print("| %s | %d (%.3f s) | %d | %s |" % (name, len(passes), st.median(passes), len(f),
          "%.1fx-%.1fx" % (f[0], f[-1]) if f else "-"))
PY
