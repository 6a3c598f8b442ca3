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

# The man page's SYNOPSIS names every command on a line of its own (issue 19:
# two ran together and report, compare, merge were missing).
syn=$(awk '/^\.SH SYNOPSIS/{on=1; next} /^\.SH/{on=0} on' "$ROOT/docs/jostle.1")
for c in $cmds; do
	check "man SYNOPSIS lists 'jostle $c'" grep -qx "\.B jostle $c" <<<"$syn"
done
check_eq "man SYNOPSIS: a line break after every command" \
	"$(grep -c '^\.B jostle [a-z]' <<<"$syn")" "$(grep -c '^\.br$' <<<"$syn")"

# The demo echoes each command it runs as it runs it (issue 19: step 4 left
# out --grace), less the -o folder.
/usr/bin/python3 - "$ROOT/scripts/demo.sh" > "$TMP/demo.check" <<'PY'
import re, sys
text = open(sys.argv[1]).read().replace("\\\n", " ")
echoed = None
for line in text.splitlines():
    m = re.match(r'\s*echo "\s*jostle (run .*)"$', line)
    if m:
        echoed = m.group(1).split()
        continue
    m = re.match(r'\s*\$J (run .*?)(\|\| true)?$', line)
    if m:
        ran = re.sub(r'-o "[^"]*"', "", m.group(1)).split()
        print("same" if ran == echoed else "differs: echoed %s, ran %s" % (echoed, ran))
PY
check "demo: three jostle run commands found" test "$(wc -l < "$TMP/demo.check")" -eq 3
check_eq "demo: each echoed command is the one run" "$(sort -u "$TMP/demo.check")" same
check "scripts/test.sh: quiet builds (make -s)" test "$(grep -c 'make -s .*all' "$ROOT/scripts/test.sh")" -eq 2
