// tok/s reports: llama-bench's own output (`-o json`: an array of test objects;
// `-o jsonl`: one object per line; `-o csv`: a row per test; its default Markdown
// table, mean ± stddev per test) and an engine's report in the same shape, or the
// minimal {"tests": [{"n_prompt": 0, "n_gen": 128, "samples_ns": [...]}]} (optional
// top-level "engine", and "model": the model of tests that name none).
//
// Per test: n_prompt, n_gen, n_depth, avg_ts, stddev_ts and the per-repetition
// samples. tok/s per repetition is (n_prompt + n_gen) / (ns · 1e-9), as llama-bench's
// test::get_ts() computes it, from samples_ns where present (samples_ts is printed
// with about six significant digits). Fields that differ between llama.cpp versions
// (load_mode vs use_mmap, flash_attn as bool or int, per-backend booleans) are kept
// as text in `fields`; no unknown field is an error: each is counted
// (toks.unknown_field, info) and shown with the gate's table.
#ifndef PERFGATE_TOKS_BENCH_REPORT_H_
#define PERFGATE_TOKS_BENCH_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"

namespace perfgate::toks {

// One llama-bench test: a model at one prompt/generation size and depth.
struct BenchTest {
  std::string id;     // "tg128", "pp512", "pp512+tg128", "tg128 @ d512" (llama-bench's markdown)
  std::string model;  // model_filename (else model_type), "" when the report names none
  int64_t n_prompt = 0;
  int64_t n_gen = 0;
  int64_t n_depth = 0;
  double avg_ts = 0;  // as printed; 0 when absent (allowed only with samples)
  double stddev_ts = 0;
  // tok/s per repetition; empty when the report has no samples.
  std::vector<double> samples_ts;
  bool samples_from_ns = false;  // computed from samples_ns (exact), not printed samples_ts
  // Every other field as its JSON text ("true", "1", "\"mmap\""), by name.
  std::map<std::string, std::string> fields;
  SourceLocation location;  // where the test's object starts

  // The median tok/s of the samples, else avg_ts (a mean: no samples to take one of).
  double MedianTs() const;
  // The backends that ran it: the `backends` field, else the per-backend booleans
  // that are true (older versions and forks: "metal", "cuda", ...), joined by ",".
  std::string Backends() const;
  // A text field as written ("" when absent): Field("build_commit"), Field("gpu_info").
  std::string Field(const std::string& name) const;
};

// Which runs of a report that appends several (builds, backends, GPUs) to read; an
// empty criterion takes every run. `build` matches build_commit by prefix or
// build_number exactly, `backend` the test's backends (case aside), `gpu` a part of
// gpu_info.
struct RunFilter {
  std::string build;
  std::string backend;
  std::string gpu;
  bool empty() const { return build.empty() && backend.empty() && gpu.empty(); }
};

struct BenchReport {
  std::string path;
  // "json" (llama-bench array), "jsonl", "csv", "markdown", "minimal" ({"tests": [...]})
  std::string format;
  std::vector<BenchTest> tests;
  int unknown_fields = 0;  // diagnostics.Count("toks.unknown_field"), kept for its readers
  Diagnostics diagnostics;  // toks.unknown_field: those fields, the first one named

  // The test `name` ("tg128", "pp512 @ d4096"; the spaces around "@" optional, 2023's
  // "tg 128" too); an unknown test is an error (toks.unknown_test) listing the
  // report's ids, and one measured for several models is one too (toks.ambiguous_test).
  StatusOr<const BenchTest*> Find(const std::string& name) const;
  // "pp512, tg128": the report's test ids in order, each once.
  std::vector<std::string> TestIds() const;
};

// llama-bench's markdown name of a test: "pp512", "tg128", "pp512+tg128", + " @ d512".
std::string TestId(int64_t n_prompt, int64_t n_gen, int64_t n_depth);

// Reads a report. Errors (path:line:col): toks.bad_json (not JSON, or not an array,
// an object or JSONL), toks.bad_line (a JSONL line that is not an object),
// toks.missing_field (no n_prompt, n_gen, or avg_ts without samples), toks.bad_field
// (a field of the wrong type or range), toks.sample_mismatch (samples_ns and samples_ts
// of different lengths), toks.bad_time (a time or tok/s that is not positive),
// toks.duplicate_test (a test id twice for one model and run), toks.no_tests; a file
// appending runs of several builds, backends or GPUs that hold one test twice is
// toks.several_runs (listing them: choose with `runs`), and `runs` that match none is
// toks.no_run; the Markdown, CSV, SQL and SQLite readers' own (toks.bad_row,
// toks.bad_utf8, toks.bad_database, toks.no_table: a file that is no report, quoting
// its last line); and the io.* errors of reading a file. An SQLite file is read as
// llama-bench's database (its `test` table).
StatusOr<BenchReport> ReadBenchReport(const std::string& path, const RunFilter& runs = {});
// The same from text (every format but the database); `path` only names it in errors.
StatusOr<BenchReport> ParseBenchReport(const std::string& text, const std::string& path, const RunFilter& runs = {});

// The runs a report holds, each kind's values: "builds 0253fb21f (9187), 70a830911;
// backends CUDA, Vulkan; GPUs NVIDIA H200" (what toks.several_runs lists).
std::string DescribeRuns(const BenchReport& report);

}  // namespace perfgate::toks

#endif  // PERFGATE_TOKS_BENCH_REPORT_H_
