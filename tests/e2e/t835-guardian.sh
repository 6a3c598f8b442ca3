#!/usr/bin/env bash
# kill -9 of jostle while its runs have grandchildren that ignore SIGTERM,
# left their process group with setsid, or double-forked: none of them may
# survive it (issue 45: the guardian, run/guardian.h). Each trial kills
# jostle once the K-th run has started its whole tree (K from the seed
# GUARD_SEED; the run's own marker file says so, not a sleep), waits for
# the guardian to finish, then looks for any process carrying the trial's
# tag in its environment. GUARD_TRIALS=100 is the issue's bar; the suite
# runs 8 in each build.
. "$(dirname "$0")/../lib.sh"
seed=${GUARD_SEED:-45} trials=${GUARD_TRIALS:-8}
RANDOM=$seed

cat > "$TMP/tree.sh" <<'SH'
#!/usr/bin/env bash
# A run whose tree jostle's own clean-up would need the subreaper for.
trap '' TERM
(trap '' TERM; exec sleep 600) &                      # ignores SIGTERM
setsid sleep 600 < /dev/null > /dev/null 2>&1 &       # a session of its own
( (trap '' TERM; exec sleep 600) & ) < /dev/null      # double fork: an orphan at once
touch "$MARKS/started.$JOSTLE_RUN"
exec sleep 600
SH
chmod +x "$TMP/tree.sh"

# pids (not zombies) whose environment has TAG=$1; $2: a pid to leave out
tagged() {
	/usr/bin/python3 - "$1" "${2:-0}" <<'PY'
import os, sys
want, skip = ("GUARD_TRIAL=" + sys.argv[1]).encode(), sys.argv[2]
for p in os.listdir("/proc"):
    if not p.isdigit() or p == skip:
        continue
    try:
        env = open(f"/proc/{p}/environ", "rb").read().split(b"\0")
        state = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        continue
    if want in env and state != "Z":
        print(p, open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace"))
PY
}

# the guardian of the jostle tagged $1 (its own environment has the tag too)
guardian_of() { tagged "$1" | awk '/__jostle-guardian/ {print $1; exit}'; }
# PID is alive: not gone, not a zombie (init may be slow to reap here)
alive() { [ -n "$1" ] && [ -r "/proc/$1/stat" ] && ! awk '{exit $3 == "Z" ? 0 : 1}' "/proc/$1/stat" 2>/dev/null; }

survivors=0 bad=()
for i in $(seq 1 "$trials"); do
	tag="$$.$i.$RANDOM" k=$((RANDOM % 4 + 1))
	export MARKS=$TMP/m$i
	mkdir -p "$MARKS"
	GUARD_TRIAL=$tag "$JOSTLE" run -n 20 -j 4 --timeout 120s -o "$TMP/o$i" -- "$TMP/tree.sh" \
		> "$TMP/out$i" 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do   # until the K-th run's tree is up (at most 60 s)
		[ "$(ls "$MARKS" | wc -l)" -ge "$k" ] && break
		sleep 0.1
	done
	guard=$(guardian_of "$tag")
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	# the guardian exits once its sweeps find nothing left
	for _ in $(seq 1 300); do
		alive "$guard" || break
		sleep 0.1
	done
	left=$(tagged "$tag" "$guard")
	if [ -n "$left" ]; then
		survivors=$((survivors + $(wc -l <<<"$left")))
		bad+=("trial $i (seed $seed, after run $k started): $(tr '\n' ';' <<<"$left")")
		pkill -9 -f "GUARD_TRIAL=$tag" 2>/dev/null
		for p in $(awk '{print $1}' <<<"$left"); do kill -9 "$p" 2>/dev/null; done
	fi
	[ -n "$guard" ] || bad+=("trial $i: no guardian was found beside jostle")
done
check_eq "kill -9 of jostle in $trials trials (seed $seed): processes left behind" "$survivors" 0
for b in "${bad[@]}"; do echo "# $b"; done
check_eq "every trial had a guardian" "$(printf '%s\n' "${bad[@]}" | grep -c 'no guardian')" 0

# Without the guardian (what the tree does on its own), the same kill
# leaves the SIGTERM-ignoring grandchildren behind: the check can fail.
# (The guardian is killed, not stopped: a stopped process in a group
# orphaned by jostle's death is sent SIGCONT by the kernel.)
tag="$$.noguard.$RANDOM"
export MARKS=$TMP/mn
mkdir -p "$MARKS"
GUARD_TRIAL=$tag "$JOSTLE" run -n 4 -j 1 --timeout 120s -o "$TMP/on" -- "$TMP/tree.sh" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 600); do [ -e "$MARKS/started.0" ] && break; sleep 0.1; done
guard=$(guardian_of "$tag")
check "the guardian is found" test -n "$guard"
kill -9 "$guard"; kill -9 "$pid"; wait "$pid" 2>/dev/null
# the run's root dies of its parent-death signal; its three children stay
wait_for "the run's root to die" eval '[ "$(tagged "$tag" | wc -l)" -eq 3 ]'
left=$(tagged "$tag")
check_eq "without a guardian the run's grandchildren are left behind (the check sees them)" \
	"$(wc -l <<<"$left")" 3
for p in $(awk '{print $1}' <<<"$left"); do kill -9 "$p" 2>/dev/null; done

# jostle's own helper refuses to be run by hand: one line, exit 2
"$JOSTLE" __jostle-guardian > "$TMP/g.out" 2>&1
check_eq "the guardian run by hand exits 2" "$?" 2
check_eq "with one line" "$(wc -l < "$TMP/g.out")" 1
