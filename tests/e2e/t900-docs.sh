#!/usr/bin/env bash
# The guide, the man page and the README agree with the --help texts.
. "$(dirname "$0")/../lib.sh"

# Every option of every command is in its --help, its guide page in docs/
# and the man page; no option table of docs/ or the man page names an option
# that no --help defines; every command has a man section and a SYNOPSIS
# line (issue 19: two ran together and report, compare, merge were missing).
# The checks are scripts/gen_docs.py's, one TAP line each, numbered on here;
# its links check: every relative link of README.md and docs/ names a file
# that exists, and a heading of it where it has a #fragment.
tap_from() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok * - }" ;;
		"not ok "*) not_ok "${line#not ok * - }" ;;
		*) echo "$line" ;;
		esac
	done
}
tap_from < <(/usr/bin/python3 "$ROOT/scripts/gen_docs.py" check "$JOSTLE" "$ROOT")
tap_from < <(/usr/bin/python3 "$ROOT/scripts/gen_docs.py" links "$ROOT")

syn=$(awk '/^\.SH SYNOPSIS/{on=1; next} /^\.SH/{on=0} on' "$ROOT/docs/jostle.1")
check_eq "man SYNOPSIS: a line break after every command" \
	"$(grep -c '^\.B jostle [a-z]' <<<"$syn")" "$(grep -c '^\.br$' <<<"$syn")"

# The README is the short tour (issue 45): at most 300 lines, the two
# set-up commands on top, and a link to the guide page of every command.
check "README.md: at most 300 lines" test "$(wc -l < "$ROOT/README.md")" -le 300
check_eq "README.md: the two set-up commands come first" \
	"$(grep -m2 '^    bash scripts/' "$ROOT/README.md" | awk '{print $1, $2}')" \
	"$(printf 'bash scripts/demo.sh\nbash scripts/test.sh')"
for c in $("$JOSTLE" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}'); do
	check "README shows 'jostle $c' or links its page" \
		grep -qE "jostle $c|docs/$c\.md" "$ROOT/README.md"
done

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
