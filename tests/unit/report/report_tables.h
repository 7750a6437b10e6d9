// Reading back the tables of a rendered report in the report tests: a text report's
// lines, and the rows of one of its tables.
#ifndef PERFGATE_TESTS_UNIT_REPORT_REPORT_TABLES_H_
#define PERFGATE_TESTS_UNIT_REPORT_REPORT_TABLES_H_

#include <string>
#include <vector>

namespace perfgate::testing_support {

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return lines;
}

// The lines of a text table: from the line after the rule under `header` to the next
// rule (the totals') or the blank line after the table.
inline std::vector<std::string> TableRows(const std::string& text, const std::string& header) {
  std::vector<std::string> rows;
  size_t at = text.find("\n" + header);
  if (at == std::string::npos) return rows;
  at = text.find('\n', text.find('\n', at + 1) + 1) + 1;  // past the header and its rule
  while (at < text.size() && text[at] != '-' && text[at] != '\n') {
    const size_t end = text.find('\n', at);
    rows.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return rows;
}

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_UNIT_REPORT_REPORT_TABLES_H_
