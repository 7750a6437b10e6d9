// Private: llama-bench's Markdown output (its default, `-o md`) read into the tests of a
// tok/s report (perfgate/toks/bench_report.h).
#ifndef PERFGATE_SRC_TOKS_BENCH_MARKDOWN_H_
#define PERFGATE_SRC_TOKS_BENCH_MARKDOWN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"
#include "perfgate/toks/bench_report.h"

namespace perfgate::toks::markdown {

// A test's sizes as its name gives them.
struct TestShape {
  int64_t n_prompt = 0;
  int64_t n_gen = 0;
  int64_t n_depth = 0;
};

// "pp512", "tg128", "pp512+tg128", "tg128 @ d512" (with or without the spaces around
// "@"), and 2023's "pp 512", "tg 128": the sizes; none for any other name.
std::optional<TestShape> ParseTestName(std::string_view name);

// True when a line of `text` is the head of a llama-bench table: a row whose cells
// include "test" and "t/s".
bool HasBenchTable(std::string_view text);

// The tests of every table in `text`, a row each: `test` gives the sizes, `t/s` the
// mean and standard deviation ("55.73 ± 0.04"; no samples), `model` the model, every
// other column a field under its JSON name (backend → backends, ngl → n_gpu_layers,
// …), and a `build: COMMIT (NUMBER)` line after a table its tests' build_commit and
// build_number. Lines outside the tables (device lines, notes) are counted in
// `diagnostics` (toks.ignored_line, the first one quoted). Errors (path:line:col):
// toks.bad_row (a row without one cell per column), toks.bad_field (a test name of no
// known shape), toks.bad_time (a t/s that is no positive number). `text` is UTF-8
// (the caller checks).
StatusOr<std::vector<BenchTest>> ReadBenchMarkdown(std::string_view text, const std::string& path,
                                                   Diagnostics* diagnostics);

}  // namespace perfgate::toks::markdown

#endif  // PERFGATE_SRC_TOKS_BENCH_MARKDOWN_H_
