// One libpq connection of the PostgreSQL store (postgres_connection.h).
#include "history/postgres_connection.h"

#include <libpq-fe.h>

#include <cstring>

namespace perfgate::history::pg {
namespace {

// The type oids of the parameters the store sends (PostgreSQL's catalog/pg_type.h).
constexpr Oid kInt8Oid = 20;
constexpr Oid kTextOid = 25;
constexpr Oid kFloat8Oid = 701;

// How long a connect waits for the server, and a statement for another's lock (as
// long as the SQLite store waits for its lock), unless the URL says otherwise.
constexpr const char* kConnectTimeoutS = "10";
constexpr const char* kSessionOptions = "-c lock_timeout=60s";

std::string BigEndian(uint64_t bits) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i, bits >>= 8) out[i] = static_cast<char>(bits & 0xff);
  return out;
}

uint64_t FromBigEndian(std::string_view bytes) {
  uint64_t bits = 0;
  for (char c : bytes) bits = (bits << 8) | static_cast<unsigned char>(c);
  return bits;
}

// libpq's messages end in a newline and continue on tab-indented lines: one line.
std::string OneLine(const char* message) {
  std::string out;
  for (const char* p = message ? message : ""; *p; ++p) {
    const bool space = *p == '\n' || *p == '\t' || *p == '\r';
    if (!space) {
      out += *p;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The history code an SQLSTATE names, or nullptr for the caller's own.
const char* CodeOfSqlstate(const std::string& sqlstate) {
  if (sqlstate == "25006" || sqlstate == "42501") return "history.read_only";
  if (sqlstate == "55P03" || IsRetryableConflict(sqlstate)) return "history.locked";
  // Text the server's encoding cannot hold (a NUL byte, bytes that are no UTF-8), or
  // a name longer than an index row.
  if (sqlstate == "22021" || sqlstate == "22P05" || sqlstate == "54000") return "history.bad_run";
  return nullptr;
}

// What a code adds to the server's words.
const char* HintOf(const char* code) {
  if (std::strcmp(code, "history.read_only") == 0) return " (this user or database cannot write the history)";
  if (std::strcmp(code, "history.locked") == 0) return " (another writer held a lock of the history past the wait)";
  return "";
}

}  // namespace

bool IsRetryableConflict(const std::string& sqlstate) { return sqlstate == "40P01" || sqlstate == "40001"; }

Params& Params::Add(unsigned type, std::string bytes) {
  types_.push_back(type);
  bytes_.push_back(std::move(bytes));
  return *this;
}

Params& Params::Text(std::string_view text) { return Add(kTextOid, std::string(text)); }

Params& Params::Int64(int64_t value) { return Add(kInt8Oid, BigEndian(static_cast<uint64_t>(value))); }

Params& Params::Double(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return Add(kFloat8Oid, BigEndian(bits));
}

Rows::Rows(pg_result* result) : result_(result, PQclear) {}

int Rows::size() const { return PQntuples(result_.get()); }

std::string_view Rows::Bytes(int row, int column) const {
  return {PQgetvalue(result_.get(), row, column), static_cast<size_t>(PQgetlength(result_.get(), row, column))};
}

std::string Rows::Text(int row, int column) const { return std::string(Bytes(row, column)); }

int64_t Rows::Int64(int row, int column) const {
  // A bigint (8 bytes), an integer (4) or a smallint (2), sign-extended.
  const std::string_view bytes = Bytes(row, column);
  const int bits = static_cast<int>(bytes.size()) * 8;
  if (bits == 0 || bits > 64) return 0;
  const uint64_t raw = FromBigEndian(bytes);
  if (bits == 64) return static_cast<int64_t>(raw);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((raw ^ sign) - sign);
}

double Rows::Double(int row, int column) const {
  const std::string_view bytes = Bytes(row, column);
  if (bytes.size() != 8) return 0;
  const uint64_t bits = FromBigEndian(bytes);
  double value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

StatusOr<std::unique_ptr<Connection>> Connection::Open(const std::string& url, const std::string& location) {
  // Settings before dbname (the URL, expanded) are defaults the URL may override;
  // after it, what the store needs whatever the URL says.
  const char* keywords[] = {"connect_timeout", "application_name", "options", "dbname", "client_encoding", nullptr};
  const char* values[] = {kConnectTimeoutS, "perfgate", kSessionOptions, url.c_str(), "UTF8", nullptr};
  pg_conn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr || PQstatus(conn) != CONNECTION_OK) {
    const std::string why = conn ? OneLine(PQerrorMessage(conn)) : "out of memory";
    PQfinish(conn);
    return Status::Error("history.unreachable", location + ": cannot connect to the PostgreSQL server: " + why, {},
                         ErrorKind::kEnvironment);
  }
  // The server's notices (a WARNING as it shuts down) are not printed from inside a
  // test program: what matters comes back as a statement's error.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<Connection>(new Connection(conn, location));
}

Connection::~Connection() { PQfinish(conn_); }

bool Connection::lost() const { return broken_ || PQstatus(conn_) == CONNECTION_BAD; }

Status Connection::Failure(pg_result* result, const char* code, const std::string& doing) {
  const char* sqlstate = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = sqlstate ? sqlstate : "";
  std::string why;
  if (const char* primary = result ? PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) : nullptr) {
    why = OneLine(primary);
    if (const char* detail = PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL)) why += " (" + OneLine(detail) + ")";
  } else {
    why = OneLine(PQerrorMessage(conn_));
  }
  PQclear(result);
  // An error without an SQLSTATE is libpq's own: the server is gone, though a failed
  // send leaves PQstatus OK until a later read. 08xxx and 57P0x: the server ended the
  // session (shutdown, a terminated backend).
  if (last_sqlstate_.empty() || last_sqlstate_.rfind("08", 0) == 0 || last_sqlstate_.rfind("57P0", 0) == 0) {
    broken_ = true;
  }
  const char* mapped = lost() ? "history.unreachable" : CodeOfSqlstate(last_sqlstate_);
  if (mapped) code = mapped;
  if (lost()) why = "the connection was lost: " + why;
  if (!last_sqlstate_.empty()) why += " [SQLSTATE " + last_sqlstate_ + "]";
  return Status::Error(code, location_ + ": " + doing + ": " + why + HintOf(code), {}, ErrorKind::kEnvironment);
}

StatusOr<Rows> Connection::Exec(const std::string& sql, const Params& params, const char* code,
                                const std::string& doing) {
  std::vector<const char*> values;
  std::vector<int> lengths;
  for (const std::string& bytes : params.bytes_) {
    values.push_back(bytes.data());
    lengths.push_back(static_cast<int>(bytes.size()));
  }
  const std::vector<int> formats(params.bytes_.size(), 1);
  pg_result* result = PQexecParams(conn_, sql.c_str(), params.size(), params.types_.data(), values.data(),
                                   lengths.data(), formats.data(), /*resultFormat=*/1);
  const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
    last_sqlstate_.clear();
    return Rows(result);
  }
  return Failure(result, code, doing);
}

Status Connection::Run(const std::string& sql, const char* code, const std::string& doing) {
  // The simple protocol: constant SQL of several statements (the schema) in one call.
  pg_result* result = PQexec(conn_, sql.c_str());
  const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) {
    PQclear(result);
    last_sqlstate_.clear();
    return Status();
  }
  return Failure(result, code, doing);
}

void Connection::Rollback() {
  if (!lost()) PQclear(PQexec(conn_, "ROLLBACK"));
}

}  // namespace perfgate::history::pg
