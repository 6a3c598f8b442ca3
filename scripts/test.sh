#!/usr/bin/env bash
# scripts/test.sh: install what is missing, build normal and ASan+UBSan, run all tests.
# The builds are quiet (make -s): a warning or an error still shows, a
# hundred compiler command lines do not.
set -eu
cd "$(dirname "$0")/.."
JOSTLE_SETUP_EXTRA="chromium stress-ng" bash scripts/setup.sh
echo "build: build/ (normal)"
make -s -j"$(nproc)" all
echo "build: build-asan/ (ASan+UBSan)"
make -s -j"$(nproc)" BUILD=build-asan SAN=1 all
bash tests/run.sh build build-asan
