# Runs and the SQLite store.
list(APPEND PERFGATE_HISTORY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/sqlite_store_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/history_cli_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/suite_history_test.cc
)
