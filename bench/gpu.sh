#!/usr/bin/env bash
# bench/gpu.sh: seed 000 and compute-sanitizer on a real GPU (issue 15).
# Runs on a machine with an NVIDIA GPU and driver (it prints why not and
# exits 77 elsewhere); jostle may be the relocatable bundle (`make bundle`).
#
#   1. the machine: GPU, driver, compute-sanitizer, CPUs, date
#   2. the precondition: how often the driver hands the raw CUgraph value of
#      a destroyed child graph to the same thread and to another thread
#      (bench/cugraph_reuse.c, built here with cc and libcuda)
#   3. compute-sanitizer inside `jostle run`: zoo/cuda/kernel_bugs under
#      racecheck and memcheck, the signatures jostle gives (kind, frames),
#      and the raw reports saved as OUT/cs_racecheck.txt, cs_memcheck.txt
#   4. the registry race: jostle run --chaos auto for SECS ("before"), the
#      fixed variant FIXED_RUNS runs under the same chaos ("after"),
#      jostle compare before after
#   5. side by side, SECS each: a plain loop, golang-stress -p 8 (where it is
#      on PATH) and jostle --chaos auto: failures per minute and the time to
#      the first failure (bench/chaos_vs_peers.sh)
#
# Environment: BUILD (a folder with jostle, zoo/; default build), OUT
# (default a new folder under /tmp), SECS=60, FIXED_RUNS=2000,
# THREADS (cuda_graph_registry --threads, default its own), COMPUTE_SANITIZER.
# Prints the report on stdout; results folders stay in OUT.
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
OUT=${OUT:-$(mktemp -d /tmp/jostle-gpu.XXXXXX)}
SECS=${SECS:-60}
FIXED_RUNS=${FIXED_RUNS:-2000}
J=$PWD/$B/jostle
R=$PWD/$B/zoo/cuda_graph_registry
K=$PWD/$B/zoo/kernel_bugs
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
ARGS=${THREADS:+--threads $THREADS}
mkdir -p "$OUT"

command -v nvidia-smi >/dev/null || { echo "gpu.sh: no nvidia-smi: not a GPU machine" >&2; exit 77; }
[ -x "$J" ] && [ -x "$R" ] || { echo "gpu.sh: '$J' or '$R' is missing: build first (make, make bundle)" >&2; exit 2; }
if [ ! -x "$K" ]; then
	command -v nvcc >/dev/null || PATH=$PATH:$CUDA_HOME/bin
	nvcc -g -lineinfo -arch=sm_90 -o "$OUT/kernel_bugs" zoo/cuda/kernel_bugs.cu || exit 1
	K=$OUT/kernel_bugs
fi

h() { printf '\n## %s\n\n' "$*"; }
# sig DIR: the signature table of a results folder (kind, count, key, frames).
sig() {
	python3 - "$1" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/runs.jsonl") if l.strip()]
rows = [r for r in rows if r.get("type") == "run"]
fails = [r for r in rows if r["outcome"] not in ("pass", "ignored")]
print("runs %d, failed %d, exit statuses %s" % (len(rows), len(fails), sorted({r["exit"] for r in rows if r["exit"] is not None})))
seen = {}
for r in fails:
    seen.setdefault(r["sig_id"], [r, 0])[1] += 1
for sid, (r, n) in seen.items():
    print("  %s  %-28s x%-4d %s" % (sid, r["sig_kind"], n, r["key_line"][:110]))
    print("            frames: %s" % " ".join(r.get("frames") or []))
PY
}

h "1. machine"
date -u +"date: %Y-%m-%d %H:%M UTC"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/gpu: /'
"$CS" --version 2>/dev/null | grep -i version | head -1 | sed 's/^/compute-sanitizer: /'
echo "cpus: $(nproc), kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | awk '{print $NF}')"
echo "jostle: $("$J" --version) ($J)"

