#!/usr/bin/env bash
# Every jostle command shown in README.md and docs/*.md (code blocks and code
# spans) runs as shown (issue 45): its subcommand exists and every option it
# gives before `--` is one that subcommand takes (scripts/gen_docs.py
# examples); and the cheap ones run for real here, as written, on results
# folders named as the pages name them: report, compare, merge, survey and
# explain on synthetic results, slurm and k8s with --dry-run, a zoo program
# until its first failure. A shown command whose input this test does not
# make (./my_test, a live PID) is only checked.
. "$(dirname "$0")/../lib.sh"

while IFS= read -r line; do
	case $line in
	"ok "*) ok "${line#ok * - }" ;;
	"not ok "*) not_ok "${line#not ok * - }" ;;
	*) echo "$line" ;;
	esac
done < <(/usr/bin/python3 "$ROOT/scripts/gen_docs.py" examples "$JOSTLE" "$ROOT")

# The folders the pages' examples name: out/, before/, after/ (the
# "fixed: 0/600 after vs 37/600 before" of reports.md), shard-*/ (one series
# in two shards), ci-logs/ (the survey fixture), my-rules.tsv (survey.md's rule),
# out/logs/17.log (an ASan report).
W=$TMP/w
mkdir -p "$W"
G="/usr/bin/python3 $ROOT/tests/gen_runs.py"
$G "$W/out" --runs 60 --sig aaaa0001:fail:6 --sig bbbb0002:crash:2 >/dev/null
$G "$W/before" --runs 600 --sig aaaa0001:fail:37 >/dev/null
$G "$W/after" --runs 600 >/dev/null
for k in 0 1; do
	timeout 60 "$JOSTLE" run -q -j 2 --seed 9 --shard "$k/2" -n 4 -o "$W/shard-$k" -- "$FIX/flaky" fail-every 3 >/dev/null 2>&1
done
cp -r "$ROOT/tests/data/survey/gha" "$W/ci-logs"
cp "$ROOT/tests/data/asan_uaf.txt" "$W/out/logs/17.log"
printf 'graph-timeout\tcondition not satisfied within (?<secs>[0-9.]+)s\n' > "$W/my-rules.tsv"

# Each runnable command, in a fresh copy of the folders (merge -o all/ must
# not exist), with `jostle` and `$J` meaning the jostle under test. Exit 0 is
# expected, and 0 or 1 from compare (1: "no evidence"); 2 would be a usage
# error in the page.
/usr/bin/python3 "$ROOT/scripts/gen_docs.py" examples "$JOSTLE" "$ROOT" --list |
/usr/bin/python3 -c '
import glob, os, re, shlex, sys
W = sys.argv[1]
runnable = {"report", "compare", "merge", "survey", "explain", "slurm", "k8s"}
for line in sys.stdin:
    where, cmd = line.rstrip("\n").split("\t", 1)
    m = re.match(r"^(?:\$J|(?:\S*/)?jostle)\s+([a-z0-9]+)(.*)$", cmd)
    if not m:
        continue
    sub, rest = m.group(1), m.group(2)
    # a zoo program until its first failure: seconds (build/zoo is $ZOO)
    if sub == "run" and "--until first-failure" in rest and " -- build/zoo/" in rest:
        print("%s\t%s\t%s" % (where, sub, cmd))
        continue
    if sub not in runnable:
        continue
    if sub in ("slurm", "k8s") and "--dry-run" not in rest:
        continue
    try:
        toks = shlex.split(rest)
    except ValueError:
        continue
    # every input it names must be there: the operands before "--", a pipe
    # or a redirection, that are not an option or the value of one
    args, skip = [], False
    for t in toks:
        if t == "--" or t in ("|", "||", ">", "&&") or t.startswith(">"):
            break
        if skip:
            skip = False
            continue
        if t.startswith("-"):
            skip = "=" not in t and t not in ("--dry-run", "--no-stacks", "--native-only")
            continue
        args.append(t)
    if sub in ("slurm", "k8s"):
        args = []
    elif not args:
        continue            # the name alone, in prose
    if any(re.search(r"[A-Z]{3,}|\.\.\.|\[", a) for a in args):
        continue            # a placeholder: DIR, BEFORE_DIR, [options]
    if not all(glob.glob(os.path.join(W, a)) for a in args):
        continue
    print("%s\t%s\t%s" % (where, sub, cmd))
' "$W" > "$TMP/runnable"
check "some shown commands run for real (report, compare, merge, survey, explain, slurm, k8s, run)" \
	test "$(wc -l < "$TMP/runnable")" -ge 8
i=0
while IFS=$'\t' read -r where sub cmd; do
	i=$((i + 1))
	d=$TMP/run$i
	cp -r "$W" "$d"
	(cd "$d" && J=$JOSTLE && jostle() { "$JOSTLE" "$@"; } && eval "${cmd//build\/zoo\//$ZOO/}") > "$d.out" 2>&1 < /dev/null
	rc=$?
	case $sub in compare | run) want="0 1" ;; *) want="0" ;; esac
	if [[ " $want " == *" $rc "* ]]; then
		ok "$where runs: $cmd"
	else
		not_ok "$where runs: $cmd"; echo "#   exit $rc"; head -5 "$d.out" | sed 's/^/#   /'
	fi
	rm -rf "$d" "$d.out"
done < "$TMP/runnable"

# What the README and reports.md say compare prints for those two folders.
out=$(cd "$W" && "$JOSTLE" compare before/ after/ 2>&1)
check "compare before/ after/ prints the conclusion the pages quote" \
	grep -qxF 'fixed: 0/600 after vs 37/600 before (p = 8e-12)' <<<"$out"
check "README.md quotes it" grep -qF '"fixed: 0/600 after vs 37/600 before (p = 8e-12)"' "$ROOT/README.md"
