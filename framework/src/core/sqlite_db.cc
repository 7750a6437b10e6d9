// A read-only view of an SQLite database (core/sqlite_db.h).
#include "core/sqlite_db.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>

#include "core/text_input.h"

namespace perfgate::internal {
namespace {

// A file: URI for `path`, every byte but the unreserved ones percent-encoded, so that
// '?', '#' and '%' in a file name stay part of the name.
std::string FileUri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' ||
                       c == '.' || c == '_' || c == '-' || c == '~';
    if (plain) {
      uri += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      uri += hex;
    }
  }
  // immutable: the export is never written while read, so SQLite takes no lock and
  // keeps no journal (a read-only directory or medium is fine).
  return uri + "?immutable=1";
}

Status SqliteError(const char* code, const std::string& path, sqlite3* db, const std::string& what) {
  if (db != nullptr && sqlite3_errcode(db) == SQLITE_INTERRUPT) {
    return Status::Error(code,
                         what + ": SQLite worked past what a file of this size needs (a view or a generated "
                                "column that computes without end?)",
                         {path});
  }
  return Status::Error(code, what + ": " + (db != nullptr ? sqlite3_errmsg(db) : "out of memory"), {path});
}

// The progress handler runs every kProgressStep instructions: one step of the budget.
constexpr int kProgressStep = 1000;

int SpendWork(void* left) {
  auto* n = static_cast<int64_t*>(left);
  return --*n < 0 ? 1 : 0;  // non-zero interrupts the statement
}

