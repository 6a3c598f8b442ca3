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
