#!/usr/bin/env bash
# jostle survey: bad input is one line naming the option, exit 2.
. "$(dirname "$0")/../lib.sh"
D=$ROOT/tests/data/survey/native

usage() { # DESCRIPTION PATTERN ARGS...
	local what=$1 pat=$2; shift 2
	"$JOSTLE" survey "$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q -- "$pat" "$TMP/err" && [ ! -s "$TMP/out" ]; then
		ok "$what"
	else
		not_ok "$what"; echo "#   rc=$rc stderr: $(cat "$TMP/err")"
	fi
}

usage "bad regex in --group-by" "^jostle: --group-by 'os=(linux': missing closing parenthesis" --group-by 'os=(linux' "$D"
usage "--group-by without KEY=" "^jostle: --group-by 'nokey': expected KEY=REGEX" --group-by nokey "$D"
usage "missing rules file" "^jostle: --rules '$TMP/none': No such file or directory" --rules "$TMP/none" "$D"
printf 'name-without-tab\n' > "$TMP/r1"
usage "rules line without a tab" "^jostle: --rules '$TMP/r1': line 1: expected NAME<TAB>PCRE2-PATTERN" --rules "$TMP/r1" "$D"
printf '# ok\ngood\tfine\nbad\t(unclosed\n' > "$TMP/r2"
usage "bad regex in a rule" "^jostle: --rules '$TMP/r2': line 3: rule 'bad': missing closing parenthesis" --rules "$TMP/r2" "$D"
usage "bad --since" "^jostle: --since 'yesterday': expected a date" --since yesterday "$D"
usage "impossible --since date" "^jostle: --since '2026-02-30'" --since 2026-02-30 "$D"
usage "bad --format" "^jostle: --format 'pdf': expected text, md, html or json" --format pdf "$D"
usage "no PATH" "^jostle: survey: no PATH given" --format json
usage "unknown option" "^jostle: survey: unknown option '--frobnicate'" --frobnicate "$D"
usage "unwritable -o" "^jostle: -o '$TMP/no/such/dir/x': No such file or directory" -o "$TMP/no/such/dir/x" "$D"

"$JOSTLE" survey --help > "$TMP/help"
check_eq "--help exits 0" "$?" 0
for opt in --rules --group-by --since --format --output; do
	check "--help lists $opt" grep -q -- "$opt" "$TMP/help"
done
check "jostle --help lists survey" bash -c "'$JOSTLE' --help | grep -q '^  survey '"

# A PATH that does not exist is reported and skipped; the survey goes on.
"$JOSTLE" survey --format json "$TMP/missing" "$D" > "$TMP/s.json" 2> "$TMP/err"
check_eq "missing PATH: exit 0" "$?" 0
check_eq "missing PATH: one line" "$(cat "$TMP/err")" "jostle: survey: skipped $TMP/missing: No such file or directory"
check_eq "missing PATH: the rest surveyed" "$(json "$TMP/s.json" '[d["logs"], d["unreadable"]]')" "[4, 1]"

# With no PATH there at all, there is nothing to survey: one line, exit 2.
"$JOSTLE" survey "$TMP/missing" > "$TMP/m.out" 2> "$TMP/m.err"
check_eq "only a missing PATH: exit 2" "$?" 2
check_eq "only a missing PATH: one line" "$(cat "$TMP/m.err")" \
	"jostle: survey: '$TMP/missing': No such file or directory; give a log file or a folder of logs"
check_eq "only a missing PATH: no report" "$(wc -c < "$TMP/m.out")" 0
"$JOSTLE" survey "$TMP/missing" "$TMP/missing2" > /dev/null 2> "$TMP/m2.err"
check_eq "two missing PATHs: exit 2, one line" "$?:$(wc -l < "$TMP/m2.err")" "2:1"
