#!/usr/bin/env bash
# bench/zoo_grouping.sh: signature grouping quality on the zoo and on the
# bugs corpus (../shared/corpora/bugs, built out of tree by bench/corpuslib.sh
# into CORPUS_BUILD, default build/corpus). For each buggy program, collect
# up to N failing runs (jostle run --chaos auto, bounded by BUDGET seconds per
# program) and count distinct signatures among them (target 1; at most 2
# where the program has two symptoms: conn_release_double_close "closed
# twice" or "leaked", solver_barrier_miscount a hang or "inconsistent",
# pool_shutdown_task_uaf a SIGSEGV or a glibc abort); then list every
# signature shared by two programs. Prints the date, machine, commit and
# command, then a Markdown table; programs with fewer than MIN failures are
# listed but not judged.
#   BUDGET=60 N=50 bash bench/zoo_grouping.sh
#   SET=bugs BUDGET=20 N=30 bash bench/zoo_grouping.sh
#   PROGS="drain_uaf drain_election" SET=zoo ASAN=0 bash bench/zoo_grouping.sh   (a subset of the zoo)
#   BUGS="stats_counter logger_start" SET=bugs bash bench/zoo_grouping.sh        (a subset of the corpus)
# Also: BUILD=build (jostle and its zoo), ASAN_BUILD=build-asan, CORPUS=DIR.
set -u
cd "$(dirname "$0")/.."
BUDGET=${BUDGET:-60} N=${N:-50} MIN=${MIN:-10} SET=${SET:-zoo,bugs}
B=${BUILD:-build} AB=${ASAN_BUILD:-build-asan}
CB=${CORPUS_BUILD:-build/corpus}
OUT=$(mktemp -d /tmp/jostle-grouping.XXXXXX)
names=() cmds=()
add() { names+=("$1"); shift; cmds+=("$*"); }

if [[ ,$SET, == *,zoo,* ]]; then
	read -r -a progs <<< "${PROGS:-spin_handshake drain_uaf drain_election registry_aba deferred_cleanup}"
	for p in "${progs[@]}"; do add "$p" "$B/zoo/$p"; done
	[ "${ASAN:-1}" = 0 ] || [ ! -x "$AB/zoo/drain_uaf" ] || add "asan:drain_uaf" "$AB/zoo/drain_uaf"
fi
if [[ ,$SET, == *,bugs,* ]]; then
	# shellcheck source=bench/corpuslib.sh
	. bench/corpuslib.sh
	corpus_find || { echo "bench/zoo_grouping.sh: no bugs corpus found (set CORPUS=DIR)" >&2; exit 2; }
	corpus_build "$CB" || { echo "bench/zoo_grouping.sh: the corpus does not build in '$CB' (see $CB/build.log)" >&2; exit 2; }
	for n in ${BUGS:-$(corpus_names)}; do
		[ -x "$CB/src/build/$n" ] || { echo "bench/zoo_grouping.sh: no program '$n' in $CB/src/build" >&2; exit 2; }
		add "$n" "$CB/src/build/$n"
	done
fi
[ "${#names[@]}" -gt 0 ] || { echo "bench/zoo_grouping.sh: SET='$SET' selects nothing; expected zoo, bugs or zoo,bugs" >&2; exit 2; }
[ -x "$B/jostle" ] || { echo "bench/zoo_grouping.sh: no $B/jostle: build first (make)" >&2; exit 2; }

echo "### zoo_grouping.sh: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')), Linux $(uname -r); load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "- jostle: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet 2>/dev/null || echo '+changes')"
echo "- command: \`BUDGET=$BUDGET N=$N MIN=$MIN SET=$SET${PROGS:+ PROGS=\"$PROGS\"}${BUGS:+ BUGS=\"$BUGS\"} bash bench/zoo_grouping.sh\`"
echo
echo "| program | failing runs | signatures | largest group | kinds | signatures (count: kind, key, frames) |"
echo "| --- | ---: | ---: | ---: | --- | --- |"
for i in "${!names[@]}"; do
	name=${names[$i]}
	dir="$OUT/${name/:/_}"
	read -r -a cmd <<< "${cmds[$i]}"
	timeout $((BUDGET + 60)) "$B/jostle" run -q --chaos auto --until "failures:$N" --time "${BUDGET}s" \
		--timeout 3s -o "$dir" -- "${cmd[@]}" > /dev/null 2>&1
	/usr/bin/python3 - "$dir/runs.jsonl" "$name" "$N" "$MIN" <<'PY'
import json, sys, collections
path, name, n, least = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
try:
    rows = [json.loads(l) for l in open(path) if l.strip()]
except OSError:
    rows = []
# failures: every outcome but a pass and the four that are no verdict on the program
rows = [r for r in rows if r.get("type") == "run" and r["outcome"] not in ("pass", "ignored", "cut", "slow", "skipped")][:n]
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
