# Sources of the process runner and the recorders (xctrace, CUDA), paths relative to framework/.
set(PERFGATE_RECORDER_SOURCES
  src/core/process.cc
  src/xctrace/recorder.cc
  src/xctrace/recorder_bundle.cc
  src/xctrace/recorder_host.cc
  src/xctrace/recorder_xctrace.cc
  src/cuda/locate.cc
  src/cuda/nvml_clocks.cc
  src/cuda/recorder.cc
  src/cuda/trial_trace.cc
)
