# The Metal System Trace source (xctrace exports): its descriptor, sniff and importer.
# The xctrace reader itself is src/xctrace/, which `table`, `toc` and `record` use too.
# Paths relative to framework/.
list(APPEND PERFGATE_SOURCE_FILES
  src/sources/metal/import_work.cc
  src/sources/metal/load_trial.cc
  src/sources/metal/source.cc
  src/sources/metal/summarize_trial.cc
)
