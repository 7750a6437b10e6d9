# Sources of the process runner and the xctrace recorder, paths relative to framework/.
set(PERFGATE_RECORDER_SOURCES
  src/core/process.cc
  src/xctrace/recorder.cc
  src/xctrace/recorder_bundle.cc
  src/xctrace/recorder_host.cc
  src/xctrace/recorder_xctrace.cc
)
