#!/usr/bin/env bash
# bench/localize.sh: does `jostle localize` point at the code that races?
#
# For every program of the zoo and of the bugs corpus (../shared/corpora/bugs,
# 30 programs written for jostle, MIT; see bench/corpuslib.sh): one `jostle
# localize` (its whole budget, its own stopping rule), then: did the program
# fail under sync chaos (any failed run in the localization: every run of it
# goes through the sync chaos library), and is a function of the racing pair
# among the top 3 sites? The racing pair's functions come from the program's
# own comments (the header comment of each corpus program, which names the
# functions of its bug; the zoo's README "Mechanism") and are listed in the
# table below, one line per program,
# before anything runs. A site's function is the function that makes the
# call, or for a thread creation the new thread's start routine (its delay
# holds up that thread before it runs); a C++ method matches by its last
# name component.
#
# Also printed per program: "chance", the probability that 3 sites drawn at
# random from the sites localize tested include one of the racing
# functions: most corpus programs are two or three thread functions and a
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
#   CORPUS    the bugs corpus (default ../shared/corpora/bugs from the repo)
#   CORPUS_BUILD  where to build it, out of tree with its own Makefile
#             (default build/corpus, as bench/corpus.sh)
#   OUT       results folder (default /tmp/jostle-localize-bench)
#   JOSTLE    the binary (default build/jostle; the chaos library next to it)
#   ZOO, ASAN_ZOO  the zoo builds (default build/zoo, build-asan/zoo)
#
# Prints the date, machine, load, commit and command, a Markdown table and
# the summary lines: the current table goes in bench/RESULTS.md (the one it
# replaces to bench/history/).
set -u
cd "$(dirname "$0")/.."
root=$PWD
runs=${RUNS:-300}
budget=()
[ -n "${TIME:-}" ] && budget=(--time "$TIME")
jobs=${JOBS:-2}
timeout=${TIMEOUT:-3s}
seeds=${SEEDS:-1 2 3}
cb=${CORPUS_BUILD:-$root/build/corpus}
case $cb in /*) ;; *) cb=$root/$cb ;; esac
out=${OUT:-/tmp/jostle-localize-bench}
jostle=${JOSTLE:-$root/build/jostle}
zoo=${ZOO:-$root/build/zoo}
asan_zoo=${ASAN_ZOO:-$root/build-asan/zoo}

# name | command (zoo/: ZOO, asan/: ASAN_ZOO, bugs/: the corpus build) | racing functions
table='registry_aba|zoo/registry_aba|graph_node_destroy cuGraphDestroyNode invalidate_child_graph_state retire_box cuGraphCreate registry_lookup create_child_graph_handle
deferred_cleanup|zoo/deferred_cleanup|pending_drainer pq_run payload_release wait_until_released
spin_handshake|zoo/spin_handshake|handshake_all_cores aicore_execute spin_wait deinit_all_cores
drain_uaf|zoo/drain_uaf|on_task_complete drain ring_reset_to_empty
asan:drain_uaf|asan/drain_uaf|on_task_complete drain ring_reset_to_empty
drain_election|zoo/drain_election|handle_drain_mode quiesce_cores
bank_transfer|bugs/bank_transfer|transfer account_balance account_adjust teller_main
bounded_buffer_signal|bugs/bounded_buffer_signal|collector_main uploader_main
bufref_race|bugs/bufref_race|snapshot_acquire snapshot_publish snapshot_release reader_main
cache_fill_twice|bugs/cache_fill_twice|resolve upstream_query resolver_main
conn_pool_checkout|bugs/conn_pool_checkout|pool_checkout serve_request handler_main
conn_release_double_close|bugs/conn_release_double_close|conn_put conn_close half_main
event_bus_reentry|bugs/event_bus_reentry|bus_publish metrics_cb bus_unsubscribe admin_main
freelist_aba|bugs/freelist_aba|freelist_pop freelist_push net_thread
handoff_dekker|bugs/handoff_dekker|params_try_enter side_main
index_lock_inversion|bugs/index_lock_inversion|index_add index_compact indexer_main compactor_main
jacobi_barrier_reuse|bugs/jacobi_barrier_reuse|sweep_barrier_wait strip_main
job_queue_if_wait|bugs/job_queue_if_wait|job_queue_pop job_queue_push worker_main
lease_spin_livelock|bugs/lease_spin_livelock|acquire_leases claim unclaim agent_main
logger_start|bugs/logger_start|logger_open flusher_main
metrics_registry_once|bugs/metrics_registry_once|registry_get registry_build request_thread
phase_spin_stall|bugs/phase_spin_stall|wait_until announce helper_main main
pool_shutdown_task_uaf|bugs/pool_shutdown_task_uaf|pool_destroy pool_free_registered worker_main default_on_done
ready_latch|bugs/ready_latch|service_wait_ready listener_main
reload_sighup_pause|bugs/reload_sighup_pause|main control_main housekeeping
report_join_missing|bugs/report_join_missing|main scan_shard
rwcache_upgrade|bugs/rwcache_upgrade|route_lookup refresher_main request_main
session_shutdown_uaf|bugs/session_shutdown_uaf|main janitor_main
shutdown_flag_spin|bugs/shutdown_flag_spin|wait_for_config server_main load_config main
solver_barrier_miscount|bugs/solver_barrier_miscount|init_phase_barrier worker_main
spsc_ring_publish|bugs/spsc_ring_publish|sampler_main encoder_main
stats_counter|bugs/stats_counter|stat_bump worker_main
timer_wheel_cancel|bugs/timer_wheel_cancel|timer_cancel ticker_main request_timed_out
tmpclean_deadline|bugs/tmpclean_deadline|cleaner_main main
worker_cancel_lock|bugs/worker_cancel_lock|indexer_main main
wsdeque_take_steal|bugs/wsdeque_take_steal|dq_take dq_steal thief_main'

[ -x "$jostle" ] || { echo "bench/localize.sh: build jostle first (make)" >&2; exit 2; }
# shellcheck source=bench/corpuslib.sh
. bench/corpuslib.sh
corpus_find || { echo "bench/localize.sh: no bugs corpus found (set CORPUS=DIR)" >&2; exit 2; }
corpus_build "$cb" || { echo "bench/localize.sh: the corpus does not build in '$cb' (see $cb/build.log)" >&2; exit 2; }

rm -rf "$out" && mkdir -p "$out"
echo "### localize.sh: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), Linux $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "- jostle: $(git -C "$root" rev-parse --short HEAD 2>/dev/null)$(git -C "$root" diff --quiet 2>/dev/null || echo '+changes')"
echo "- command: \`RUNS=$runs${TIME:+ TIME=$TIME} JOBS=$jobs TIMEOUT=$timeout SEEDS=\"$seeds\"${ONLY:+ ONLY=\"$ONLY\"} bash bench/localize.sh\`"
echo
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
	bugs/*) bin=$cb/src/build/${bin#bugs/} ;;
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
