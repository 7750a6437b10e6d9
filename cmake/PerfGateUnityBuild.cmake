# Unity builds for perfgate's own libraries and CLI (not installed; consumers' targets
# never get them). CI compiles the framework three times (Release, the sanitizer tree,
# the embedded packaging consumer) on two cores; most of a source's compile time goes
# to the headers and templates it shares with the others (nlohmann/json, CLI11, the
# standard library), and a batch of sources instantiates them once. The unit tests do
# the same per executable (tests/CMakeLists.txt).
include_guard(GLOBAL)

# perfgate_unity_build(<target> <batch size> [SKIP <source>...]): <target>'s sources
# compile in batches of <batch size>, less the SKIP sources: a source that defines a
# name another source of the target defines too (a helper, a constant, an alias in an
# anonymous namespace) would clash in one translation unit. A clash is a compile
# error, so a new one shows in the first build; the SKIP list says where they are.
function(perfgate_unity_build target batch)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "SKIP")
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
  if(arg_SKIP)
    set_source_files_properties(${arg_SKIP} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  endif()
endfunction()
