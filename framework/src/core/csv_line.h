// One line of CSV (RFC 4180 without line breaks inside fields), as the hand-read
// table formats write it: llama-bench's CSV, `nsys stats --format csv`.
#ifndef PERFGATE_SRC_CORE_CSV_LINE_H_
#define PERFGATE_SRC_CORE_CSV_LINE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::internal {

// The fields of one line: comma-separated, a quoted field may hold commas and doubled
// quotes, a CR is dropped; none when a quote is left open.
inline std::optional<std::vector<std::string>> CsvFields(std::string_view line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') {
        out.back() += c;
      } else if (i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  if (quoted) return std::nullopt;
  return out;
}

}  // namespace perfgate::internal

#endif  // PERFGATE_SRC_CORE_CSV_LINE_H_
