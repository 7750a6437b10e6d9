#!/usr/bin/env bash
# Installs the Debian packages perfgate builds with, only those that are missing.
# Sourced by tools/run and tools/test; safe to run on its own. PERFGATE_DEPS_FUZZ=1
# adds clang and its libFuzzer/sanitizer runtime (the sanitizer and fuzz build).
set -euo pipefail
perfgate_packages=(cmake ninja-build g++ libgtest-dev libgmock-dev libbenchmark-dev
                   libpugixml-dev nlohmann-json3-dev libcli11-dev zlib1g-dev python3 librsvg2-bin)
if [ "${PERFGATE_DEPS_FUZZ:-0}" = 1 ]; then
  perfgate_packages+=(clang libclang-rt-14-dev)
fi
missing=()
for p in "${perfgate_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "perfgate: installing missing packages: ${missing[*]}" >&2
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "perfgate: need root (or sudo) to install ${missing[*]}" >&2; exit 3; }
    sudo_cmd=(sudo)
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
