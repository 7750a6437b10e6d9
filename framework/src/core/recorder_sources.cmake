# Sources of the process runner and the xctrace recorder, paths relative to framework/.
set(PERFGATE_RECORDER_SOURCES)
