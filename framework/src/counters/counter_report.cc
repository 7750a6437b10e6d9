// The counter-report reader: one pass over the lines, a report opened by each `# ====`
// header block (or, for the first, by the file's first values).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "core/text_input.h"
#include "perfgate/core/names.h"
#include "perfgate/counters/report.h"
#include "string_util.h"

namespace perfgate::counters {
namespace {

// `# ====...`: a rule that opens or closes a report's header block.
bool IsRule(std::string_view comment_text) {
  comment_text = TrimSpace(comment_text);
  if (comment_text.size() < 4) return false;
  for (char c : comment_text) {
    if (c != '=') return false;
  }
  return true;
}

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

bool IsDigits(std::string_view s, size_t* i) {
  const size_t start = *i;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9') ++*i;
  return *i > start;
}

// The number grammar: [+-]digits[.digits][(e|E)[+-]digits]. Sets *integer when the
// text has neither fraction nor exponent.
bool IsNumberText(std::string_view s, bool* integer) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  if (!IsDigits(s, &i)) return false;
  *integer = true;
  if (i < s.size() && s[i] == '.') {
    ++i;
    *integer = false;
    if (!IsDigits(s, &i)) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    *integer = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!IsDigits(s, &i)) return false;
  }
  return i == s.size();
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  StatusOr<CounterHistory> Run() {
    size_t pos = 0;
    while (pos < text_.size()) {
      ++line_;
      const size_t end = std::min(text_.find('\n', pos), text_.size());
      if (Status s = Line(text_.substr(pos, end - pos)); !s.ok()) return s;
      pos = end + 1;
    }
    if (in_header_) {
      return Status::Error("counters.unclosed_header", "the file ends inside a '# ====' header block (opened at line " +
                                                           std::to_string(current_.location.line) + ")",
                           At(current_.location.line));
    }
    if (Status s = Close(); !s.ok()) return s;
    if (history_.reports.empty()) {
      return Status::Error("counters.no_values", "no `key: value` line: a counter report holds at least one value",
                           At(1));
    }
    history_.path = path_;
    return std::move(history_);
  }

 private:
  SourceLocation At(int line, int column = 1) const { return SourceLocation{path_, line, column}; }

  Status Line(std::string_view raw) {
    const std::string_view line = TrimSpace(raw);
    if (line.empty()) {
      paragraph_.clear();
      return Status();
    }
    if (line.front() == '#') return Comment(line.substr(1));
    if (in_header_) {
      return Status::Error("counters.unclosed_header",
                           "a value inside the '# ====' header block opened at line " +
                               std::to_string(current_.location.line) + " (close it with a '# ====' line)",
                           At(line_));
    }
    Status s = Value(raw, line);
    paragraph_.clear();
    return s;
  }

  Status Comment(std::string_view text) {
    const std::string t(TrimSpace(text));
    if (IsRule(t)) {
      paragraph_.clear();
      if (in_header_) {
        in_header_ = false;
        return Status();
      }
      PERFGATE_RETURN_IF_ERROR(Close());
      current_.location = At(line_);
      opened_by_rule_ = true;
      in_header_ = true;
      return Status();
    }
    if (in_header_) {
      current_.header.push_back(t);
    } else {
      if (paragraph_.empty()) paragraph_line_ = line_;
      paragraph_.push_back(t);
    }
    return Status();
  }

  // Starts a report titled by the comment paragraph directly above its first value.
  void OpenAtParagraph() {
    current_.header = paragraph_;
    current_.location = At(paragraph_.empty() ? line_ : paragraph_line_);
  }

  Status Value(std::string_view raw, std::string_view line) {
    const int column = static_cast<int>(line.data() - raw.data()) + 1;
    const size_t colon = line.find(':');
    size_t key_end = 0;
    while (key_end < line.size() && IsKeyChar(line[key_end])) ++key_end;
    if (colon == std::string_view::npos || key_end == 0 || key_end != colon) {
      return Status::Error("counters.bad_line",
                           "expected `key: value`, a `#` comment or a blank line, got '" + std::string(line) + "'",
                           At(line_, column));
    }
    const std::string key(line.substr(0, colon));
    const std::string_view value = TrimSpace(line.substr(colon + 1));
    if (value.empty()) {
      return Status::Error("counters.bad_line", "'" + key + ":' has no value", At(line_, column));
    }
    if (keys_.count(key) != 0) {
      if (paragraph_.empty()) {
        return Status::Error("counters.duplicate_key",
                             "'" + key + "' given twice in one report (first at line " +
                                 std::to_string(FirstLine(key)) +
                                 "); a new report starts at a '# ====' header or at a comment paragraph directly "
                                 "above its first value",
                             At(line_, column));
      }
      PERFGATE_RETURN_IF_ERROR(Close());
      OpenAtParagraph();
    } else if (current_.values.empty() && !opened_by_rule_) {
      OpenAtParagraph();
    }
    // A value is text a person reads: a control byte (NUL, ESC) in it is no counter's.
    for (size_t i = 0; i < value.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(value[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return Status::Error("counters.bad_line", "the value of '" + key + "' holds a control byte",
                             At(line_, column + static_cast<int>(value.data() + i - line.data())));
      }
    }
    keys_.insert(key);
    CounterValue v;
    v.key = key;
    v.text = std::string(value);
    v.location = At(line_, column);
    bool integer = false;
    if (IsNumberText(value, &integer)) {
      const std::string s(value.front() == '+' ? value.substr(1) : value);
      double d = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) {
        return Status::Error("counters.bad_number", "'" + key + ": " + v.text + "' is beyond the range of a double",
                             At(line_, column + static_cast<int>(value.data() - line.data())));
      }
      v.number = d;
      v.is_integer = integer;
    }
    current_.values.push_back(std::move(v));
    return Status();
  }

