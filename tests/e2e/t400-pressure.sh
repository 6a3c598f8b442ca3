#!/usr/bin/env bash
# Pressure: --cpus through a cgroup or affinity, --cpu-quota, cgroups removed,
# clear errors (exit 2) for impossible requests.
. "$(dirname "$0")/../lib.sh"
F=$FIX/cpuinfo
ncpu=$(nproc)
cgroups_ok() { [ "$(id -u)" -eq 0 ] && { [ -w /sys/fs/cgroup/cpuset ] || [ -w /sys/fs/cgroup/cgroup.subtree_control ]; }; }
jostle_cgroups() { ls -d /sys/fs/cgroup/*/jostle-"$1" /sys/fs/cgroup/jostle-"$1" /sys/fs/cgroup/unified/jostle-"$1" 2>/dev/null; }

# Impossible requests: one line, exit 2, nothing run.
"$JOSTLE" run -q -n 1 --cpus $((ncpu + 1)) -o "$TMP/e1" -- "$F" > "$TMP/e1.out" 2>&1
check_eq "--cpus more than exist: exit 2" "$?" 2
check "--cpus more than exist: says how many are available" grep -q "^jostle: --cpus '$((ncpu + 1))' asks for $((ncpu + 1)) CPUs but only $ncpu" "$TMP/e1.out"
check_eq "--cpus more than exist: one line" "$(wc -l < "$TMP/e1.out")" 1
"$JOSTLE" run -q -n 1 --cpus 0-$ncpu -o "$TMP/e2" -- "$F" > "$TMP/e2.out" 2>&1
check_eq "--cpus list beyond the machine: exit 2" "$?" 2
"$JOSTLE" run -q -n 1 --cpus 1-0 -o "$TMP/e3" -- "$F" > "$TMP/e3.out" 2>&1
check_eq "--cpus malformed list: exit 2" "$?" 2
check "--cpus malformed list: names the option" grep -q "^jostle: --cpus '1-0'" "$TMP/e3.out"
for bad in "--cpu-quota 0" "--cpu-quota x" "--noise cpu" "--noise gpu:1" "--chaos maybe" "--chaos-level 3"; do
	"$JOSTLE" run -q -n 1 $bad -o "$TMP/e4" -- "$F" > "$TMP/e4.out" 2>&1
	check_eq "$bad: exit 2" "$?" 2
	check "$bad: one 'jostle: ${bad%% *}' line" grep -q "^jostle: ${bad%% *} '" "$TMP/e4.out"
done
JOSTLE_CGROUP=off "$JOSTLE" run -q -n 1 --cpu-quota 0.5 -o "$TMP/e5" -- "$F" > "$TMP/e5.out" 2>&1
check_eq "--cpu-quota without a writable cgroup: exit 2" "$?" 2
check "--cpu-quota without a writable cgroup: says so" grep -q "^jostle: --cpu-quota needs a writable cgroup" "$TMP/e5.out"

# Affinity (cgroups turned off): every run sees exactly CPU 0.
JOSTLE_CGROUP=off FIX_OUT=$TMP/a.txt "$JOSTLE" run -q -n 4 -j 2 --cpus 0 --chaos none -o "$TMP/a" -- "$F" 2 2>/dev/null
check_eq "affinity: every run allowed CPU 0 only" "$(grep -c 'cpus=0 ' "$TMP/a.txt")" 4
check_eq "affinity: recorded as the mechanism" "$(json "$TMP/a/runs.jsonl" 'sorted({r["config"]["cpus_via"] for r in rows})')" "['affinity']"
check_eq "affinity: settings record it" "$(json "$TMP/a/runs.jsonl" 'series[0]["settings"]["cpus_via"]')" affinity

if cgroups_ok; then
	# cgroup: the runs are inside jostle's cgroup, restricted to the last CPU.
	last=$((ncpu - 1))
	FIX_OUT=$TMP/c.txt "$JOSTLE" run -q -n 4 -j 2 --cpus $last-$last --chaos none -o "$TMP/c" -- "$F" 2 2>/dev/null
	check_eq "cgroup: every run allowed CPU $last only" "$(grep -c "cpus=$last " "$TMP/c.txt")" 4
	check_eq "cgroup: every run was in a jostle cgroup" "$(grep -c 'cpuset=/.*jostle-[0-9]*/run-[0-9]' "$TMP/c.txt")" 4
	via=$(json "$TMP/c/runs.jsonl" 'rows[0]["config"]["cpus_via"]')
	check "cgroup: recorded as cgroup-v1 or cgroup-v2" test "$via" = cgroup-v1 -o "$via" = cgroup-v2
	jp=$(grep -o 'jostle-[0-9]*' "$TMP/c.txt" | head -1 | cut -d- -f2)
	check_eq "cgroup: every cgroup removed after the series" "$(jostle_cgroups "$jp")" ""
	# quota: the run's cgroup had the quota while it ran
	cat > "$TMP/q.sh" <<'SH'
#!/bin/sh
cg=$(sed -n 's/^[0-9]*:cpu[,a-z]*:\(.*\)/\1/p; s/^0::\(.*\)/\1/p' /proc/self/cgroup | grep jostle | head -1)
cat /sys/fs/cgroup/cpu"$cg"/cpu.cfs_quota_us /sys/fs/cgroup"$cg"/cpu.max /sys/fs/cgroup/unified"$cg"/cpu.max 2>/dev/null | head -1
SH
	chmod +x "$TMP/q.sh"
	"$JOSTLE" run -q -n 1 --cpu-quota 0.25 --chaos none -o "$TMP/q" -- "$TMP/q.sh" 2>/dev/null
	check "cgroup: --cpu-quota 0.25 is 25000 of 100000 us" grep -q '^25000' "$TMP/q/logs/0.log"
	check_eq "cgroup: the quota is recorded" "$(json "$TMP/q/runs.jsonl" 'rows[0]["config"]["cpu_quota"]')" 0.25
	# Ctrl-C while runs are inside their cgroups: all removed
	FIX_OUT=$TMP/i.txt "$JOSTLE" run -q -j 2 --cpus 0 --chaos none --timeout 60s -o "$TMP/i" -- "$FIX/flaky" hang-on 0 > /dev/null 2>&1 &
	pid=$!
	for _ in $(seq 1 400); do [ -n "$(jostle_cgroups $pid)" ] && ls "$(jostle_cgroups $pid | head -1)" | grep -q run-0 && break; sleep 0.05; done
	check "Ctrl-C: the run's cgroup existed" test -n "$(jostle_cgroups $pid)"
	kill -INT $pid
	wait $pid
	check_eq "Ctrl-C: exit 130" "$?" 130
	check_eq "Ctrl-C: every cgroup removed" "$(jostle_cgroups $pid)" ""
else
	for n in 1 2 3 4 5 6 7 8 9 10; do ok "# skip cgroup checks: cgroups not writable here"; done
fi
