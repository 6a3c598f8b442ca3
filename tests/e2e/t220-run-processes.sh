#!/usr/bin/env bash
# No process survives: daemons, interrupts, SIGTERM.
. "$(dirname "$0")/../lib.sh"
F=$FIX/flaky
M=jostle-marker-$$-$RANDOM

"$JOSTLE" run -q -n 3 -j 3 --grace 200ms -o "$TMP/d" -- "$F" daemon "$M" 2>/dev/null
check_eq "daemon: the runs passed" "$(json "$TMP/d/summary.json" 'd["pass"]')" 3
check "daemon: no setsid grandchild ignoring SIGTERM survives" no_leftovers "$M"

# wait_lines FILE N: wait (bounded) until FILE has N lines.
wait_lines() {
	for _ in $(seq 1 600); do
		[ "$(cat "$1" 2>/dev/null | wc -l)" -ge "$2" ] && return 0
		sleep 0.05
	done
	return 1
}

for sig in INT TERM HUP; do
	M2=$M-$sig
	"$JOSTLE" run -q -j 2 -o "$TMP/i$sig" -- "$F" daemon "$M2" 2>/dev/null &
	pid=$!
	wait_lines "$TMP/i$sig/runs.jsonl" 4
	kill -$sig $pid
	wait $pid
	check_eq "SIG$sig: exit 130" "$?" 130
	check_eq "SIG$sig: summary says interrupted" "$(json "$TMP/i$sig/summary.json" 'd["interrupted"]')" True
	check "SIG$sig: every line of runs.jsonl is valid" json "$TMP/i$sig/runs.jsonl" 'len(d)'
	check_eq "SIG$sig: summary counts what runs.jsonl holds" "$(json "$TMP/i$sig/summary.json" 'd["runs"]')" "$(json "$TMP/i$sig/runs.jsonl" 'len([r for r in rows if r["outcome"] != "cut"])')"
	check "SIG$sig: nothing left alive" no_leftovers "$M2"
done

# A hung run ended by its timeout leaves nothing either. (A timeout of
# 1 s, not less: a run still starting at its deadline (sh, then the
# fixture's sanitizer runtime, on a loaded machine) is seen progressing,
# and that is a slow run, not a hang.)
cat > "$TMP/hang.sh" <<SH
#!/bin/sh
exec "$F" sleeper $M-hang
SH
chmod +x "$TMP/hang.sh"
"$JOSTLE" run -q -n 2 -j 2 --timeout 1s --grace 100ms -o "$TMP/h" -- "$TMP/hang.sh" 2>/dev/null
check_eq "timeout: both runs are hangs" "$(json "$TMP/h/summary.json" 'd["hang"]')" 2
check "timeout: hung processes are gone" no_leftovers "$M-hang"
