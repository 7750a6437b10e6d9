// A throwaway PostgreSQL server for tests: initdb and pg_ctl in a fresh temporary
// directory, listening only on a Unix socket in it (no TCP port), fsync off. initdb
// refuses to run as root, so as root the server runs as the `postgres` account that
// Debian's package creates. Stopped and removed when the object goes.
#ifndef PERFGATE_TESTS_SUPPORT_POSTGRES_SERVER_H_
#define PERFGATE_TESTS_SUPPORT_POSTGRES_SERVER_H_

#include <memory>
#include <string>

#include "perfgate/core/environment.h"
#include "perfgate/core/status.h"

namespace perfgate::testing_support {

class PostgresServer {
 public:
  // The superuser initdb creates, who owns every database the server makes.
  static constexpr const char* kSuperuser = "perfgate";

  // Why no server can start here, "" when one can: PostgreSQL's programs (initdb,
  // pg_ctl, psql) are not installed, or the tests run as root and there is no
  // `postgres` account to run the server as.
  static std::string Unavailable();
  // Creates and starts a server; an error (with the server's log) when it fails.
  static StatusOr<std::unique_ptr<PostgresServer>> Start();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;
  // Where PostgreSQL's programs are, and whom the server runs as.
  struct Programs;

  // A fresh, empty database `name` (dropped first if it exists) and its URL.
  StatusOr<std::string> CreateDatabase(const std::string& name);
  // The URL of database `name` as `user`, over the server's socket.
  std::string Url(const std::string& database, const std::string& user = kSuperuser) const;
  // Runs `sql` on `database` as the superuser (psql); its rows, unaligned, one a line.
  StatusOr<std::string> Sql(const std::string& database, const std::string& sql) const;
  // Starts psql running `sql` without waiting for it (a session that holds a lock);
  // its process id, for waitpid, or -1.
  int SqlInBackground(const std::string& database, const std::string& sql) const;

  // Stops the server at once (pg_ctl stop -m immediate): connections are cut, as when
  // a server crashes. Restart() (stopping it first if it runs) brings the same data
  // back; every commit it answered survives.
  Status Stop();
  Status Restart();
  // The folder of the server's socket (a URL's host).
  const std::string& directory() const { return directory_; }

 private:
  PostgresServer(std::shared_ptr<const Programs> programs, std::string directory);
  // Starts the process that stops the server and removes its folder if this program
  // dies without running the destructor (a crash, a test timeout's kill).
  void StartGuard();
  Status Init();
  Status StartServer();

  std::shared_ptr<const Programs> programs_;
  std::string directory_;  // the socket's; the data is in directory_/data
  bool running_ = false;
  int guard_fd_ = -1;  // the guard's stdin: closed, it cleans up
  int guard_pid_ = -1;
};

// The one server of a test program, started on first use, or why there is none.
struct SharedPostgres {
  PostgresServer* server = nullptr;
  std::string problem;  // why `server` is null
  // Whether a test may skip for `problem`: PostgreSQL is missing (or perfgate was built
  // without its PostgreSQL store) and no CI variable is set, or PERFGATE_ALLOW_SKIP=1.
  // A server that is installed but fails to start is never a skip.
  bool may_skip = false;
};
const SharedPostgres& SharedPostgresServer();

// Where there is no server for `problem` (PostgreSQL missing): a skip, unless a CI
// variable is set and PERFGATE_ALLOW_SKIP=1 is not, when the tests fail saying how to
// skip deliberately.
SharedPostgres WithoutPostgres(const std::string& problem, const EnvLookup& env = ProcessEnv);

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_SUPPORT_POSTGRES_SERVER_H_
