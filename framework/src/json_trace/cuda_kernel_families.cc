// Kernel short names and the default CUDA kernel-family table.
#include <cctype>

#include "json_trace_internal.h"
#include "perfgate/json_trace/trial.h"

namespace perfgate::json_trace {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Template wrappers whose first template argument names the real kernel.
bool IsGenericWrapper(std::string_view ident) {
  return ident == "Kernel" || ident == "Kernel2" || ident == "device_kernel" || ident == "kernel" ||
         ident == "KernelWrapper";
}

// The first top-level template argument of "<...>" starting at `open`.
std::string_view FirstTemplateArgument(std::string_view s, size_t open) {
  int depth = 0;
  int parens = 0;
  for (size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(') ++parens;
    if (c == ')' && parens > 0) --parens;
    if (parens > 0) continue;
    if (c == '<') {
      ++depth;
    } else if (c == '>') {
      if (--depth == 0) return s.substr(open + 1, i - open - 1);
    } else if (c == ',' && depth == 1) {
      return s.substr(open + 1, i - open - 1);
    }
  }
  return s.substr(open + 1);
}

std::string Canonical(std::string_view name, int recursion) {
  std::string s(name);
  for (std::string_view anon : {std::string_view("(anonymous namespace)::"), std::string_view("(anonymous namespace)")}) {
    for (size_t at = s.find(anon); at != std::string::npos; at = s.find(anon, at)) s.erase(at, anon.size());
  }
  std::string_view v = Trim(s);
  if (v.substr(0, 5) == "void ") v = Trim(v.substr(5));
  // Cut the parameter list: the first '(' outside template arguments.
  int depth = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '<') ++depth;
    else if (v[i] == '>' && depth > 0) --depth;
    else if (v[i] == '(' && depth == 0) {
      v = Trim(v.substr(0, i));
      break;
    }
  }
  // The last component of the qualified name, outside template arguments.
  depth = 0;
  size_t last = 0;
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    if (v[i] == '<') ++depth;
    else if (v[i] == '>' && depth > 0) --depth;
    else if (depth == 0 && v[i] == ':' && v[i + 1] == ':') last = i + 2;
  }
  v = v.substr(last);
  const size_t open = v.find('<');
  std::string_view ident = Trim(v.substr(0, open));
  if (open != std::string_view::npos && IsGenericWrapper(ident) && recursion < 4) {
    std::string inner = Canonical(FirstTemplateArgument(v, open), recursion + 1);
    if (!inner.empty()) return inner;
  }
  if (ident.empty()) return std::string(Trim(name));
  return std::string(ident);
}

}  // namespace

std::string CanonicalKernelName(std::string_view kernel_name) { return Canonical(kernel_name, 0); }

attribution::KernelFamilyTable CudaKernelFamilies() {
  attribution::KernelFamilyTable t;
  t.strip_prefix = "";
  t.rules = {
      // Copies and fills named as such (memcpy/memset events get these families anyway).
      {"Memcpy", "memcpy"},
      {"Memset", "memset"},
      // torch.compile's Triton kernels: template (matmul), pointwise, reductions.
      {"triton_tem", "triton_gemm"},
      {"triton_poi", "triton_pointwise"},
      {"triton_red", "triton_reduction"},
      {"triton_per", "triton_reduction"},
      {"triton_", "triton"},
      // Mixture-of-experts routing and grouped GEMMs (vLLM fused_moe, topkGatingSoftmax).
      {"*moe", "moe"},
      {"*topkgating", "moe"},
      // Attention: FlashAttention, xformers/PyTorch fmha, paged attention.
      {"*flash", "attention"},
      {"*fmha", "attention"},
      {"*attention", "attention"},
      {"*attn", "attention"},
      // Collectives (before reductions: allreduce contains "reduce").
      {"nccl", "communication"},
      {"*allreduce", "communication"},
      {"*all_reduce", "communication"},
      {"*allgather", "communication"},
      {"*all_gather", "communication"},
      // Matrix multiply: cuBLAS (ampere_sgemm_*, sm90_xmma_gemm_*, nvjet_*, gemv2T_*),
      // CUTLASS, split-K reductions.
      {"nvjet", "gemm"},
      {"*gemm", "gemm"},
      {"*gemv", "gemm"},
      {"*cutlass", "gemm"},
      {"*cublas", "gemm"},
      {"*matmul", "gemm"},
      {"*splitkreduce", "gemm"},
      // Normalisation (RowwiseMoments is LayerNorm's statistics kernel).
      {"*layer_norm", "norm"},
      {"*layernorm", "norm"},
      {"*rms_norm", "norm"},
      {"*rmsnorm", "norm"},
      {"*group_norm", "norm"},
      {"*batch_norm", "norm"},
      {"*rowwisemoments", "norm"},
      {"*softmax", "softmax"},
      {"*rotary", "rope"},
      {"*rope", "rope"},
      {"*act_and_mul", "activation"},
      {"*silu", "activation"},
      {"*gelu", "activation"},
      {"*swiglu", "activation"},
      {"*topk", "sampling"},
      {"*sort", "sampling"},
      {"*argmax", "sampling"},
      {"*sampling", "sampling"},
      {"*multinomial", "sampling"},
      {"*reduce", "reduction"},
      {"*reduction", "reduction"},
      // Indexing before elementwise: index_elementwise_kernel is aten::index.
      {"*index", "index"},
      {"*gather", "index"},
      {"*scatter", "index"},
      {"*elementwise", "elementwise"},
      {"*pointwise", "elementwise"},
      {"*copy", "copy"},
      {"*embedding", "embedding"},
      {"*quant", "quantization"},
  };
  return t;
}

namespace detail {

FamilyMatcher::FamilyMatcher(const attribution::KernelFamilyTable& table) : table_(table) {
  rules_.reserve(table.rules.size());
  for (const auto& r : table.rules) {
    const bool contains = !r.prefix.empty() && r.prefix[0] == '*';
    rules_.push_back({contains, contains ? Lower(std::string_view(r.prefix).substr(1)) : r.prefix, r.family});
  }
}

std::string FamilyMatcher::FamilyOfShortName(const std::string& short_name) const {
  std::string_view body = short_name;
  const std::string& strip = table_.strip_prefix;
  if (!strip.empty() && body.substr(0, strip.size()) == strip) body.remove_prefix(strip.size());
  std::string lower;
  bool lowered = false;
  for (const Rule& r : rules_) {
    if (r.contains) {
      if (!lowered) {
        lower = Lower(short_name);
        lowered = true;
      }
      if (lower.find(r.text) != std::string::npos) return r.family;
    } else if (body.substr(0, r.text.size()) == r.text) {
      return r.family;
    }
  }
  return attribution::KernelFamily(table_, short_name);
}

}  // namespace detail

std::string CudaKernelFamily(const attribution::KernelFamilyTable& table, std::string_view kernel_name) {
  return detail::FamilyMatcher(table).FamilyOfShortName(CanonicalKernelName(kernel_name));
}

}  // namespace perfgate::json_trace
