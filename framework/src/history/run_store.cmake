# Runs, the store interface, its SQLite back end, and building and appending a gate's run.
list(APPEND PERFGATE_HISTORY_SOURCES
  src/history/run.cc
  src/history/store.cc
  src/history/sqlite_store.cc
  src/history/record.cc
  src/history/analysis.cc
  src/history/history_document.cc
)
