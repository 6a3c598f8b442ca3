#!/usr/bin/env bash
# jostle report: every format from the hand-written fixture tests/data/small
# (Markdown against a golden file, JUnit against tests/junit.xsd, summary.json
# parsed), the matrix marking, options and their errors.
. "$(dirname "$0")/../lib.sh"
DATA=$ROOT/tests/data
XSD=$ROOT/tests/junit.xsd
G="/usr/bin/python3 $ROOT/tests/gen_runs.py"

out=$("$JOSTLE" report "$DATA/small"); rc=$?
check_eq "text report exits 0" "$rc" 0
check "text: proof line" grep -q '^result:   5 of 11 runs failed: failure rate 45.5% (95% CI 21.3%–72.0%)$' <<<"$out"
check "text: skipped lines counted" grep -q '^skipped:  2 unreadable lines' <<<"$out"
check "text: hang classification" grep -q 'hang: livelock: threads 99, spinning 98, blocked 1' <<<"$out"

"$JOSTLE" report "$DATA/small" --format md > "$TMP/small.md"
sed "s/jostle [0-9][0-9.]* report/jostle VERSION report/; s/jostle \`[0-9][0-9.]*\`/jostle \`VERSION\`/" \
	"$TMP/small.md" > "$TMP/small.norm.md"
check "md report matches tests/data/small.md.golden" diff -u "$DATA/small.md.golden" "$TMP/small.norm.md"
check "md: key line with a pipe stays in its table cell" \
	grep -qF '| `` AssertionError: condition not satisfied within 5.0s </script><img src=x onerror=alert(1)> \| `tick` `` |' "$TMP/small.md"
check "md: stacks folded in a details section" grep -q '^98 x$' "$TMP/small.md"

"$JOSTLE" report "$DATA/small" -o "$TMP/r.xml"
check_eq "-o FILE.xml writes JUnit" "$(head -c 5 "$TMP/r.xml")" "<?xml"
check "JUnit validates against tests/junit.xsd" xmllint --noout --schema "$XSD" "$TMP/r.xml"
check_eq "JUnit: a test case per signature plus the proof" "$(grep -c '<testcase ' "$TMP/r.xml")" 4
check_eq "JUnit: all four fail" "$(grep -c '<failure ' "$TMP/r.xml")" 4
$G "$TMP/clean" --runs 300
"$JOSTLE" report "$TMP/clean" --format junit -o "$TMP/clean.xml"
check "JUnit of a clean series validates" xmllint --noout --schema "$XSD" "$TMP/clean.xml"
check_eq "JUnit of a clean series: the proof passes" "$(grep -c '<failure ' "$TMP/clean.xml")" 0
check "JUnit of a clean series: the bound" grep -q '0 of 300 runs failed: failure rate &lt; 0.994% with 95% confidence' "$TMP/clean.xml"

"$JOSTLE" report "$DATA/small" --format json -o "$TMP/s.json"
check_eq "json: totals" "$(json "$TMP/s.json" '(d["runs"], d["failures"], d["ignored"], d["bad_lines"])')" "(11, 5, 1, 2)"
check_eq "json: signatures by count" "$(json "$TMP/s.json" '[(s["id"], s["count"]) for s in d["signatures"]]')" \
	"[('41aa07c2', 3), ('8c1f2e3d', 1), ('d00d1e55', 1)]"
check_eq "json: interval" "$(json "$TMP/s.json" 'round(d["rate_lo"], 4), round(d["rate_hi"], 4)')" "(0.2127, 0.7199)"
check_eq "json: diag kept as an object" "$(json "$TMP/s.json" 'd["signatures"][2]["example"]["diag"]["spinning"]')" "98"
check_eq "json: cells" "$(json "$TMP/s.json" '[(c["cell"], c["runs"], c["failures"]) for c in d["cells"]][3]')" "('PYTHON_GIL=1,cpus=2', 3, 3)"

# seed 001: "only 3.14t jobs are affected" as one marked row
$G "$TMP/m" --runs 800 --cells PYTHON_GIL=0,cpus=2 PYTHON_GIL=0,cpus=4 PYTHON_GIL=1,cpus=2 PYTHON_GIL=1,cpus=4 \
	--cell-fails PYTHON_GIL=0,cpus=2:30 --cell-fails PYTHON_GIL=1,cpus=4:2
"$JOSTLE" report "$TMP/m" --format json -o "$TMP/m.json"
check_eq "matrix: only the failing cell differs" "$(json "$TMP/m.json" '[c["cell"] for c in d["cells"] if c["differs"]]')" "['PYTHON_GIL=0,cpus=2']"
"$JOSTLE" report "$TMP/m" --format md > "$TMP/m.md"
check "matrix: the row is marked in Markdown" grep -q '^| `PYTHON_GIL=0,cpus=2` | 200 | 30 | 0 | 0 | \*\*15.0%\*\* | .* | \*\*differs\*\*: fails more, p = ' "$TMP/m.md"
check_eq "matrix: one marked row" "$(grep -c 'differs\*\*: fails more, p' "$TMP/m.md")" 1
"$JOSTLE" report "$TMP/m" --format html -o "$TMP/m.html"
check_eq "matrix: one outlined heat-map cell" "$(grep -o 'class="heat differs"' "$TMP/m.html" | wc -l)" 1

err=$("$JOSTLE" report "$DATA/small" --format pdf 2>&1); rc=$?
check_eq "unknown format: exit 2" "$rc" 2
check_eq "unknown format: message" "$err" "jostle: --format 'pdf' is not a report format; expected text, md, html, junit or json"
err=$("$JOSTLE" report "$TMP/none" 2>&1); rc=$?
check_eq "missing directory: exit 2" "$rc" 2
"$JOSTLE" report 2>/dev/null; check_eq "no directory: exit 2" "$?" 2
"$JOSTLE" report "$DATA/small" --bogus 2>/dev/null; check_eq "unknown option: exit 2" "$?" 2
help=$("$JOSTLE" report --help)
for opt in --format --output text md html junit json; do
	check "report --help mentions $opt" grep -q -- "$opt" <<<"$help"
done
