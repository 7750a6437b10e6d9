# The Nsight Systems source (SQLite exports): its descriptor, sniff and importer.
# Paths relative to framework/.
list(APPEND PERFGATE_SOURCE_FILES
  src/sources/nsys/export_identity.cc
  src/sources/nsys/nsys_reader.cc
  src/sources/nsys/nsys_trial.cc
  src/sources/nsys/source.cc
)
