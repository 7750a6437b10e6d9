// Fuzzes the kernel-family table loader (attribution::LoadKernelFamilies, the
// `--kernel-families FILE.json` of `perfgate attribute`) and the matchers that use the
// table. The loader reads only from a path: the input goes through a ScratchFile.
// Input: the table's JSON, optionally followed by a NUL byte and newline-separated
// kernel/shader names to classify (the name fixtures below are classified too).
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.h"
#include "perfgate/attribution/kernel_families.h"
#include "perfgate/attribution/options.h"
#include "perfgate/attribution/work.h"

namespace {

using namespace perfgate;

constexpr std::string_view kNames[] = {
    "kernel_mul_mv_q4_0_f32",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float)",
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(Params)",
    "Memcpy HtoD (Pageable -> Device)",
    "",
};

void Classify(const attribution::KernelFamilyTable& table, std::string_view name) {
  (void)attribution::KernelFamily(table, name);
  (void)attribution::KernelFamily(table, name, /*require_prefix=*/true);
  (void)attribution::CudaKernelFamily(table, name);
  (void)attribution::CanonicalKernelName(name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::ScratchFile scratch("kernel-families.json");
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const std::string_view table_json = input.substr(0, split);
  auto table = attribution::LoadKernelFamilies(
      scratch.Write(reinterpret_cast<const uint8_t*>(table_json.data()), table_json.size()));
  if (!table.ok()) {
    (void)table.status().ToString();
    return 0;
  }
  (void)attribution::KernelFamilyNames(*table);
  for (std::string_view name : kNames) Classify(*table, name);
  for (const attribution::KernelFamilyRule& rule : table->rules) Classify(*table, rule.prefix);
  std::string_view names = split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
  while (!names.empty()) {
    const size_t end = names.find('\n');
    Classify(*table, names.substr(0, end));
    names = end == std::string_view::npos ? std::string_view() : names.substr(end + 1);
  }
  return 0;
}
