#!/usr/bin/env bash
# jostle merge of shards (issue 17): shards of different series are refused
# with one line (nothing written); missing shards, shards without runs.jsonl
# and shards that were killed are merged and reported; a run that is not its
# shard's is refused; merges of merges are shards too.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky
FACTS="/usr/bin/python3 $ROOT/tests/series_facts.py"
shard() { # K/N OUT [options...]: 10 runs of fail-every 5, seed 9
	local kn=$1 out=$2; shift 2
	timeout 60 "$JOSTLE" run -q -j 2 --seed 9 --shard "$kn" -n 10 -o "$TMP/$out" "$@" -- "$F" fail-every 5 >/dev/null 2>&1
}
for k in 0 1 2 3; do shard "$k/4" "s$k"; done
"$JOSTLE" merge "$TMP"/s? -o "$TMP/all" >/dev/null 2>&1
check_eq "4 shards: 40 runs, 8 failures" "$(json "$TMP/all/summary.json" '(d["runs"], d["failures"])')" "(40, 8)"

refused() { # DESCRIPTION PATTERN INPUT...: exit 2, one line matching PATTERN, no OUT
	local what=$1 pat=$2; shift 2
	rm -rf "$TMP/m"
	"$JOSTLE" merge "$@" -o "$TMP/m" > "$TMP/m.out" 2> "$TMP/m.err"; local rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$TMP/m.err")" = 1 ] && grep -q -- "^jostle: merge: $pat" "$TMP/m.err" &&
	   [ ! -e "$TMP/m" ]; then
		ok "$what"
	else
		not_ok "$what"; echo "#   rc=$rc"; sed 's/^/#   /' "$TMP/m.err"
	fi
}
timeout 60 "$JOSTLE" run -q -j 2 --seed 10 --shard 1/4 -n 10 -o "$TMP/seed10" -- "$F" fail-every 5 >/dev/null 2>&1
refused "another master seed is refused" "'$TMP/seed10' is not a shard of the series in '$TMP/s0': the master seed differs (0x0000000000000009 vs 0x000000000000000a)$" "$TMP/s0" "$TMP/seed10"
timeout 60 "$JOSTLE" run -q -j 2 --seed 9 --shard 1/4 -n 10 -o "$TMP/cmd" -- "$F" fail-every 6 >/dev/null 2>&1
refused "another command is refused" ".*: the command differs$" "$TMP/s0" "$TMP/cmd"
shard 1/3 n3
refused "another number of shards is refused" ".*: it is shard 1 of 3, not of 4$" "$TMP/s0" "$TMP/n3"
shard 1/4 t5 --timeout 5s
refused "another setting is refused, and named" ".*: the setting 'timeout_s' differs$" "$TMP/s0" "$TMP/t5"
shard 1/4 again
refused "a shard run twice is refused" "shard 1/4 is both in '$TMP/s1' and in '$TMP/again'" "$TMP/s0" "$TMP/s1" "$TMP/again"
refused "the same shard given twice is refused" "the same shard (series [0-9a-f]*) is both in" "$TMP/s1" "$TMP/s1"
timeout 60 "$JOSTLE" run -q -j 2 --seed 9 -n 10 -o "$TMP/plain" -- "$F" fail-every 5 >/dev/null 2>&1
refused "a series that is not a shard is refused" "'$TMP/plain' holds a series that is not a shard" "$TMP/s0" "$TMP/plain"
"$JOSTLE" merge "$TMP/s0" "$TMP/nowhere" -o "$TMP/m2" >/dev/null 2>&1
check_eq "a directory that does not exist: exit 2" "$?" 2

# what may differ per node: -j, -n, --until
shard 1/4 j1 -j 1 -n 4 --until failures:3
out=$("$JOSTLE" merge "$TMP/s0" "$TMP/j1" -o "$TMP/mj" 2>&1)
check_eq "-j, -n and --until may differ between shards" "$?" 0

# missing, never started, killed
mkdir "$TMP/empty2"
out=$("$JOSTLE" merge "$TMP/s0" "$TMP/s1" "$TMP/empty2" "$TMP/s3" -o "$TMP/miss" 2>&1); rc=$?
check_eq "a missing shard is tolerated" "$rc" 0
check "an input without runs.jsonl is skipped and said so" grep -q "1 without runs.jsonl skipped" <<<"$out"
check "the missing shard is reported" grep -qx "shards: 3 of 4 (missing: 2)" <<<"$out"
check_eq "summary.json: the missing shard" "$(json "$TMP/miss/summary.json" '(d["shards"]["present"], d["shards"]["missing"])')" "(3, [2])"
check_eq "the statistics are those of the runs there" "$(json "$TMP/miss/summary.json" '(d["runs"], d["failures"])')" \
	"$(cat "$TMP"/s0/runs.jsonl "$TMP"/s1/runs.jsonl "$TMP"/s3/runs.jsonl > "$TMP/u.jsonl"; json "$TMP/u.jsonl" '(len(rows), len([r for r in rows if r["outcome"] == "fail"]))')"
mkdir "$TMP/p2"
grep -v '"type":"end"' "$TMP/s2/runs.jsonl" | head -n 8 > "$TMP/p2/runs.jsonl"   # killed after 7 runs
out=$("$JOSTLE" merge "$TMP/s0" "$TMP/s1" "$TMP/p2" "$TMP/s3" -o "$TMP/part" 2>&1)
check "a killed shard is reported partial" grep -qx "shards: 4 of 4 (partial: 2, killed or interrupted)" <<<"$out"
check_eq "summary.json: the partial shard, its 7 runs counted" "$(json "$TMP/part/summary.json" '(d["shards"]["partial"], d["runs"])')" "([2], 37)"
check "report.txt line" sh -c "'$JOSTLE' report '$TMP/part' | grep -q '^shards:   4 of 4 (partial: 2'"

# a run that is not its shard's
mkdir "$TMP/x3" "$TMP/y3"
sed 's/"run":7,/"run":5,/' "$TMP/s3/runs.jsonl" > "$TMP/x3/runs.jsonl"
refused "a run of another shard is refused" "'$TMP/x3': run 5 is not in shard 3/4 (5 mod 4 = 1)" "$TMP/s0" "$TMP/x3"
sed 's/\("run":7,"seed":"0x\)[0-9a-f]/\1f/; s/\("run":7,"seed":"0x\)f\(.\)/\1e\2/' "$TMP/s3/runs.jsonl" > "$TMP/y3/runs.jsonl"
rm -rf "$TMP/m"
"$JOSTLE" merge "$TMP/s0" "$TMP/y3" -o "$TMP/m" > /dev/null 2> "$TMP/m.err"
check_eq "a run whose seed is not the series' is refused" "$?:$(grep -c "run 7 has seed .*, not the seed the master seed 0x0000000000000009 gives it" "$TMP/m.err")" "2:1"

# a merge of shards merges with the other shards
"$JOSTLE" merge "$TMP/s0" "$TMP/s1" -o "$TMP/m01" >/dev/null 2>&1
out=$("$JOSTLE" merge "$TMP/m01" "$TMP/s2" "$TMP/s3" -o "$TMP/m0123" 2>&1)
check "a merge of merged shards: all 4 there" grep -qx "shards: 4 of 4" <<<"$out"
check_eq "a merge of merged shards: the statistics of the 4" "$($FACTS summary "$TMP/m0123")" "$($FACTS summary "$TMP/all")"
