#!/usr/bin/env bash
# Reports, what a new user tripped over (issue 19): report.md under GitHub's
# comment limit with every failure kind kept, the HTML page's settings,
# axes and p-values with a direction.
. "$(dirname "$0")/../lib.sh"
G="/usr/bin/python3 $ROOT/tests/gen_runs.py"
lacks() { ! grep -Eq -- "$1" "$2"; }   # lacks REGEX FILE

# Eleven kinds of assertion with long logs and stacks, and one crash that
# happened once: report.md stays under 65,536 characters, and the crash
# keeps its row and its example.
sigs=()
for i in $(seq 10 20); do sigs+=(--sig "aaaa00$i:fail:$((i + 10))"); done
$G "$TMP/big" --runs 600 "${sigs[@]}" --sig cccc0001:crash:1 --log-bytes 9000 --stacks
"$JOSTLE" report "$TMP/big" --format md -o "$TMP/big.md"
check_eq "md: exit 0" "$?" 0
check "md: under 65,536 bytes ($(wc -c < "$TMP/big.md"))" test "$(wc -c < "$TMP/big.md")" -lt 65536
check "md: under 65,536 characters" test "$(wc -m < "$TMP/big.md")" -lt 65536
check "md: the crash has its row" grep -q '^| `cccc0001` | crash | 1 |' "$TMP/big.md"
check "md: the crash has its example" grep -q '^#### `cccc0001` crash: 1 run' "$TMP/big.md"
check "md: the most frequent one has its example" grep -q '^#### `aaaa0020` fail' "$TMP/big.md"
check "md: says what was cut" grep -Eq "to stay under GitHub's 65,536-character comment limit: [0-9]+ shortened, [0-9]+ left out" "$TMP/big.md"
check_eq "md: every signature in the table" "$(grep -c '^| `[0-9a-f]\{8\}` |' "$TMP/big.md")" 12
# a small series is not cut
$G "$TMP/small" --runs 50 --sig aaaa0001:fail:3 --sig cccc0002:crash:1
"$JOSTLE" report "$TMP/small" --format md -o "$TMP/small.md"
check "md, small: nothing said to be cut" lacks "left out" "$TMP/small.md"
check_eq "md, small: both examples" "$(grep -c '^#### ' "$TMP/small.md")" 2

# Conditions compared with the rest: the direction beside every p-value.
$G "$TMP/arms" --runs 20 --sig aaaa0001:fail:4 --arm plain:4 --arm crowd:16
"$JOSTLE" report "$TMP/arms" --format md -o "$TMP/arms.md"
check "md: an arm that fails more says so" grep -Eq '^\| `plain` .*fails more, p = ' "$TMP/arms.md"
check "md: an arm that fails less says so" grep -Eq '^\| `crowd` .*fails less, p = ' "$TMP/arms.md"
"$JOSTLE" report "$TMP/arms" --format html -o "$TMP/arms.html"
check "html: directions in the conditions table" grep -q 'fails less, p = ' "$TMP/arms.html"
"$JOSTLE" report "$TMP/arms" > "$TMP/arms.txt"
check "text: directions in the conditions table" grep -Eq '^crowd .*fails less, p = ' "$TMP/arms.txt"

# HTML: settings as a table, not a JSON blob; axis titles clear of the tick
# labels; whole run indices on a short series.
$G "$TMP/five" --runs 3 --sig aaaa0001:fail:2
"$JOSTLE" report "$TMP/five" --format html -o "$TMP/five.html"
check "html: settings in a table" grep -q '<table class="settings"><tr><th>runs</th><td><code>3</code></td>' "$TMP/five.html"
check "html: no raw settings JSON" lacks 'settings <code>\{' "$TMP/five.html"
/usr/bin/python3 - "$TMP/five.html" > "$TMP/ticks" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
svg = re.search(r'id="by-index">(<svg.*?</svg>)', page).group(1)
# x tick labels: centred texts below the plot
ticks = re.findall(r'<text x="[0-9.]+" y="[0-9.]+" text-anchor="middle">([^<]*)</text>', svg)
print("ticks", " ".join(ticks))
for m in re.finditer(r'<text class="axis" x="([0-9.]+)" y="([0-9.]+)"[^>]*>', svg):
    print("axis", m.group(1), m.group(2))
PY
check_eq "html: whole run-index ticks on 3 runs" "$(sed -n 's/^ticks //p' "$TMP/ticks")" "0 1 2 3"
check "html: the y-axis title starts right of the tick labels" \
	test "$(awk '$1 == "axis" && $3 == 12 {print int($2)}' "$TMP/ticks")" -ge 48

# Bad input (issue 45): a runs.jsonl of random bytes, or of JSON that is no
# jostle record, is one line and exit 2, not "no runs recorded" and 0; a
# few foreign lines among records are counted on stderr.
mkdir -p "$TMP/garbage" "$TMP/shape"
head -c 4096 /dev/urandom > "$TMP/garbage/runs.jsonl"
printf '%s\n' '{"a":1}' '[1,2]' '{"type":"nonsense"}' > "$TMP/shape/runs.jsonl"
for d in garbage shape; do
	"$JOSTLE" report "$TMP/$d" > "$TMP/$d.out" 2> "$TMP/$d.err"
	check_eq "report of $d: exit 2" "$?" 2
	check_eq "report of $d: one line on stderr" "$(wc -l < "$TMP/$d.err")" 1
	check "report of $d: says it holds no jostle records" grep -q "holds no jostle records" "$TMP/$d.err"
	check_eq "report of $d: nothing on stdout" "$(wc -c < "$TMP/$d.out")" 0
done
cp -r "$TMP/small" "$TMP/mixed"
printf '%s\n' '{"a":1}' '{"type":"nonsense"}' 'not json' >> "$TMP/mixed/runs.jsonl"
"$JOSTLE" report "$TMP/mixed" > "$TMP/mixed.out" 2> "$TMP/mixed.err"
check_eq "report with 3 foreign lines: exit 0" "$?" 0
check_eq "report with 3 foreign lines: counted on stderr" "$(cat "$TMP/mixed.err")" \
	"jostle: report: 3 lines of '$TMP/mixed/runs.jsonl' are not run records; ignored"
check "report with 3 foreign lines: in the report too" grep -q "skipped: *3 unreadable lines" "$TMP/mixed.out"
: > "$TMP/garbage/runs.jsonl"
"$JOSTLE" report "$TMP/garbage" > /dev/null 2> "$TMP/empty.err"
check_eq "an empty runs.jsonl (a series just started): exit 0, silent" "$?:$(wc -c < "$TMP/empty.err")" "0:0"
