# The PostgreSQL store's tests and the store's concurrency tests (both back ends), with
# the throwaway server they start (tests/support/postgres_server.cc). Where perfgate is
# built without libpq they skip, or under CI fail, saying so.
list(APPEND PERFGATE_HISTORY_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/postgres_store_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/store_concurrency_test.cc
  ${PROJECT_SOURCE_DIR}/tests/support/postgres_server.cc
)