uint32_t BigEndian(const unsigned char* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

// The size of a file beside the database ("PATH-journal"); 0 when there is none.
uint64_t SizeOfSidecar(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

// codes.uncommitted unless the file is a whole database that no journal or log amends.
Status CheckCommitted(const std::string& path, SqliteCodes codes, uint64_t* size) {
  auto fd = internal::OpenRegularFile(path, UINT64_MAX, size);
  if (!fd.ok()) return fd.status();
  internal::ScopedFd file(*fd);
  unsigned char header[100] = {};
  if (::pread(file.get(), header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) {
    return Status::Error(codes.not_sqlite, "shorter than an SQLite header (100 bytes)", {path});
  }
  const uint32_t page = BigEndian(header + 16, 2) == 1 ? 65536 : BigEndian(header + 16, 2);
  if (page < 512 || (page & (page - 1)) != 0) {
    return Status::Error(codes.not_sqlite, "its header gives no SQLite page size (" + std::to_string(page) + ")",
                         {path});
  }
  const uint64_t pages = BigEndian(header + 28, 4);
  const bool pages_valid = pages != 0 && BigEndian(header + 92, 4) == BigEndian(header + 24, 4);
  if (*size % page != 0 || (pages_valid && pages * page != *size)) {
    return Status::Error(codes.uncommitted,
                         std::to_string(*size) + " bytes are not the " +
                             (pages_valid ? std::to_string(pages) : std::string("whole number of")) + " pages of " +
                             std::to_string(page) + " bytes its header gives: the file was cut short or grown",
                         {path});
  }
  for (const char* sidecar : {"-journal", "-wal"}) {
    if (SizeOfSidecar(path + sidecar) == 0) continue;
    return Status::Error(codes.uncommitted,
                         std::string(sidecar == std::string("-wal")
                                         ? "a write-ahead log beside it (" + path + "-wal) holds changes the file "
                                           "lacks: checkpoint it (sqlite3 FILE 'PRAGMA wal_checkpoint(TRUNCATE)')"
                                         : "a rollback journal beside it (" + path + "-journal): a write was cut "
                                           "off or is under way; read a copy made when the writer has finished"),
                         {path});
  }
  return Status();
}

}  // namespace

bool HasSqliteMagic(const std::string& path) {
  // Opened only as a regular file (a FIFO or a device is never opened).
  uint64_t size = 0;
  auto fd = internal::OpenRegularFile(path, UINT64_MAX, &size);
  if (!fd.ok()) return false;
  internal::ScopedFd file(*fd);
  char head[16];
  size_t got = 0;
  while (got < sizeof head) {
    const ssize_t n = ::read(file.get(), head + got, sizeof head - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  return got == sizeof head && std::string_view(head, got) == kSqliteMagic;
}

StatusOr<Database> Database::Open(const std::string& path, SqliteCodes codes) {
  uint64_t size = 0;
  PERFGATE_RETURN_IF_ERROR(CheckCommitted(path, codes, &size));
  sqlite3* db = nullptr;
  // NOMUTEX: a Database is used by one thread at a time, and the per-call locking of
  // the serialized mode was an eighth of a read's time.
  const int rc = sqlite3_open_v2(FileUri(path).c_str(), &db,
                                 SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status::Error(codes.not_sqlite, "SQLite cannot open it: " + why, {path});
  }
  Database d(db, path, codes);
  const uint64_t bytes = std::min<uint64_t>(size, INT64_MAX / kInstructionsPerByte);
  const int64_t work = std::max<int64_t>(kMinInstructions, static_cast<int64_t>(bytes) * kInstructionsPerByte);
  d.work_left_ = std::make_unique<int64_t>(work / kProgressStep);
  sqlite3_progress_handler(db, kProgressStep, SpendWork, d.work_left_.get());
  // Opening is lazy: the header and the schema are only read by the first statement.
  sqlite3_stmt* probe = nullptr;
  const bool readable =
      sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &probe, nullptr) == SQLITE_OK &&
      sqlite3_step(probe) == SQLITE_ROW;
  sqlite3_finalize(probe);
  if (!readable) {
    return Status::Error(codes.not_sqlite, std::string("SQLite cannot read it as a database: ") + sqlite3_errmsg(db),
                         {path});
  }
  return d;
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      work_left_(std::move(other.work_left_)),
      path_(std::move(other.path_)),
      codes_(other.codes_) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = std::exchange(other.db_, nullptr);
    work_left_ = std::move(other.work_left_);
    path_ = std::move(other.path_);
    codes_ = other.codes_;
  }
  return *this;
}

Database::~Database() { sqlite3_close(db_); }

StatusOr<bool> Database::HasTable(std::string_view table) const {
  auto st =
      Prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = '" + std::string(table) + "'");
  if (!st.ok()) return st.status();
  return st->Next();
}

StatusOr<bool> Database::HasColumn(std::string_view table, std::string_view column) const {
  auto st = Prepare("SELECT 1 FROM pragma_table_info('" + std::string(table) + "') WHERE name = '" +
                    std::string(column) + "'");
  if (!st.ok()) return st.status();
  return st->Next();
}

Status Database::RequireStoredTable(std::string_view table) const {
  auto st = Prepare("SELECT type, sql FROM sqlite_master WHERE name = '" + std::string(table) + "'");
  if (!st.ok()) return st.status();
  auto row = st->Next();
  if (!row.ok() || !*row) return row.status();
  const std::string name(table);
  if (st->Text(0).value_or("") != "table") {
    return Status::Error(codes_.bad_table,
                         name + " is a " + std::string(st->Text(0).value_or("?")) +
                             ", not a table the file stores: perfgate reads only stored tables",
                         {path_});
  }
  const std::string sql(st->Text(1).value_or(""));
  if (sql.rfind("CREATE VIRTUAL", 0) == 0) {
    return Status::Error(codes_.bad_table, name + " is a virtual table: perfgate reads only stored tables", {path_});
  }
  auto generated = Prepare("SELECT name FROM pragma_table_xinfo('" + name + "') WHERE hidden IN (2, 3)");
  if (!generated.ok()) return generated.status();
  auto any = generated->Next();
  if (!any.ok() || !*any) return any.status();
  return Status::Error(codes_.bad_table,
                       name + "." + std::string(generated->Text(0).value_or("?")) +
                           " is a generated column: perfgate reads only stored values",
                       {path_});
}

StatusOr<Statement> Database::Prepare(const std::string& sql) const {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return SqliteError(codes_.bad_table, path_, db_, "cannot read it (" + sql + ")");
  }
  return Statement(stmt, db_, path_, codes_);
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), db_(other.db_), path_(std::move(other.path_)), codes_(other.codes_) {}

Statement::~Statement() { sqlite3_finalize(stmt_); }

StatusOr<bool> Statement::Next() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return SqliteError(codes_.bad_table, path_, db_, std::string("reading rows failed (") + sqlite3_sql(stmt_) + ")");
}

int Statement::Columns() const { return sqlite3_column_count(stmt_); }

std::string_view Statement::Name(int i) const {
  const char* name = sqlite3_column_name(stmt_, i);
  return name != nullptr ? std::string_view(name) : std::string_view();
}

std::optional<int64_t> Statement::Int(int i) const {
  // A text or real value in an integer column is no integer (SQLite would convert it).
  if (sqlite3_column_type(stmt_, i) != SQLITE_INTEGER) return std::nullopt;
  return static_cast<int64_t>(sqlite3_column_int64(stmt_, i));
}

std::optional<std::string_view> Statement::Text(int i) const {
  if (sqlite3_column_type(stmt_, i) == SQLITE_NULL) return std::nullopt;
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i));
  return std::string_view(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, i)));
}

}  // namespace perfgate::internal
