# Sources of the Chrome / Perfetto trace-JSON source, paths relative to framework/.
set(PERFGATE_JSON_TRACE_SOURCES)
