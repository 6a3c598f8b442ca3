#!/usr/bin/env bash
# The folders of src/ are the pipeline's stages: includes between them point
# one way (scripts/check_layers.py, docs/ARCHITECTURE.md). The checker also
# fails where it should, on copies of the tree with a bad include.
. "$(dirname "$0")/../lib.sh"
CHECK=$ROOT/scripts/check_layers.py

out=$(/usr/bin/python3 "$CHECK" "$ROOT" 2>&1); rc=$?
check_eq "the source tree's includes follow the layers" "$rc:$out" "0:"

# a scratch tree: src/ and preload/ copied, then broken one way at a time
fresh() { rm -rf "$TMP/t" && mkdir -p "$TMP/t" && cp -r "$ROOT/src" "$ROOT/preload" "$TMP/t/"; }

fresh
printf '#include "run/series.h"\n' >> "$TMP/t/src/results/stats.h"
out=$(/usr/bin/python3 "$CHECK" "$TMP/t" 2>&1); rc=$?
check_eq "an upward include fails" "$rc" 1
check "it names the file and the rule" grep -q "src/results/stats.h:.*src/results/ may not include src/run/" <<<"$out"
check "and the cycle it closes" grep -q "include cycle between folders: .*results -> run" <<<"$out"

fresh
printf '#include "stats.h"\n' >> "$TMP/t/src/results/stats.c"
out=$(/usr/bin/python3 "$CHECK" "$TMP/t" 2>&1); rc=$?
check_eq "an include without its stage folder fails" "$rc" 1
check "it says how to write it" grep -q 'names no stage folder' <<<"$out"

fresh
printf 'int x;\n' > "$TMP/t/src/loose.c"
out=$(/usr/bin/python3 "$CHECK" "$TMP/t" 2>&1); rc=$?
check_eq "a source file outside the stages fails" "$rc:$(grep -c 'src/loose.c' <<<"$out")" "1:1"

fresh
printf '#include "signature/key.h"\n' >> "$TMP/t/preload/chaos.c"
out=$(/usr/bin/python3 "$CHECK" "$TMP/t" 2>&1); rc=$?
check_eq "a preload library including more than util/ fails" "$rc:$(grep -c 'preload/chaos.c' <<<"$out")" "1:1"

# Between files: a call cycle fails (two files that call each other), with
# its path and the functions on each edge; a function only named in a
# backend table (not called) makes no edge.
fresh
printf 'void ping_probe(int n);\nvoid pong_probe(int n) { if (n) ping_probe(n - 1); }\n' > "$TMP/t/src/util/pong.c"
printf 'void pong_probe(int n);\nvoid ping_probe(int n) { if (n) pong_probe(n - 1); }\n' > "$TMP/t/src/util/ping.c"
out=$(/usr/bin/python3 "$CHECK" "$TMP/t" 2>&1); rc=$?
check_eq "a call cycle between files fails" "$rc" 1
check "it names the files and the functions" grep -q \
	"cycle between files: src/util/ping.c -> src/util/pong.c (pong_probe); src/util/pong.c -> src/util/ping.c (ping_probe)" <<<"$out"
fresh
printf 'void pong_probe(int n);\nstatic void (*const table[])(int) = { pong_probe };\nvoid ping_probe(int n) { (void)n; (void)table; }\n' > "$TMP/t/src/util/ping.c"
printf 'void ping_probe(int n);\nvoid pong_probe(int n) { if (n) ping_probe(n - 1); }\n' > "$TMP/t/src/util/pong.c"
out=$(/usr/bin/python3 "$CHECK" "$TMP/t" 2>&1); rc=$?
check_eq "a backend table's entry is no edge" "$rc:$out" "0:"
# the two cycles issue 45 found, put back: each fails again
fresh
printf '\nvoid report_probe(struct dbuf *b, const struct results *r) { report_text_matrix(b, r); }\n' >> "$TMP/t/src/results/report.c"
out=$(/usr/bin/python3 "$CHECK" "$TMP/t" 2>&1)
check "report.c calling up into report_text.c fails" grep -q \
	"cycle between files: src/results/report.c -> src/results/report_text.c (report_text_matrix)" <<<"$out"
fresh
printf '\nconst char *outcome_probe(void) { return record_probe(); }\n' >> "$TMP/t/src/run/outcome.c"
printf '\nconst char *outcome_probe(void);\nconst char *record_probe(void) { return outcome_probe(); }\n' >> "$TMP/t/src/run/record.c"
out=$(/usr/bin/python3 "$CHECK" "$TMP/t" 2>&1)
check "record.c and outcome.c calling each other fails" grep -q \
	"cycle between files: .*src/run/outcome.c.*src/run/record.c\|cycle between files: .*src/run/record.c.*src/run/outcome.c" <<<"$out"
