# tests/lib.sh: sourced by every end-to-end test script.
#
# Environment from tests/run.sh:
#   JOSTLE   the jostle binary under test
#   FIX      the fixtures folder of the same build
#   ZOO      the zoo folder of the same build
#   BUILD    the build folder (build or build-asan)
# Each script prints TAP lines ("ok N - ...", "not ok N - ...") and exits 0.
# TMP is a private scratch folder, removed at exit, and the working directory;
# ROOT is the source tree.

set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)   # the source tree
TMP=$(mktemp -d "${TMPDIR:-/tmp}/jostle-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
_tn=0

ok() { _tn=$((_tn + 1)); echo "ok $_tn - $*"; }
not_ok() { _tn=$((_tn + 1)); echo "not ok $_tn - $*"; }

# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
	local what=$1; shift
	if "$@" >/dev/null; then ok "$what"; else not_ok "$what"; fi
}

# check_eq DESCRIPTION GOT EXPECTED
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; echo "#   got:      '$2'"; echo "#   expected: '$3'"; fi
}

# json FILE EXPR: evaluate a Python expression over the parsed JSON as `d`
# (or `rows` for a .jsonl file: the list of objects of type run).
json() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
path, expr = sys.argv[1], sys.argv[2]
if path.endswith(".jsonl"):
    objs = [json.loads(l) for l in open(path) if l.strip()]
    rows = [o for o in objs if o.get("type") == "run"]
    series = [o for o in objs if o.get("type") == "series"]
    d = objs
else:
    d = json.load(open(path))
print(eval(expr))
PY
}

# no_leftovers MARKER: true when no process has MARKER in its command line.
no_leftovers() {
	! pgrep -f -- "$1" >/dev/null 2>&1
}

# wait_for DESCRIPTION CMD...: poll CMD until it succeeds (at most 30 s).
wait_for() {
	local what=$1 i; shift
	for ((i = 0; i < 3000; i++)); do
		"$@" && return 0
		sleep 0.01
	done
	echo "# timed out waiting for $what"
	return 1
}

# ready NAME: the fixture started as NAME printed its "ready" line into $TMP/NAME.out.
ready() { grep -q "^ready" "$TMP/$1.out" 2>/dev/null; }
