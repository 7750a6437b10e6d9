// Kernel short names and the default CUDA kernel-family table.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>

#include <cxxabi.h>

#include "attribution/family_matcher.h"
#include "perfgate/attribution/kernel_families.h"
#include "string_util.h"

namespace perfgate::attribution {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Template wrappers whose first type template argument names the real kernel
// (CUTLASS's Kernel, CK-tile's kentry<1, ck_tile::FmhaFwdKernel<...>>, rocPRIM's
// trampoline_kernel<wrapped_scan_config<...>>).
bool IsGenericWrapper(std::string_view ident) {
  return ident == "Kernel" || ident == "Kernel2" || ident == "device_kernel" || ident == "kernel" ||
         ident == "KernelWrapper" || ident == "kentry" || ident == "trampoline_kernel";
}

// The first top-level template argument of "<...>" starting at `open` that is not a
// number (kentry<1, Kernel> -> Kernel).
std::string_view FirstTemplateArgument(std::string_view s, size_t open) {
  int depth = 0;
  int parens = 0;
  size_t begin = open + 1;
  auto argument = [&](size_t end) -> std::optional<std::string_view> {
    std::string_view arg = TrimSpace(s.substr(begin, end - begin));
    begin = end + 1;
    if (!arg.empty() && (std::isdigit(static_cast<unsigned char>(arg[0])) || arg[0] == '-')) return std::nullopt;
    return arg;
  };
  for (size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(') ++parens;
    if (c == ')' && parens > 0) --parens;
    if (parens > 0) continue;
    if (c == '<') {
      ++depth;
    } else if (c == '>') {
      if (--depth == 0) return argument(i).value_or(std::string_view());
    } else if (c == ',' && depth == 1) {
      if (auto arg = argument(i)) return *arg;
    }
  }
  return s.substr(open + 1);
}

// Reads the <source-name>s of an Itanium nested name at `at` ("5aiter24add_rms..."):
// "aiter::add_rms...". Substitutions (S_, S0_) and "St" (std::) are skipped. Stops at
// anything else (I: template arguments, E: the end).
std::string SourceNames(std::string_view m, size_t* at) {
  std::string qualified;
  while (*at < m.size()) {
    if (m.substr(*at, 2) == "St") {
      *at += 2;
    } else if (m[*at] == 'S') {
      const size_t end = m.find('_', *at);
      if (end == std::string_view::npos) break;
      *at = end + 1;
    } else if (std::isdigit(static_cast<unsigned char>(m[*at]))) {
      size_t n = 0;
      while (*at < m.size() && std::isdigit(static_cast<unsigned char>(m[*at])) && n < m.size()) {
        n = n * 10 + static_cast<size_t>(m[(*at)++] - '0');
      }
      if (n == 0 || *at + n > m.size()) break;
      qualified += (qualified.empty() ? "" : "::") + std::string(m.substr(*at, n));
      *at += n;
    } else {
      break;
    }
  }
  return qualified;
}

// The kernel's qualified name from a mangled name that __cxa_demangle refuses (an
// older libstdc++ does not know DF16b, std::bfloat16_t, which ROCm kernels use). A
// generic wrapper (ck_tile::kentry<1, ck_tile::Rmsnorm2dFwd<...>>) gives its first
// template argument that is a name, after literals (Li1E). "" when not understood.
std::string MangledQualifiedName(std::string_view m) {
  size_t at = 2;
  if (at < m.size() && m[at] == 'N') ++at;
  std::string name = SourceNames(m, &at);
  const size_t last = name.rfind("::");
  const std::string ident = name.substr(last == std::string::npos ? 0 : last + 2);
  if (name.empty() || !IsGenericWrapper(ident) || m.substr(at, 1) != "I") return name;
  ++at;
  while (m.substr(at, 1) == "L") {  // a literal argument: L <type> <value> E
    const size_t end = m.find('E', at);
    if (end == std::string_view::npos) return name;
    at = end + 1;
  }
  if (m.substr(at, 1) == "N") ++at;
  std::string inner = SourceNames(m, &at);
  return inner.empty() ? name : inner;
}

// The demangled form of an Itanium-mangled name ("_ZN5aiter24add_rmsnorm_..."), as
// ROCm traces hold some; other names unchanged.
std::string Demangled(std::string_view name) {
  if (name.substr(0, 2) != "_Z") return std::string(name);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(std::string(name).c_str(), nullptr, nullptr, &status), std::free);
  if (status == 0 && out != nullptr) return std::string(out.get());
  std::string qualified = MangledQualifiedName(name);
  return qualified.empty() ? std::string(name) : qualified;
}

// Calls fn(i) for each position of `v` outside template arguments. A '>' inside
// parentheses within template arguments (enable_if<((8)>(0))>) is an operator, not a
// bracket. fn returns false to stop.
template <typename Fn>
void ForEachTopLevel(std::string_view v, Fn fn) {
  int depth = 0;
  int parens = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (depth > 0 && c == '(') {
      ++parens;
    } else if (depth > 0 && c == ')' && parens > 0) {
      --parens;
    } else if (parens == 0) {
      if (c == '<') {
        ++depth;
      } else if (c == '>' && depth > 0) {
        --depth;
      } else if (depth == 0 && !fn(i)) {
        return;
      }
    }
  }
}

