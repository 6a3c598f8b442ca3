#!/usr/bin/env bash
# scripts/demo.sh: install what is missing, build, and watch jostle reproduce,
# explain and prove the fix of a real race from the zoo (seed 000: raw graph
# handles reused while a registry entry is still being retired).
set -eu
cd "$(dirname "$0")/.."
bash scripts/setup.sh
make -s -j"$(nproc)" all >/dev/null
J=build/jostle
out=${JOSTLE_DEMO_OUT:-$(mktemp -d /tmp/jostle-demo.XXXXXX)}
say() { printf '\n\033[1m== %s\033[0m\n\n' "$*"; }

say "1. Reproduce: 8 concurrent copies of zoo/registry_aba on $(nproc) CPUs, until 5 failures (at most 60s)"
echo "   jostle run --time 60s --until failures:5 -j 8 -- build/zoo/registry_aba"
$J run --time 60s --until failures:5 -j 8 -o "$out/before" -- build/zoo/registry_aba || true

say "2. The fix (--fixed: registry entries retired before the raw handles are freed): 400 runs, same pressure"
echo "   jostle run -n 400 -j 8 -- build/zoo/registry_aba --fixed"
$J run -n 400 -j 8 -o "$out/after" -- build/zoo/registry_aba --fixed || true

say "3. Proof: is the fix real, or did we just get lucky?"
echo "   jostle compare before/ after/"
$J compare "$out/before" "$out/after" || true

say "4. Explain a hang: zoo/spin_handshake (seed 003) livelocks when its busy-spins oversubscribe the CPUs"
echo "   8 copies of 48 spinning core threads each (the report had about 100) squeezed onto one CPU;"
echo "   its other symptom, a deinit ACK timeout, is set aside with --ignore"
echo "   jostle run -n 40 -j 8 --cpus 1 --chaos none --timeout 2s --grace 200ms --ignore deinit --until first-failure -- build/zoo/spin_handshake --threads 48"
$J run -n 40 -j 8 --cpus 1 --chaos none --timeout 2s --grace 200ms --ignore deinit --until first-failure \
	-o "$out/hang" -- build/zoo/spin_handshake --threads 48 || true
if ls "$out"/hang/stacks/*.txt >/dev/null 2>&1; then
	f=$(ls "$out"/hang/stacks/*.txt | head -1)
	echo; echo "   what jostle saw in the hung run before it killed it ($f):"
	{ head -3 "$f"; echo "   ..."; sed -n '/^stacks, folded/,$p' "$f" | head -8; } | sed 's/^/   | /'
fi
echo
echo "All results under $out (runs.jsonl, summary.json, logs/, stacks/)."
