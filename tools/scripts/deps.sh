#!/usr/bin/env bash
# Installs what perfgate builds with, only what is missing: Debian packages with
# apt-get (as root or through sudo), or, on macOS (uname Darwin), Homebrew formulae
# with brew. Anywhere else it prints exactly what to install and exits 3.
# Run by tools/run and tools/test; safe to run on its own. PERFGATE_DEPS_FUZZ=1 adds
# the sanitizer and libFuzzer toolchain (clang; Homebrew's llvm on macOS, since Apple
# clang has AddressSanitizer but no libFuzzer). The Homebrew path has never run on a Mac.
set -euo pipefail
# postgresql, libpq-dev, pkg-config: the history's PostgreSQL store (libpq, found with
# pkg-config) and the throwaway server its tests start (initdb, pg_ctl). Homebrew's
# libpq and postgresql@16 are keg-only; perfgate's CMake and tests look in their kegs.
# chromium: the history page's test renders it headless (on macOS not installed here:
# `brew install --cask chromium`; without it that test skips, and fails under CI).
debian_packages=(cmake ninja-build g++ git libgtest-dev libgmock-dev libbenchmark-dev
                 libpugixml-dev nlohmann-json3-dev libcli11-dev zlib1g-dev libsqlite3-dev libsimdjson-dev python3 librsvg2-bin
                 postgresql libpq-dev pkg-config chromium)
brew_formulae=(cmake ninja git googletest google-benchmark pugixml nlohmann-json cli11 zlib sqlite simdjson python librsvg
               libpq pkg-config postgresql@16)
if [ "${PERFGATE_DEPS_FUZZ:-0}" = 1 ]; then
  debian_packages+=(clang libclang-rt-14-dev)
  brew_formulae+=(llvm)
fi

install_debian() {
  local missing=() p
  for p in "${debian_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "perfgate: installing missing Debian packages: ${missing[*]}" >&2
  local sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "perfgate: need root (or sudo) to install ${missing[*]}" >&2; exit 3; }
    sudo_cmd=(sudo)
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

install_brew() {
  # The compiler comes with Xcode's command line tools, not from Homebrew.
  if ! command -v c++ >/dev/null; then
    echo "perfgate: no C++ compiler: install Xcode's command line tools (xcode-select --install)" >&2
    exit 3
  fi
  local missing=() f
  for f in "${brew_formulae[@]}"; do
    brew list --formula --versions "$f" >/dev/null 2>&1 || missing+=("$f")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "perfgate: installing missing Homebrew formulae: ${missing[*]}" >&2
  brew install "${missing[@]}"
}

if [ "$(uname -s)" = Darwin ]; then
  if command -v brew >/dev/null; then
    install_brew
    exit 0
  fi
  echo "perfgate: macOS without Homebrew: install Homebrew (https://brew.sh), then: brew install ${brew_formulae[*]}" >&2
  exit 3
fi
if command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
  install_debian
elif command -v brew >/dev/null; then
  install_brew
else
  echo "perfgate: neither apt-get nor brew found; install these yourself and run again:" >&2
  echo "  Debian/Ubuntu packages: ${debian_packages[*]}" >&2
  echo "  Homebrew formulae:      ${brew_formulae[*]}" >&2
  echo "  (a C++17 compiler, CMake >= 3.25, Ninja, GoogleTest, Google Benchmark, pugixml, nlohmann_json >= 3.10, CLI11, zlib, Python 3, git, rsvg-convert, libpq with pkg-config, a PostgreSQL server's initdb and pg_ctl)" >&2
  exit 3
fi
