#!/usr/bin/env bash
# Bounded capture: long and binary output, the key line from the tail.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky

"$JOSTLE" run -q -n 2 -j 2 --head 4K --tail 8K -o "$TMP/p" -- "$F" print-fail 50000000 2>/dev/null
check_eq "long output: counted in full" "$(json "$TMP/p/runs.jsonl" 'sorted(set(r["out_bytes"] for r in rows))')" "[50000038]"
check_eq "long output: middle dropped" "$(json "$TMP/p/runs.jsonl" 'sorted(set(r["out_dropped"] for r in rows))')" "[$((50000038 - 4096 - 8192))]"
check "long output: log is bounded" test "$(stat -c %s "$TMP/p/logs/0.log")" -lt 13000
check "long output: drop marker in the log" grep -q "bytes of output dropped here" "$TMP/p/logs/0.log"
check_eq "long output: key line found in the tail" "$(json "$TMP/p/summary.json" 'd["signatures"][0]["key_line"]')" "ValueError: the end of a long output"

# A run printing 256 MiB while others run: jostle's memory stays small.
/usr/bin/time -f "%M" -o "$TMP/rss" "$JOSTLE" run -q -n 4 -j 4 -o "$TMP/big" -- "$F" print 268435456 2>/dev/null
check_eq "256 MiB x 4: all passed" "$(json "$TMP/big/summary.json" 'd["pass"]')" 4
# ASan builds carry a large shadow footprint; the bound is for the plain build.
if [ "$(basename "$BUILD")" = build ]; then
	check "256 MiB x 4: peak RSS under 16 MiB" test "$(cat "$TMP/rss")" -lt 16384
fi

# Binary output with NULs and invalid UTF-8 is stored safely.
printf '#!/bin/sh\nprintf "a\\000b\\377\\376c\\nKeyError: \\377x\\n"\nexit 1\n' > "$TMP/bin.sh"
chmod +x "$TMP/bin.sh"
"$JOSTLE" run -q -n 1 -o "$TMP/b" -- "$TMP/bin.sh" 2>/dev/null
check "binary output: runs.jsonl is valid JSON" json "$TMP/b/runs.jsonl" 'len(rows)'
check_eq "binary output: invalid UTF-8 replaced in the key line" "$(json "$TMP/b/runs.jsonl" 'rows[0]["key_line"]')" "KeyError: �x"
check_eq "binary output: log keeps the raw bytes" "$(head -c 3 "$TMP/b/logs/0.log" | od -An -c | tr -d ' ')" 'a\0b'
