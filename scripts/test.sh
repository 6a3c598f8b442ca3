#!/usr/bin/env bash
# scripts/test.sh: install what is missing, build normal and ASan+UBSan and the
# fuzz targets, run all tests.
# The builds are quiet (make -s): a warning or an error still shows, a
# hundred compiler command lines do not.
set -eu
cd "$(dirname "$0")/.."
# slurmctld slurmd slurm-client munge: a one-node Slurm cluster for t680
# (11 packages, 3.6 MB over the rest on a fresh Debian 12); python3-yaml:
# the Kubernetes manifest checks
JOSTLE_SETUP_EXTRA="chromium stress-ng slurmctld slurmd slurm-client munge python3-yaml" bash scripts/setup.sh
echo "build: build/ (normal)"
make -s -j"$(nproc)" all
echo "build: build-asan/ (ASan+UBSan)"
make -s -j"$(nproc)" BUILD=build-asan SAN=1 all
echo "build: build-fuzz/ (fuzz targets)"
make -s -j"$(nproc)" fuzz
bash tests/run.sh build build-asan
