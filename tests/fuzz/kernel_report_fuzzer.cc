// Fuzzes the JSON per-kernel report reader (kernel_report::ParseKernelReportJson:
// llama.cpp's and candle's phase0 reports) and what a gate reads of a report: its
// metrics, its comparison with itself, every kernel's figures.
#include <cstdint>
#include <string>

#include "kernel_report/read_common.h"
#include "perfgate/kernel_report/compare.h"
#include "perfgate/kernel_report/metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  auto report = perfgate::kernel_report::ParseKernelReportJson("fuzz.json", input,
                                                               perfgate::kernel_report::DefaultReportFamilies());
  if (!report.ok()) {
    (void)report.status().ToString();
    return 0;
  }
  (void)perfgate::kernel_report::MetricsOf(*report);
  (void)perfgate::kernel_report::Compare(*report, *report);
  return 0;
}
