#!/usr/bin/env bash
# t310-zoo-fixed: every fixed variant passes 100 runs in a row (500 runs in all). The fixes are
# deterministic (no timing can make them fail), so this is not a flaky test:
# any failure is a broken fix. Iterations are reduced to keep the whole loop
# well under a minute under ASan.
. "$(dirname "$0")/../lib.sh"

RUNS=${ZOO_FIXED_RUNS:-100}

fixed_loop() { # PROG ARGS...
	local p=$1 n=0 bad=0; shift
	for _ in $(seq "$RUNS"); do
		if timeout 30 "$ZOO/$p" --fixed "$@" > "$TMP/out" 2> "$TMP/err"; then
			n=$((n + 1))
		else
			bad=$((bad + 1))
			[ "$bad" -eq 1 ] && { echo "# $p --fixed $* failed:"; sed 's/^/#   /' "$TMP/err" | head -20; }
			break
		fi
	done
	check_eq "$p --fixed $*: $RUNS of $RUNS runs pass" "$n" "$RUNS"
}

fixed_loop registry_aba --iters 5
fixed_loop deferred_cleanup --threads 1 --iters 1
fixed_loop spin_handshake --iters 1
fixed_loop drain_uaf --iters 20
fixed_loop drain_election --iters 3
