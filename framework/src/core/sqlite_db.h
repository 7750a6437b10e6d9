// A small read-only view of an SQLite database for the readers of SQLite files (nsys
// exports, llama-bench databases): the file opened immutable (no journal, no lock, no
// write), statements stepped row by row, and every SQLite failure turned into a
// perfgate Status naming the file, with the reader's own error codes.
#ifndef PERFGATE_CORE_SQLITE_DB_H_
#define PERFGATE_CORE_SQLITE_DB_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "perfgate/core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace perfgate::internal {

// SQLite virtual-machine instructions a connection may run per byte of its file, and
// at least kMinInstructions: every read of both corpus exports passes with 10 per byte
// and a minimum of 2^16, so the bound leaves a real file ten times its need.
inline constexpr int64_t kInstructionsPerByte = 100;
inline constexpr int64_t kMinInstructions = int64_t{1} << 26;

// The 16 bytes every SQLite 3 database starts with.
inline constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

// True when the file's first 16 bytes are kSqliteMagic (false for unreadable files).
bool HasSqliteMagic(const std::string& path);

class Statement;

// The reader's codes for a file SQLite cannot read as a database, and for a statement
// that fails on it.
struct SqliteCodes {
  const char* not_sqlite;
  const char* bad_table;
  // A file that is not the committed database: cut short, or beside a rollback
  // journal or a write-ahead log that holds what it lacks.
  const char* uncommitted;
};

class Database {
 public:
  // Opens `path` read-only and immutable ("file:PATH?immutable=1"), for use by one
  // thread at a time; codes.not_sqlite when SQLite cannot read it as a database,
  // codes.uncommitted when the file is not the whole committed database (immutable
  // would read it as it is: a size that is no whole number of pages or disagrees with
  // the header's page count, a non-empty PATH-journal or PATH-wal beside it). SQLite's
  // work on the connection is bounded by the file's size (kInstructionsPerByte): a
  // statement past it fails with codes.bad_table instead of running on.
  static StatusOr<Database> Open(const std::string& path, SqliteCodes codes);
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  // Whether a table of this exact name exists; a broken file is an error. `table` is
  // one of the reader's constant names (it is written into the SQL text).
  StatusOr<bool> HasTable(std::string_view table) const;
  // Whether `table` has a column of this exact name (both constant names, as above).
  StatusOr<bool> HasColumn(std::string_view table, std::string_view column) const;
  // codes.bad_table unless `table` is a table the file stores: a view (whose query
  // SQLite would run for the reader, without end), a virtual table, or a table with a
  // generated column is refused, naming it. A table that does not exist passes.
  Status RequireStoredTable(std::string_view table) const;

  // Prepares `sql`; codes.bad_table with SQLite's message when it fails (a missing
  // column, a corrupt page, ...).
  StatusOr<Statement> Prepare(const std::string& sql) const;
  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path, SqliteCodes codes) : db_(db), path_(std::move(path)), codes_(codes) {}
  sqlite3* db_ = nullptr;
  std::unique_ptr<int64_t> work_left_;  // the progress handler's budget, in kProgressStep units
  std::string path_;
  SqliteCodes codes_;
};

// One prepared statement, stepped with Next() until it returns false.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  // Advances to the next row: true with a row, false at the end, an error
  // (codes.bad_table) when SQLite fails mid-way.
  StatusOr<bool> Next();
  // The number of columns of the result, and the name of column `i`.
  int Columns() const;
  std::string_view Name(int i) const;
  // Column `i` of the current row: nullopt for NULL (and, for Int, any value that is
  // not stored as an integer).
  std::optional<int64_t> Int(int i) const;
  std::optional<std::string_view> Text(int i) const;

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, sqlite3* db, std::string path, SqliteCodes codes)
      : stmt_(stmt), db_(db), path_(std::move(path)), codes_(codes) {}
  sqlite3_stmt* stmt_ = nullptr;
  sqlite3* db_ = nullptr;
  std::string path_;
  SqliteCodes codes_;
};

}  // namespace perfgate::internal

#endif  // PERFGATE_CORE_SQLITE_DB_H_
