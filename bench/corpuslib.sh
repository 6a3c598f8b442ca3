# shellcheck shell=bash disable=SC2154  # tmp, RT, bg: the sourcing script's
# bench/corpuslib.sh: sourced by the bench scripts that run the bugs corpus
# (../shared/corpora/bugs: 30 single-file C programs written for jostle, MIT,
# each with one concurrency bug and a --fixed mode; its README gives each
# program's measured plain failure rate).
#
# corpus_find: sets CORPUS, when empty, to the first corpus folder found next
#   to the repository (or its main worktree) or in /work/shared; 1 if none.
# corpus_build DIR: builds it OUT OF TREE with the corpus's own Makefile and
#   flags (the corpus may be read-only): copies Makefile and *.c to DIR/src
#   (cp -u: only what changed) and runs make there; the binaries are
#   DIR/src/build/NAME, the log DIR/build.log. 1 when it does not build.
# corpus_names: the program names, one a line (from the sources).
#
# The tool runners (bench/corpus.sh, bench/auto_floor.sh): each runs one tool
# on one program for SECS seconds in its own session in the background and
# prints one line "runs fails ttff_s secs extra" (ttff -1: no failure; extra:
# for jostle its arms as arm:failures/runs, most failures first, else -). A
# failure is a non-zero exit, a signal or a run past RT seconds (a hang); for
# jostle every outcome but pass, ignored, skipped, slow and cut. Only runs
# that ENDED within SECS count. With FIRST=1 a runner stops at its first
# failure (jostle: --until first-failure). They need bench/bglib.sh sourced
# ($bg, stop_bg), $tmp a scratch folder of their own, RT, and
# corpus_nap_open called once.
# corpus_nap_open: the FIFO corpus_nap reads from (in $tmp); 1 if it fails.
# corpus_wait DEADLINE_US FIRST CHECK: wait for the background tool.
# corpus_cell_loop SECS FIRST NOISE_CPUS BIN ARGS...: a plain sequential
#   shell loop (with NOISE_CPUS > 0, `stress-ng --cpu NOISE_CPUS` beside it).
# corpus_cell_gstress P SECS FIRST BIN ARGS...: golang-stress -p P.
# corpus_cell_jostle SECS FIRST AUTO JOSTLE JARGS BIN ARGS...: `JOSTLE run`
#   (AUTO=1: --chaos auto), JARGS more options with commas for spaces.

corpus_find() {
	local c
	[ -n "${CORPUS:-}" ] || for c in "$PWD/../shared/corpora/bugs" \
		"$(git rev-parse --path-format=absolute --git-common-dir 2>/dev/null)/../../shared/corpora/bugs" \
		/work/shared/corpora/bugs; do
		[ -f "$c/Makefile" ] && { CORPUS=$c; break; }
	done
	[ -n "${CORPUS:-}" ] && [ -f "$CORPUS/Makefile" ] || return 1
	CORPUS=$(cd "$CORPUS" && pwd)
}

