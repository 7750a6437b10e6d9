#!/usr/bin/env bash
# tools/scripts/deps.sh against stand-in uname, brew, apt-get and dpkg-query on a PATH
# that holds nothing else (plus grep and id): which package manager it picks, exactly
# which packages it installs, and the list it prints (exit 3) when there is none.
# Then tools/scripts/platform.sh (sourced by tools/run and tools/test): on macOS the
# fuzz compiler is Homebrew's llvm clang, or none (the fuzz stage is skipped), and the
# CPU count comes from sysctl; without a fuzz compiler the stage is skipped outside CI
# and fails under CI unless PERFGATE_ALLOW_SKIP=1.
# Usage: deps_test.sh <deps.sh> <scratch dir>
set -euo pipefail
deps="$1"
platform="$(dirname "$deps")/platform.sh"
work="$2"
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# make_bin <dir> <kind...>: a PATH directory with the named stand-ins.
make_bin() {
  local dir="$1"; shift
  mkdir -p "$dir"
  ln -s "$(command -v grep)" "$dir/grep"
  for kind in "$@"; do
    case "$kind" in
      darwin) printf '#!/bin/sh\necho Darwin\n' >"$dir/uname" ;;
      linux) printf '#!/bin/sh\necho Linux\n' >"$dir/uname" ;;
      root) printf '#!/bin/sh\necho 0\n' >"$dir/id" ;;
      cxx) printf '#!/bin/sh\nexit 0\n' >"$dir/c++" ;;
      sysctl) printf '#!/bin/sh\necho 8\n' >"$dir/sysctl" ;;
      # brew: logs every call; `brew list ... NAME` succeeds for NAMEs in $BREW_INSTALLED.
      brew) cat >"$dir/brew" <<'SH'
#!/bin/bash
echo "brew $*" >>"$LOG"
if [ "$1" = --prefix ]; then
  [ -n "${BREW_LLVM_PREFIX:-}" ] && { echo "$BREW_LLVM_PREFIX"; exit 0; }
  exit 1
fi
if [ "$1" = list ]; then
  for f in $BREW_INSTALLED; do [ "$f" = "${!#}" ] && exit 0; done
  exit 1
fi
SH
      ;;
      # apt-get logs; dpkg-query says installed for names in $DPKG_INSTALLED.
      apt) printf '#!/bin/sh\necho "apt-get $*" >>"$LOG"\n' >"$dir/apt-get"
           cat >"$dir/dpkg-query" <<'SH'