// "std::enable_if<...>::type vllm::fused_add_rms_norm_kernel<...>" -> the function:
// the text after the last space outside template arguments, when the text before it
// is a C++ type (it holds "::" or '<'), so "Memcpy HtoD" keeps both words.
std::string_view WithoutReturnType(std::string_view v) {
  size_t space = std::string_view::npos;
  ForEachTopLevel(v, [&](size_t i) {
    if (v[i] == ' ') space = i;
    return true;
  });
  if (space == std::string_view::npos) return v;
  const std::string_view type = v.substr(0, space);
  if (type.find("::") == std::string_view::npos && type.find('<') == std::string_view::npos) return v;
  return TrimSpace(v.substr(space + 1));
}

std::string Canonical(std::string_view name, int recursion) {
  std::string s = Demangled(TrimSpace(name));
  for (std::string_view anon : {std::string_view("(anonymous namespace)::"), std::string_view("(anonymous namespace)")}) {
    for (size_t at = s.find(anon); at != std::string::npos; at = s.find(anon, at)) s.erase(at, anon.size());
  }
  std::string_view v = TrimSpace(s);
  if (v.substr(0, 5) == "void ") v = TrimSpace(v.substr(5));
  // Cut the parameter list: the first '(' outside template arguments.
  size_t params = v.size();
  ForEachTopLevel(v, [&](size_t i) {
    if (v[i] != '(') return true;
    params = i;
    return false;
  });
  v = WithoutReturnType(TrimSpace(v.substr(0, params)));
  // The last component of the qualified name, outside template arguments.
  size_t last = 0;
  ForEachTopLevel(v, [&](size_t i) {
    if (i + 1 < v.size() && v[i] == ':' && v[i + 1] == ':') last = i + 2;
    return true;
  });
  v = v.substr(last);
  const size_t open = v.find('<');
  std::string_view ident = TrimSpace(v.substr(0, open));
  if (open != std::string_view::npos && IsGenericWrapper(ident) && recursion < 4) {
    std::string inner = Canonical(FirstTemplateArgument(v, open), recursion + 1);
    if (!inner.empty()) return inner;
  }
  if (ident.empty()) return std::string(TrimSpace(name));
  return std::string(ident);
}

}  // namespace

std::string CanonicalKernelName(std::string_view kernel_name) { return Canonical(kernel_name, 0); }

