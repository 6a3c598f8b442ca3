#!/usr/bin/env bash
# bench/gpu.sh: seed 000 and compute-sanitizer on a real GPU (issue 15).
# Runs on a machine with an NVIDIA GPU and driver (it prints why not and
# exits 77 elsewhere); jostle may be the relocatable bundle (`make bundle`).
#
#   machine    GPU, driver, compute-sanitizer, CPUs, date
#   reuse      the precondition: how often the driver hands the raw CUgraph
#              value of a destroyed child graph to the same thread and to
#              another thread (bench/cugraph_reuse.c, built here with cc and
#              libcuda), with glibc's heap as it is and with one shared heap
#   sanitizer  zoo/cuda/kernel_bugs under racecheck and memcheck inside
#              `jostle run`: outcomes, signatures (kind, frames), explain;
#              the raw reports saved as OUT/cs_racecheck.txt, cs_memcheck.txt
#   calibrate  cuda_graph_registry: failing share per shape in a plain loop
#              on the shared heap; jostle run --chaos auto on the heap as it
#              is (SECS/3)
#   race       jostle run --chaos auto on the shared heap (SECS, the "before"
#              of compare)
#   fixed      the fixed variant with the same SHAPE, FIXED_RUNS runs (at
#              most FIXED_SECS, when set) under --chaos auto on the shared
#              heap ("after"), and jostle compare BEFORE after
#   peers      side by side, SECS each, on the shared heap: a plain loop,
#              golang-stress -p 8 (where it is on PATH) and jostle --chaos
#              auto: failures per minute and the time to the first failure
#              (bench/chaos_vs_peers.sh)
#
# The race needs another thread to get a freed CUgraph value, which glibc's
# per-thread caches and arenas prevent (the reuse step measures it); the
# report's failures were on Windows, whose process heap is shared. HEAP sets
# the shared-heap condition (default GLIBC_TUNABLES with tcache off and one
# arena), passed to the program through env(1).
#
# Environment: BUILD (a folder with jostle, zoo/; default build), OUT
# (default a new folder under /tmp), STEPS (default all, in the order
# above), SECS=60, FIXED_RUNS=2000, JOBS=8 (jostle -j: CUDA context creation
# does not scale to 8 runs per CPU), SHAPE (the race's and peers' program
# arguments, default "--threads 2 --iters 5"), BEFORE (default OUT/before),
# HEAP, COMPUTE_SANITIZER. Prints the report on stdout; results stay in OUT.
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
OUT=${OUT:-$(mktemp -d /tmp/jostle-gpu.XXXXXX)}
SECS=${SECS:-60}
FIXED_RUNS=${FIXED_RUNS:-2000}
JOBS=${JOBS:-8}
STEPS=${STEPS:-machine reuse sanitizer calibrate race fixed peers}
SHAPE=${SHAPE:---threads 2 --iters 5}
HEAP=${HEAP:-GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1}
BEFORE=${BEFORE:-$OUT/before}
case $B in /*) ;; *) B=$PWD/$B ;; esac
J=$B/jostle
R=$B/zoo/cuda_graph_registry
K=$B/zoo/kernel_bugs
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
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

step() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }

if step machine; then
h "machine"
date -u +"date: %Y-%m-%d %H:%M UTC"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/gpu: /'
"$CS" --version 2>/dev/null | grep -i version | head -1 | sed 's/^/compute-sanitizer: /'
echo "cpus: $(nproc), kernel $(uname -r), $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(ldd --version | head -1 | awk '{print $NF}')"
echo "jostle: $("$J" --version) ($J)"

fi

if step reuse; then
h "reuse: raw CUgraph values handed out again after cuGraphDestroyNode"
if cc -O2 -I"$CUDA_HOME/include" -o "$OUT/cugraph_reuse" bench/cugraph_reuse.c -lcuda -lpthread 2>"$OUT/cc.err"; then
	for t in 1 4 8; do "$OUT/cugraph_reuse" "$t" 2000; done
	echo "with $HEAP (one shared heap):"
	for t in 4 8; do env $HEAP "$OUT/cugraph_reuse" "$t" 2000; done
else
	echo "(cugraph_reuse not built: $(head -1 "$OUT/cc.err"))"
fi

fi

if step sanitizer; then
h "sanitizer: compute-sanitizer inside jostle run (kernel_bugs)"
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

fi

# firsts DIR: the first failure, failures per minute, and each arm's failures/runs.
firsts() {
	python3 - "$1" <<'PY'
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
    a = arms.setdefault((r.get("config") or {}).get("arm", "?"), [0, 0])
    a[0] += 1
    a[1] += r["outcome"] not in ("pass", "ignored")
print("per arm (failed/runs): " + ", ".join("%s %d/%d" % (k, v[1], v[0]) for k, v in sorted(arms.items(), key=lambda kv: -kv[1][1])))
PY
}

if step calibrate; then
h "calibrate: cuda_graph_registry, the buggy variant, per shape and heap"
echo "a plain loop, 12 runs per shape, on the shared heap ($HEAP):"
for shape in "--threads 2 --iters 1" "--threads 2 --iters 5" "--threads 4 --iters 100"; do
	f=0
	for _ in $(seq 12); do env $HEAP "$R" $shape > /dev/null 2>&1 || f=$((f + 1)); done
	echo "  $shape: $f of 12 runs failed"
done
echo "\$ jostle run --chaos auto -j $JOBS --time $((SECS / 3))s -- cuda_graph_registry $SHAPE    (the heap as it is)"
"$J" run -q --chaos auto -j "$JOBS" --time "$((SECS / 3))s" --timeout 60s -o "$OUT/default-heap" -- "$R" $SHAPE > /dev/null 2>&1
echo "exit $?"; sig "$OUT/default-heap"
fi

if step race; then
h "race: cuda_graph_registry $SHAPE, the buggy variant, on the shared heap"
echo "\$ jostle run --chaos auto -j $JOBS --time ${SECS}s -- env $HEAP cuda_graph_registry $SHAPE"
"$J" run -q --chaos auto -j "$JOBS" --time "${SECS}s" --timeout 60s -o "$BEFORE" -- env $HEAP "$R" $SHAPE > "$OUT/before.txt" 2>&1
echo "exit $?"; sig "$BEFORE"; firsts "$BEFORE"
fi

if step fixed; then
h "fixed: $FIXED_RUNS runs of cuda_graph_registry --fixed $SHAPE under --chaos auto on the shared heap"
echo "\$ jostle run --chaos auto -j $JOBS -n $FIXED_RUNS${FIXED_SECS:+ --time ${FIXED_SECS}s} -- env $HEAP cuda_graph_registry --fixed $SHAPE"
"$J" run -q --chaos auto -j "$JOBS" -n "$FIXED_RUNS" ${FIXED_SECS:+--time "${FIXED_SECS}s"} --timeout 60s -o "$OUT/after" -- env $HEAP "$R" --fixed $SHAPE > "$OUT/after.txt" 2>&1
echo "exit $?"; sig "$OUT/after"; firsts "$OUT/after"
echo "\$ jostle compare before after"
"$J" compare "$BEFORE" "$OUT/after"
fi

if step peers; then
h "peers: side by side, ${SECS}s each, cuda_graph_registry $SHAPE on the shared heap (bench/chaos_vs_peers.sh)"
# chaos_vs_peers runs zoo programs by name: a folder with jostle and a
# wrapper that runs the program on the shared heap with SHAPE.
w=$OUT/peers-build
mkdir -p "$w/zoo"
ln -sf "$J" "$w/jostle"
printf '#!/bin/sh\nexec env %s %s %s "$@"\n' "$HEAP" "$R" "$SHAPE" > "$w/zoo/cuda_graph_registry"
chmod +x "$w/zoo/cuda_graph_registry"
modes="seq auto"
command -v golang-stress >/dev/null && modes="seq p8 auto"
BUILD=$w PROGRAMS=cuda_graph_registry MODES="$modes" BUDGET=$SECS CAP=$SECS ATTEMPTS=1 RUN_TIMEOUT=60 \
	JOSTLE_ARGS="-j $JOBS" bash bench/chaos_vs_peers.sh 2>/dev/null
fi
echo
echo "results: $OUT"
