// Kernel-name matching across two recordings (diff.h: NormalizeKernelName).
#include <string>
#include <string_view>

#include "perfgate/attribution/kernel_families.h"
#include "perfgate/diff/diff.h"
#include "perfgate/attribution/work.h"
#include "perfgate/kernel_report/report.h"
#include "string_util.h"

namespace perfgate::diff {
namespace {

// GCC and Clang name a cloned function "f [clone .constprop.0]" (and several clones
// "f [clone .isra.0] [clone .cold]"): the clone is an optimisation, not a new kernel.
std::string_view WithoutCloneDecorations(std::string_view name) {
  for (;;) {
    const size_t at = name.rfind(" [clone ");
    if (at == std::string_view::npos || name.back() != ']') return name;
    name = name.substr(0, at);
  }
}

// ROCm's code objects name a kernel's descriptor "<kernel>.kd".
std::string_view WithoutCodeObjectSuffix(std::string_view name) {
  constexpr std::string_view kSuffix = ".kd";
  if (name.size() > kSuffix.size() && EndsWith(name, kSuffix)) name.remove_suffix(kSuffix.size());
  return name;
}

}  // namespace

std::string NormalizeKernelName(std::string_view name) {
  const std::string_view plain = WithoutCodeObjectSuffix(WithoutCloneDecorations(name));
  return kernel_report::MatchName(attribution::CanonicalKernelName(plain));
}

}  // namespace perfgate::diff
