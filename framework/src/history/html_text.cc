// The history page's text forms: escaping, commits, numbers, units and directions.
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/text_cells.h"
#include "history/html_parts.h"

namespace perfgate::history::html {
namespace {

constexpr const char kReplacementChar[] = "\xEF\xBF\xBD";  // U+FFFD

// The length of the well-formed UTF-8 sequence that starts `text` at `at` (RFC 3629:
// no overlong forms, no surrogates, nothing past U+10FFFF), or 0 when there is none.
size_t Utf8SequenceLength(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  size_t length = 0;
  unsigned char second_min = 0x80, second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < second_min || byte(at + 1) > second_max) return 0;
  for (size_t i = 2; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
  }
  return length;
}

void AppendEscapedAscii(char c, std::string* out) {
  switch (c) {
    case '&': *out += "&amp;"; break;
    case '<': *out += "&lt;"; break;
    case '>': *out += "&gt;"; break;
    case '"': *out += "&quot;"; break;
    case '\'': *out += "&#39;"; break;
    default:
      // A control character would end up in an attribute or a tooltip unseen.
      *out += (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7F ? ' ' : c;
  }
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Spaced(std::string word) {
  for (char& c : word) {
    if (c == '_') c = ' ';
  }
  return word;
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t at = 0; at < text.size();) {
    if (static_cast<unsigned char>(text[at]) < 0x80) {
      AppendEscapedAscii(text[at], &out);
      ++at;
    } else if (const size_t length = Utf8SequenceLength(text, at); length > 0) {
      out.append(text.substr(at, length));
      at += length;
    } else {
      out += kReplacementChar;
      ++at;
    }
  }
  return out;
}

std::string ShortCommit(const std::string& commit) {
  constexpr size_t kShortLength = 12;
  if (commit.empty()) return "(none)";
  if (commit.size() <= kShortLength) return commit;
  size_t end = kShortLength;
  while (end > 0 && (static_cast<unsigned char>(commit[end]) & 0xC0) == 0x80) --end;
  return commit.substr(0, end);
}

std::string FormatValue(double value) {
  if (!std::isfinite(value)) return "n/a";
  if (value == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = magnitude >= 3 ? 0 : magnitude <= -6 ? 9 : 3 - magnitude;
  return text::Fixed(value, decimals);
}

std::string FormatMagnitude(const ChangePoint& point) {
  if (point.mean_before == 0) return "n/a";
  return text::Percent(point.Magnitude() * 100.0, 1);
}

std::string UnitReading(const std::string& metric) {
  const size_t slash = metric.rfind('/');
  const std::string quantity = slash == std::string::npos ? metric : metric.substr(slash + 1);
  if (metric.rfind("kernel_families/", 0) == 0) return "kernels";
  if (EndsWith(quantity, "us_per_token")) return "\xC2\xB5s/token";
  if (quantity == "cbs_per_token") return "command buffers/token";
  if (EndsWith(quantity, "_per_token")) return Spaced(quantity.substr(0, quantity.size() - 10)) + "/token";
  if (EndsWith(quantity, "_per_sec")) return Spaced(quantity.substr(0, quantity.size() - 8)) + "/s";
  if (EndsWith(quantity, "_ns")) return "ns";
  if (EndsWith(quantity, "_us")) return "\xC2\xB5s";
  if (EndsWith(quantity, "_ms")) return "ms";
  if (EndsWith(quantity, "_pct")) return "%";
  if (quantity == "ratio") return "ratio";
  return "";
}

std::string DirectionReading(Worse worse) {
  switch (worse) {
    case Worse::kUp: return "lower is better";
    case Worse::kDown: return "higher is better";
    case Worse::kBoth: return "any change is flagged";
  }
  return "any change is flagged";
}

const char* ChangeColour(const Change& change) { return change.worse ? kWorseColour : kBetterColour; }

std::string DirectionName(const Change& change) {
  return change.direction.empty() ? (change.worse ? "worse" : "better") : change.direction;
}

std::string DirectionWord(const Change& change) {
  std::string word = DirectionName(change);
  word[0] = static_cast<char>(word[0] - 'a' + 'A');
  return word;
}

}  // namespace perfgate::history::html
