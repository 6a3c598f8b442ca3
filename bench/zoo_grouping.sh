#!/usr/bin/env bash
# bench/zoo_grouping.sh: signature grouping quality on the zoo and on the
# SCTBench corpus (../shared/corpora/sctbench, built out of tree here). For
# each buggy program, collect up to N failing runs (jostle run --chaos auto,
# bounded by BUDGET seconds per program) and count distinct signatures among
# them (target 1; at most 2 where the program prints two different
# messages); then list every signature shared by two programs. Prints a
# Markdown table; programs with fewer than MIN failures are listed but not
# judged.
#   BUDGET=60 N=50 bash bench/zoo_grouping.sh
#   SET=sctbench BUDGET=20 N=30 bash bench/zoo_grouping.sh
#   PROGS="drain_uaf drain_election" SET=zoo ASAN=0 bash bench/zoo_grouping.sh   (a subset)
set -u
cd "$(dirname "$0")/.."
BUDGET=${BUDGET:-60} N=${N:-50} MIN=${MIN:-10} SET=${SET:-zoo,sctbench}
CORPUS=${CORPUS:-../shared/corpora/sctbench}
OUT=$(mktemp -d /tmp/jostle-grouping.XXXXXX)
names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$*"); }

if [[ ,$SET, == *,zoo,* ]]; then
	read -r -a progs <<< "${PROGS:-spin_handshake drain_uaf drain_election registry_aba deferred_cleanup}"
	for p in "${progs[@]}"; do add "$p" "build/zoo/$p"; done
	[ "${ASAN:-1}" = 0 ] || add "asan:drain_uaf" "build-asan/zoo/drain_uaf"
fi
if [[ ,$SET, == *,sctbench,* ]]; then
	# The corpus README: each C file alone with the suite's flags, C++ with
	# -std=c++0x, inspect/ programs with the arguments of their //args: line.
	bin=$OUT/sctbench-bin
	mkdir -p "$bin"
	for f in "$CORPUS"/csb/*_bad.c "$CORPUS"/csb/*_sat.c "$CORPUS"/inspect/*.c; do
		[ -e "$f" ] || continue
		n=$(basename "$f" .c)
		if gcc -O0 -g -pthread -w -I"$CORPUS/csb" "$f" -o "$bin/$n" -lm 2> "$bin/$n.err"; then
			args=$(sed -n '1s#^//args:##p' "$f" | sed 's/{NUMTHREADS}/2/g')
			add "$n" "$bin/$n $args"
		else
			echo "# $n: does not build ($(head -1 "$bin/$n.err"))" >&2
		fi
	done
	for f in "$CORPUS"/chess/*.cpp; do
		[ -e "$f" ] || continue
		n=$(basename "$f" .cpp)
		g++ -std=c++0x -O0 -g -pthread -w "$f" -o "$bin/$n" 2> "$bin/$n.err" && add "$n" "$bin/$n"
	done
fi

echo "| program | failing runs | signatures | largest group | kinds | signatures (count: kind, key, frames) |"
echo "| --- | ---: | ---: | ---: | --- | --- |"
for i in "${!names[@]}"; do
	name=${names[$i]}
	dir="$OUT/${name/:/_}"
	read -r -a cmd <<< "${cmds[$i]}"
	timeout $((BUDGET + 60)) build/jostle run -q --chaos auto --until "failures:$N" --time "${BUDGET}s" \
		--timeout 3s -o "$dir" -- "${cmd[@]}" > /dev/null 2>&1
	/usr/bin/python3 - "$dir/runs.jsonl" "$name" "$N" "$MIN" <<'PY'
import json, sys, collections
path, name, n, least = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
try:
    rows = [json.loads(l) for l in open(path) if l.strip()]
except OSError:
    rows = []
rows = [r for r in rows if r.get("type") == "run" and r["outcome"] not in ("pass", "ignored")][:n]
c = collections.Counter(r["sig_id"] for r in rows)
kinds = sorted({r["sig_kind"] for r in rows})
sigs = []
for sid, k in c.most_common(4):
    r = next(r for r in rows if r["sig_id"] == sid)
    sigs.append("%d: %s, `%s`, %s" % (k, r["sig_kind"], (r["sig_key"] or "")[:60], ",".join(r["frames"]) or "-"))
more = " (+%d more)" % (len(c) - 4) if len(c) > 4 else ""
label = name if len(rows) >= least else name + " (fewer than %d: not judged)" % least
print("| %s | %d | %d | %d | %s | %s%s |" % (label, len(rows), len(c), max(c.values()) if c else 0,
      ",".join(kinds), "; ".join(sigs), more))
with open(path + ".ids", "w") as f:
    if len(rows) >= least:
        for s in c:
            f.write("%s %s\n" % (s, name))
PY
done
echo
shared=$(cat "$OUT"/*/runs.jsonl.ids 2> /dev/null | sort | awk '{ p[$1] = p[$1] " " $2; n[$1]++ } END { for (s in n) if (n[s] > 1) print s ":" p[s] }')
echo "signatures shared by two programs (of those with $MIN+ failures): $(printf '%s' "$shared" | grep -c .)"
[ -n "$shared" ] && printf '%s\n' "$shared" | sed 's/^/  /'
echo "(results in $OUT)"