corpus_build() {
	local dir=$1
	case $dir/ in "$CORPUS"/*)
		echo "corpus build folder '$dir' is inside the corpus: build out of tree" >&2
		return 1 ;;
	esac
	mkdir -p "$dir/src" && cp -u "$CORPUS"/Makefile "$CORPUS"/*.c "$dir/src/" &&
		make -s -C "$dir/src" > "$dir/build.log" 2>&1
}

corpus_names() {
	local f
	for f in "$CORPUS"/*.c; do
		[ -f "$f" ] && basename "$f" .c
	done
}

# ---- the tool runners ----------------------------------------------------

# Microseconds now are "${EPOCHREALTIME/./}", expanded in place: never a
# $(...) while a tool runs, for a command substitution forks, and a harness
# that forks 20 times a second beside a tool is a perturbation of its own
# (golang-stress -p 8 failed spin_handshake 2-3x more often beside such a
# poll than beside a sleep).
corpus_nap_open() {
	mkfifo "$tmp/nap" && exec {corpus_nap_fd}<> "$tmp/nap"
}
corpus_nap() { read -r -t "$1" -u "$corpus_nap_fd"; }   # sleep SECS without a fork: nobody writes

# The shell loop of corpus_cell_loop: one line "END_US STATUS" per run.
# Started with setsid; ends itself at FIRST failure when FIRST=1.
corpus_runloop() { # OUTFILE FIRST BIN ARGS...
	local out=$1 first=$2 rc
	shift 2
	while :; do
		timeout -k 1 "$RT" "$@" > /dev/null 2>&1
		rc=$?
		echo "${EPOCHREALTIME/./} $rc" >> "$out"
		[ "$first" = 1 ] && [ "$rc" != 0 ] && break
	done
}

# Until the deadline, or (FIRST=1) until CHECK (a function or builtin, no
# fork) says a failure happened or the background tool ended (the loops end
# themselves at a first failure: their CHECK is `false`). Without FIRST one
# nap to the deadline: no wakeup at all.
corpus_wait() { # DEADLINE_US FIRST CHECK
	local deadline=$1 first=$2 check=$3 left frac
	while left=$((deadline - ${EPOCHREALTIME/./})); [ "$left" -gt 0 ]; do
		if [ "$first" = 1 ]; then
			$check && break
			kill -0 "$bg" 2>/dev/null || break
			[ "$left" -gt 100000 ] && left=100000
		fi
		printf -v frac '%06d' $((left % 1000000))
		corpus_nap "$((left / 1000000)).$frac"
	done
}

corpus_cell_loop() { # SECS FIRST NOISE_CPUS BIN ARGS...
	local secs=$1 first=$2 noise=$3 t0 nz=
	shift 3
	rm -f "$tmp/loop.out"
	: > "$tmp/loop.out"
	if [ "$noise" -gt 0 ]; then
		setsid stress-ng --cpu "$noise" --quiet > /dev/null 2>&1 &
		nz=$!
	fi
	t0=${EPOCHREALTIME/./}
	export -f corpus_runloop
	export RT
	# its stderr dropped: no "Aborted" line per failing run
	setsid bash -c 'corpus_runloop "$@"' corpus_runloop "$tmp/loop.out" "$first" "$@" 2> /dev/null &
	bg=$!
	corpus_wait $((t0 + secs * 1000000)) "$first" false
	stop_bg
	if [ -n "$nz" ]; then
		bg=$nz
		stop_bg
	fi
	awk -v t0="$t0" -v lim="$secs" '{ t = ($1 - t0) / 1e6; if (t <= lim) { n++; if ($2 != 0) { f++; if (ttff == "") ttff = t } } }
		END { printf "%d %d %s %s -\n", n, f, ttff == "" ? -1 : ttff, lim }' "$tmp/loop.out"
}

corpus_gs_failed() { compgen -G "$tmp/gsf-*" > /dev/null; }

corpus_cell_gstress() { # P SECS FIRST BIN ARGS...
	local p=$1 secs=$2 first=$3 t0 runs
	shift 3
	rm -f "$tmp"/gsf-* "$tmp/gs.out"
	t0=${EPOCHREALTIME/./}
	setsid golang-stress -p "$p" -timeout "${RT}s" -o "$tmp/gsf-" "$@" > "$tmp/gs.out" 2>&1 &
	bg=$!
	corpus_wait $((t0 + secs * 1000000)) "$first" corpus_gs_failed
	stop_bg
	# runs: its last "N runs so far, M failures" line (every 5 s, so a
	# lower bound); failures: one file each, counted by time of writing
	runs=$(grep -ao '[0-9]* runs so far' "$tmp/gs.out" | tail -1 | cut -d' ' -f1)
	for f in "$tmp"/gsf-*; do
		[ -e "$f" ] && stat -c '%.6Y' "$f"
	done | awk -v t0="$t0" -v lim="$secs" -v runs="${runs:-0}" '{ t = $1 - t0 / 1e6; if (t <= lim) { f++; if (ttff == "" || t < ttff) ttff = t } }
		END { printf "%d %d %s %s -\n", (runs > f ? runs : f), f, ttff == "" ? -1 : ttff, lim }'
}

corpus_cell_jostle() { # SECS FIRST AUTO JOSTLE JARGS BIN ARGS...
	local secs=$1 first=$2 auto=$3 jbin=$4 jargs=$5 d=$tmp/j extra
	shift 5
	rm -rf "$d"
	local opts=(-q --no-report --time "${secs}s" --timeout "${RT}s" -o "$d")
	[ "$first" = 1 ] && opts+=(--until first-failure)
	[ "$auto" = 1 ] && opts+=(--chaos auto)
	[ -n "$jargs" ] && IFS=, read -r -a extra <<< "$jargs" && opts+=("${extra[@]}")
	# its own session, as every other tool: with autogroup scheduling
	# (kernel.sched_autogroup_enabled) the CPU is shared per session first
	setsid "$jbin" run "${opts[@]}" -- "$@" > /dev/null 2>&1 &
	bg=$!
	wait "$bg"
	bg=
	/usr/bin/python3 - "$d/runs.jsonl" "$secs" <<'PY'
import json, sys
path, lim = sys.argv[1], float(sys.argv[2])
n = f = 0
ttff = None
arms = {}
try:
    lines = open(path).read().splitlines()
except OSError:
    lines = []
for line in lines:
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("type") != "run":
        continue
    end = o.get("t", 0) + o.get("wall_s", 0)
    if end > lim + 0.5:
        continue
    # every outcome but a pass and the four that are no verdict on the program
    failed = o.get("outcome") not in ("pass", "ignored", "cut", "slow", "skipped")
    n += 1
    arm = (o.get("config") or {}).get("arm", "-")
    a = arms.setdefault(arm, [0, 0])
    a[0] += 1
    if failed:
        f += 1
        a[1] += 1
        ttff = end if ttff is None else min(ttff, end)
extra = ",".join("%s:%d/%d" % (k, v[1], v[0]) for k, v in sorted(arms.items(), key=lambda kv: -kv[1][1]))
print(n, f, -1 if ttff is None else "%.3f" % ttff, lim, extra or "-")
PY
	rm -rf "$d"
}
