// Engine counter reports: what an engine counts about itself (hf2q's
// `generate --benchmark` writes one), as `key: value` lines with `#` comments.
//
// A file may hold a history of reports. A report opens at a `# ====` header block
// (comment lines between two `# ====` rules), or at the comment lines directly above
// its first value (since the last blank line or value): above the file's first value,
// or above a value whose key the report being read already holds (hf2q's
// history has reports of both kinds). Its title is the first line of that comment. Values keep their text exactly; a value that reads
// as a number (sign, digits, optional fraction and exponent) also keeps its double
// and whether it is an integer. Other values (model, hardware) are text. Every key is
// kept, known or not.
#ifndef PERFGATE_COUNTERS_REPORT_H_
#define PERFGATE_COUNTERS_REPORT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::counters {

// One `key: value` line.
struct CounterValue {
  std::string key;
  std::string text;               // the value exactly as written (trimmed)
  std::optional<double> number;   // when the text is a number
  bool is_integer = false;        // the text is an integer ("127", not "1.00")
  SourceLocation location;        // of the key
};

// One report: its title, every comment line of its header, and its values in file order.
struct CounterReport {
  std::string title;                 // first line of the comment text above the report
  std::vector<std::string> header;   // every comment line of that text
  SourceLocation location;           // where the report (its header) starts
  std::vector<CounterValue> values;

  // The value of `key`, or nullptr.
  const CounterValue* Find(std::string_view key) const;
  // Every key, in file order.
  std::vector<std::string> Keys() const;
};

// A file of one or more reports, in file order.
struct CounterHistory {
  std::string path;
  std::vector<CounterReport> reports;
};

// Parses `text` (read from `path`, for locations). Errors (at path:line:col):
// counters.bad_utf8, counters.bad_line (not a comment, blank or `key: value`),
// counters.duplicate_key (a key twice in one report, with no comment paragraph
// directly above the second to open a new report), counters.unclosed_header (a
// `# ====` block that values or the end of file interrupt), counters.empty_report (a
// header with no values under it), counters.no_values (no values in the file),
// counters.bad_number (a number beyond the range of a double).
StatusOr<CounterHistory> ParseCounterHistory(std::string_view text, const std::string& path);

// Reads and parses a file (io.* errors as the other readers).
StatusOr<CounterHistory> ReadCounterHistory(const std::string& path);

// Reads a file that must hold one report (a trial's counters.txt): a history is an
// error (counters.history_in_trial, naming how many reports it holds).
StatusOr<CounterReport> ReadCounterReport(const std::string& path);

// Every key of the history, in order of first appearance.
std::vector<std::string> KnownKeys(const CounterHistory& history);

// The counters to show from `history`: `names` (empty: median_tok_per_sec and
// dispatches_per_token, hf2q's tok/s and dispatches/token), each held by at least
// one report; an unknown name is an error (counters.unknown_counter) listing the
// known keys.
StatusOr<std::vector<std::string>> ChooseCounters(const CounterHistory& history, std::vector<std::string> names);

}  // namespace perfgate::counters

#endif  // PERFGATE_COUNTERS_REPORT_H_
