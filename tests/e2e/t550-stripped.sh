#!/usr/bin/env bash
# Names for stripped code (issue 13): a library stripped of .symtab keeps
# .dynsym (its exported functions are named), .gnu_debugdata (MiniDebugInfo:
# every function named), or has a separate debug file found by build-id
# under JOSTLE_DEBUG_PATH; a function no symbol covers is
# "MODULE+0xSTART", the file address where it starts (from its CFI), in
# crash records, signatures and live stacks alike, the same in every run.
. "$(dirname "$0")/../lib.sh"

runs() { json "$1/runs.jsonl" "$2"; }
CC=${CC:-cc}
for tool in strip objcopy nm readelf xz; do
	if ! command -v "$tool" > /dev/null; then
		ok "# skip: no $tool (scripts/setup.sh installs binutils and xz-utils)"
		exit 0
	fi
done

cat > lib.c <<'EOF'
#define NOINLINE __attribute__((noinline))
static volatile int sink;
NOINLINE static void hidden_crash(int *volatile p) { *p = 1; __asm__ volatile("" ::: "memory"); }
NOINLINE static void hidden_spin(void) { for (;;) sink++; }
void exported_entry(int spin)
{
	if (spin)
		hidden_spin();
	else
		hidden_crash(0);
	__asm__ volatile("" ::: "memory");
}
EOF
cat > main.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
void exported_entry(int spin);
int main(int argc, char **argv)
{
	int spin = argc > 1 && atoi(argv[1]);
	if (spin)
		printf("ready\n"), fflush(stdout);
	exported_entry(spin);
	return 0;
}
EOF
$CC -g -O1 -fPIC -shared -Wl,--build-id -o libstrip.so lib.c &&
	$CC -g -O1 -o main main.c -L. -lstrip -Wl,-rpath,'$ORIGIN' || { not_ok "build the library"; exit 0; }
addr() { printf '0x%x' "0x$(nm libstrip.so | awk -v f="$1" '$3 == f { print $1 }')"; }
start=$(addr hidden_crash)
spin_start=$(addr hidden_spin)
mkdir full dynsym mini buildid debug
cp libstrip.so main full/
cp main dynsym/ && strip --strip-all -o dynsym/libstrip.so libstrip.so
# MiniDebugInfo, as Fedora's find-debuginfo makes it: the function symbols
# .dynsym lacks, in an xz-compressed ELF in .gnu_debugdata
nm -D libstrip.so --format=posix --defined-only | awk '{ print $1 }' | sort > dynsyms
nm libstrip.so --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' | sort > funcsyms
comm -13 dynsyms funcsyms > keep
objcopy --only-keep-debug libstrip.so full.debug
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep full.debug mini.debug
xz -f mini.debug
cp main mini/ && objcopy --add-section .gnu_debugdata=mini.debug.xz dynsym/libstrip.so mini/libstrip.so
id=$(readelf -n libstrip.so | sed -n 's/.*Build ID: \([0-9a-f]*\)/\1/p')
mkdir -p "debug/.build-id/${id:0:2}"
objcopy --only-keep-debug libstrip.so "debug/.build-id/${id:0:2}/${id:2}.debug"
cp main dynsym/libstrip.so buildid/

"$JOSTLE" run -q -n 2 -j 2 -o "$TMP/o-full" -- "$TMP/full/main" > /dev/null 2>&1
check_eq "symtab: frames" "$(runs "$TMP/o-full" '{",".join(r["frames"]) for r in rows}')" "{'hidden_crash,exported_entry,main'}"

"$JOSTLE" run -q -n 3 -j 2 -o "$TMP/o-dyn" -- "$TMP/dynsym/main" > /dev/null 2>&1
check_eq "dynsym only: the static function as module+start, the exported one by name" \
	"$(runs "$TMP/o-dyn" '{",".join(r["frames"]) for r in rows}')" "{'libstrip.so+$start,exported_entry,main'}"
check_eq "dynsym only: one signature" "$(runs "$TMP/o-dyn" 'len({r["sig_id"] for r in rows})')" 1
check "dynsym only: the stacks file says which frames have no symbol" \
	grep -q "no symbol names frame #0" "$TMP/o-dyn/stacks/0.txt"
check_eq "dynsym only: not the signature of the named build" \
	"$([ "$(runs "$TMP/o-dyn" 'rows[0]["sig_id"]')" = "$(runs "$TMP/o-full" 'rows[0]["sig_id"]')" ] && echo same || echo differs)" differs

"$JOSTLE" run -q -n 1 -o "$TMP/o-mini" -- "$TMP/mini/main" > /dev/null 2>&1
check_eq ".gnu_debugdata: named" "$(runs "$TMP/o-mini" '",".join(rows[0]["frames"])')" "hidden_crash,exported_entry,main"

JOSTLE_DEBUG_PATH=$TMP/debug "$JOSTLE" run -q -n 1 -o "$TMP/o-bid" -- "$TMP/buildid/main" > /dev/null 2>&1
check_eq "debug file by build-id: named" "$(runs "$TMP/o-bid" '",".join(rows[0]["frames"])')" "hidden_crash,exported_entry,main"
check "debug file by build-id: with lines" grep -q "hidden_crash in libstrip.so (lib.c:3)" "$TMP/o-bid/stacks/0.txt"
"$JOSTLE" explain "$(ls "$TMP"/o-dyn/crashes/0.*.txt)" > ex.txt 2>&1
check "explain: the record's unnamed frame" grep -q "#0 libstrip.so+$start (no symbol)" ex.txt

# a live stack: the spinning function no symbol covers, whatever pc it was caught at
setsid "$TMP/dynsym/main" 1 > spin.out 2>&1 &
pid=$!
for ((i = 0; i < 3000; i++)); do grep -q ready spin.out && break; sleep 0.01; done
"$JOSTLE" stacks "$pid" > st.txt 2>&1
kill -KILL -- "-$pid" 2> /dev/null
wait "$pid" 2> /dev/null
check "live stack: module+start of the spinning function" grep -q "libstrip.so+$spin_start <- exported_entry <- main" st.txt
