// Text cells every report shares: UTF-8-aware width, padding and truncation, number
// formats (fixed, signed, percent, p-values, the shortest round-trip double), and
// escaping for Markdown and XML. Plain functions of strings and numbers: nothing here
// knows a summary, a source or a report.
#ifndef PERFGATE_SRC_CORE_TEXT_CELLS_H_
#define PERFGATE_SRC_CORE_TEXT_CELLS_H_

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::text {

// Columns a UTF-8 string occupies: one per code point (no wide characters expected).
inline size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

// `s` cut to at most `width` columns, ending in "…" when cut; never splits a code point.
inline std::string Truncate(std::string_view s, size_t width) {
  if (DisplayWidth(s) <= width) return std::string(s);
  if (width == 0) return "";
  std::string out;
  size_t cols = 0;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0xF0)
      len = 4;
    else if (c >= 0xE0)
      len = 3;
    else if (c >= 0xC0)
      len = 2;
    if (cols + 1 > width - 1) break;
    out.append(s.substr(i, len));
    ++cols;
    i += len;
  }
  return out + "\xE2\x80\xA6";  // …
}

// The byte offset where column `col` of `s` starts (s.size() past its end).
inline size_t ByteOfColumn(std::string_view s, size_t col) {
  size_t code_point = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (code_point++ == col) return i;
  }
  return s.size();
}

// `s` cut to at most `width` columns by an ellipsis in the middle, keeping the end
// where names that share a long prefix differ (triton_poi_fused_…_view_5).
inline std::string TruncateMiddle(std::string_view s, size_t width) {
  const size_t n = DisplayWidth(s);
  if (n <= width) return std::string(s);
  if (width < 8) return Truncate(s, width);
  const size_t tail = std::min<size_t>(16, (width - 1) / 2);
  return Truncate(s, width - tail) + std::string(s.substr(ByteOfColumn(s, n - tail)));
}

// `text` in lines of at most `first` columns (the first line) and `rest` (the others,
// at least 1), broken at spaces; a word wider than a line (a kernel name) is broken
// where the line ends rather than cut, so that nothing is lost.
inline std::vector<std::string> WrapLines(std::string_view text, size_t first, size_t rest) {
  std::vector<std::string> lines(1);
  size_t room = first;
  auto next_line = [&] {
    lines.emplace_back();
    room = std::max<size_t>(rest, 1);
  };
  for (size_t i = 0; i <= text.size();) {
    const size_t end = std::min(text.find(' ', i), text.size());
    std::string_view word = text.substr(i, end - i);
    i = end + 1;
    if (word.empty()) continue;
    const size_t gap = lines.back().empty() ? 0 : 1;
    if (DisplayWidth(lines.back()) + gap + DisplayWidth(word) > room && !lines.back().empty()) next_line();
    while (DisplayWidth(word) > room) {
      const size_t cut = ByteOfColumn(word, room);
      lines.back() += std::string(word.substr(0, cut));
      word.remove_prefix(cut);
      next_line();
    }
    lines.back() += (lines.back().empty() ? "" : " ") + std::string(word);
  }
  return lines;
}

// Right-aligned in `width` columns (never truncated: numbers must stay whole).
inline std::string Right(std::string_view s, size_t width) {
  size_t w = DisplayWidth(s);
  return std::string(w < width ? width - w : 0, ' ') + std::string(s);
}

// Left-aligned in exactly `width` columns, truncated with an ellipsis when longer.
inline std::string Left(std::string_view s, size_t width) {
  std::string t = Truncate(s, width);
  return t + std::string(width - DisplayWidth(t), ' ');
}

// `s` centred in `width` columns filled with `fill`.
inline std::string Center(std::string_view s, size_t width, char fill) {
  std::string t = Truncate(s, width);
  size_t w = DisplayWidth(t);
  size_t left = (width - w) / 2;
  return std::string(left, fill) + t + std::string(width - w - left, fill);
}

// printf("%.*f"), with a negative zero printed without its sign.
inline std::string Fixed(double v, int precision) {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  std::string s = buf;
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

// printf("%+.*f"): always signed, "+0.0" rather than "-0.0".
inline std::string Signed(double v, int precision) {
  std::string s = Fixed(v, precision);
  if (s == "n/a") return s;
  return s[0] == '-' ? s : "+" + s;
}

// A signed percentage ("+8.9%"), or "n/a".
inline std::string Percent(std::optional<double> pct, int precision = 1) {
  if (!pct || !std::isfinite(*pct)) return "n/a";
  return Signed(*pct, precision) + "%";
}

// Δ as a percentage of `base`, nullopt when the base is 0.
inline std::optional<double> PercentOf(double delta, double base) {
  if (base == 0) return std::nullopt;
  return delta / base * 100.0;
}

// A p-value: "0.008", or "<0.001".
inline std::string PValue(double p) {
  if (!std::isfinite(p)) return "n/a";
  if (p < 0.001) return "<0.001";
  return Fixed(p, 3);
}

// The shortest decimal text that reads back (strtod, any JSON parser) as exactly `v`:
// std::to_chars' shortest round-trip digits, laid out as nlohmann::json lays out a
// double (plain decimal while the decimal point is within 15 digits of the first digit
// and at most 4 places after it, "d.ddde+XX" otherwise, ".0" appended to an integral
// value so that it stays a floating-point number). "null" for NaN and infinities.
// nlohmann's own Grisu2 output always round-trips but is one digit longer than
// needed for a few values in ten thousand (139.0790393380626 -> 139.07903933806261).
inline std::string ShortestDouble(double v) {
  if (!std::isfinite(v)) return "null";
  char sci[64];
  const auto res = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  std::string_view text(sci, static_cast<size_t>(res.ptr - sci));  // [-]d[.ddd]e(+|-)XX
  std::string out;
  if (text.front() == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;  // v = 0.digits x 10^n
  constexpr int kMinExp = -4, kMaxExp = 15;
  if (k <= n && n <= kMaxExp) {
    out += digits + std::string(static_cast<size_t>(n - k), '0') + ".0";
  } else if (0 < n && n <= kMaxExp) {
    out += digits.substr(0, static_cast<size_t>(n)) + "." + digits.substr(static_cast<size_t>(n));
  } else if (kMinExp < n && n <= 0) {
    out += "0." + std::string(static_cast<size_t>(-n), '0') + digits;
  } else {
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    const int x = n - 1;  // |x| <= 324
    out += x < 0 ? "e-" : "e+";
    out += (std::abs(x) < 10 ? "0" : "") + std::to_string(std::abs(x));
  }
  return out;
}

// Text in a Markdown table cell: pipes escaped and line breaks as spaces, so the row
// keeps its columns.
inline std::string MarkdownCell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// A name as inline code; pipes stay escaped so tables keep their columns.
// Plain text in Markdown prose (a paragraph, a list item, a heading): the characters
// that would format it backslash-escaped ("#" only where it would open a heading), a
// line break a space.
inline std::string MarkdownText(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\`*_[]<>|").find(c) != std::string_view::npos || (c == '#' && out.empty())) out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

inline std::string MarkdownCode(std::string_view s) {
  std::string out = "`";
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '`')
      out += '\'';
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out + "`";
}


// The last component of a path ("a/b/trial-1/" -> "trial-1").
inline std::string BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// An SVG coordinate or length: one decimal, as every chart perfgate draws writes them.
inline std::string Px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Escapes the five XML special characters.
inline std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace perfgate::text

#endif  // PERFGATE_SRC_CORE_TEXT_CELLS_H_
