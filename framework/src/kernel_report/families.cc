// Kernel names of per-kernel timing reports: matching and families.
#include <limits>

#include "perfgate/kernel_report/report.h"

namespace perfgate::kernel_report {

attribution::KernelFamilyTable DefaultReportFamilies() {
  attribution::KernelFamilyTable t = attribution::DefaultKernelFamilies();
  // Matched on the whole name where it lacks the "kernel_" prefix (candle's own
  // kernels), after the seed's rules, so no seed family changes.
  t.rules.push_back({"<no_pipeline_set>", "no_pipeline"});
  t.rules.push_back({"gemm_", "dense_gemm"});
  t.rules.push_back({"sdpa_", "sdpa"});
  t.rules.push_back({"steel_attention", "sdpa"});
  t.rules.push_back({"softmax", "softmax"});
  t.rules.push_back({"soft_max", "softmax"});
  return t;
}

double Kernel::figure(const std::string& key) const {
  const auto it = figures.find(key);
  return it == figures.end() ? std::numeric_limits<double>::quiet_NaN() : it->second.value;
}

std::string MatchName(std::string_view name) {
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('_', start);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(start, end - start).find('=') != std::string_view::npos) {
      return std::string(start == 0 ? name : name.substr(0, start - 1));
    }
    start = end + 1;
  }
  return std::string(name);
}

}  // namespace perfgate::kernel_report
