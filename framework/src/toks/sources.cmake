# Sources of tok/s reports (llama-bench JSON/JSONL, engine tok/s) and ratio-floor policies, paths relative to framework/.
set(PERFGATE_TOKS_SOURCES
)
# Their GoogleTest assertions (linked into perfgate::gtest).
set(PERFGATE_TOKS_GTEST_SOURCES
)
