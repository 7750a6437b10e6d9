// A kernel-family table prepared for matching many names (the attribution of kernel
// work and CudaKernelFamily), exposed to its unit tests.
#ifndef PERFGATE_SRC_ATTRIBUTION_FAMILY_MATCHER_H_
#define PERFGATE_SRC_ATTRIBUTION_FAMILY_MATCHER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/attribution/options.h"

namespace perfgate::attribution::detail {

// A kernel-family table prepared for matching many names: rules "*text" match short
// names containing text (ASCII case-insensitive), other rules match a prefix after
// strip_prefix; no match falls back to KernelFamily.
class FamilyMatcher {
 public:
  explicit FamilyMatcher(const KernelFamilyTable& table);
  std::string FamilyOfShortName(const std::string& short_name) const;

 private:
  // Prefix rules live in a trie walked once per name, so a lookup costs the name's
  // length, not the number of rules; each node keeps the first rule (in table order)
  // whose text ends there. Contains rules are tried in order, only those before the
  // first matching prefix rule.
  struct TrieNode {
    std::vector<std::pair<char, uint32_t>> children;  // sorted by byte
    size_t first_rule = SIZE_MAX;
  };
  struct ContainsRule {
    size_t index;      // its place in the table
    std::string text;  // lowercased
  };
  size_t FirstPrefixRule(std::string_view body) const;
  void AddPrefixRule(const std::string& text, size_t index);

  KernelFamilyTable table_;
  std::vector<TrieNode> trie_{1};  // trie_[0] is the root
  std::vector<ContainsRule> contains_;
};

}  // namespace perfgate::attribution::detail

#endif  // PERFGATE_SRC_ATTRIBUTION_FAMILY_MATCHER_H_
