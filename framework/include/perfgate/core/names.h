// Listing names in messages: a lookup that fails on an unknown name lists the known
// ones, and every such list reads alike.
#ifndef PERFGATE_CORE_NAMES_H_
#define PERFGATE_CORE_NAMES_H_

#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

// "a, b, c" in the order given; `none` when there are no names.
inline std::string ListNames(const std::vector<std::string>& names, std::string_view none = "none") {
  if (names.empty()) return std::string(none);
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace perfgate

#endif  // PERFGATE_CORE_NAMES_H_