#!/bin/bash
for p in $DPKG_INSTALLED; do [ "$p" = "${!#}" ] && { printf 'install ok installed'; exit 0; }; done
exit 1
SH
      ;;
    esac
  done
  chmod +x "$dir"/*
}

# run_deps <bin dir> <expected exit> [env...]: runs deps.sh with PATH=<bin dir>.
run_deps() {
  local bin="$1" expected="$2"; shift 2
  : >"$work/log"
  local rc=0
  env -i PATH="$bin" LOG="$work/log" "$@" "$BASH" "$deps" >"$work/out" 2>&1 || rc=$?
  [ "$rc" = "$expected" ] || fail "exit $rc, expected $expected ($bin $*): $(cat "$work/out")"
}

all_formulae="cmake ninja git googletest google-benchmark pugixml nlohmann-json cli11 zlib sqlite simdjson python librsvg libpq pkg-config postgresql@16"
debian="cmake ninja-build g++ git libgtest-dev libgmock-dev libbenchmark-dev libpugixml-dev nlohmann-json3-dev libcli11-dev zlib1g-dev libsqlite3-dev libsimdjson-dev python3 librsvg2-bin postgresql libpq-dev pkg-config chromium"

# macOS with Homebrew: installs exactly the missing formulae (cmake is there), llvm too
# for the fuzz stage, nothing when all are there.
make_bin "$work/mac" darwin brew cxx apt
run_deps "$work/mac" 0 BREW_INSTALLED=cmake
grep -qx "brew install ninja git googletest google-benchmark pugixml nlohmann-json cli11 zlib sqlite simdjson python librsvg libpq pkg-config postgresql@16" "$work/log" \
  || fail "macOS: wrong brew install: $(cat "$work/log")"
grep -q "apt-get" "$work/log" && fail "macOS used apt-get"
run_deps "$work/mac" 0 BREW_INSTALLED=cmake PERFGATE_DEPS_FUZZ=1
grep -qx "brew install ninja git googletest google-benchmark pugixml nlohmann-json cli11 zlib sqlite simdjson python librsvg libpq pkg-config postgresql@16 llvm" "$work/log" \
  || fail "macOS fuzz: wrong brew install: $(cat "$work/log")"
run_deps "$work/mac" 0 "BREW_INSTALLED=$all_formulae"
grep -q "brew install" "$work/log" && fail "macOS: installed although nothing was missing: $(cat "$work/log")"

# macOS without Homebrew: says what to install, exit 3.
make_bin "$work/mac-bare" darwin cxx
run_deps "$work/mac-bare" 3
grep -qF "install Homebrew (https://brew.sh), then: brew install $all_formulae" "$work/out" \
  || fail "macOS without brew: $(cat "$work/out")"

# Linux with Homebrew and no apt-get: brew.
make_bin "$work/linuxbrew" linux brew cxx
run_deps "$work/linuxbrew" 0 BREW_INSTALLED=
grep -qx "brew install $all_formulae" "$work/log" || fail "linuxbrew: $(cat "$work/log")"

# Debian (as root): apt-get installs exactly the missing package.
make_bin "$work/debian" linux apt root
run_deps "$work/debian" 0 "DPKG_INSTALLED=${debian/libgtest-dev /}"
grep -qx "apt-get install -y -qq --no-install-recommends libgtest-dev" "$work/log" \
  || fail "debian: $(cat "$work/log")"

# Neither: the exact lists, exit 3.
make_bin "$work/neither" linux cxx
run_deps "$work/neither" 3
grep -qxF "  Debian/Ubuntu packages: $debian" "$work/out" || fail "neither (Debian list): $(cat "$work/out")"
grep -qxF "  Homebrew formulae:      $all_formulae" "$work/out" || fail "neither (brew list): $(cat "$work/out")"
grep -q "neither apt-get nor brew found" "$work/out" || fail "neither: $(cat "$work/out")"
# platform.sh on macOS, with and without Homebrew's llvm (no nproc there: sysctl).
platform_vars() {
  env -i PATH="$1" "${@:2}" "$BASH" -c 'source "$0"; echo "jobs=$perfgate_jobs fuzz_cxx=$perfgate_fuzz_cxx asan=$perfgate_asan_options"' "$platform"
}
make_bin "$work/mac-platform" darwin brew sysctl
mkdir -p "$work/llvm/bin" && printf '#!/bin/sh\n' >"$work/llvm/bin/clang++" && chmod +x "$work/llvm/bin/clang++"
got="$(platform_vars "$work/mac-platform" BREW_LLVM_PREFIX="$work/llvm")"
[ "$got" = "jobs=8 fuzz_cxx=$work/llvm/bin/clang++ asan=detect_leaks=0" ] || fail "platform.sh with llvm: $got"
got="$(platform_vars "$work/mac-platform")"
[ "$got" = "jobs=8 fuzz_cxx= asan=detect_leaks=0" ] || fail "platform.sh without llvm: $got"
got="$(platform_vars "$work/debian")"
[ "${got#*fuzz_cxx=}" = "clang++ asan=detect_leaks=1" ] || fail "platform.sh on Linux: $got"
# perfgate_skip_fuzz_stage, as tools/test calls it without a fuzz compiler: <exit> [env...].
expect_fuzz_skip() {
  local expected="$1" rc=0; shift
  env -i PATH="$work/mac-platform:/usr/bin:/bin" "$@" "$BASH" -c 'source "$0"; perfgate_skip_fuzz_stage' "$platform" \
    >"$work/out" 2>&1 || rc=$?
  [ "$rc" = "$expected" ] || fail "fuzz stage skip ($*): exit $rc, expected $expected: $(cat "$work/out")"
}
for env_ci in "" CI= CI=0 CI=false CI=False; do
  expect_fuzz_skip 0 $env_ci
  grep -q "SKIPPING the fuzz targets" "$work/out" || fail "fuzz skip outside CI ($env_ci): $(cat "$work/out")"
done
for env_ci in CI=1 CI=true GITHUB_ACTIONS=true BUILDKITE=yes; do
  expect_fuzz_skip 1 $env_ci
  grep -q "error: the fuzz targets cannot run: .*${env_ci%%=*} is set, so this fails; set PERFGATE_ALLOW_SKIP=1" "$work/out" \
    || fail "fuzz skip under CI ($env_ci): $(cat "$work/out")"
done
expect_fuzz_skip 0 CI=1 PERFGATE_ALLOW_SKIP=1
grep -q "SKIPPING the fuzz targets" "$work/out" || fail "fuzz skip allowed under CI: $(cat "$work/out")"
echo "deps.sh: brew on macOS and Linux, apt-get on Debian, the package list and exit 3 elsewhere"
