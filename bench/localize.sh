#!/usr/bin/env bash
# bench/localize.sh: does `jostle localize` point at the code that races?
#
# For every program of the zoo and of the SCTBench subset: one `jostle
# localize` (its whole budget, its own stopping rule), then: did the program
# fail under sync chaos (any failed run in the localization: every run of it
# goes through the sync chaos library), and is a function of the racing pair
# among the top 3 sites? The racing pair's functions come from the program's
# own comments (the /* BAD */ marks of SCTBench, the zoo's README
# "Mechanism") and are listed in the table below, one line per program,
# before anything runs. A site's function is the function that makes the
# call, or for a thread creation the new thread's start routine (its delay
# holds up that thread before it runs); a C++ method matches by its last
# name component.
#
# Also printed per program: "chance", the probability that 3 sites drawn at
# random from the sites localize tested include one of the racing
# functions: most SCTBench programs are two or three thread functions and a
# main, so the top-3 check alone says little there; and the programs that
# failed in every run (with and without delays: no timing to localize) are
# counted apart.
#
# Environment (all optional):
#   RUNS      localize budget per program (-n, default 300)
#   TIME      wall-time budget per localization too (--time, e.g. 40s;
#             default none): whichever of RUNS and TIME is spent first
#   JOBS      concurrent runs (-j, default 2)
#   TIMEOUT   per-run limit (default 3s; deadlocking programs hang)
#   SEEDS     master seeds (default "1 2 3"): a program that failed in some runs
#             and passed in others is localized once per seed (the verdict
#             "2/3": a racing function in the top 3 with two seeds of three);
#             one that never failed or always failed, once
#   ONLY      programs to run (names from the table; default all)
#   SCTBENCH  the corpus (default ../shared/corpora/sctbench from the repo)
#   SCT_BUILD where to build it, out of tree (default /tmp/jostle-sctbench)
#   OUT       results folder (default /tmp/jostle-localize-bench)
#   JOSTLE    the binary (default build/jostle; the chaos library next to it)
#   ZOO, ASAN_ZOO  the zoo builds (default build/zoo, build-asan/zoo)
#
# Prints a Markdown table and the summary lines; paste them into
# bench/RESULTS.md with the date, the machine and its load.
set -u
cd "$(dirname "$0")/.."
root=$PWD
runs=${RUNS:-300}
budget=()
[ -n "${TIME:-}" ] && budget=(--time "$TIME")
jobs=${JOBS:-2}
timeout=${TIMEOUT:-3s}
seeds=${SEEDS:-1 2 3}
sct=${SCTBENCH:-$root/../shared/corpora/sctbench}
sctb=${SCT_BUILD:-/tmp/jostle-sctbench}
out=${OUT:-/tmp/jostle-localize-bench}
jostle=${JOSTLE:-$root/build/jostle}
zoo=${ZOO:-$root/build/zoo}
asan_zoo=${ASAN_ZOO:-$root/build-asan/zoo}

