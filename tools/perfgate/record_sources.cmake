# `perfgate record` sources, relative to tools/perfgate/.
set(PERFGATE_CLI_RECORD_SOURCES cmd_record.cc)
