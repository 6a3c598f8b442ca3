#!/usr/bin/env bash
# bench/selftest.sh [TEST...]: dogfooding. jostle runs its own end-to-end
# tests (tests/e2e/t*.sh, each as the command of one series) under
# `--chaos auto`, two runs at a time, and reports every flake it finds with
# its signature: a run fails when the test printed "not ok" or exited
# nonzero, and the signature's key is the failed check's description.
#
#   RUNS=200        runs per test (the issue's target)
#   BUDGET=10m      time budget per test (whichever of RUNS and BUDGET ends first)
#   TIMEOUT=10m     per run (tests/run.sh gives a test 600 s)
#   BUILD=build     the build under test (build-asan works too)
#   OUT=build/selftest   one results folder per test: OUT/tNNN-name/
#   NICE=10         the machine is shared
#
#   bench/selftest.sh                       every test
#   RUNS=20 BUDGET=3m bench/selftest.sh t500-stacks t520-run-diag
#
# The table at the end: test, runs, failed, stop reason, and for each
# signature its id, count and key line. The jostle that runs the series is
# the same build as the one under test (its own runs are not perturbed:
# chaos reaches the test script and everything it starts, jostle included).
set -u
cd "$(dirname "$0")/.."
runs=${RUNS:-200} budget=${BUDGET:-10m} timeout=${TIMEOUT:-10m}
build=${BUILD:-build} out=${OUT:-build/selftest} nice=${NICE:-10}
[ -x "$build/jostle" ] || { echo "bench/selftest.sh: '$build/jostle' is not built" >&2; exit 2; }
export JOSTLE=$PWD/$build/jostle FIX=$PWD/$build/fixtures ZOO=$PWD/$build/zoo BUILD=$PWD/$build
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

tests=()
if [ $# -gt 0 ]; then
	for t in "$@"; do tests+=("tests/e2e/${t%.sh}.sh"); done
else
	tests=(tests/e2e/t*.sh)
fi
mkdir -p "$out"
printf '# bench/selftest.sh: %s, RUNS=%s BUDGET=%s, %s, load %s\n' "$(date -u +%FT%TZ)" \
	"$runs" "$budget" "$build" "$(cut -d' ' -f1-3 /proc/loadavg)"
for t in "${tests[@]}"; do
	[ -f "$t" ] || { echo "bench/selftest.sh: no test '$t'" >&2; exit 2; }
	name=$(basename "$t" .sh)
	rm -rf "${out:?}/$name"
	start=$(date +%s)
	nice -n "$nice" "$JOSTLE" run -q -n "$runs" --time "$budget" -j 2 --chaos auto \
		--timeout "$timeout" --fail-on '(?m)^not ok ' --signature '(?m)^not ok [0-9]+ - (.*)$' \
		-o "$out/$name" --no-report -- bash "$PWD/$t" > "$out/$name.txt" 2>&1
	echo "$name: exit $?, $(( $(date +%s) - start )) s" >> "$out/$name.txt"
done

/usr/bin/python3 - "$out" "${tests[@]}" <<'PY'
import json, os, sys
out, tests = sys.argv[1], sys.argv[2:]
total_runs = total_fail = 0
print(f"{'test':<22} {'runs':>5} {'failed':>6}  stop")
flakes = []
for t in tests:
    name = os.path.basename(t)[:-3]
    path = f"{out}/{name}/runs.jsonl"
    runs = fails = 0
    stop = "no results"
    sigs = {}
    if os.path.exists(path):
        for line in open(path, "rb"):
            try:
                o = json.loads(line)
            except ValueError:
                continue
            if o.get("type") == "run":
                runs += 1
                if o["outcome"] in ("fail", "crash", "hang"):
                    fails += 1
                    k = (o.get("sig_id"), o["outcome"], o.get("key_line") or "")
                    sigs.setdefault(k, []).append(o["run"])
            elif o.get("type") == "end":
                stop = o.get("stop", "")
    total_runs += runs
    total_fail += fails
    print(f"{name:<22} {runs:>5} {fails:>6}  {stop}")
    for (sid, outcome, key), which in sorted(sigs.items(), key=lambda kv: -len(kv[1])):
        flakes.append(f"  {name}: {sid} {outcome} x{len(which)} (runs {','.join(map(str, which[:8]))}"
                      f"{'...' if len(which) > 8 else ''}): {key[:150]}")
print(f"{'total':<22} {total_runs:>5} {total_fail:>6}")
if flakes:
    print("\nflakes (signature, outcome, count, runs, key line; logs in OUT/TEST/logs/RUN.log):")
    print("\n".join(flakes))
PY
