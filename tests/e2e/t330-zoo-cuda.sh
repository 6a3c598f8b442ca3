#!/usr/bin/env bash
# t330-zoo-cuda: the GPU programs of the zoo on a real driver.
#   cuda_graph_registry (seed 000 against libcuda): without a driver it says
#     so in one line and exits 77; with one, --fixed passes and the buggy
#     variant passes or shows its documented symptom.
#   kernel_bugs under compute-sanitizer inside `jostle run`: a racecheck
#     report fails the run although compute-sanitizer exits 0, and the
#     signature's kind and frames come from the report, the same as
#     `jostle explain` gives (one kind per report).
# What needs a GPU, a driver, nvcc or compute-sanitizer is reported as
# "ok N - # SKIP why" where they are missing (tests/run.sh counts skips).
. "$(dirname "$0")/../lib.sh"

skip() { ok "# SKIP $*"; }

# ---- cuda_graph_registry ----
R=$ZOO/cuda_graph_registry
check "cuda_graph_registry is built" test -x "$R"
timeout 120 "$R" --fixed --threads 4 --iters 20 > "$TMP/out" 2> "$TMP/err"; rc=$?
if [ $rc -eq 77 ]; then
	check_eq "no driver: one line on stderr" "$(wc -l < "$TMP/err")" 1
	check "no driver: the line says skipped and why" grep -q '^cuda_graph_registry: skipped: ..' "$TMP/err"
	check_eq "no driver: nothing on stdout" "$(wc -c < "$TMP/out")" 0
	for what in "--fixed passes" "the buggy variant ends well-formed"; do
		skip "cuda_graph_registry $what: $(cat "$TMP/err")"
	done
else
	check_eq "--fixed passes" "$rc" 0
	check "--fixed: its passed line" grep -qx 'cuda_graph_registry: 4 threads x 20 runs passed (fixed)' "$TMP/out"
	timeout 120 "$R" --threads 4 --iters 20 > "$TMP/out" 2> "$TMP/err"; rc=$?
	if [ $rc -eq 0 ]; then
		check "buggy: passed, its passed line" grep -qx 'cuda_graph_registry: 4 threads x 20 runs passed' "$TMP/out"
	else
		check "buggy: exit $rc is its documented symptom" grep -qE \
			'^(CUDAError: CUDA_ERROR_INVALID_VALUE|RuntimeError: GraphDefinition is no longer valid|AssertionError)' "$TMP/err"
	fi
fi

# ---- kernel_bugs under compute-sanitizer ----
K=$ZOO/kernel_bugs
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
why=
if [ ! -x "$K" ]; then
	why="kernel_bugs is not built (no nvcc)"
elif [ ! -x "$CS" ]; then
	why="no compute-sanitizer"
else
	timeout 60 "$K" race --fixed > "$TMP/out" 2> "$TMP/err"
	[ $? -eq 77 ] && why="no CUDA device"
fi
if [ -n "$why" ]; then
	for what in racecheck memcheck fixed; do skip "kernel_bugs $what under compute-sanitizer: $why"; done
	exit 0
fi

# sanitized TOOL MODE [--fixed]: two runs of kernel_bugs under compute-sanitizer, results in $TMP/TOOL-MODE*
sanitized() {
	local out=$TMP/$1-$2${3:-}
	timeout 300 "$JOSTLE" run -q -n 2 -j 2 --timeout 120s -o "$out" -- "$CS" --tool "$1" "$K" "$2" ${3:+"$3"} \
		> "$out.stdout" 2>&1
}
sanitized racecheck race; rc=$?
check_eq "racecheck: jostle exits 1" "$rc" 1
check_eq "racecheck: both runs failed" "$(json "$TMP/racecheck-race/runs.jsonl" '[r["outcome"] for r in rows]')" "['fail', 'fail']"
check_eq "racecheck: although compute-sanitizer exited 0" "$(json "$TMP/racecheck-race/runs.jsonl" '[r["exit"] for r in rows]')" "[0, 0]"
check_eq "racecheck: kind" "$(json "$TMP/racecheck-race/runs.jsonl" 'rows[0]["sig_kind"]')" compute-sanitizer-racecheck
check_eq "racecheck: the kernel is the frame" "$(json "$TMP/racecheck-race/runs.jsonl" 'rows[0]["frames"][0]')" neighbour_sum
check_eq "racecheck: one signature" "$(json "$TMP/racecheck-race/runs.jsonl" 'len({r["sig_id"] for r in rows})')" 1

sanitized memcheck oob; rc=$?
check_eq "memcheck: jostle exits 1" "$rc" 1
check_eq "memcheck: kind" "$(json "$TMP/memcheck-oob/runs.jsonl" 'rows[0]["sig_kind"]')" compute-sanitizer-memcheck
check_eq "memcheck: the kernel is the frame" "$(json "$TMP/memcheck-oob/runs.jsonl" 'rows[0]["frames"][0]')" scale
log=$TMP/memcheck-oob/$(json "$TMP/memcheck-oob/runs.jsonl" 'rows[0]["log"]')
"$JOSTLE" explain "$log" --format json > "$TMP/explain.json"
check_eq "memcheck: explain gives the run's signature" "$(json "$TMP/explain.json" 'd["sig_id"]')" \
	"$(json "$TMP/memcheck-oob/runs.jsonl" 'rows[0]["sig_id"]')"

sanitized racecheck race --fixed; rc=$?
check_eq "racecheck, fixed: jostle exits 0" "$rc" 0
