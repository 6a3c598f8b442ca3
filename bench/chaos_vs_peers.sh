#!/usr/bin/env bash
# bench/chaos_vs_peers.sh: how fast does each tool make the zoo's bugs fail?
#
# For every buggy zoo program (and the ASan build of drain_uaf), in each mode:
#   seq       a plain sequential shell loop
#   p2, p8    golang-stress -p 2 / -p 8
#   stressng  stress-ng --cpu 2 in the background plus a plain loop
#   jostle    jostle run without options (-j = online CPUs)
#   auto      jostle run --chaos auto
# it measures (1) failures per minute over a fixed budget and (2) the median
# time to first failure over ATTEMPTS fresh attempts, each capped at CAP
# seconds (">CAP" when the median attempt found nothing). A failure is a
# non-zero exit, a signal or a run past RUN_TIMEOUT (a hang), in every mode.
# With FIXED=1 it then runs every program's --fixed variant for BUDGET under
# each perturbing mode (stressng, jostle, auto) and reports any failure: there
# must be none.
#
# Environment (all optional; every loop is bounded in time):
#   BUDGET=10 ATTEMPTS=5 CAP=20 RUN_TIMEOUT=10 MODES="seq p2 p8 stressng jostle auto"
#   PROGRAMS="registry_aba ... asan:drain_uaf"  (default: every zoo program)
#   BUILD=build (a folder with jostle and zoo/, relative or absolute)  FIXED=0
#   JOSTLE_ARGS="-j 8"  options added to jostle's own modes (jostle, auto)
# Prints a Markdown table on stdout; progress on stderr.
set -u
cd "$(dirname "$0")/.."
B=${BUILD:-build}
BUDGET=${BUDGET:-10}
ATTEMPTS=${ATTEMPTS:-5}
CAP=${CAP:-20}
RT=${RUN_TIMEOUT:-10}
MODES=${MODES:-seq p2 p8 stressng jostle auto}
case $B in /*) ;; *) B=$PWD/$B ;; esac
JOSTLE=$B/jostle
if [ -z "${PROGRAMS:-}" ]; then
	PROGRAMS=
	for f in "$B"/zoo/*; do
		[ -x "$f" ] && [ -f "$f" ] && case $f in *.so) ;; *) PROGRAMS="$PROGRAMS $(basename "$f")" ;; esac
	done
	[ -x build-asan/zoo/drain_uaf ] && PROGRAMS="$PROGRAMS asan:drain_uaf"
fi
[ -x "$JOSTLE" ] || { echo "chaos_vs_peers: build first (make)" >&2; exit 2; }
for t in golang-stress:p2 golang-stress:p8 stress-ng:stressng; do
	case " $MODES " in *" ${t#*:} "*) ;; *) continue ;; esac
	command -v "${t%:*}" >/dev/null || { echo "chaos_vs_peers: ${t%:*} is not installed" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/chaos-vs-peers.XXXXXX")
# shellcheck source=bench/bglib.sh
. bench/bglib.sh   # bg, stop_bg, the traps

now() { date +%s.%N; }
elapsed() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.3f", a - b }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

path_of() { # PROG -> binary path
	case $1 in asan:*) echo "$PWD/build-asan/zoo/${1#asan:}" ;; *) echo "$B/zoo/$1" ;; esac
}

# loop PROG SECONDS FIRST [FLAGS]: a sequential loop; prints "runs fails
# seconds". With FIRST=1 it stops at the first failure.
loop() {
	local bin=$1 secs=$2 first=$3 flags=${4:-} t0 n=0 f=0
	t0=$(now)
	while lt "$(elapsed "$t0")" "$secs"; do
		timeout -k 1 "$RT" "$bin" $flags >/dev/null 2>&1 || { f=$((f + 1)); [ "$first" = 1 ] && { n=$((n + 1)); break; }; }
		n=$((n + 1))
	done
	echo "$n $f $(elapsed "$t0")"
}

# gstress N PROG SECONDS FIRST [FLAGS]
gstress() {
	local p=$1 bin=$2 secs=$3 first=$4 flags=${5:-} t0 out=$tmp/gs.out
	rm -f "$tmp"/gsf-* "$out"
	t0=$(now)
	setsid golang-stress -p "$p" -timeout "${RT}s" -o "$tmp/gsf-" "$bin" $flags > "$out" 2>&1 &
	bg=$!
	# golang-stress prints its run count every 5 s: let the last report out
	local until=$secs
	[ "$first" = 1 ] || until=$(awk -v s="$secs" 'BEGIN { print int((s + 4) / 5) * 5 + 0.3 }')
	while lt "$(elapsed "$t0")" "$until"; do
		if [ "$first" = 1 ] && ls "$tmp"/gsf-* >/dev/null 2>&1; then break; fi
		sleep 0.05
	done
	local secs_done
	secs_done=$(elapsed "$t0")
	stop_bg
	[ "$first" = 1 ] || secs_done=$(awk -v s="$until" 'BEGIN { print s - 0.3 }')
	# "N runs so far, M failures" every 5 s; failures also as files
	local runs fails
	runs=$(grep -ao '[0-9]* runs so far, [0-9]* failures' "$out" | tail -1 | cut -d' ' -f1)
	fails=$(grep -ao '[0-9]* runs so far, [0-9]* failures' "$out" | tail -1 | cut -d' ' -f5)
	[ "$first" = 1 ] && fails=$(ls "$tmp"/gsf-* 2>/dev/null | wc -l)
	echo "${runs:-0} ${fails:-0} $secs_done"
}

# stressng PROG SECONDS FIRST [FLAGS]
stressng() {
	setsid stress-ng --cpu 2 --quiet > /dev/null 2>&1 &
	bg=$!
	local r
	r=$(loop "$1" "$2" "$3" "${4:-}")
	stop_bg
	echo "$r"
}

# jrun PROG SECONDS FIRST AUTO [FLAGS]
jrun() {
	local bin=$1 secs=$2 first=$3 auto=$4 flags=${5:-} d=$tmp/j.$RANDOM
	local opts=(-q --time "${secs}s" --timeout "${RT}s" -o "$d")
	# shellcheck disable=SC2206
	[ -n "${JOSTLE_ARGS:-}" ] && opts+=($JOSTLE_ARGS)
	[ "$first" = 1 ] && opts+=(--until first-failure)
	[ "$auto" = 1 ] && opts+=(--chaos auto)
	"$JOSTLE" run "${opts[@]}" -- "$bin" $flags > /dev/null 2>&1
	/usr/bin/python3 - "$d" "$first" <<'PY'
import json, sys
d, first = sys.argv[1], sys.argv[2] == "1"
objs = [json.loads(l) for l in open(d + "/runs.jsonl") if l.strip()]
rows = [o for o in objs if o.get("type") == "run"]
summ = json.load(open(d + "/summary.json"))
fails = [r for r in rows if r["outcome"] not in ("pass", "ignored")]
if first and fails:
    t = min(r["t"] + r["wall_s"] for r in fails)
else:
    t = summ["elapsed_s"]
print(len(rows), len(fails), t)
PY
	rm -rf "$d"
}

measure() { # MODE PROG SECONDS FIRST [FLAGS] -> "runs fails seconds"
	local bin
	bin=$(path_of "$2")
	case $1 in
	seq) loop "$bin" "$3" "$4" "${5:-}" ;;
	p2) gstress 2 "$bin" "$3" "$4" "${5:-}" ;;
	p8) gstress 8 "$bin" "$3" "$4" "${5:-}" ;;
	stressng) stressng "$bin" "$3" "$4" "${5:-}" ;;
	jostle) jrun "$bin" "$3" "$4" 0 "${5:-}" ;;
	auto) jrun "$bin" "$3" "$4" 1 "${5:-}" ;;
	esac
}

median() { sort -g | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; print m}'; }

echo "| program | mode | runs | fails | fails/min | median time to 1st failure (s) | attempts that failed |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for prog in $PROGRAMS; do
	for mode in $MODES; do
		echo "chaos_vs_peers: $prog $mode" >&2
		read -r runs fails secs < <(measure "$mode" "$prog" "$BUDGET" 0)
		fpm=$(awk -v f="$fails" -v s="$secs" 'BEGIN { printf "%.1f", f * 60 / s }')
		: > "$tmp/ttff"
		hit=0
		for _ in $(seq "$ATTEMPTS"); do
			read -r r f s < <(measure "$mode" "$prog" "$CAP" 1)
			if [ "$f" -gt 0 ]; then hit=$((hit + 1)); echo "$s" >> "$tmp/ttff"; else echo 999999 >> "$tmp/ttff"; fi
		done
		med=$(median < "$tmp/ttff")
		if ! lt "$med" 999999; then med=">$CAP"; else med=$(printf '%.2f' "$med"); fi
		echo "| $prog | $mode | $runs | $fails | $fpm | $med | $hit/$ATTEMPTS |" | tee -a "$tmp/rows"
	done
done

# The goal, per program: auto's failures per minute over the plain loop's
# and over the best peer's (golang-stress -p 2 / -p 8, stress-ng + loop); a
# mode with no failure counts as 0.5 per minute. Geometric means over the zoo.
/usr/bin/python3 - "$tmp/rows" <<'PY'
import math, sys
rows = {}
for line in open(sys.argv[1]):
    c = [x.strip() for x in line.strip().strip("|").split("|")]
    rows.setdefault(c[0], {})[c[1]] = float(c[4])
peers = ("p2", "p8", "stressng")
out = []
for prog, m in rows.items():
    if "auto" not in m:
        continue
    a = max(m["auto"], 0.5)
    r_seq = a / max(m["seq"], 0.5) if "seq" in m else None
    have = [p for p in peers if p in m]
    best = max(have, key=lambda p: m[p]) if have else None
    r_peer = a / max(m[best], 0.5) if best else None
    out.append((prog, r_seq, r_peer, best))
if out:
    print()
    print("| program | auto / plain loop | auto / best peer (which) |")
    print("| --- | ---: | ---: |")
    for prog, rs, rp, best in out:
        print("| %s | %s | %s |" % (prog, "%.2f" % rs if rs else "-", "%.2f (%s)" % (rp, best) if rp else "-"))
    gm = lambda v: math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
    print("| **geometric mean** | **%.2f** (target 10) | **%.2f** (target 3) |" % (
        gm([r for _, r, _, _ in out if r]), gm([r for _, _, r, _ in out if r])))
PY

if [ "${FIXED:-0}" = 1 ]; then
	echo
	echo "| fixed program | mode | runs | fails |"
	echo "| --- | --- | ---: | ---: |"
	for prog in $PROGRAMS; do
		for mode in stressng jostle auto; do
			echo "chaos_vs_peers: $prog --fixed $mode" >&2
			read -r runs fails secs < <(measure "$mode" "$prog" "$BUDGET" 0 --fixed)
			echo "| $prog --fixed | $mode | $runs | $fails |"
		done
	done
fi
