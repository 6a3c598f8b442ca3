#!/usr/bin/env bash
# bench/portfolio_sim.c, the --chaos auto portfolio on simulated programs:
# it builds from its header's command, prints one row per world with the
# references and a cell per horizon, gives the same table for the same
# seeds, and the better arm gains the machine as machine time goes on; in
# the world of issue 43's held-out program (serial loop 5%, every other arm
# 0.66%) auto keeps the floor, a quarter of the best baseline's rate. Bad
# arguments: one line, exit 2. Built with the sanitizers in the ASan pass.
. "$(dirname "$0")/../lib.sh"
san=
case $BUILD in *asan*) san="-fsanitize=address,undefined -fno-sanitize-recover=undefined" ;; esac

# shellcheck disable=SC2086
cc -std=c17 -O1 -Wall -Wextra -Werror $san -D_GNU_SOURCE -iquote "$ROOT/src" -o "$TMP/sim" \
	"$ROOT/bench/portfolio_sim.c" "$ROOT/src/pressure/portfolio.c" -lm 2> "$TMP/cc.err"
check_eq "it builds, -Wall -Wextra clean" "$?" 0
[ -x "$TMP/sim" ] || { cat "$TMP/cc.err"; exit 0; }

"$TMP/sim" 3 10 60 > "$TMP/a.md" 2> "$TMP/a.err"
check_eq "it runs: exit 0" "$?" 0
check_eq "one row per world (27), two horizons each" \
	"$(grep -c '^| [a-z].* | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* ([0-9.]*) | [0-9.]* ([0-9.]*) |$' "$TMP/a.md")" 27
check "the header names the horizons" grep -q '^| world | best | base | even | 10 s | 60 s |$' "$TMP/a.md"
check_eq "where every run fails, every stint's runs fail: the hot share is 1" \
	"$(grep '^| every run fails ' "$TMP/a.md" | grep -o '([0-9.]*)' | sort -u)" "(1.00)"
"$TMP/sim" 3 10 60 > "$TMP/b.md" 2>&1
check "the same seeds give the same table" cmp -s "$TMP/a.md" "$TMP/b.md"
# one step arm fails 5% of its runs: its share grows from 10 to 60 s of machine time
share() { grep "^| one step arm, 5%" "$TMP/a.md" | awk -F'|' -v c="$1" '{print $c}' | grep -o '([0-9.]*)' | tr -d '()'; }
check "one failing step arm: its share grows with the machine time ($(share 6) -> $(share 7))" \
	/usr/bin/python3 -c "import sys; sys.exit(not float('$(share 7)') > float('$(share 6)'))"

# the held-out program: failures per second at 60 s of machine time over
# the best baseline's (the serial loop: 1.00), at least a quarter of the
# 55 s past PORTFOLIO_GUARD_AFTER_S (0.21 before the guard slots)
held=$(grep '^| held-out: ' "$TMP/a.md" | awk -F'|' '{print $7}' | awk '{print $1}')
check "the held-out program at 60 s: $held failures per second, the serial loop's 1.00 (floor 0.23)" \
	/usr/bin/python3 -c "import sys; sys.exit(not float('$held') >= 0.25 * 55 / 60)"
check "the floor's row and the slow arms' row" grep -q '^| auto / base, the lowest | | | | [0-9.]* | [0-9.]* |$' "$TMP/a.md"

"$TMP/sim" 0 > "$TMP/o" 2> "$TMP/e"
check_eq "SEEDS 0: exit 2" "$?" 2
check_eq "one line that names the argument" "$(wc -l < "$TMP/e") $(grep -c "SEEDS must be 1..10000, got '0'" "$TMP/e")" "1 1"
"$TMP/sim" 2 x > "$TMP/o" 2> "$TMP/e"
check_eq "SECONDS x: exit 2" "$?" 2
check "it names SECONDS" grep -q "SECONDS must be a positive number, got 'x'" "$TMP/e"
exit 0
