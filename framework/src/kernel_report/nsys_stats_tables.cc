// The tables of `nsys stats` text (nsys_stats.h): each report's name from the lines
// nsys prints before it, then its header and rows, as a column table (cut where the
// dashes under the header start) or as CSV.
#include <optional>
#include <string>
#include <utility>

#include "core/csv_line.h"
#include "core/string_util.h"
#include "core/text_cells.h"
#include "kernel_report/nsys_stats.h"

namespace perfgate::kernel_report::nsys_stats {
namespace {

// The report names of the titles nsys 2021 printed ("CUDA Kernel Statistics
// (nanoseconds)"), by a piece of the title.
constexpr std::pair<std::string_view, std::string_view> kOldTitles[] = {
    {"CUDA Kernel Statistics", "cuda_gpu_kern_sum"},
    {"CUDA API Statistics", "cuda_api_sum"},
    {"CUDA Memory Operation Statistics (by time", "cuda_gpu_mem_time_sum"},
    {"CUDA Memory Operation Statistics (by size", "cuda_gpu_mem_size_sum"},
    {"NVTX Push-Pop Range Statistics", "nvtx_sum"},
    {"NVTX Range Statistics", "nvtx_sum"},
    {"Operating System Runtime API Statistics", "osrt_sum"},
};

// The text between `open` and the next `close` after it, "" without both.
std::string_view Between(std::string_view line, std::string_view open, char close, size_t from = 0) {
  const size_t a = line.find(open, from);
  if (a == std::string_view::npos) return {};
  const size_t b = line.find(close, a + open.size());
  return b == std::string_view::npos ? std::string_view() : line.substr(a + open.size(), b - a - open.size());
}

// The report a line announces: " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):",
// "[6/8] Executing 'cuda_gpu_kern_sum' stats report", "Processing [x.sqlite] with
// [/.../reports/cuda_gpu_kern_sum.py]...", or an old title; "" for any other line.
std::string ReportNamed(std::string_view line, std::string* unit) {
  const std::string_view t = TrimSpace(line);
  if (StartsWith(t, "** ") && t.back() == ':') {
    const size_t open = t.rfind('(');
    if (open != std::string_view::npos) return std::string(Between(t, "(", ')', open));
  }
  if (t.find("Executing '") != std::string_view::npos) return std::string(Between(t, "Executing '", '\''));
  if (StartsWith(t, "Processing [")) {
    std::string_view script = Between(t, "] with [", ']');
    script = script.substr(script.find_last_of("/\\") + 1);
    return std::string(script.substr(0, script.rfind(".py")));
  }
  for (const auto& [title, name] : kOldTitles) {
    if (t.find(title) == std::string_view::npos) continue;
    *unit = std::string(Between(t, "(", ')', t.find(title) + title.size()));
    return std::string(name);
  }
  return "";
}

// Whether a title reads as a time table's: "Total Time (ns)", "Total Time".
bool IsTimeTitle(std::string_view title) { return StartsWith(TrimSpace(title), "Total Time"); }

// A line of dashes under a column table's header ("--------  ----"), nothing else.
bool IsDashLine(std::string_view line) {
  const std::string_view t = TrimSpace(line);
  return !t.empty() && t.find_first_not_of("- ") == std::string_view::npos && t.find("--") != std::string_view::npos;
}

// The display columns where the runs of dashes start.
std::vector<size_t> DashStarts(std::string_view dashes) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < dashes.size(); ++i) {
    if (dashes[i] == '-' && (i == 0 || dashes[i - 1] == ' ')) starts.push_back(i);
  }
  return starts;
}

// `line` cut at the display columns `starts`, each cell trimmed; the byte column where
// each cell's text starts is kept. None when the line ends before the last column.
std::optional<Row> CutAt(std::string_view line, const std::vector<size_t>& starts, int line_number) {
  Row row;
  row.line = line_number;
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t a = text::ByteOfColumn(line, starts[i]);
    if (a >= line.size()) return std::nullopt;
    const size_t b = i + 1 < starts.size() ? text::ByteOfColumn(line, starts[i + 1]) : line.size();
    const std::string_view cell = line.substr(a, b - a);
    const std::string_view text = TrimSpace(cell);
    row.cells.emplace_back(text);
    // Where the cell's text starts (numbers are right-aligned in their column).
    row.columns.push_back(static_cast<int>(a + (text.empty() ? 0 : text.data() - cell.data())) + 1);
  }
  return row;
}

// The lines of `text`, CR dropped.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines = Split(text, '\n');
  for (std::string_view& line : lines) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  }
  return lines;
}

// Whether line i is a column table's header holding `title`: dashes under it.
bool ColumnHeaderAt(const std::vector<std::string_view>& lines, size_t i, std::string_view title) {
  return i + 1 < lines.size() && IsDashLine(lines[i + 1]) && lines[i].find(title) != std::string_view::npos;
}

