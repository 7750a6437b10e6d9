# The CUPTI tracer's CUDA-free parts (linked into perfgate_framework), paths relative to framework/.
set(PERFGATE_CUPTI_SOURCES
  src/cupti/kineto_writer.cc
)
