// Fuzzes the tok/s report reader (toks::ParseBenchReport: llama-bench JSON, JSONL and
// its hand-read Markdown, CSV and SQL, engine reports) and what a gate reads of a report:
// its test ids, each test's median and backends, the lookup of every id.
#include <cstdint>
#include <string>

#include "perfgate/toks/bench_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  auto report = perfgate::toks::ParseBenchReport(input, "fuzz.md");
  if (!report.ok()) {
    (void)report.status().ToString();
    return 0;
  }
  for (const perfgate::toks::BenchTest& t : report->tests) {
    (void)t.MedianTs();
    (void)t.Backends();
  }
  for (const std::string& id : report->TestIds()) (void)report->Find(id);
  return 0;
}
