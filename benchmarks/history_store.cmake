# Appending a run to and checking a 10,000-run results history (SQLite; PostgreSQL
# where libpq is found and PERFGATE_BENCH_POSTGRES names a database).
add_executable(history_store_benchmark history_store_benchmark.cc)
target_link_libraries(history_store_benchmark PRIVATE perfgate::framework perfgate_build_flags benchmark::benchmark
                      SQLite::SQLite3)
if(TARGET PkgConfig::perfgate_libpq)
  target_link_libraries(history_store_benchmark PRIVATE PkgConfig::perfgate_libpq)
  target_compile_definitions(history_store_benchmark PRIVATE PERFGATE_HAVE_POSTGRESQL=1)
endif()
