// Kernel families of CUDA and ROCm kernels: the short name a family is matched on and
// the default table, as data. A kernel's family is a level of every report.
#ifndef PERFGATE_ATTRIBUTION_KERNEL_FAMILIES_H_
#define PERFGATE_ATTRIBUTION_KERNEL_FAMILIES_H_

#include <string>
#include <string_view>

#include "perfgate/attribution/options.h"

namespace perfgate::attribution {

// The short name a kernel family is matched on: the demangled name without its
// return type, namespaces, template arguments and parameter list
// ("void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)" ->
// "vectorized_elementwise_kernel"). A mangled name ("_ZN5aiter24add_rmsnorm_...") is
// demangled first. For a generic wrapper (cutlass::Kernel, cutlass::Kernel2,
// cutlass::device_kernel, ck_tile::kentry, rocprim's trampoline_kernel, ...) the first
// template argument that is not a number is used
// ("cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4"). Names that are not C++
// signatures ("Memcpy HtoD (Pageable -> Device)", "ampere_sgemm_128x64_tn") are kept
// up to the first " (".
std::string CanonicalKernelName(std::string_view kernel_name);

// The default CUDA kernel-family table: data, in the KernelFamilyTable
// format (`--kernel-families FILE.json` replaces it). No strip_prefix; first match
// wins. A rule's prefix "*text" matches kernels whose short name contains text
// (ASCII case-insensitive); any other prefix matches the start of the short name,
// exactly as KernelFamily does. Families: memcpy, memset, triton_gemm,
// triton_pointwise, triton_reduction, triton, moe, kv_cache, attention, gemm, norm,
// softmax, rope, activation, sampling, reduction, convolution, pooling, elementwise,
// index, copy, embedding, communication, quantization; anything else is
// other_<first word>. CUDA and ROCm names alike (cuBLAS and Tensile's Cijk_, CUTLASS
// and Composable Kernel, NCCL and RCCL, cuDNN and MIOpen, Triton on either).
KernelFamilyTable CudaKernelFamilies();

// The family of a kernel name under `table` (rules as described above), matched on
// CanonicalKernelName(kernel_name); with no matching rule, KernelFamily
// of the short name (other_<first word>, or "(unknown)" for an empty name).
std::string CudaKernelFamily(const KernelFamilyTable& table, std::string_view kernel_name);

}  // namespace perfgate::attribution

#endif  // PERFGATE_ATTRIBUTION_KERNEL_FAMILIES_H_
