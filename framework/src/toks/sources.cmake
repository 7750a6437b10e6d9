# Sources of tok/s reports (llama-bench Markdown/CSV/SQL/JSON/JSONL, engine tok/s) and ratio-floor policies, paths relative to framework/.
set(PERFGATE_TOKS_SOURCES
  src/toks/bench_rows.cc
  src/toks/bench_markdown.cc
  src/toks/bench_report.cc
  src/toks/policy.cc
  src/toks/ratio.cc
)
# Their GoogleTest assertions (linked into perfgate::gtest).
set(PERFGATE_TOKS_GTEST_SOURCES
  src/gtest/toks_assertions.cc
)