  int FirstLine(const std::string& key) const {
    for (const CounterValue& v : current_.values) {
      if (v.key == key) return v.location.line;
    }
    return 0;
  }

  // Ends the report being read: one opened by a header with no values under it is
  // an error; comments before any value and before any header are the file's preamble.
  Status Close() {
    if (current_.values.empty()) {
      if (opened_by_rule_) {
        return Status::Error("counters.empty_report", "the report '" + TitleOf(current_.header) +
                                                          "' has no `key: value` line",
                             current_.location);
      }
    } else {
      current_.title = TitleOf(current_.header);
      history_.reports.push_back(std::move(current_));
    }
    current_ = CounterReport{};
    opened_by_rule_ = false;
    keys_.clear();
    return Status();
  }

  static std::string TitleOf(const std::vector<std::string>& header) {
    for (const std::string& line : header) {
      if (!line.empty()) return line;
    }
    return "";
  }

  std::string_view text_;
  const std::string& path_;
  int line_ = 0;
  bool in_header_ = false;
  bool opened_by_rule_ = false;       // the current report was opened by a '# ====' block
  std::vector<std::string> paragraph_;  // the comment lines since the last blank line or value
  int paragraph_line_ = 0;
  std::set<std::string> keys_;
  CounterReport current_;
  CounterHistory history_;
};

}  // namespace

const CounterValue* CounterReport::Find(std::string_view key) const {
  for (const CounterValue& v : values) {
    if (v.key == key) return &v;
  }
  return nullptr;
}

std::vector<std::string> CounterReport::Keys() const {
  std::vector<std::string> keys;
  for (const CounterValue& v : values) keys.push_back(v.key);
  return keys;
}

StatusOr<CounterHistory> ParseCounterHistory(std::string_view text, const std::string& path) {
  if (const size_t bad = internal::FindInvalidUtf8(text); bad != std::string_view::npos) {
    return Status::Error("counters.bad_utf8", "the file is not valid UTF-8",
                         internal::LineIndex(text).Locate(path, bad));
  }
  // A UTF-8 byte order mark (Windows editors write one) is no part of the first key.
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  return Parser(text, path).Run();
}

StatusOr<CounterHistory> ReadCounterHistory(const std::string& path) {
  auto text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseCounterHistory(*text, path);
}

StatusOr<CounterReport> ReadCounterReport(const std::string& path) {
  auto history = ReadCounterHistory(path);
  if (!history.ok()) return history.status();
  if (history->reports.size() != 1) {
    return Status::Error("counters.history_in_trial",
                         "a trial's counter report holds one report; this file holds " +
                             std::to_string(history->reports.size()) + " (a history: read it with `perfgate history`)",
                         history->reports[1].location);
  }
  return std::move(history->reports.front());
}

std::vector<std::string> KnownKeys(const CounterHistory& history) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const CounterReport& r : history.reports) {
    for (const CounterValue& v : r.values) {
      if (seen.insert(v.key).second) keys.push_back(v.key);
    }
  }
  return keys;
}

StatusOr<std::vector<std::string>> ChooseCounters(const CounterHistory& history, std::vector<std::string> names) {
  if (names.empty()) names = {"median_tok_per_sec", "dispatches_per_token"};
  const std::vector<std::string> known = KnownKeys(history);
  for (const std::string& name : names) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return Status::Error("counters.unknown_counter",
                         "no report of " + history.path + " holds the counter '" + name + "' (keys: " +
                             ListNames(known) + ")",
                         {history.path}, ErrorKind::kUsage);
  }
  return names;
}

}  // namespace perfgate::counters
