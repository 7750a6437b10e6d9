# The trace-event JSON source (PyTorch profiler / Kineto, JAX / XLA, Perfetto): its
# descriptor, sniff and importer. Paths relative to framework/.
list(APPEND PERFGATE_SOURCE_FILES
  src/sources/trace_json/json_trace_reader.cc
  src/sources/trace_json/json_trace_sax.cc
  src/sources/trace_json/json_trace_time.cc
  src/sources/trace_json/source.cc
  src/sources/trace_json/xla_dialect.cc
)

# nlohmann's lexer appends each character of a string with std::string::push_back;
# GCC inlines that call into the lexer only with a larger unit-growth budget (about
# 10 % fewer instructions per byte; see benchmarks/json_trace_benchmark.cc).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(src/sources/trace_json/json_trace_sax.cc PROPERTIES COMPILE_OPTIONS "--param=inline-unit-growth=400")
endif()
