# Runs, the store interface and its SQLite back end.
list(APPEND PERFGATE_HISTORY_SOURCES
  src/history/run.cc
  src/history/store.cc
  src/history/sqlite_store.cc
)