# name | command (relative: zoo/ and build-asan/zoo from the repo, sct/ from SCT_BUILD) | racing functions
table='registry_aba|zoo/registry_aba|graph_node_destroy cuGraphDestroyNode invalidate_child_graph_state retire_box cuGraphCreate registry_lookup create_child_graph_handle
deferred_cleanup|zoo/deferred_cleanup|pending_drainer pq_run payload_release wait_until_released
spin_handshake|zoo/spin_handshake|handshake_all_cores aicore_execute spin_wait deinit_all_cores
drain_uaf|zoo/drain_uaf|on_task_complete drain ring_reset_to_empty
asan:drain_uaf|asan/drain_uaf|on_task_complete drain ring_reset_to_empty
drain_election|zoo/drain_election|handle_drain_mode quiesce_cores
InterlockedWorkStealQueue|sct/InterlockedWorkStealQueue|Stealer Steal Pop
InterlockedWorkStealQueueWithState|sct/InterlockedWorkStealQueueWithState|Stealer Steal Pop
StateWorkStealQueue|sct/StateWorkStealQueue|Stealer Steal Pop
WorkStealQueue|sct/WorkStealQueue|Stealer Steal Pop
account_bad|sct/account_bad|check_result deposit withdraw
arithmetic_prog_bad|sct/arithmetic_prog_bad|main thread1 thread2
bluetooth_driver_bad|sct/bluetooth_driver_bad|BCSP_PnpStop BCSP_PnpAdd BCSP_IoIncrement BCSP_IoDecrement
carter01_bad|sct/carter01_bad|t1 t2
circular_buffer_bad|sct/circular_buffer_bad|t1 t2
deadlock01_bad|sct/deadlock01_bad|thread1 thread2
din_phil2_sat|sct/din_phil2_sat|thread1
din_phil3_sat|sct/din_phil3_sat|thread1
din_phil4_sat|sct/din_phil4_sat|thread1
din_phil5_sat|sct/din_phil5_sat|thread1
din_phil6_sat|sct/din_phil6_sat|thread1
din_phil7_sat|sct/din_phil7_sat|thread1
fsbench_bad|sct/fsbench_bad|thread_routine
lazy01_bad|sct/lazy01_bad|thread1 thread2 thread3
phase01_bad|sct/phase01_bad|thread1
queue_bad|sct/queue_bad|t1 t2
reorder_3_bad|sct/reorder_3_bad|setThread checkThread
reorder_4_bad|sct/reorder_4_bad|setThread checkThread
reorder_5_bad|sct/reorder_5_bad|setThread checkThread
reorder_10_bad|sct/reorder_10_bad|setThread checkThread
reorder_20_bad|sct/reorder_20_bad|setThread checkThread
stack_bad|sct/stack_bad|t1 t2
sync01_bad|sct/sync01_bad|thread1 thread2
sync02_bad|sct/sync02_bad|producer consumer
token_ring_bad|sct/token_ring_bad|t1 t2 t3 t4
twostage_bad|sct/twostage_bad|funcA funcB
twostage_100_bad|sct/twostage_100_bad|funcA funcB
wronglock_bad|sct/wronglock_bad|funcA funcB
wronglock_3_bad|sct/wronglock_3_bad|funcA funcB
ctrace-test|sct/ctrace-test 2|thread1 trc_end main trc_remove_thread
qsort_mt|sct/qsort_mt -n 32 -f 4 -h 2 -v|qsort_thread qsort_launch allocate_thread'

[ -x "$jostle" ] || { echo "bench/localize.sh: build jostle first (make)" >&2; exit 2; }
[ -d "$sct/csb" ] || { echo "bench/localize.sh: no SCTBench corpus at '$sct' (set SCTBENCH)" >&2; exit 2; }

