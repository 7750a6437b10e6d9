# Included by run_consumer.cmake (WAY=find_package) once the package is installed in
# ${prefix}: what each COMPONENTS request loads or refuses (components/CMakeLists.txt).
set(components_project "${SOURCE_DIR}/tests/packaging/components")
set(hide_both -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON)
function(configure_components name)
  set(dir "${WORK_DIR}/components-${name}")
  file(REMOVE_RECURSE "${dir}")
  set(configure ${CMAKE_COMMAND} -S "${components_project}" -B "${dir}" -G Ninja ${launcher}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix})
  set(configure ${configure} PARENT_SCOPE)
endfunction()

# The framework alone, with GoogleTest and Google Benchmark hidden: it loads, builds
# and runs, and neither component is loaded.
configure_components(framework_only)
run(${configure} ${hide_both})
if(NOT last_output MATCHES "PerfGate components: gtest=FALSE benchmark=FALSE")
  message(FATAL_ERROR "framework-only consumer: components loaded although hidden:\n${last_output}")
endif()
run(${CMAKE_COMMAND} --build "${WORK_DIR}/components-framework_only")
run("${WORK_DIR}/components-framework_only/print_version")
if(NOT last_output MATCHES "^perfgate [0-9]+\\.[0-9]+\\.[0-9]+ \\(commit ")
  message(FATAL_ERROR "framework-only consumer printed: ${last_output}")
endif()

# Both components, found.
configure_components(both)
run(${configure} -DCOMPONENTS=gtest,benchmark)
if(NOT last_output MATCHES "PerfGate components: gtest=TRUE benchmark=TRUE")
  message(FATAL_ERROR "COMPONENTS gtest benchmark did not load both:\n${last_output}")
endif()

# A requested component whose dependency is hidden, or that does not exist, fails.
configure_components(no_gtest)
run_fails("PerfGate components: 'gtest' needs GoogleTest" ${configure} ${hide_both} -DCOMPONENTS=gtest)
configure_components(no_benchmark)
run_fails("PerfGate components: 'benchmark' needs Google Benchmark" ${configure} ${hide_both} -DCOMPONENTS=benchmark)
configure_components(unknown)
run_fails("'bogus' is not a PerfGate component \\(known: gtest, benchmark\\)" ${configure} -DCOMPONENTS=bogus)

# perfgate_add_perf_suite() without the gtest component: a configure error naming it.
configure_components(suite_without_gtest)
run_fails("perfgate_add_perf_suite\\(no_gtest\\): perfgate's gtest component is missing"
          ${configure} ${hide_both} -DSUITE=ON)
# perfgate_add_perf_benchmark() after find_package without the benchmark component
# (only gtest asked for, Google Benchmark installed or not): a configure error naming it
# and the packages to install.
configure_components(benchmark_without_component)
string(CONCAT no_benchmark_message
       "perfgate_add_perf_benchmark\\(no_benchmark\\): perfgate's benchmark component is missing\\. "
       "Installed perfgate: find_package\\(PerfGate CONFIG REQUIRED COMPONENTS benchmark\\).*"
       "Debian: libbenchmark-dev; Homebrew: google-benchmark")
run_fails("${no_benchmark_message}" ${configure} -DCOMPONENTS=gtest -DBENCHMARK=ON)
message(STATUS "components: framework alone, both, and each refusal as expected")
