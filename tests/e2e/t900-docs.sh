#!/usr/bin/env bash
# Every option of every command is in its --help, the README and the man page.
. "$(dirname "$0")/../lib.sh"

cmds=$("$JOSTLE" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}')
check "jostle --help lists commands" test -n "$cmds"
for c in $cmds; do
	"$JOSTLE" "$c" --help > "$TMP/help" 2>&1
	check_eq "$c --help exits 0" "$?" 0
	check "README documents 'jostle $c'" grep -q "jostle $c" "$ROOT/README.md"
	check "man page documents '$c'" grep -q "^\.SS.*$c" "$ROOT/docs/jostle.1"
	for opt in $(grep -o -- '--[a-z][a-z-]*' "$TMP/help" | sort -u); do
		[ "$opt" = --help ] && continue
		check "README documents $c $opt" grep -q -- "$opt" "$ROOT/README.md"
		check "man page documents $c $opt" grep -q -- "$(printf '%s' "$opt" | sed 's/-/\\\\-/g')" "$ROOT/docs/jostle.1"
	done
done
