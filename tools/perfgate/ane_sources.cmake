# `perfgate ane-dma` sources, relative to tools/perfgate/.
set(PERFGATE_CLI_ANE_SOURCES cmd_ane.cc)
