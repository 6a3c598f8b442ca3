#!/usr/bin/env bash
# jostle run: crash records under the worst timing (issue 13). Threads that
# crash at once, a crash in a TLS destructor or glibc's tcache teardown at
# thread exit, a crash racing the process's exit after main returned, a
# stack partly unmapped, the process group SIGKILLed as the record is
# written: each gives one complete record (or one marked cut short, never an
# empty one) and one signature per series. One heap corruption that shows as
# a SIGSEGV in malloc or as glibc's abort is one signature. `jostle explain`
# reads a record; a child's record is unwound even when the output named
# frames; jostle's own SIGABRT (Python's faulthandler) leaves no record.
. "$(dirname "$0")/../lib.sh"

runs() { json "$1/runs.jsonl" "$2"; }
asan=false
[ "$(basename "$BUILD")" = build-asan ] && asan=true
# In the ASan build the fixture's runtime handles SIGSEGV itself; these
# cases are about jostle's handler, so the fixture leaves SIGSEGV to it.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:verify_asan_link_order=0"

# records DIR: "RECORDS EMPTY INCOMPLETE" of DIR/crashes
records() {
	local n=0 empty=0 cut=0 f
	for f in "$1"/crashes/*.txt; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		[ -s "$f" ] || empty=$((empty + 1))
		[ "$(tail -c 4 "$f")" = "end" ] || cut=$((cut + 1))
	done
	echo "$n $empty $cut"
}
one_sig() { runs "$1" 'len({r["sig_id"] for r in rows})'; }

# --- eight threads crash at once: one complete record per run ---
"$JOSTLE" run -q -n 20 -j 2 -o "$TMP/th" -- "$FIX/crash" threads 8 > /dev/null 2>&1
check_eq "threads: every run a crash" "$(runs "$TMP/th" '{r["outcome"] for r in rows}')" "{'crash'}"
check_eq "threads: 20 records, none empty, all complete" "$(records "$TMP/th")" "20 0 0"
check_eq "threads: one signature" "$(one_sig "$TMP/th")" 1
check_eq "threads: frames" "$(runs "$TMP/th" '{",".join(r["frames"][:2]) for r in rows}')" "{'write_through_null,crash_together'}"

# --- a crash in a TLS destructor, as the thread exits ---
"$JOSTLE" run -q -n 4 -j 2 -o "$TMP/tls" -- "$FIX/crash" tls-dtor > /dev/null 2>&1
check_eq "tls-dtor: records complete" "$(records "$TMP/tls")" "4 0 0"
check_eq "tls-dtor: one signature, the destructor's frames" \
	"$(runs "$TMP/tls" '{",".join(r["frames"][:2]) for r in rows}')" "{'write_through_null,tls_destructor'}"

# --- main returned; the exit races the handler: a crash either way ---
"$JOSTLE" run -q -n 10 -j 2 -o "$TMP/am" -- "$FIX/crash" after-main > /dev/null 2>&1
check_eq "after-main: every run a crash (by its signal, or by its record)" \
	"$(runs "$TMP/am" '{r["outcome"] for r in rows}')" "{'crash'}"
check_eq "after-main: records complete" "$(records "$TMP/am")" "10 0 0"
check_eq "after-main: one signature" "$(one_sig "$TMP/am")" 1
check_eq "after-main: key and frames" "$(runs "$TMP/am" '{(r["sig_key"], r["frames"][0]) for r in rows}')" \
	"{('killed by SEGV', 'use_after_exit')}"

# --- the outer part of the stack unmapped: what is there, and where it stops ---
"$JOSTLE" run -q -n 2 -j 2 -o "$TMP/torn" -- "$FIX/crash" stack-torn > /dev/null 2>&1
check_eq "stack-torn: frames" "$(runs "$TMP/torn" '{",".join(r["frames"][:2]) for r in rows}')" \
	"{'write_through_null,crash_on_torn_stack'}"
check "stack-torn: says where the unwind stopped" grep -q 'the unwind stopped after #[0-9]*: its caller' "$TMP/torn/stacks/0.txt"

# --- the process group SIGKILLed as the record appears ---
"$JOSTLE" run -q -n 6 -j 2 -o "$TMP/kw" -- "$FIX/crash" killed-writing > /dev/null 2>&1
read -r n empty cut <<< "$(records "$TMP/kw")"
check_eq "killed-writing: a record per run, none empty" "$n $empty" "6 0"
marked=$(grep -l 'cut short' "$TMP"/kw/stacks/*.txt 2>/dev/null | wc -l)
check_eq "killed-writing: every record cut short is said to be" "$marked" "$cut"
# The kill can come before the writer has copied the maps (a loaded machine):
# such a record names no frame, and says it was cut short.
check_eq "killed-writing: the crashing frame named in every run whose record is whole enough" \
	"$(runs "$TMP/kw" '{r["frames"][0] if r["frames"] else ("cut short" if "cut short" in open(path.rsplit("/", 1)[0] + "/stacks/%d.txt" % r["run"]).read() else "unnamed, not said") for r in rows} <= {"write_through_null", "cut short"}')" \
	True

# --- a stack copy with a hole or cut anywhere still reads (unit: test_crashlog) ---

if ! $asan; then
	# glibc's allocator: under ASan the fixture's malloc is ASan's
	"$JOSTLE" run -q -n 2 -j 2 -o "$TMP/tc" -- "$FIX/crash" tcache > /dev/null 2>&1
	check_eq "tcache: heap corruption" "$(runs "$TMP/tc" '{(r["sig_kind"], r["sig_key"]) for r in rows}')" \
		"{('heap-corruption', 'heap corruption')}"
	check "tcache: glibc's message is the key line" grep -q 'tcache_thread_shutdown(): unaligned' "$TMP/tc/runs.jsonl"
	"$JOSTLE" run -q -n 4 -j 2 -o "$TMP/heap" -- "$FIX/crash" heap > /dev/null 2>&1
	check_eq "heap: a SEGV in malloc and glibc's abort" "$(runs "$TMP/heap" 'sorted({r["signal"] for r in rows})')" \
		"['SIGABRT', 'SIGSEGV']"
	check_eq "heap: one signature for both" "$(one_sig "$TMP/heap")" 1
	check_eq "heap: kind and frames" "$(runs "$TMP/heap" '{(r["sig_kind"], r["frames"][0]) for r in rows}')" \
		"{('heap-corruption', 'allocate_after_corruption')}"
fi

# --- jostle explain reads a record: the stack and the run's signature ---
rec=$(ls "$TMP"/th/crashes/0.*.txt)
"$JOSTLE" explain "$rec" > "$TMP/ex.txt" 2>&1
check "explain record: frames" grep -q '#0 write_through_null in crash' "$TMP/ex.txt"
check_eq "explain record: the run's signature" "$(sed -n 's/^signature: \([0-9a-f]*\) .*/\1/p' "$TMP/ex.txt")" \
	"$(runs "$TMP/th" 'rows[0]["sig_id"]')"
"$JOSTLE" explain --format json "$rec" > "$TMP/ex.json" 2>&1
check_eq "explain record: json" "$(json "$TMP/ex.json" '(d["sig_frames"][0], d["record"]["complete"])')" \
	"('write_through_null', True)"

# --- a child's record is unwound even when the output named frames ---
cat > "$TMP/parent.sh" <<EOF
"$FIX/crash" segv
echo "t.c:12:3: runtime error: boom"
exit 1
EOF
"$JOSTLE" run -q -n 1 -o "$TMP/ch" -- /bin/sh "$TMP/parent.sh" > /dev/null 2>&1
check_eq "child: the output's frame is the signature's" "$(runs "$TMP/ch" 'rows[0]["frames"]')" "['t.c:12']"
check "child: its record unwound into the stacks file" grep -q 'write_through_null in crash' "$TMP/ch/stacks/0.txt"
check "child: marked a child's" grep -q 'a child process of the run' "$TMP/ch/stacks/0.txt"

# --- jostle's own SIGABRT (faulthandler's tracebacks) is no crash ---
# A "python" whose frames jostle cannot read gets the faulthandler fallback:
# SIGABRT, which its faulthandler-like handler passes on to the crash handler.
cp "$FIX/crash" "$TMP/python3.11"
"$JOSTLE" run -q -n 1 --timeout 1s -o "$TMP/py" -- "$TMP/python3.11" fake-python > /dev/null 2>&1
check_eq "python fallback: faulthandler used" "$(runs "$TMP/py" 'rows[0]["diag"]["python"]["stacks"]')" faulthandler
check "python fallback: the traceback is in the log" grep -q 'line 3 in fake_wait' "$TMP/py/logs/0.log"
check_eq "python fallback: no crash record for jostle's SIGABRT" "$(ls "$TMP/py/crashes" | wc -l)" 0
