#!/usr/bin/env bash
# Sourced by tools/run and tools/test: what differs on macOS (Homebrew; never run on a
# Mac yet). Sets perfgate_jobs (CPU count) and, for the sanitizer stage, perfgate_fuzz_cxx
# (a clang with libFuzzer; empty when there is none) and perfgate_asan_options.
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
