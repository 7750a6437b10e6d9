// Private: llama-bench's row formats read into test objects of its JSON schema, which
// the tok/s report reader then reads as it reads `-o json` (perfgate/toks/bench_report.h):
// `-o csv` (a header row of its field names, then a row per test, every value quoted)
// and `-o sql` (a CREATE TABLE, then an INSERT per test, every value quoted), and the
// SQLite database that SQL fills.
#ifndef PERFGATE_SRC_TOKS_BENCH_ROWS_H_
#define PERFGATE_SRC_TOKS_BENCH_ROWS_H_

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfgate/core/status.h"

namespace perfgate::toks::rows {

// One test: its fields typed as llama-bench's JSON types them (counts as integers,
// rates as numbers, flags as booleans, the rest as text), and its line in the file.
struct Row {
  nlohmann::json test;
  int line = 0;
};

// True when the first non-blank line of `text` is a header naming n_prompt, n_gen and
// avg_ts.
bool HasBenchCsvHeader(std::string_view text);

// The rows under the header of `text` (UTF-8: the caller checks). Errors
// (path:line:col): toks.bad_row (a row without one field per column, or a quote left
// open).
StatusOr<std::vector<Row>> ReadBenchCsv(std::string_view text, const std::string& path);

// True when a line of `text` starts llama-bench's INSERT INTO test (...) VALUES (...).
bool HasBenchSqlInsert(std::string_view text);

// The rows of every INSERT INTO test statement, a line each; the CREATE TABLE and any
// other statement are llama-bench's schema, not read (`text` is UTF-8: the caller
// checks). Errors: toks.bad_row (an INSERT that does not parse, or without one value
// per column).
StatusOr<std::vector<Row>> ReadBenchSql(std::string_view text, const std::string& path);

// The rows of the `test` table of an SQLite database, as `llama-bench -o sql | sqlite3
// DB` fills it and llama.cpp's compare-llama-bench.py reads it, in rowid order; each
// located at its row's place (the line is its ordinal, the column the column's).
// Errors: toks.bad_database (SQLite cannot read it, or a query fails), toks.no_table
// (no table `test`), toks.bad_utf8 (a value or column name that is not UTF-8).
StatusOr<std::vector<Row>> ReadBenchDatabase(const std::string& path);

}  // namespace perfgate::toks::rows

#endif  // PERFGATE_SRC_TOKS_BENCH_ROWS_H_
