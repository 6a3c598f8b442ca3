#!/usr/bin/env bash
# scripts/setup.sh: install the Debian packages jostle needs to build and test,
# only those that are missing. Needs root (or sudo) the first time.
set -eu
pkgs=(build-essential pkg-config libcjson-dev libpcre2-dev libdw-dev libelf-dev
      zlib1g-dev python3 python3-pytest python3-dev libxml2-utils gdb procps time binutils xz-utils
      clang libclang-rt-14-dev)   # the last two: make fuzz (libFuzzer's runtime)
[ "${JOSTLE_SETUP_EXTRA:-}" ] && read -r -a extra <<<"$JOSTLE_SETUP_EXTRA" && pkgs+=("${extra[@]}")
pkgs+=(libexpat1-dev libgtest-dev cmake)   # jostle run --tests: JUnit via expat; t655's gtest and ctest suites
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}"
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
