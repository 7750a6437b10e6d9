# Sources of the Nsight Systems SQLite source, paths relative to framework/.
set(PERFGATE_NSYS_SOURCES
  src/nsys/nsys_reader.cc
  src/nsys/nsys_trial.cc
  src/nsys/sqlite_db.cc
)