// The fields of a CSV header line of a time table, none for any other line.
std::optional<std::vector<std::string>> CsvHeader(std::string_view line) {
  if (line.find(',') == std::string_view::npos) return std::nullopt;
  auto fields = internal::CsvFields(line);
  if (!fields || fields->size() < 2) return std::nullopt;
  for (const std::string& f : *fields) {
    if (IsTimeTitle(f)) return fields;
  }
  return std::nullopt;
}

Status BadRow(const std::string& path, int line, int column, const std::string& message) {
  return Status::Error("nsys_stats.bad_row", message, {path, line, column});
}

class TableReader {
 public:
  TableReader(std::string_view text, const std::string& path) : lines_(Lines(text)), path_(path) {}

  StatusOr<std::vector<Table>> Read() {
    std::string report, unit;
    for (size_t i = 0; i < lines_.size(); ++i) {
      std::string title_unit;
      if (std::string named = ReportNamed(lines_[i], &title_unit); !named.empty()) {
        report = std::move(named);
        unit = std::move(title_unit);
        continue;
      }
      auto table = TableAt(&i);
      if (!table.ok()) return table.status();
      if (!*table) continue;
      (*table)->report = std::exchange(report, "");
      (*table)->unit = std::exchange(unit, "");
      tables_.push_back(std::move(**table));
    }
    return std::move(tables_);
  }

 private:
  // The table whose header is line *i (CSV) or whose dashes are line *i + 1; *i moves
  // to its last row. None when no table starts there.
  StatusOr<std::optional<Table>> TableAt(size_t* i) {
    const int number = static_cast<int>(*i) + 1;
    if (auto header = CsvHeader(lines_[*i])) return CsvTable(std::move(*header), number, i);
    // Any table with a total (a size table's "Total (MB)" too), to be named if not read.
    if (ColumnHeaderAt(lines_, *i, "Total")) return ColumnTable(number, i);
    return std::optional<Table>();
  }

  StatusOr<std::optional<Table>> CsvTable(std::vector<std::string> header, int number, size_t* i) {
    Table t;
    t.csv = true;
    t.line = number;
    t.header = std::move(header);
    for (; *i + 1 < lines_.size() && !TrimSpace(lines_[*i + 1]).empty(); ++*i) {
      const std::string_view line = lines_[*i + 1];
      const int at = static_cast<int>(*i) + 2;
      auto fields = internal::CsvFields(line);
      if (!fields) return BadRow(path_, at, 1, "a CSV row with a quote left open");
      if (fields->size() == 1) break;  // prose after the table ("Processing [...]")
      if (fields->size() != t.header.size()) {
        return BadRow(path_, at, 1, "a CSV row of " + std::to_string(fields->size()) + " fields under a header of " +
                                        std::to_string(t.header.size()));
      }
      Row row;
      row.line = at;
      row.cells = std::move(*fields);
      row.columns.assign(row.cells.size(), 1);
      t.rows.push_back(std::move(row));
    }
    return std::optional<Table>(std::move(t));
  }

  StatusOr<std::optional<Table>> ColumnTable(int number, size_t* i) {
    const std::vector<size_t> starts = DashStarts(lines_[*i + 1]);
    auto header = CutAt(lines_[*i], starts, number);
    Table t;
    t.line = number;
    // A title wider than its dashes is still read from where its column starts.
    if (header) t.header = std::move(header->cells);
    *i += 1;
    for (; *i + 1 < lines_.size() && !TrimSpace(lines_[*i + 1]).empty(); ++*i) {
      const int at = static_cast<int>(*i) + 2;
      auto row = CutAt(lines_[*i + 1], starts, at);
      if (!row) {
        return BadRow(path_, at, static_cast<int>(lines_[*i + 1].size()) + 1,
                      "a row that ends before the table's last column (" + std::to_string(starts.size()) +
                          " columns)");
      }
      t.rows.push_back(std::move(*row));
    }
    if (!header) return BadRow(path_, number, 1, "a header that ends before the dashes under it");
    return std::optional<Table>(std::move(t));
  }

  std::vector<std::string_view> lines_;
  const std::string& path_;
  std::vector<Table> tables_;
};

}  // namespace

bool HasStatsTable(std::string_view text) {
  const std::vector<std::string_view> lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (CsvHeader(lines[i]) || ColumnHeaderAt(lines, i, "Total Time")) return true;
  }
  return false;
}

StatusOr<std::vector<Table>> ReadTables(std::string_view text, const std::string& path) {
  return TableReader(text, path).Read();
}

}  // namespace perfgate::kernel_report::nsys_stats
