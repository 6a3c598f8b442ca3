#!/usr/bin/env bash
# bench/stuck_slow.sh: is every stuck fixture a hang and every slow one slow?
#
# Runs each fixture N times (2 at a time, --timeout 1s) under each build and
# counts how the runs were classified: the stuck ones must be hangs of their
# class, the progressing ones `slow` (src/diagnose/motion.h), N of N.
#
# Environment: N=50 BUILDS="build build-asan"
set -u
cd "$(dirname "$0")/.."
N=${N:-50}
BUILDS=${BUILDS:-build build-asan}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stuck-slow.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "stuck_slow: $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# name | expected "outcome/kind" | command (FIX is the build's fixtures)
cases='deadlock|hang/deadlock|hang deadlock
livelock|hang/livelock|hang spin 2
handshake|hang/livelock|hang handshake 8
bystander|hang/deadlock|hang bystander
shell polling|hang/*|sh -c "while true; do sleep 0.1; done"
compile|slow/progressing|busy compile 4
spawn|slow/progressing|busy spawn 4
copy|slow/progressing|busy copy 4'

echo "| build | fixture | expected | runs | as expected | otherwise |"
echo "| --- | --- | --- | ---: | ---: | --- |"
for b in $BUILDS; do
	[ -x "$b/jostle" ] || { echo "stuck_slow: '$b/jostle' is not built" >&2; exit 2; }
	while IFS='|' read -r name want cmd; do
		first=${cmd%% *}
		case $first in
			hang|busy) cmd="$PWD/$b/fixtures/$cmd" ;;
		esac
		d=$tmp/$b-${name// /_}
		echo "stuck_slow: $b $name" >&2
		eval "\"$PWD/$b/jostle\" run -q -n $N -j 2 --timeout 1s -o \"$d\" -- $cmd" > /dev/null 2>&1
		/usr/bin/python3 - "$d" "$b" "$name" "$want" <<'PY'
import collections, json, sys
d, b, name, want = sys.argv[1:]
rows = [json.loads(l) for l in open(d + "/runs.jsonl") if l.strip()]
rows = [r for r in rows if r.get("type") == "run"]
got = collections.Counter(f'{r["outcome"]}/{(r.get("diag") or {}).get("kind", "-")}' for r in rows)
match = (lambda k: k.startswith(want[:-1])) if want.endswith("*") else (lambda k: k == want)
ok = sum(v for k, v in got.items() if match(k))
other = ", ".join(f"{k} {v}" for k, v in got.items() if not match(k)) or "-"
print(f"| {b} | {name} | {want} | {len(rows)} | {ok} | {other} |")
PY
	done <<< "$cases"
done
