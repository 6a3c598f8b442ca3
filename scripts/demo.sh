#!/usr/bin/env bash
# scripts/demo.sh: install what is missing, build, and show what jostle is for.
set -eu
cd "$(dirname "$0")/.."
bash scripts/setup.sh
make -s -j"$(nproc)" all >/dev/null
J=build/jostle
out=$(mktemp -d /tmp/jostle-demo.XXXXXX)
echo "== a flaky command: fails on every 7th run =="
$J run -n 28 -j 4 -o "$out/flaky" -- build/fixtures/flaky fail-every 7 || true
echo
echo "== a clean command proves a bound =="
$J run -n 200 -j 4 -o "$out/clean" -- build/fixtures/flaky pass || true
echo
echo "results under $out"
