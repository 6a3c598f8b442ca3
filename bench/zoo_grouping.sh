#!/usr/bin/env bash
# bench/zoo_grouping.sh: signature grouping quality on the zoo. For each buggy
# zoo program, collect up to 50 failing runs (jostle run --chaos auto, bounded
# by BUDGET seconds per program) and count distinct signatures among them; then
# check that no signature is shared by two programs. Prints a Markdown table.
#   BUDGET=60 N=50 bash bench/zoo_grouping.sh
#   PROGS="drain_uaf drain_election" ASAN=0 bash bench/zoo_grouping.sh   (a subset)
set -u
cd "$(dirname "$0")/.."
BUDGET=${BUDGET:-60} N=${N:-50}
OUT=$(mktemp -d /tmp/jostle-grouping.XXXXXX)
read -r -a progs <<< "${PROGS:-spin_handshake drain_uaf drain_election registry_aba deferred_cleanup}"
targets=()
for p in "${progs[@]}"; do targets+=("build/zoo/$p"); done
[ "${ASAN:-1}" = 0 ] || targets+=("build-asan/zoo/drain_uaf")
echo "| program | failing runs | signatures | largest group | kinds | top signature (kind, key, frames) |"
echo "| --- | ---: | ---: | ---: | --- | --- |"
for t in "${targets[@]}"; do
	name=$(echo "$t" | sed 's#build-asan/zoo/#asan:#; s#build/zoo/##')
	dir="$OUT/${name/:/_}"
	timeout $((BUDGET + 60)) build/jostle run -q --chaos auto --until "failures:$N" --time "${BUDGET}s" \
		--timeout 3s -o "$dir" -- "$t" > /dev/null 2>&1
	/usr/bin/python3 - "$dir/runs.jsonl" "$name" "$N" <<'PY'
import json, sys, collections
path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(path) if l.strip()]
rows = [r for r in rows if r.get("type") == "run" and r["outcome"] not in ("pass", "ignored")][:n]
c = collections.Counter(r["sig_id"] for r in rows)
kinds = sorted({r["sig_kind"] for r in rows})
top = ""
if c:
    sid = c.most_common(1)[0][0]
    r = next(r for r in rows if r["sig_id"] == sid)
    top = "%s: %s, `%s`, %s" % (sid, r["sig_kind"], r["sig_key"], ",".join(r["frames"]))
print("| %s | %d | %d | %d | %s | %s |" % (name, len(rows), len(c), max(c.values()) if c else 0,
      ",".join(kinds), top))
with open(path + ".ids", "w") as f:
    for s in c:
        f.write(s + "\n")
PY
done
echo
echo "signatures shared by two programs: $(cat "$OUT"/*/runs.jsonl.ids | sort | uniq -d | wc -l)"
echo "(results in $OUT)"
