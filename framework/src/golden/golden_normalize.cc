// NormalizeForGolden: the one function that makes recorded text (context values,
// reports) stable across machines and days, by replacing absolute roots, dates and
// clock times with placeholders.
#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "perfgate/golden/golden.h"

namespace perfgate::golden {
namespace {

bool IsPathChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.' || c == '~' ||
         c == '+' || c == '@' || c == '%' || c == '/';
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string ReplaceRoots(const std::string& text, std::vector<std::pair<std::string, std::string>> roots) {
  for (auto& [root, _] : roots) {
    while (root.size() > 1 && root.back() == '/') root.pop_back();
  }
  roots.erase(std::remove_if(roots.begin(), roots.end(),
                             [](const auto& r) { return r.first.empty() || r.first == "/"; }),
              roots.end());
  // Longer roots first, so a build directory inside the source root keeps its own
  // placeholder.
  std::stable_sort(roots.begin(), roots.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  if (roots.empty()) return text;

  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    const bool starts_path =
        i == 0 || !IsPathChar(text[i - 1]) || (i >= 7 && text.compare(i - 7, 7, "file://") == 0);
    if (starts_path) {
      for (const auto& [root, placeholder] : roots) {
        if (text.compare(i, root.size(), root) != 0) continue;
        const size_t end = i + root.size();
        if (end < text.size() && text[end] != '/' && IsPathChar(text[end])) continue;  // "/a/bc" vs "/a/b"
        out += placeholder;
        i = end;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

// Two digits at `i` forming a number in [lo, hi].
bool TwoDigits(const std::string& s, size_t i, int lo, int hi) {
  if (i + 2 > s.size() || !IsDigit(s[i]) || !IsDigit(s[i + 1])) return false;
  const int v = (s[i] - '0') * 10 + (s[i + 1] - '0');
  return v >= lo && v <= hi;
}

// "YYYY-MM-DD" at `i`: its length (10) or 0.
size_t MatchDate(const std::string& s, size_t i) {
  if (i + 10 > s.size()) return 0;
  for (size_t k = 0; k < 4; ++k) {
    if (!IsDigit(s[i + k])) return 0;
  }
  if (s[i + 4] != '-' || !TwoDigits(s, i + 5, 1, 12) || s[i + 7] != '-' || !TwoDigits(s, i + 8, 1, 31)) return 0;
  return 10;
}

// "HH:MM", then ":SS" (required when `need_seconds`) and ".fff": the length or 0.
size_t MatchClock(const std::string& s, size_t i, bool need_seconds) {
  if (!TwoDigits(s, i, 0, 23) || i + 2 >= s.size() || s[i + 2] != ':' || !TwoDigits(s, i + 3, 0, 59)) return 0;
  size_t n = 5;
  if (i + n < s.size() && s[i + n] == ':' && TwoDigits(s, i + n + 1, 0, 60)) {
    n += 3;
    if (i + n + 1 < s.size() && s[i + n] == '.' && IsDigit(s[i + n + 1])) {
      n += 1;
      while (i + n < s.size() && IsDigit(s[i + n])) ++n;
    }
  } else if (need_seconds) {
    return 0;
  }
  return n;
}

// "Z", "+HH:MM", "-HHMM" at `i`: the length or 0.
size_t MatchOffset(const std::string& s, size_t i) {
  if (i >= s.size()) return 0;
  if (s[i] == 'Z') return 1;
  if (s[i] != '+' && s[i] != '-') return 0;
  if (!TwoDigits(s, i + 1, 0, 23)) return 0;
  size_t n = 3;
  if (i + n < s.size() && s[i + n] == ':') ++n;
  return TwoDigits(s, i + n, 0, 59) ? n + 2 : 0;
}

// At each position a date-time is tried first, then a date, then a clock time.
std::string ReplaceDates(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  auto digit_at = [&](size_t k) { return k < s.size() && IsDigit(s[k]); };
  size_t i = 0;
  while (i < s.size()) {
    const char before = i > 0 ? s[i - 1] : ' ';
    if (!IsDigit(before)) {
      if (size_t d = MatchDate(s, i)) {
        if (i + d < s.size() && (s[i + d] == 'T' || s[i + d] == ' ')) {
          if (size_t c = MatchClock(s, i + d + 1, false)) {
            size_t n = d + 1 + c;
            n += MatchOffset(s, i + n);
            if (!digit_at(i + n)) {
              out += "<DATETIME>";
              i += n;
              continue;
            }
          }
        }
        if (!digit_at(i + d)) {
          out += "<DATE>";
          i += d;
          continue;
        }
      }
      if (before != ':' && before != '.') {
        if (size_t c = MatchClock(s, i, true)) {
          if (!digit_at(i + c) && !(i + c < s.size() && s[i + c] == ':')) {
            out += "<TIME>";
            i += c;
            continue;
          }
        }
      }
    }
    out += s[i++];
  }
  return out;
}

}  // namespace

std::string NormalizeForGolden(std::string text, const NormalizeOptions& options) {
  if (!options.roots.empty()) text = ReplaceRoots(text, options.roots);
  if (options.dates) text = ReplaceDates(text);
  return text;
}

}  // namespace perfgate::golden