KernelFamilyTable CudaKernelFamilies() {
  KernelFamilyTable t;
  t.strip_prefix = "";
  t.rules = {
      // Copies and fills named as such (memcpy/memset events get these families anyway).
      {"Memcpy", "memcpy"},
      {"Memset", "memset"},
      // ROCm's rocBLAS/hipBLASLt (Tensile) GEMMs: Cijk_Alik_Bljk_..., Custom_Cijk_...
      {"*cijk_", "gemm"},
      // torch.compile's Triton kernels: template (matmul), pointwise, reductions.
      {"triton_tem", "triton_gemm"},
      {"triton_poi", "triton_pointwise"},
      {"triton_red", "triton_reduction"},
      {"triton_per", "triton_reduction"},
      {"triton_", "triton"},
      // Mixture-of-experts routing and grouped GEMMs (vLLM fused_moe, topkGatingSoftmax).
      {"*moe", "moe"},
      {"*topkgating", "moe"},
      // MoE routing of triton_kernels (vLLM's gpt-oss path on ROCm).
      {"*routing", "moe"},
      {"*bitmatrix", "moe"},
      // KV-cache writes and index building (vLLM reshape_and_cache_flash, SGLang
      // store_kvcache, FlashInfer's kv_indices), before attention's "flash".
      {"*reshape_and_cache", "kv_cache"},
      {"*kvcache", "kv_cache"},
      {"*kv_cache", "kv_cache"},
      {"*kv_indices", "index"},
      // Attention: FlashAttention, xformers/PyTorch fmha, paged attention, CK's fused
      // batched GEMM-softmax-GEMM.
      {"*gemm_softmax_gemm", "attention"},
      {"*flash", "attention"},
      {"*fmha", "attention"},
      {"*attention", "attention"},
      {"*attn", "attention"},
      // Collectives (before reductions: allreduce contains "reduce").
      {"nccl", "communication"},
      {"rccl", "communication"},
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
      {"bmm", "gemm"},
      // Normalisation (RowwiseMoments is LayerNorm's statistics kernel).
      {"*layer_norm", "norm"},
      {"*layernorm", "norm"},
      {"*rms_norm", "norm"},
      {"*rmsnorm", "norm"},
      {"*group_norm", "norm"},
      {"*groupnorm", "norm"},
      {"*batch_norm", "norm"},
      {"*batchnorm", "norm"},
      {"*rowwisemoments", "norm"},
      {"*gammabeta", "norm"},
      {"bn_fw", "norm"},
      {"bn_bw", "norm"},
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
      {"*scan", "reduction"},
      // Convolutions and pooling: MIOpen (MIOpenConv*, miopenSp3AsmConv*, naive_conv_*),
      // cuDNN.
      {"*convolution", "convolution"},
      {"*convolve", "convolution"},
      {"*miopenconv", "convolution"},
      {"*asmconv", "convolution"},
      {"*naive_conv", "convolution"},
      {"*conv2d", "convolution"},
      {"*winograd", "convolution"},
      {"cudnn", "convolution"},
      {"dgrad", "convolution"},
      {"wgrad", "convolution"},
      {"*pooling", "pooling"},
      {"*max_pool", "pooling"},
      {"*avg_pool", "pooling"},
      {"*average_pool", "pooling"},
      // Layout transforms (cuDNN's NCHW <-> NHWC) are copies.
      {"*nchwtonhwc", "copy"},
      {"*nhwctonchw", "copy"},
      // Indexing before elementwise: index_elementwise_kernel is aten::index.
      {"*index", "index"},
      {"*gather", "index"},
      {"*permute", "index"},
      {"*bounds_check", "index"},
      {"*scatter", "index"},
      {"*elementwise", "elementwise"},
      {"*multi_tensor_apply", "elementwise"},
      {"*dropout", "elementwise"},
      {"*pointwise", "elementwise"},
      {"*copy", "copy"},
      {"*embedding", "embedding"},
      {"*quant", "quantization"},
      // XLA's fusion kernels (JAX, TensorFlow): a kLoop fusion is elementwise work and a
      // kInput fusion a reduction (those holding "reduce" matched above); "wrapped_" is
      // one elementwise op XLA wraps to launch on its own. Last, so that a fusion named
      // after its op (gemm_fusion_dot, ..._softmax_...) keeps that op's family.
      {"loop_", "elementwise"},
      {"input_", "reduction"},
      {"wrapped_", "elementwise"},
  };
  return t;
}

namespace detail {

FamilyMatcher::FamilyMatcher(const KernelFamilyTable& table) : table_(table) {
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
  return KernelFamily(table_, short_name);
}

}  // namespace detail

std::string CudaKernelFamily(const KernelFamilyTable& table, std::string_view kernel_name) {
  return detail::FamilyMatcher(table).FamilyOfShortName(CanonicalKernelName(kernel_name));
}

}  // namespace perfgate::attribution
