#!/usr/bin/env bash
# A real Slurm cluster (issue 17): a private one-node cluster on localhost
# (munged, slurmctld, slurmd from Debian's packages; proctrack/linuxproc,
# no cgroup plugins), started here and stopped at the end. `jostle slurm`
# submits a 4-task array of a deterministic fixture and its merge job; the
# merged series must be the series one machine runs with the same master
# seed. Skipped (TAP SKIP, with the reason) only where the daemons are not
# installed or cannot start; scripts/setup.sh installs them.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky
FACTS="/usr/bin/python3 $ROOT/tests/series_facts.py"
D=$TMP/slurm

skip() { echo "ok 1 - # SKIP real Slurm cluster: $*"; exit 0; }
for b in munged slurmctld slurmd; do
	[ -x "/usr/sbin/$b" ] || skip "/usr/sbin/$b is not installed (scripts/setup.sh installs munge, slurmctld, slurmd, slurm-client)"
done
for b in sbatch squeue sinfo scancel; do
	command -v "$b" >/dev/null || skip "$b is not installed (slurm-client)"
done
[ "$(id -u)" = 0 ] || skip "the daemons of a private cluster run as root here; run as root"

stop_cluster() {
	[ -n "${SLURM_CONF:-}" ] && scancel --quiet --user=root >/dev/null 2>&1
	for p in slurmd slurmctld munged; do
		[ -s "$D/$p.pid" ] && kill "$(cat "$D/$p.pid" 2>/dev/null)" 2>/dev/null
	done
	for _ in $(seq 50); do
		alive=0
		for p in slurmd slurmctld munged; do
			[ -s "$D/$p.pid" ] && kill -0 "$(cat "$D/$p.pid" 2>/dev/null)" 2>/dev/null && alive=1
		done
		[ $alive = 0 ] && break
		sleep 0.2
	done
	for p in slurmd slurmctld munged; do
		[ -s "$D/$p.pid" ] && kill -9 "$(cat "$D/$p.pid" 2>/dev/null)" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap stop_cluster EXIT

# two free TCP ports next to each other (nothing listens on them)
listening() {
	local f addr st
	for f in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$f" ] || continue
		while read -r _ addr _ st _; do
			[ "$st" = 0A ] && echo $((16#${addr##*:}))
		done < <(tail -n +2 "$f")
	done
}
port=$((20000 + ($$ * 7) % 20000))
while listening | grep -qx -e "$port" -e "$((port + 1))"; do port=$((port + 2)); done

mkdir -p "$D/state" "$D/spool" "$D/log"
head -c 1024 /dev/urandom > "$D/munge.key" && chmod 600 "$D/munge.key"
/usr/sbin/munged -f --key-file="$D/munge.key" --socket="$D/munge.sock" --pid-file="$D/munged.pid" \
	--log-file="$D/munged.log" --seed-file="$D/munged.seed" >/dev/null 2>&1 ||
	skip "munged does not start: $(tail -1 "$D/munged.log" 2>/dev/null)"
host=$(hostname -s)
cat > "$D/slurm.conf" <<EOF
ClusterName=jostle
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge.sock
CredType=cred/munge
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc)
PartitionName=jostle Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$D/slurm.conf
/usr/sbin/slurmctld -f "$SLURM_CONF" -i >/dev/null 2>&1 || skip "slurmctld does not start: $(tail -1 "$D/log/slurmctld.log" 2>/dev/null)"
/usr/sbin/slurmd -f "$SLURM_CONF" -N "$host" >/dev/null 2>&1 || skip "slurmd does not start: $(tail -1 "$D/log/slurmd.log" 2>/dev/null)"
state=
for _ in $(seq 120); do
	state=$(sinfo -h -o %T 2>/dev/null)
	[ "$state" = idle ] && break
	sleep 0.5
done
[ "$state" = idle ] || skip "the node did not come up (state '$state'): $(tail -2 "$D/log/slurmd.log" 2>/dev/null | tr '\n' ' ')"
ok "a one-node cluster on localhost is up (ports $port, $((port + 1)))"

timeout 120 "$JOSTLE" run -q -j 2 --seed 42 -n 100 -o "$TMP/one" -- "$F" fail-every 7 >/dev/null 2>&1
out=$(timeout 60 "$JOSTLE" slurm --array 4 -o "$TMP/r" --name t680 -j 1 -n 25 --seed 42 -- "$F" fail-every 7 2>&1); rc=$?
check_eq "jostle slurm submits: exit 0" "$rc" 0
jid=$(sed -n 's/.*submitted as job array \([0-9]*\), the merge as job \([0-9]*\).*/\1 \2/p' <<<"$out")
check "it says the array's and the merge's job ids" test -n "$jid"
left=
for _ in $(seq 480); do
	left=$(squeue -h -o %i 2>/dev/null)
	[ -z "$left" ] && break
	sleep 0.5
done
check_eq "the array and the merge ran to their end" "$left" ""
if [ -n "$left" ]; then
	squeue; echo "# slurmctld:"; tail -5 "$D/log/slurmctld.log"; echo "# slurmd:"; tail -5 "$D/log/slurmd.log"
fi
check_eq "4 tasks wrote their logs" "$(ls "$TMP/r/slurm/" | grep -c '^[0-9]*_[0-3]\.out$')" 4
check "each task was its own shard" sh -c "for k in 0 1 2 3; do grep -q '\"shard\":{\"index\":'\$k',\"count\":4,\"from\":\"SLURM_ARRAY_TASK_ID\"}' '$TMP/r/shard-'\$k'/runs.jsonl' || exit 1; done"
check_eq "the merged counts are those of one machine's series" "$($FACTS summary "$TMP/r/merged" 2>&1)" "$($FACTS summary "$TMP/one")"
check_eq "... with the same runs and seeds" "$($FACTS runs "$TMP/r/merged" 2>&1)" "$($FACTS runs "$TMP/one")"
check "the merge job says all 4 shards are there" grep -qx "shards: 4 of 4" "$TMP/r/slurm/"merge-*.out
