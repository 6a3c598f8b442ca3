#!/usr/bin/env bash
# scripts/test.sh: install what is missing, build normal and ASan+UBSan, run all tests.
set -eu
cd "$(dirname "$0")/.."
JOSTLE_SETUP_EXTRA="chromium stress-ng" bash scripts/setup.sh
make -j"$(nproc)" all
make -j"$(nproc)" BUILD=build-asan SAN=1 all
bash tests/run.sh build build-asan
