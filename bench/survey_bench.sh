#!/usr/bin/env bash
# bench/survey_bench.sh [MB] [FILES]: throughput and memory of `jostle survey`
# on a generated corpus of plain-text CI logs (default 2048 MB in 40 files),
# plus a gzip slice. The corpus is generated under /tmp by bench/survey_gen.py
# (deterministic) and deleted at the end. Prints a table; it replaces the
# survey_bench.sh section of bench/RESULTS.md with the date, the machine,
# this command and the commit (the old section moves to bench/history/).
#
# MB/s per core = bytes / (user + system CPU seconds of jostle): the scan is
# single-threaded, so this is what one core does, independent of how loaded
# the machine is. Wall-clock MB/s is printed too (page cache warm).
set -eu
cd "$(dirname "$0")/.."
MB=${1:-2048}
FILES=${2:-40}
J=${JOSTLE:-build/jostle}
[ -x "$J" ] || { echo "survey_bench: build first (make)" >&2; exit 2; }
DIR=$(mktemp -d /tmp/jostle-survey-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

/usr/bin/python3 bench/survey_gen.py "$DIR/logs" "$MB" "$FILES"
bytes=$(du -sb "$DIR/logs" | cut -f1)
cat "$DIR/logs"/* > /dev/null   # warm the page cache: measure the scanner, not the disk

run() { # LABEL ARGS...
	local label=$1; shift
	/usr/bin/time -v -o "$DIR/time" "$J" survey --format json "$@" > "$DIR/out.json"
	local user sys wall rss
	user=$(awk -F': ' '/User time/{print $2}' "$DIR/time")
	sys=$(awk -F': ' '/System time/{print $2}' "$DIR/time")
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$DIR/time" | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
	rss=$(awk -F': ' '/Maximum resident/{print $2}' "$DIR/time")
	local b=$bytes
	[ "$label" = gzip ] && b=$gzbytes
	:
	printf '%-8s %10.1f %8.2f %8.2f %8.2f %10.0f %10.0f %10d\n' "$label" "$(echo "$b/1000000" | bc -l)" \
		"$wall" "$user" "$sys" "$(echo "$b/1000000/($user+$sys)" | bc -l)" \
		"$(echo "$b/1000000/$wall" | bc -l)" "$rss"
}

echo "corpus: $FILES logs, $bytes bytes, in $DIR/logs"
printf '%-8s %10s %8s %8s %8s %10s %10s %10s\n' input MB wall_s user_s sys_s MB/s/core MB/s_wall peak_KB
run plain "$DIR/logs"
/usr/bin/python3 - "$DIR/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("  logs %d, failed %d, none %d, signatures %d: %s" % (d["logs"], d["failed"], d["none"],
      len(d["signatures"]), ", ".join("%s %d" % (s["key"][:40], s["logs"]) for s in d["signatures"])))
PY
# All of it as one log: memory must not depend on the size of a file.
mkdir -p "$DIR/one"
cat "$DIR/logs"/* > "$DIR/one/all.log"
cat "$DIR/one/all.log" > /dev/null
run one-log "$DIR/one"
rm -f "$DIR/one/all.log"
# The same scan over a gzip slice (the first 4 logs), counting uncompressed bytes.
mkdir -p "$DIR/gz"
for f in $(ls "$DIR/logs" | head -4); do gzip -1 -c "$DIR/logs/$f" > "$DIR/gz/$f.gz"; done
gzbytes=$(for f in $(ls "$DIR/logs" | head -4); do stat -c %s "$DIR/logs/$f"; done | paste -sd+ | bc)
run gzip "$DIR/gz"
