// Kernel short names and the default CUDA kernel-family table.
#include <algorithm>
#include <cctype>
#include <cstdint>

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
  for (size_t i = 0; i < table.rules.size(); ++i) {
    const std::string& text = table.rules[i].prefix;
    if (!text.empty() && text[0] == '*') {
      contains_.push_back({i, Lower(std::string_view(text).substr(1))});
    } else {
      AddPrefixRule(text, i);
    }
  }
}

void FamilyMatcher::AddPrefixRule(const std::string& text, size_t index) {
  uint32_t node = 0;
  for (char c : text) {
    auto& kids = trie_[node].children;
    auto it = std::lower_bound(kids.begin(), kids.end(), c,
                               [](const std::pair<char, uint32_t>& kid, char b) { return kid.first < b; });
    if (it == kids.end() || it->first != c) {
      const auto child = static_cast<uint32_t>(trie_.size());
      kids.insert(it, {c, child});
      trie_.emplace_back();  // invalidates `kids`: not used after this
      node = child;
    } else {
      node = it->second;
    }
  }
  trie_[node].first_rule = std::min(trie_[node].first_rule, index);
}

size_t FamilyMatcher::FirstPrefixRule(std::string_view body) const {
  uint32_t node = 0;
  size_t first = trie_[0].first_rule;  // an empty prefix matches every name
  for (char c : body) {
    const auto& kids = trie_[node].children;
    auto it = std::lower_bound(kids.begin(), kids.end(), c,
                               [](const std::pair<char, uint32_t>& kid, char b) { return kid.first < b; });
    if (it == kids.end() || it->first != c) break;
    node = it->second;
    first = std::min(first, trie_[node].first_rule);
  }
  return first;
}

std::string FamilyMatcher::FamilyOfShortName(const std::string& short_name) const {
  std::string_view body = short_name;
  const std::string& strip = table_.strip_prefix;
  if (!strip.empty() && body.substr(0, strip.size()) == strip) body.remove_prefix(strip.size());
  const size_t first_prefix = FirstPrefixRule(body);
  if (!contains_.empty() && contains_.front().index < first_prefix) {
    const std::string lower = Lower(short_name);
    for (const ContainsRule& r : contains_) {
      if (r.index > first_prefix) break;
      if (lower.find(r.text) != std::string::npos) return table_.rules[r.index].family;
    }
  }
  if (first_prefix != SIZE_MAX) return table_.rules[first_prefix].family;
  return attribution::KernelFamily(table_, short_name);
}

}  // namespace detail

std::string CudaKernelFamily(const attribution::KernelFamilyTable& table, std::string_view kernel_name) {
  return detail::FamilyMatcher(table).FamilyOfShortName(CanonicalKernelName(kernel_name));
}

}  // namespace perfgate::json_trace
