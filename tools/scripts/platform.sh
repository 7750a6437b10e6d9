#!/usr/bin/env bash
# Sourced by tools/run and tools/test: what differs on macOS (Homebrew; never run on a
# Mac yet). Sets perfgate_jobs (CPU count) and, for the sanitizer build, perfgate_fuzz_cxx
# (a clang with libFuzzer; empty when there is none) and perfgate_asan_options; defines
# perfgate_ci_variable and perfgate_skip_fuzz_stage.
perfgate_jobs="$(nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)"
perfgate_fuzz_cxx=clang++
perfgate_asan_options=detect_leaks=1
if [ "$(uname -s)" = Darwin ]; then
  # Apple clang has AddressSanitizer but no libFuzzer; Homebrew's llvm has both.
  # LeakSanitizer is not supported by Apple's toolchain on Apple silicon.
  perfgate_asan_options=detect_leaks=0
  perfgate_llvm="$(brew --prefix llvm 2>/dev/null || true)"
  if [ -n "$perfgate_llvm" ] && [ -x "$perfgate_llvm/bin/clang++" ]; then
    perfgate_fuzz_cxx="$perfgate_llvm/bin/clang++"
  else
    perfgate_fuzz_cxx=""
  fi
fi

# Prints the first CI variable set as perfgate reads them (framework/src/core/
# environment.cc: set, and not "", "0" or "false" in any case); fails when none is.
perfgate_ci_variable() {
  local var value
  for var in CI GITHUB_ACTIONS GITLAB_CI JENKINS_URL TF_BUILD BUILDKITE; do
    value="${!var-}"
    value="$(printf '%s' "$value" | tr '[:upper:]' '[:lower:]')"
    if [ -n "$value" ] && [ "$value" != 0 ] && [ "$value" != false ]; then
      echo "$var"
      return 0
    fi
  done
  return 1
}

# No libFuzzer (macOS without Homebrew's llvm): the fuzz stage is skipped, saying so;
# under CI that is an error (exit status 1) unless PERFGATE_ALLOW_SKIP=1, so that a
# skipped stage never reads as a pass.
perfgate_skip_fuzz_stage() {
  local why="Apple clang has no libFuzzer and Homebrew's llvm is missing (brew install llvm)"
  local ci
  if ci="$(perfgate_ci_variable)" && [ "${PERFGATE_ALLOW_SKIP:-}" != 1 ]; then
    echo "perfgate: error: the fuzz targets cannot run: $why; $ci is set, so this fails; set PERFGATE_ALLOW_SKIP=1 to skip them deliberately" >&2
    return 1
  fi
  echo "perfgate: SKIPPING the fuzz targets: $why; the sanitizer build runs the unit tests only" >&2
}