# SCTBench, built out of tree with the suite's own flags (its README)
mkdir -p "$sctb"
for f in "$sct"/csb/*_bad.c "$sct"/csb/*_sat.c "$sct"/inspect/*.c; do
	n=$(basename "$f" .c)
	[ "$sctb/$n" -nt "$f" ] || gcc -O0 -g -w -pthread "$f" -o "$sctb/$n" || exit 2
done
for f in "$sct"/chess/*.cpp; do
	n=$(basename "$f" .cpp)
	[ "$sctb/$n" -nt "$f" ] || g++ -std=c++0x -O0 -g -w -pthread "$f" -o "$sctb/$n" || exit 2
done

rm -rf "$out" && mkdir -p "$out"
echo "| program | failed / runs (first seed) | runs per localization | rounds | stopped (first seed) | top 3 sites, first seed (function: call effect) | racing functions | in top 3 (seeds) | chance |"
echo "| --- | ---: | ---: | ---: | --- | --- | --- | :---: | ---: |"
echo "$table" | while IFS='|' read -r name cmd truth; do
	if [ -n "${ONLY:-}" ] && ! printf ' %s ' "$ONLY" | grep -q " $name "; then
		continue
	fi
	set -- $cmd
	bin=$1
	shift
	case $bin in
	zoo/*) bin=$zoo/${bin#zoo/} ;;
	asan/*) bin=$asan_zoo/${bin#asan/} ;;
	sct/*) bin=$sctb/${bin#sct/} ;;
	esac
	[ -x "$bin" ] || { echo "| $name | (not built: $bin) ||||||||"; continue; }
	dirs=
	for s in $seeds; do
		dir=$out/${name//:/-}-s$s
		timeout 3600 "$jostle" localize -q -n "$runs" "${budget[@]}" -j "$jobs" --timeout "$timeout" --seed "$s" \
			-o "$dir" -- "$bin" "$@" > "$dir.log" 2>&1
		dirs="$dirs $dir"
		# a program that never failed, or failed in every run, gives the
		# same verdict with any seed: one is enough
		v=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["discover"]["runs"]+sum(x["runs"] for x in d["rounds"]); f=d["discover"]["fails"]+sum(x["fails"] for x in d["rounds"]); print("once" if f == 0 or f == r else "more")' "$dir/localize.json" 2>/dev/null)
		[ "$v" = more ] || break
	done
	/usr/bin/python3 - "$name" "$truth" $dirs <<'PY'
import json, math, sys
name, truth, dirs = sys.argv[1], sys.argv[2].split(), sys.argv[3:]
def fn(s):
    return s.get("thread_start") or s.get("function") or "?"
def racing(f):
    return any(f == t or f.endswith("::" + t) for t in truth)
ds = []
for p in dirs:
    try:
        ds.append(json.load(open(p + "/localize.json")))
    except (OSError, ValueError):
        pass
if not ds:
    print(f"| {name} | (no findings: see the log) ||||||||")
    sys.exit(0)
def totals(d):
    return (d["discover"]["runs"] + sum(r["runs"] for r in d["rounds"]),
            d["discover"]["fails"] + sum(r["fails"] for r in d["rounds"]))
d = ds[0]
runs, fails = totals(d)
hits = sum(any(racing(fn(s)) for s in x["sites"][:3]) for x in ds)
sites = d["sites"]
n, k = len(sites), sum(1 for s in sites if racing(fn(s)))
chance = 0.0 if k == 0 else 1.0 if n <= 3 else 1 - math.comb(n - k, 3) / math.comb(n, 3)
tops = "<br>".join(f"{fn(s)}: {s['call']} {s['effect']:+.2f}" for s in sites[:3]) or "-"
if fails == 0:
    verdict = "no failure"
elif fails == runs:
    verdict = "every run failed"
else:
    verdict = f"{hits}/{len(ds)}"
mean_runs = sum(totals(x)[0] for x in ds) / len(ds)
stop = d["stop"].split(":")[0]
print(f"| {name} | {fails} / {runs} | {mean_runs:.0f} | {len(d['rounds'])} | {stop} | {tops} | "
      f"{' '.join(truth)} | {verdict} | {100 * chance:.0f}% |")
PY
done | tee "$out/table.md"

/usr/bin/python3 - "$out/table.md" <<'PY'
import sys
rows = [l.split("|")[1:-1] for l in open(sys.argv[1]) if l.startswith("| ") and " / " in l]
rows = [r for r in rows if r[0].strip() != "program"]
v = [r[7].strip() for r in rows]
timing = [x for x in v if "/" in x]
every, never = v.count("every run failed"), v.count("no failure")
hit = sum(int(x.split("/")[0]) for x in timing)
tries = sum(int(x.split("/")[1]) for x in timing)
maj = sum(1 for x in timing if 2 * int(x.split("/")[0]) > int(x.split("/")[1]))
print()
print(f"failed under sync chaos: {len(timing) + every} programs; {every} of them in every run, with and "
      f"without delays (no timing to localize); never failed: {never}")
print(f"failing in some runs and passing in others: {len(timing)} programs, {tries} localizations; "
      f"a racing function in the top 3: {hit} of {tries} ({100 * hit / max(1, tries):.0f}%); "
      f"programs where it was in most seeds: {maj} of {len(timing)} ({100 * maj / max(1, len(timing)):.0f}%)")
print(f"counting the every-run failures as misses: {maj} of {len(timing) + every} programs "
      f"({100 * maj / max(1, len(timing) + every):.0f}%)")
PY
