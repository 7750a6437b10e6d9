# Precompiled headers for perfgate's own targets (not installed; consumers' targets never
# get them). They cut the clean build of tools/test, where every target is compiled once
# and the framework three times (Release, ASan with the fuzz targets' instrumentation,
# the embedded packaging consumers): each TU stops re-parsing the standard library,
# nlohmann/json, GoogleTest and CLI11.
#
# On by default with Clang only. With GCC they measured no faster: its precompiled
# header is loaded whole into every TU (its -O3 and -O1 code generation dominates anyway),
# where Clang reads only what a TU uses. Off by default when a compiler launcher is set:
# ccache calls every compile that uses a precompiled header "uncacheable" (unless
# sloppiness=pch_defines,time_macros is configured), so with ccache the plain compile is
# the faster one. CMAKE_DISABLE_PRECOMPILE_HEADERS=ON also turns them off. Only
# third-party and standard headers are precompiled, never perfgate's own.
include_guard(GLOBAL)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(perfgate_pch_default ON)
else()
  set(perfgate_pch_default OFF)
endif()
option(PERFGATE_PRECOMPILE_HEADERS
       "Precompile the standard and third-party headers of perfgate's targets (default: ON with Clang and no compiler launcher)"
       ${perfgate_pch_default})

# What most of perfgate's sources include, directly or through perfgate's headers.
set(PERFGATE_PCH_STD_HEADERS <algorithm> <cstdint> <filesystem> <functional> <map> <optional>
    <sstream> <string> <string_view> <vector>)

# perfgate_precompile_headers(<target> <header>...): <target> precompiles the standard
# headers above and the given ones.
function(perfgate_precompile_headers target)
  if(PERFGATE_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} PRIVATE ${PERFGATE_PCH_STD_HEADERS} ${ARGN})
  endif()
endfunction()

# perfgate_reuse_precompiled_headers(<target> <from>): <target> uses <from>'s precompiled
# header (their compile flags must be the same; extra definitions are fine).
function(perfgate_reuse_precompiled_headers target from)
  if(PERFGATE_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} REUSE_FROM ${from})
  endif()
endfunction()
