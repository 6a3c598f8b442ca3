#!/usr/bin/env bash
# tests/fuzz/seed.sh [BUILD]: (re)make the seed corpora in tests/fuzz/corpus/
# from real outputs: the reports in tests/data, and what jostle itself
# writes when it runs the fixtures (crash records, runs.jsonl, a core).
# The corpora are checked in; this script says where each seed came from.
# Regression inputs of fixed findings (corpus/TARGET/regress-*) are kept.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/${1:-build}
C=$ROOT/tests/fuzz/corpus
D=$ROOT/tests/data
J=$B/jostle F=$B/fixtures
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
for t in extractor crash crashlog core results survey timestamp procfs options; do
	mkdir -p "$C/$t"; find "$C/$t" -type f ! -name 'regress-*' -delete
done
put() { cp "$2" "$C/$1/seed-$(basename "$2" | tr -c 'A-Za-z0-9._\n-' _)"; }
pre() { { printf "$2"; cat "$4"; } > "$C/$1/seed-$3"; }   # TARGET SELECTOR-BYTE NAME FILE
str() { printf "$3" > "$C/$1/seed-$2"; }                 # TARGET NAME PRINTF-TEXT

# real runs of the fixtures: crashes with records, a matrix, a hang
cd "$TMP"
"$J" run -n 3 -j 2 -o crash -- "$F/crash" on 1,2,3 segv >/dev/null 2>&1 || true
"$J" run -n 2 -j 2 -o uaf -- "$F/crash" on 1,2 uaf >/dev/null 2>&1 || true
"$J" run -n 6 -j 2 --matrix A=1,2 --matrix cpus=1 -o matrix -- "$F/flaky" >/dev/null 2>&1 || true
"$J" run -n 2 -j 2 --timeout 1s -o hang -- "$F/hang" >/dev/null 2>&1 || true
cc -O1 -g -o tinycore "$ROOT/tests/fuzz/tinycore.c" -lpthread
(ulimit -c unlimited; ./tinycore) >/dev/null 2>&1 || true

for f in "$D"/*.txt "$D"/survey/*/* "$TMP"/uaf/logs/*; do [ -f "$f" ] && put extractor "$f"; done
for f in "$D"/asan_*.txt "$D"/tsan_*.txt "$D"/ubsan_*.txt "$D"/lsan_*.txt "$D"/glibc_*.txt \
	 "$D"/python_*.txt "$D"/cs_*.txt "$D"/assert.txt "$TMP"/uaf/logs/*; do [ -f "$f" ] && put crash "$f"; done
n=0; for f in "$TMP"/crash/crashes/*; do
	[ -f "$f" ] || continue; n=$((n + 1)); cp "$f" "$C/crashlog/seed-record$n"
	head -c 3000 "$f" > "$C/crashlog/seed-record$n-cut"
done
if [ -f "$TMP/core" ]; then
	cp "$TMP/core" "$C/core/seed-tinycore"; head -c 8192 "$TMP/core" > "$C/core/seed-tinycore-cut"
fi
str core pattern-abs '/var/crash/core.%%e.%%p.%%t'
str core pattern-pipe '|/usr/lib/systemd/systemd-coredump %%P %%u'
for d in "$D/small" "$TMP/crash" "$TMP/uaf" "$TMP/matrix" "$TMP/hang"; do
	[ -f "$d/runs.jsonl" ] || continue
	cp "$d/runs.jsonl" "$C/results/seed-$(basename "$d")"
	head -c 1500 "$d/runs.jsonl" > "$C/results/seed-$(basename "$d")-cut"
done
n=0; for f in "$D"/survey/*/*; do
	[ -f "$f" ] || continue; n=$((n + 1)); pre survey '\000' "plain$n" "$f"
	[ $((n % 3)) -eq 0 ] && pre survey '\001' "gzip$n" "$f"; [ $((n % 5)) -eq 0 ] && pre survey '\043' "gzcut$n" "$f"
done
gzip -c "$D/asan_uaf.txt" > "$TMP/x.gz"; pre survey '\000' rawgz "$TMP/x.gz"
str timestamp gha '2026-07-15T16:55:01.1234567Z ##[error]Process completed'
str timestamp offset '2025-01-02 03:04:05+05:30 x'
str timestamp date '1999-12-31'
str timestamp inline 'log started at 2026-02-28T23:59:59-0800 by ci'
pre procfs '\000' stat "$D/proc_stat.txt"; pre procfs '\001' status "$D/proc_status.txt"
pre procfs '\002' wchan "$D/proc_wchan_futex.txt"; pre procfs '\002' wchan0 "$D/proc_wchan_none.txt"
for f in "$D"/proc_syscall_*.txt; do pre procfs '\003' "$(basename "$f" .txt)" "$f"; done
pre procfs '\004' children "$D/proc_children.txt"; str procfs pidname '\0054242'
pre procfs '\006' environ "$D/proc_environ.bin"; pre procfs '\007' gdb "$D/gdb_bt.txt"
str options duration '\00090s'; str options duration2 '\0001.5ms'; str options size '\00164KiB'
str options seed '\0010xdeadbeef'; str options cpulist '\0020-3,8,10-11\n'; str options cpus '\0112'
str options cpus2 '\0030-1'; str options noise '\004cpu:2,mem:256M,cache:1,jitter:2'
str options chaos '\005auto'; str options matrix '\006PYTHON_GIL=0,1\000cpus=1,2'
echo "seeds: $(find "$C" -type f | wc -l) files, $(du -sh "$C" | cut -f1)"
