// Small string helpers shared by perfgate's private code (one definition each, rather
// than a copy per file).
#ifndef PERFGATE_CORE_STRING_UTIL_H_
#define PERFGATE_CORE_STRING_UTIL_H_

#include <string_view>
#include <vector>

namespace perfgate {

// `s` without its leading and trailing ASCII white space (space, \t, \n, \v, \f, \r).
inline std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const size_t begin = s.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kSpace) - begin + 1);
}

// True when `s` begins with `prefix`.
inline bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// True when `s` ends with `suffix`.
inline bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The pieces of `s` between each `sep`, empty ones kept: "a,,b" gives {"a", "", "b"}
// and "" gives {""}.
inline std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

}  // namespace perfgate

#endif  // PERFGATE_CORE_STRING_UTIL_H_
