// Fuzzes the `nsys stats` text reader (src/kernel_report/nsys_stats.h: sections, column
// tables cut by their dashes, CSV) and the per-kernel report it builds, with and
// without a token count, then what a comparison reads of it.
#include <cstdint>
#include <string>

#include "kernel_report/nsys_stats.h"
#include "perfgate/kernel_report/compare.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  perfgate::kernel_report::ReadOptions options;
  if (size > 0) options.tokens = 1 + data[0] % 200;
  auto report = perfgate::kernel_report::nsys_stats::ReadStatsReport("fuzz.txt", input, options);
  if (!report.ok()) {
    (void)report.status().ToString();
    return 0;
  }
  (void)perfgate::kernel_report::Compare(*report, *report);
  return 0;
}
