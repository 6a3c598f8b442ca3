#!/usr/bin/env bash
# jostle compare on generated results with known answers (counts, Fisher p
# from SciPy, sample sizes from tests/unit/test_stats.c) and its exit status.
. "$(dirname "$0")/../lib.sh"
G="/usr/bin/python3 $ROOT/tests/gen_runs.py"

$G "$TMP/b37" --runs 600 --sig aaaa0001:fail:30 --sig bbbb0002:crash:7
$G "$TMP/a0" --runs 600
$G "$TMP/b0" --runs 100
$G "$TMP/a0b" --runs 100
$G "$TMP/b6" --runs 100 --sig aaaa0001:fail:6
$G "$TMP/a1" --runs 100 --sig aaaa0001:fail:1
$G "$TMP/a1clean" --runs 30
$G "$TMP/b12" --runs 600 --sig aaaa0001:fail:12
$G "$TMP/a12" --runs 600 --sig aaaa0001:fail:13
$G "$TMP/a20" --runs 600 --sig aaaa0001:fail:3 --sig cccc0003:hang:17

out=$("$JOSTLE" compare "$TMP/b37" "$TMP/a0"); rc=$?
check_eq "fixed: exit 0" "$rc" 0
check_eq "fixed: conclusion" "$(echo "$out" | tail -1)" "fixed: 0/600 after vs 37/600 before (p = 8e-12)"
check "fixed: per-signature rows" grep -q '^aaaa0001 fail .*30/600.*0/600.*fixed' <<<"$out"
check "fixed: crash signature row" grep -q '^bbbb0002 crash .*7/600.*0/600.*p = 0.015\|^bbbb0002 crash .*7/600.*0/600.*0.015.*fixed' <<<"$out"

out=$("$JOSTLE" compare "$TMP/b0" "$TMP/a0b"); rc=$?
check_eq "clean both: exit 0" "$rc" 0
check "clean both: conclusion" grep -q '^clean: 0/100 after and 0/100 before; failure rate after < 2.96% with 95% confidence$' <<<"$out"

out=$("$JOSTLE" compare "$TMP/b6" "$TMP/a1"); rc=$?
check_eq "6% to 1% in 100 runs: exit 1" "$rc" 1
# power of the pooled z test: n2 = 450 for n1 = 100 (test_stats.c), 350 more
check_eq "not enough runs, with power" "$(echo "$out" | tail -1)" \
	"not enough runs: about 350 more runs after the fix would show a drop from 6.0% to 1.0% with 80% power (p = 0.12 now)"

out=$("$JOSTLE" compare "$TMP/b6" "$TMP/a1clean"); rc=$?
check_eq "clean but too short: exit 1" "$rc" 1
check "clean but too short: how many clean runs" grep -q '^not enough runs: about [0-9]* more runs after the fix, all clean, would show a drop from 6.0% to 0' <<<"$out"

out=$("$JOSTLE" compare "$TMP/b12" "$TMP/a12"); rc=$?
check_eq "no change: exit 1" "$rc" 1
check_eq "no change: conclusion" "$(echo "$out" | tail -1)" "no evidence of change (p = 1)"

out=$("$JOSTLE" compare "$TMP/b37" "$TMP/a20" ); rc=$?
check_eq "new hang signature shown" "$(grep -c 'new after the fix' <<<"$out")" 1
out=$("$JOSTLE" compare "$TMP/a0" "$TMP/b37"); rc=$?
check_eq "worse: exit 1" "$rc" 1
check_eq "worse: conclusion" "$(echo "$out" | tail -1)" "worse: 37/600 after vs 0/600 before (p = 8e-12)"

"$JOSTLE" compare "$TMP/b37" >/dev/null 2>&1; check_eq "one directory: usage error" "$?" 2
err=$("$JOSTLE" compare "$TMP/b37" "$TMP/nope" 2>&1); rc=$?
check_eq "missing directory: exit 2" "$rc" 2
check "missing directory: names it" grep -q "^jostle: cannot read '.*nope/runs.jsonl'" <<<"$err"
out=$("$JOSTLE" compare "$TMP/b37" "$TMP/a20"); rc=$?
check_eq "fewer in total but a new signature is worse: exit 1" "$rc" 1
check_eq "the worse signature is named" "$(echo "$out" | tail -1)" "but signature cccc0003 hang is worse after the fix (p = 1e-05)"
