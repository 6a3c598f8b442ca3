#!/usr/bin/env bash
# jostle slurm and jostle k8s (issue 17) without a cluster: the scripts and
# the manifest they write are run here as the engines would run them (a
# fake sbatch runs every array task in turn; N local processes get
# JOB_COMPLETION_INDEX), and the merged series equals one machine's. The
# manifest's structure is checked offline; deploy/ stays what jostle writes.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky
FACTS="/usr/bin/python3 $ROOT/tests/series_facts.py"
timeout 60 "$JOSTLE" run -q -j 2 --seed 42 -n 100 -o "$TMP/one" -- "$F" fail-every 7 >/dev/null 2>&1

# ---- Slurm, with an sbatch that runs the array's tasks here, one after another
mkdir -p "$TMP/bin"
cat > "$TMP/bin/sbatch" <<'EOF'
#!/bin/bash
echo "sbatch $*" >> "$SBATCH_LOG"
script=${!#}
id=$(( $(wc -l < "$SBATCH_LOG") + 1000 ))
arr=$(sed -n 's/^#SBATCH --array=//p' "$script")
if [ -n "$arr" ]; then
	lo=${arr%-*} hi=${arr#*-}
	for ((t = lo; t <= hi; t++)); do
		SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$t SLURM_ARRAY_TASK_MIN=$lo SLURM_ARRAY_TASK_MAX=$hi \
		SLURM_ARRAY_TASK_STEP=1 SLURM_ARRAY_TASK_COUNT=$((hi - lo + 1)) bash "$script" >/dev/null 2>&1
		echo "task $t exit $?" >> "$SBATCH_LOG"
	done
else
	bash "$script" >/dev/null 2>&1
	echo "merge exit $?" >> "$SBATCH_LOG"
fi
echo "$id;cluster"
EOF
chmod +x "$TMP/bin/sbatch"
export SBATCH_LOG=$TMP/sbatch.log
out=$(PATH=$TMP/bin:$PATH timeout 120 "$JOSTLE" slurm --array 4 -o "$TMP/sl" --jostle "$JOSTLE" \
	-j 2 -n 25 --seed 42 -- "$F" fail-every 7 2>&1); rc=$?
check_eq "jostle slurm: exit 0" "$rc" 0
check "jostle slurm: says what it submitted" grep -q "4 shards submitted as job array 1001, the merge as job 1006" <<<"$out"
check_eq "the merge job depends on the array (afterany)" "$(grep -c -- "--parsable --dependency=afterany:1001 $TMP/sl/jostle-0000002a-merge.sbatch" "$SBATCH_LOG")" 1
check_eq "every task exits 0 although shards found failures" "$(grep -c 'task [0-3] exit 0' "$SBATCH_LOG")" 4
check "the scripts stay in the results root" test -x "$TMP/sl/jostle-0000002a-shards.sbatch"
check_eq "the merged shards are the series of one machine" "$($FACTS summary "$TMP/sl/merged")" "$($FACTS summary "$TMP/one")"
check_eq "... with the same runs" "$($FACTS runs "$TMP/sl/merged")" "$($FACTS runs "$TMP/one")"
PATH=$TMP/bin:$PATH "$JOSTLE" slurm --array 4 -o "$TMP/sl" -n 25 -- "$F" pass >/dev/null 2>&1
check_eq "a results root that holds shards is refused" "$?" 2

dry=$("$JOSTLE" slurm --array 3 -o "$TMP/dry" --sbatch=--partition=gpu --dry-run -n 5 -- "$F" 'a b' "it's" 2>&1); rc=$?
check_eq "--dry-run: exit 0" "$rc" 0
check "--dry-run submits nothing, writes nothing" test ! -e "$TMP/dry"
check "--dry-run: the array" grep -qx '#SBATCH --array=0-2' <<<"$dry"
check "--dry-run: the user's sbatch option" grep -qx '#SBATCH --partition=gpu' <<<"$dry"
check "--dry-run: logs under the root" grep -qx "#SBATCH --output=$TMP/dry/slurm/%A_%a.out" <<<"$dry"
check "--dry-run: a seed is drawn for all shards" grep -q -- "--shard auto/3 -o \"\$d\" -n 5 --seed=0x[0-9a-f]\{16\} -- $F 'a b' 'it'\\\\''s'\$" <<<"$dry"
check "--dry-run: the dependent merge" grep -q 'sbatch --dependency=afterany:\$jid' <<<"$dry"
split() { awk -v want="$1" 'f && /^$/ {exit} f {print} $0 ~ "^# /.*-" want "\\.sbatch$" {f=1}'; }
check "--dry-run: the shard script is valid bash" bash -n <(split shards <<<"$dry")
check "--dry-run: the merge script is valid bash" bash -n <(split merge <<<"$dry")

bad() { # DESCRIPTION PATTERN ARGS...: exit 2 and one line matching PATTERN
	local what=$1 pat=$2; shift 2
	local err; err=$(PATH=$TMP/bin:$PATH "$JOSTLE" "$@" 2>&1 >/dev/null); local rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q -- "$pat" <<<"$err"; then ok "$what"
	else not_ok "$what"; echo "#   rc=$rc: $err"; fi
}
bad "slurm without --array" "needs --array N" slurm -o "$TMP/b1" -- "$F" pass
bad "slurm --array 0" "--array '0' is not a number of shards" slurm --array 0 -- "$F" pass
bad "slurm: a bad run option, as jostle run says it" "--runs 'x' is not a number of runs" slurm --array 2 -n x -- "$F" pass
bad "slurm: --shard is its own" "gives every shard its --shard" slurm --array 2 --shard 0/2 --seed 1 -- "$F" pass
bad "slurm: --replay cannot be sharded" "--replay cannot run as shards" slurm --array 2 --replay "$TMP/one:3" -- "$F" pass
bad "slurm: no '--'" "missing '--' before the command" slurm --array 2 -n 3 "$F" pass
bad "slurm: --sbatch=--array" "sets the array, the job name and the output itself" slurm --array 2 --sbatch=--array=1-2 -- "$F" pass
bad "slurm: a bad --name" "--name 'A_b' is not a job name" slurm --array 2 --name A_b -- "$F" pass
err=$(env PATH=/nonexistent "$JOSTLE" slurm --array 2 -o "$TMP/nosb" -- "$F" pass 2>&1)
check_eq "slurm: sbatch not on PATH: exit 2" "$?" 2
check "slurm: sbatch not on PATH: says so" grep -q "cannot run sbatch: No such file or directory (not on PATH" <<<"$err"

# ---- Kubernetes: the manifest, checked offline, its shard script run by 4 local "pods"
man=$("$JOSTLE" k8s --completions 4 --parallelism 2 --image reg.example/t:1 --name t670 \
	--mount "$TMP/results" --claim t670-pvc --jostle "$JOSTLE" --dry-run -j 2 -n 25 --seed 42 \
	-- "$F" fail-every 7 2>&1); rc=$?
check_eq "jostle k8s --dry-run: exit 0" "$rc" 0
printf '%s\n' "$man" > "$TMP/m.yaml"
if /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
	check "the manifest: an Indexed Job and a suspended merge Job, well formed" /usr/bin/python3 "$ROOT/tests/k8s_check.py" "$TMP/m.yaml" 4 2
else
	ok "# SKIP the manifest's structure: python3-yaml is not installed (scripts/test.sh installs it)"
fi
/usr/bin/python3 - "$TMP/m.yaml" "$TMP/shard.sh" "$TMP/merge.sh" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
cmds = re.findall(r'^\s*command: (\[.*\])$', text, re.M)
open(sys.argv[2], "w").write(json.loads(cmds[0])[2])
open(sys.argv[3], "w").write(json.loads(cmds[1])[2])
PY
for k in 0 1 2 3; do
	JOB_COMPLETION_INDEX=$k timeout 60 sh "$TMP/shard.sh" > "$TMP/pod$k.out" 2>&1 &
done
rcs=0; for j in $(jobs -p); do wait "$j" || rcs=$((rcs + 1)); done
check_eq "4 pods: each exits 0 although it found failures" "$rcs" 0
timeout 60 sh "$TMP/merge.sh" > "$TMP/merge.out" 2>&1
check_eq "the merge Job's command: exit 0" "$?" 0
check_eq "the merged pods are the series of one machine" "$($FACTS summary "$TMP/results/t670/merged")" "$($FACTS summary "$TMP/one")"
JOB_COMPLETION_INDEX=2 timeout 60 sh "$TMP/shard.sh" > /dev/null 2>&1
check_eq "a retried pod starts its shard again" "$($FACTS count "$TMP/results/t670/shard-2")" 25

cat > "$TMP/bin/kubectl" <<'EOF'
#!/bin/bash
echo "kubectl $1 $2" >> "$KUBECTL_LOG"; cp "$3" "$KUBECTL_LOG.yaml"; echo "job.batch/t670 created"
EOF
chmod +x "$TMP/bin/kubectl"
export KUBECTL_LOG=$TMP/kubectl.log
out=$(PATH=$TMP/bin:$PATH "$JOSTLE" k8s --completions 4 --parallelism 2 --image reg.example/t:1 --name t670 \
	--mount "$TMP/results" --claim t670-pvc --jostle "$JOSTLE" -j 2 -n 25 --seed 42 -- "$F" fail-every 7 2>&1)
check_eq "without --dry-run: kubectl apply -f the same manifest" "$(cat "$KUBECTL_LOG"):$(cmp -s "$KUBECTL_LOG.yaml" "$TMP/m.yaml" && echo same)" "kubectl apply -f:same"
check "... and says how to merge" grep -q "kubectl patch job t670-merge" <<<"$out"
bad "k8s without --image" "needs --image IMAGE" k8s --completions 2 --dry-run -- "$F" pass
bad "k8s --parallelism above N" "--parallelism '5' is not a number of pods" k8s --completions 4 --parallelism 5 --image x --dry-run -- "$F" pass
bad "k8s --completions 0" "--completions '0' is not a number of shards" k8s --completions 0 --image x --dry-run -- "$F" pass
bad "k8s: -o is jostle's" "gives every shard its -o" k8s --completions 2 --image x --dry-run -o y -- "$F" pass

# ---- deploy/ is what jostle writes
"$JOSTLE" slurm --array 4 -o /shared/jostle/demo --name demo --jostle /opt/jostle/bin/jostle \
	--sbatch=--partition=debug --sbatch=--time=01:00:00 --sbatch=--cpus-per-task=4 --dry-run \
	-n 250 --timeout 60s --seed 0x5eed -- ./build/tests/drain_test --iterations 100 > "$TMP/demo.txt"
check_eq "deploy/slurm/demo-shards.sbatch is current" "$(split shards < "$TMP/demo.txt")" "$(cat "$ROOT/deploy/slurm/demo-shards.sbatch")"
check_eq "deploy/slurm/demo-merge.sbatch is current" "$(split merge < "$TMP/demo.txt")" "$(cat "$ROOT/deploy/slurm/demo-merge.sbatch")"
"$JOSTLE" k8s --completions 4 --image registry.example.com/team/drain-test:latest --name demo --dry-run \
	-n 250 --timeout 60s --seed 0x5eed -- ./build/tests/drain_test --iterations 100 > "$TMP/demo.yaml"
check "deploy/k8s/jostle-demo.yaml is current" cmp "$TMP/demo.yaml" "$ROOT/deploy/k8s/jostle-demo.yaml"

# ---- the GitHub Actions example: its shard and merge steps, run here
/usr/bin/python3 - "$ROOT/deploy/github-actions/jostle-shards.yml" "$TMP/gh" <<'PY'
import os, sys
try:
    import yaml
except ImportError:
    text = open(sys.argv[1]).read()
    sys.exit(0 if "matrix:" in text else 1)
w = yaml.safe_load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
shard = w["jobs"]["shard"]
assert w["jobs"]["merge"]["needs"] == "shard" and w["jobs"]["merge"]["if"] == "always()"
assert shard["strategy"]["matrix"]["shard"] == list(range(int(w["env"]["SHARDS"])))
steps = {s.get("id"): s["run"] for j in w["jobs"].values() for s in j["steps"] if s.get("id")}
for k in shard["strategy"]["matrix"]["shard"]:
    open(os.path.join(sys.argv[2], "shard%d.sh" % k), "w").write(
        steps["shard"].replace("${{ matrix.shard }}", str(k)).replace("${{ github.run_id }}", "42"))
open(os.path.join(sys.argv[2], "merge.sh"), "w").write(steps["merge"])
PY
check_eq "the workflow parses: a matrix of SHARDS shards and a merge after all" "$?" 0
if [ -f "$TMP/gh/merge.sh" ]; then
	(
		cd "$TMP/gh" || exit 1
		mkdir -p bin shards && ln -s "$JOSTLE" bin/jostle
		export PATH=$TMP/gh/bin:$PATH SHARDS=4 RUNS_PER_SHARD=25 TEST="$F fail-every 7" GITHUB_STEP_SUMMARY=$TMP/gh/summary.md
		for k in 0 1 2 3; do
			timeout 60 bash -e "shard$k.sh" || exit 1
			mv "shard-$k" "shards/jostle-shard-$k"   # as upload and download-artifact leave them
		done
		timeout 60 bash -e merge.sh
	) > "$TMP/gh.out" 2>&1
	check_eq "the workflow's merge step fails on the series' failures" "$?" 1
	check_eq "the workflow's merged shards are the series of one machine" "$($FACTS summary "$TMP/gh/merged")" "$($FACTS summary "$TMP/one")"
	check "the workflow puts the report on the summary page" grep -q "14 of 100 runs failed" "$TMP/gh/summary.md"
fi
