#!/usr/bin/env bash
# t250-bundle: the relocatable jostle of `make` / `make bundle` (mk/bundle.mk).
# Copied to another folder, with nothing from the environment (no
# LD_LIBRARY_PATH), every library it loads comes from its lib/ or is the C
# library's own, it runs a series with its preload libraries (found next to
# it), and a library missing from lib/ is caught by the check. The ASan
# build makes no bundle: SKIP there.
. "$(dirname "$0")/../lib.sh"

src=$(ls -d "$BUILD"/bundle/jostle-*/ 2>/dev/null | head -1)
if [ -z "$src" ]; then
	for what in check run missing-library; do ok "# SKIP bundle $what: $BUILD has no bundle (the ASan build makes none)"; done
	exit 0
fi
cp -r "$src" "$TMP/moved"
check "the moved bundle passes the check" bash "$ROOT/scripts/bundle.sh" --check "$TMP/moved"
check "lib/ holds libcjson, libpcre2-8 and libdw" test -f "$TMP/moved/lib/libcjson.so.1" -a -f "$TMP/moved/lib/libpcre2-8.so.0" -a -f "$TMP/moved/lib/libdw.so.1"
check "jostle carries an \$ORIGIN rpath" sh -c "readelf -d '$TMP/moved/jostle' | grep -q 'RPATH.*\\\$ORIGIN/lib'"

env -i PATH=/usr/bin:/bin "$TMP/moved/jostle" run -q -n 4 -j 2 --chaos sync -o "$TMP/out" -- "$FIX/flaky" pass > "$TMP/run.out" 2>&1
check "a series runs with --chaos sync (the preload library next to jostle)" test -s "$TMP/out/runs.jsonl"
check_eq "every run recorded" "$(json "$TMP/out/runs.jsonl" 'len(rows)')" 4
check_eq "sync chaos was on" "$(json "$TMP/out/runs.jsonl" '{r["config"]["chaos"] for r in rows}')" "{'sync'}"

rm "$TMP/moved/lib/libdw.so.1"
bash "$ROOT/scripts/bundle.sh" --check "$TMP/moved" > /dev/null 2> "$TMP/err"; rc=$?
check_eq "a missing library fails the check" "$rc" 1
check "the check names it" grep -q '^libdw.so.1 => ' "$TMP/err"
