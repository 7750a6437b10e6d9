# Sources of the Chrome / Perfetto trace-JSON source, paths relative to framework/.
set(PERFGATE_JSON_TRACE_SOURCES
  src/json_trace/cuda_kernel_families.cc
  src/json_trace/json_trace_reader.cc
  src/json_trace/json_trace_sax.cc
  src/json_trace/json_trace_time.cc
  src/json_trace/json_trace_trial.cc
  src/json_trace/xla_dialect.cc
)

# nlohmann's lexer appends each character of a string with std::string::push_back;
# GCC inlines that call into the lexer only with a larger unit-growth budget (about
# 10 % fewer instructions per byte; see benchmarks/json_trace_benchmark.cc).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(src/json_trace/json_trace_sax.cc PROPERTIES COMPILE_OPTIONS "--param=inline-unit-growth=400")
endif()
