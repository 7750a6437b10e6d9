// llama-bench's CSV and SQL output and its SQLite database (toks/bench_rows.h): RFC 4180
// fields, a line per row; SQL's INSERT statements, single-quoted values, a line each;
// the database's `test` table, a row each.
#include "toks/bench_rows.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "core/csv_line.h"
#include "core/sqlite_db.h"
#include "core/text_input.h"

namespace perfgate::toks::rows {
namespace {

// llama-bench's JSON types of the fields CSV writes as text (test::get_field_type()).
const std::set<std::string, std::less<>>& IntegerFields() {
  static const std::set<std::string, std::less<>> kFields = {
      "build_number", "model_size", "model_n_params", "n_batch", "n_ubatch", "n_threads", "poll", "n_gpu_layers",
      "n_cpu_moe", "main_gpu", "n_prompt", "n_gen", "n_depth", "avg_ns", "stddev_ns", "no_op_offload",
      "fit_target", "fit_min_ctx"};
  return kFields;
}
const std::set<std::string, std::less<>>& FlagFields() {
  static const std::set<std::string, std::less<>> kFields = {
      "cpu_strict", "no_kv_offload", "use_mmap", "use_direct_io", "embeddings", "no_host", "repack", "cuda",
      "vulkan", "kompute", "metal", "sycl", "rpc", "gpu_blas", "blas", "opencl", "hip", "cann", "musa"};
  return kFields;
}

std::optional<int64_t> Integer(const std::string& v) {
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') return std::nullopt;
  return n;
}

// A value as llama-bench's JSON types it; one that does not read as its type stays
// text, for the reader to refuse with the field's name.
nlohmann::json Typed(const std::string& name, const std::string& v) {
  if (IntegerFields().count(name) != 0 || name == "flash_attn") {
    if (auto n = Integer(v)) return *n;
  }
  if (FlagFields().count(name) != 0 || name == "flash_attn") {
    if (v == "1" || v == "true") return true;
    if (v == "0" || v == "false") return false;
  }
  if (name == "avg_ts" || name == "stddev_ts") {
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (!v.empty() && *end == '\0') return d;
  }
  return v;
}

// A row of `columns` and their `values`, typed; toks.bad_row at `line` unless one value
// per column, each column once.
StatusOr<Row> RowOf(const std::vector<std::string>& columns, const std::vector<std::string>& values,
                    const std::string& path, int line) {
  if (values.size() != columns.size()) {
    return Status::Error("toks.bad_row",
                         "a row with " + std::to_string(values.size()) + " values under " +
                             std::to_string(columns.size()) + " columns",
                         {path, line, 1});
  }
  Row row{nlohmann::json::object(), line};
  for (size_t c = 0; c < columns.size(); ++c) {
    if (row.test.contains(columns[c])) {
      return Status::Error("toks.bad_row", "column '" + columns[c] + "' is named twice", {path, line, 1});
    }
    row.test[columns[c]] = Typed(columns[c], values[c]);
  }
  return row;
}

constexpr std::string_view kInsert = "INSERT INTO test (";
constexpr std::string_view kValues = ") VALUES (";

// "a, b, c": the column names of an INSERT.
std::vector<std::string> Names(std::string_view list) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= list.size();) {
    const size_t comma = std::min(list.find(',', start), list.size());
    std::string_view name = list.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    out.emplace_back(name);
    start = comma + 1;
  }
  return out;
}

// "'x', 'it''s', 5": the values of an INSERT, up to its closing ");"; none when it
// does not parse.
std::optional<std::vector<std::string>> SqlValues(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::string value;
    if (i < s.size() && s[i] == '\'') {
      for (++i;; ++i) {
        if (i >= s.size()) return std::nullopt;
        if (s[i] == '\'' && i + 1 < s.size() && s[i + 1] == '\'') {
          value += '\'';
          ++i;
        } else if (s[i] == '\'') {
          ++i;
          break;
        } else {
          value += s[i];
        }
      }
    } else {
      while (i < s.size() && s[i] != ',' && s[i] != ')') value += s[i++];
      while (!value.empty() && value.back() == ' ') value.pop_back();
    }
    out.push_back(value);
    while (i < s.size() && s[i] == ' ') ++i;
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (s.substr(i, 2) == ");" && s.find_first_not_of(" \t\r", i + 2) == std::string_view::npos) return out;
    return std::nullopt;
  }
}

}  // namespace

