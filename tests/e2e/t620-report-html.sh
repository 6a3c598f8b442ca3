#!/usr/bin/env bash
# The HTML report in a real browser (Debian's chromium, headless): it loads
# without console errors (the page's CSP would report any blocked script or
# load), the key elements are there, hostile program output (</script>,
# <img onerror>, invalid UTF-8, NUL bytes, a 1 MB line) stays inert text,
# and a screenshot is saved to $BUILD/test-artifacts/report.png.
. "$(dirname "$0")/../lib.sh"
DATA=$ROOT/tests/data

cp -r "$DATA/small" "$TMP/h"
/usr/bin/python3 - "$TMP/h" <<'PY'
import json, sys, os
d = sys.argv[1]
log = (b"start\n</script><script>document.title='PWNED'</script>\n"
       b"<img src=x onerror=\"document.title='PWNED'\">\n"
       b"bad utf8: \xff\xfe\xc3 nul:\x00\x00 esc:\x1b[31m red\n"
       + b"A" * (1 << 20) + b"\nend of log\n")
open(os.path.join(d, "logs/99.log"), "wb").write(log)
rec = {"type": "run", "series": "5f0c2a9e11d04b7a", "run": 13, "seed": "0x1", "cell": "PYTHON_GIL=1,cpus=2",
       "config": {}, "outcome": "crash", "exit": None, "signal": "SIGABRT", "core": False, "t": 2.0, "wall_s": 0.5,
       "sig_id": "bad0bad0", "sig_kind": "crash", "sig_key": "hostile",
       "key_line": "</script><script>document.title='PWNED'</script><img src=x onerror=\"document.title='PWNED'\"> \u2028",
       "frames": ["<svg onload=alert(1)>", "f\"'&"], "log": "logs/99.log",
       "diag": {"class": "<b>deadlock</b>", "stacks": ["1 x <script>x</script>"]}}
with open(os.path.join(d, "runs.jsonl"), "a") as f:
    f.write("\n" + json.dumps(rec) + "\n")
PY

"$JOSTLE" report "$TMP/h" --format html -o "$TMP/r.html"
check_eq "report --format html exits 0" "$?" 0
size=$(stat -c %s "$TMP/r.html")
check "the page stays small with a 1 MB log line ($size bytes)" test "$size" -lt 300000
check "the long line is cut" grep -q 'more bytes on this line' "$TMP/r.html"
check "no external resource is referenced" bash -c "! grep -Eiq '(src|href)=\"?(https?:|//)' '$TMP/r.html'"
check "no script element in the page source" bash -c "! grep -qi '<script' '$TMP/r.html'"

if ! command -v chromium >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then not_ok "chromium is installed (scripts/setup.sh installs it)"
	else ok "# SKIP chromium not installed"; fi
	exit 0
fi
browse() { # OUTFILE ERRFILE ARGS...
	local out=$1 err=$2; shift 2
	local ud; ud=$(mktemp -d "$TMP/chr.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$ud" --enable-logging=stderr --v=0 \
		"$@" >"$out" 2>"$err"
}
browse "$TMP/dom.html" "$TMP/console.txt" --dump-dom "file://$TMP/r.html"
check_eq "chromium loads the page" "$?" 0
check "no console messages (errors, CSP violations)" bash -c "! grep -q ':CONSOLE' '$TMP/console.txt'"
grep ':CONSOLE' "$TMP/console.txt" | head -5 | sed 's/^/#   /'
for id in cards proof by-index by-time signatures durations matrix heatmap examples sig-41aa07c2 sig-bad0bad0; do
	check "element #$id is in the DOM" grep -q "id=\"$id\"" "$TMP/dom.html"
done
check "SVG charts are rendered" test "$(grep -o '<svg' "$TMP/dom.html" | wc -l)" -ge 4
check "the proof line is shown" grep -q '6 of 12 runs failed' "$TMP/dom.html"
check "the title was not changed by injected script" bash -c "! grep -q '<title>PWNED' '$TMP/dom.html'"
check "no img element was injected" bash -c "! grep -qi '<img' '$TMP/dom.html'"
check "no script element was injected" bash -c "! grep -qi '<script' '$TMP/dom.html'"
check "no svg onload was injected" bash -c "! grep -qi '<svg onload' '$TMP/dom.html'"
check "the hostile text is shown as text" grep -q '&lt;img src=x onerror=' "$TMP/dom.html"
check "invalid UTF-8 and NUL became U+FFFD" grep -q $'bad utf8: \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd nul:\xef\xbf\xbd\xef\xbf\xbd' "$TMP/dom.html"

mkdir -p "$BUILD/test-artifacts"
rm -f "$BUILD/test-artifacts/report.png"
browse "$TMP/shot.out" "$TMP/shot.err" --window-size=1200,2600 \
	--screenshot="$BUILD/test-artifacts/report.png" "file://$TMP/r.html"
check "a screenshot is saved" test -s "$BUILD/test-artifacts/report.png"
