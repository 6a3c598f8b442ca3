#!/usr/bin/env bash
# The same failure gets the same signature id from `jostle run` (its runs.jsonl),
# from `jostle survey` over the run's kept log, and from `jostle explain`.
. "$(dirname "$0")/../lib.sh"

same_id() { # DESCRIPTION SCRIPT
	local what=$1 dir=$TMP/$RANDOM
	printf '#!/bin/sh\n%s\n' "$2" > "$TMP/cmd.sh"
	chmod +x "$TMP/cmd.sh"
	"$JOSTLE" run -q -n 1 -o "$dir" -- "$TMP/cmd.sh" > /dev/null 2>&1
	local run_id survey_id
	run_id=$(json "$dir/runs.jsonl" 'rows[0]["sig_id"]')
	"$JOSTLE" survey --format json "$dir/logs" > "$dir/s.json" 2>/dev/null
	survey_id=$(json "$dir/s.json" '[s["id"] for s in d["signatures"] if s["primary"]][0]')
	if [ -n "$run_id" ] && [ "$run_id" = "$survey_id" ]; then
		ok "$what"
	else
		not_ok "$what"; echo "#   run: '$run_id' ($(json "$dir/runs.jsonl" 'rows[0]["sig_kind"], rows[0]["sig_key"]'))"
		echo "#   survey: $(json "$dir/s.json" '[(s["kind"], s["key"], s["id"]) for s in d["signatures"]]')"
	fi
}

same_id "pytest failure" 'echo "tests/a.py::test_ok PASSED"
echo "FAILED tests/a.py::test_drain - AssertionError: condition not satisfied within 5.0s"
exit 1'
same_id "Fatal Python error with a frame, killed by SIGSEGV" 'echo "Fatal Python error: Segmentation fault"
echo ""
echo "Current thread 0x00007f0000000001 (most recent call first):"
echo "  File \"/opt/venv/site-packages/simpler/worker.py\", line 2369 in run"
kill -SEGV $$'
same_id "AddressSanitizer report with its first own frame" 'echo "==77==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x1 bp 0x2 sp 0x3"
echo "    #0 0x55d1c0 in on_task_complete /src/orch.c:120:5"
exit 1'
same_id "Go panic" 'printf "panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.drain(0xc000010000)\n\t/src/main.go:9 +0x1d\n"
exit 2'

# jostle explain (the crash parser on a whole log) agrees with the survey.
for f in native/asan.log native/tsan.log "sim/st-sim-a2a3 (ubuntu-latest, 3.10) run 2723.txt"; do
	"$JOSTLE" explain --format json "$ROOT/tests/data/survey/$f" > "$TMP/e.json" 2>/dev/null
	"$JOSTLE" survey --format json "$ROOT/tests/data/survey/$f" > "$TMP/s.json" 2>/dev/null
	check_eq "explain and survey: same id for $(basename "$f")" "$(json "$TMP/e.json" 'd["sig_id"]')" \
		"$(json "$TMP/s.json" 'd["signatures"][0]["id"]')"
done