bool HasBenchSqlInsert(std::string_view text) {
  for (size_t start = 0; start < text.size();) {
    const size_t first = text.find_first_not_of(" \t\r", start);
    if (first == std::string_view::npos) return false;
    if (text.substr(first, kInsert.size()) == kInsert) return true;
    const size_t end = text.find('\n', first);
    if (end == std::string_view::npos) return false;
    start = end + 1;
  }
  return false;
}

StatusOr<std::vector<Row>> ReadBenchSql(std::string_view text, const std::string& path) {
  std::vector<Row> rows;
  int n = 1;
  for (size_t start = 0; start < text.size(); ++n) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.substr(0, kInsert.size()) != kInsert) continue;  // CREATE TABLE and its columns: the schema
    const size_t values_at = line.find(kValues);
    const auto values = values_at == std::string_view::npos
                            ? std::nullopt
                            : SqlValues(line.substr(values_at + kValues.size()));
    if (!values) {
      return Status::Error("toks.bad_row", "an INSERT INTO test that does not parse as (COLUMNS) VALUES ('...', ...);",
                           {path, n, 1});
    }
    PERFGATE_ASSIGN_OR_RETURN(
        Row row, RowOf(Names(line.substr(kInsert.size(), values_at - kInsert.size())), *values, path, n));
    rows.push_back(std::move(row));
  }
  return rows;
}

bool HasBenchCsvHeader(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  const auto fields = internal::CsvFields(text.substr(first, text.find('\n', first) - first));
  if (!fields) return false;
  for (const char* name : {"n_prompt", "n_gen", "avg_ts"}) {
    if (std::find(fields->begin(), fields->end(), name) == fields->end()) return false;
  }
  return true;
}

StatusOr<std::vector<Row>> ReadBenchCsv(std::string_view text, const std::string& path) {
  std::vector<std::string> header;
  std::vector<Row> rows;
  int n = 1;
  for (size_t start = 0; start < text.size(); ++n) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto fields = internal::CsvFields(line);
    if (!fields) return Status::Error("toks.bad_row", "a CSV row with a quote left open", {path, n, 1});
    if (header.empty()) {
      header = *fields;
      continue;
    }
    PERFGATE_ASSIGN_OR_RETURN(Row row, RowOf(header, *fields, path, n));
    rows.push_back(std::move(row));
  }
  return rows;
}

StatusOr<std::vector<Row>> ReadBenchDatabase(const std::string& path) {
  constexpr perfgate::internal::SqliteCodes kCodes{"toks.bad_database", "toks.bad_database", "toks.bad_database"};
  PERFGATE_ASSIGN_OR_RETURN(perfgate::internal::Database db, perfgate::internal::Database::Open(path, kCodes));
  PERFGATE_ASSIGN_OR_RETURN(const bool has_test, db.HasTable("test"));
  if (!has_test) {
    return Status::Error("toks.no_table",
                         "the SQLite database has no table 'test' (llama-bench -o sql | sqlite3 DB makes one)", {path});
  }
  PERFGATE_RETURN_IF_ERROR(db.RequireStoredTable("test"));
  PERFGATE_ASSIGN_OR_RETURN(perfgate::internal::Statement rows_of, db.Prepare("SELECT * FROM test ORDER BY rowid"));
  std::vector<Row> rows;
  std::vector<std::string> columns;
  for (int n = 1;; ++n) {
    PERFGATE_ASSIGN_OR_RETURN(const bool more, rows_of.Next());
    if (!more) break;
    if (columns.empty()) {
      for (int c = 0; c < rows_of.Columns(); ++c) columns.emplace_back(rows_of.Name(c));
    }
    std::vector<std::string> values;
    for (int c = 0; c < rows_of.Columns(); ++c) {
      values.emplace_back(rows_of.Text(c).value_or(""));
      // Not text a file read checks: a value SQLite holds is whatever bytes were put.
      if (perfgate::internal::FindInvalidUtf8(values.back()) != std::string::npos ||
          perfgate::internal::FindInvalidUtf8(columns[static_cast<size_t>(c)]) != std::string::npos) {
        return Status::Error("toks.bad_utf8",
                             "row " + std::to_string(n) + " of table test, column " + std::to_string(c + 1) +
                                 ": bytes that are not UTF-8",
                             {path, n, c + 1});
      }
    }
    PERFGATE_ASSIGN_OR_RETURN(Row row, RowOf(columns, values, path, n));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace perfgate::toks::rows
