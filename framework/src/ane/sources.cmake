# Sources of the ANE notch probe (framework/src/ane), paths relative to framework/.
# Everything listed here is portable C++17; the native tools (eval_host.m,
# anec_options_probe.m, model_gen.py) are not compiled into the library: on macOS the
# probe builds eval_host.m with clang at run time (as the seed does) and runs
# model_gen.py with python3. They have never been compiled or run here (Linux).
set(PERFGATE_ANE_SOURCES
  src/ane/notch.cc
  src/ane/probe.cc
  src/ane/report_json.cc
)
# Where the probe finds eval_host.m, anec_options_probe.m and model_gen.py at run time
# (PERFGATE_ANE_SOURCE_DIR in the environment overrides it).
set_source_files_properties(src/ane/probe.cc PROPERTIES
  COMPILE_DEFINITIONS "PERFGATE_ANE_SOURCE_DIR=\"${CMAKE_CURRENT_SOURCE_DIR}/src/ane\"")

# The gtest fixture and assertions of the notch (perfgate::gtest). The lead adds
# ${PERFGATE_ANE_GTEST_SOURCES} to perfgate_gtest in framework/CMakeLists.txt.
set(PERFGATE_ANE_GTEST_SOURCES
  src/gtest/ane_fixture.cc
)