h "2. precondition: raw CUgraph values reused after cuGraphDestroyNode"
if cc -O2 -I"$CUDA_HOME/include" -o "$OUT/cugraph_reuse" bench/cugraph_reuse.c -lcuda -lpthread 2>"$OUT/cc.err"; then
	for t in 1 4 8; do "$OUT/cugraph_reuse" "$t" 2000; done
	echo "with GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1 (one shared heap):"
	for t in 4 8; do GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1 "$OUT/cugraph_reuse" "$t" 2000; done
else
	echo "(cugraph_reuse not built: $(head -1 "$OUT/cc.err"))"
fi

h "3. compute-sanitizer inside jostle run (kernel_bugs)"
for tm in racecheck:race memcheck:oob; do
	tool=${tm%:*} mode=${tm#*:}
	"$CS" --tool "$tool" "$K" "$mode" > "$OUT/cs_$tool.txt" 2>&1
	echo "plain: compute-sanitizer --tool $tool kernel_bugs $mode: exit $?"
	echo "jostle run -n 4 -j 4 -- compute-sanitizer --tool $tool kernel_bugs $mode:"
	"$J" run -q -n 4 -j 4 --timeout 120s -o "$OUT/cs-$tool" -- "$CS" --tool "$tool" "$K" "$mode" > /dev/null 2>&1
	echo "  jostle exit $?"; sig "$OUT/cs-$tool"
	"$J" run -q -n 4 -j 4 --timeout 120s -o "$OUT/cs-$tool-fixed" -- "$CS" --tool "$tool" "$K" "$mode" --fixed > /dev/null 2>&1
	echo "  --fixed: jostle exit $?"; sig "$OUT/cs-$tool-fixed"
	log=$(ls "$OUT/cs-$tool/logs/"*.log 2>/dev/null | head -1)
	[ -n "$log" ] && "$J" explain "$log" | sed 's/^/  explain: /' | head -4
done

h "4. the registry race: before (buggy, --chaos auto, ${SECS}s) and after (--fixed, $FIXED_RUNS runs, --chaos auto)"
echo "\$ jostle run --chaos auto --time ${SECS}s -- cuda_graph_registry $ARGS"
"$J" run -q --chaos auto --time "${SECS}s" --timeout 60s -o "$OUT/before" -- "$R" $ARGS > "$OUT/before.txt" 2>&1
echo "exit $?"; sig "$OUT/before"
python3 - "$OUT/before" <<'PY'
import json, sys
d = sys.argv[1]
rows = [json.loads(l) for l in open(d + "/runs.jsonl") if l.strip()]
rows = [r for r in rows if r.get("type") == "run"]
f = [r for r in rows if r["outcome"] not in ("pass", "ignored")]
el = json.load(open(d + "/summary.json"))["elapsed_s"]
print("first failure after %s s; %.1f failures/min over %.0f s" % (
    "%.2f" % min(r["t"] + r["wall_s"] for r in f) if f else "- (none)", len(f) * 60 / el, el))
arms = {}
for r in rows:
    a = arms.setdefault(r["config"]["arm"], [0, 0])
    a[0] += 1
    a[1] += r["outcome"] not in ("pass", "ignored")
print("per arm: " + ", ".join("%s %d/%d" % (k, v[1], v[0]) for k, v in sorted(arms.items(), key=lambda kv: -kv[1][1])))
PY
echo "\$ jostle run --chaos auto -n $FIXED_RUNS -- cuda_graph_registry --fixed $ARGS"
"$J" run -q --chaos auto -n "$FIXED_RUNS" --timeout 60s -o "$OUT/after" -- "$R" --fixed $ARGS > "$OUT/after.txt" 2>&1
echo "exit $?"; sig "$OUT/after"
echo "\$ jostle compare before after"
"$J" compare "$OUT/before" "$OUT/after"

h "5. side by side, ${SECS}s each (bench/chaos_vs_peers.sh)"
modes="seq auto"
command -v golang-stress >/dev/null && modes="seq p8 auto"
BUILD=$B PROGRAMS=cuda_graph_registry MODES="$modes" BUDGET=$SECS CAP=$SECS ATTEMPTS=1 RUN_TIMEOUT=60 \
	bash bench/chaos_vs_peers.sh 2>/dev/null
echo
echo "results: $OUT"
