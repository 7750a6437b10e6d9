// One libpq connection of the PostgreSQL store, with what the store needs of it:
// statements with binary parameters and binary results (every double exact, whatever
// the server's extra_float_digits), the server's errors turned into history codes, and
// whether the connection was lost (the server restarted or went away).
#ifndef PERFGATE_SRC_HISTORY_POSTGRES_CONNECTION_H_
#define PERFGATE_SRC_HISTORY_POSTGRES_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/status.h"

struct pg_conn;
struct pg_result;

namespace perfgate::history::pg {

// A statement's parameters ($1, $2, ...), each sent in binary form: text as its bytes
// (a NUL byte reaches the server, which refuses it, instead of cutting the text short),
// integers and doubles as their 8 bytes.
class Params {
 public:
  Params& Text(std::string_view text);
  Params& Int64(int64_t value);
  Params& Double(double value);
  int size() const { return static_cast<int>(types_.size()); }

 private:
  friend class Connection;
  Params& Add(unsigned type, std::string bytes);
  std::vector<std::string> bytes_;
  std::vector<unsigned> types_;
};

// The rows of one statement, read in binary form; the readers take the column's type
// as the statement declares it (a bigint, a double precision, a text column).
class Rows {
 public:
  explicit Rows(pg_result* result);
  int size() const;
  std::string Text(int row, int column) const;
  int64_t Int64(int row, int column) const;
  double Double(int row, int column) const;

 private:
  std::string_view Bytes(int row, int column) const;
  std::shared_ptr<pg_result> result_;
};

class Connection {
 public:
  // Connects to `url`; history.unreachable when the server refuses or does not answer
  // (within 10 s unless the URL's connect_timeout says otherwise). `location` is the URL
  // without its password, which every message names instead.
  static StatusOr<std::unique_ptr<Connection>> Open(const std::string& url, const std::string& location);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one statement. A failure is reported under the history code its SQLSTATE
  // names (read_only, locked, bad_run, unreachable for a lost connection), else under
  // `code`; the message says what was being done (`doing`) and the server's words.
  StatusOr<Rows> Exec(const std::string& sql, const Params& params, const char* code, const std::string& doing);
  Status Run(const std::string& sql, const char* code, const std::string& doing);
  // Ends a failed transaction; nothing to do on a lost connection.
  void Rollback();

  // Whether the connection is gone (the server stopped or restarted, the network cut):
  // a new one may succeed where this one cannot.
  bool lost() const;
  // The SQLSTATE of the last failed statement ("" when the server gave none).
  const std::string& last_sqlstate() const { return last_sqlstate_; }
  // The URL without its password, as messages name the store.
  const std::string& location() const { return location_; }

 private:
  Connection(pg_conn* conn, std::string location) : conn_(conn), location_(std::move(location)) {}
  Status Failure(pg_result* result, const char* code, const std::string& doing);

  pg_conn* conn_;
  bool broken_ = false;  // a statement failed for want of the server
  std::string location_;
  std::string last_sqlstate_;
};

// Whether an SQLSTATE is a deadlock or a serialization failure: the transaction may
// succeed when run again.
bool IsRetryableConflict(const std::string& sqlstate);

}  // namespace perfgate::history::pg

#endif  // PERFGATE_SRC_HISTORY_POSTGRES_CONNECTION_H_
