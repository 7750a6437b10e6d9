// A throwaway PostgreSQL server for tests (postgres_server.h).
#include "support/postgres_server.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

#include "perfgate/core/environment.h"

namespace perfgate::testing_support {

// Where PostgreSQL's programs are, and whom the server runs as.
struct PostgresServer::Programs {
  std::string initdb;
  std::string pg_ctl;
  std::string psql;
  std::optional<uid_t> uid;  // set when the tests run as root: the `postgres` account
  gid_t gid = 0;
};

namespace {

namespace fs = std::filesystem;

constexpr const char* kPgTestPort = "5432";  // names the socket only: no TCP

struct PgProgramRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// Starts argv[0] (a path) with argv, as `uid`/`gid` when given, its stdin /dev/null
// and its stdout and stderr `out_fd`; -1 when it cannot. No shell: a path or SQL text
// is one argument whatever it holds.
pid_t SpawnPgProgram(const std::vector<std::string>& argv, std::optional<uid_t> uid, gid_t gid, int out_fd) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int null_in = open("/dev/null", O_RDONLY);
    if (null_in < 0 || dup2(null_in, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(126);
    if (uid && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(*uid) != 0)) _exit(126);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// Runs a program as SpawnPgProgram starts it, capturing its output.
PgProgramRun RunPgProgram(const std::vector<std::string>& argv, std::optional<uid_t> uid, gid_t gid) {
  int fds[2];
  PgProgramRun run;
  // Close-on-exec (pipe2 is Linux's only): a server pg_ctl starts must not hold the
  // pipe open, or reading it would wait for the server to stop.
  if (pipe(fds) != 0) return run;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  const pid_t pid = SpawnPgProgram(argv, uid, gid, fds[1]);
  close(fds[1]);
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) run.output.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  if (pid < 0) return run;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

bool IsExecutable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// `pg_config --bindir`'s first line, "" without pg_config.
std::string PgConfigBindir() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"}) {
    const std::string pg_config = std::string(dir) + "/pg_config";
    if (!IsExecutable(pg_config)) continue;
    std::string out = RunPgProgram({pg_config, "--bindir"}, std::nullopt, 0).output;
    return out.substr(0, out.find('\n'));
  }
  return "";
}

// Folders that may hold initdb: pg_config's, Debian's per-version folders (newest
// first), then the PATH.
std::vector<std::string> PgBinDirs() {
  std::vector<std::string> dirs = {PgConfigBindir()};
  std::vector<std::pair<double, std::string>> debian;  // (version, its bin folder)
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    debian.emplace_back(std::strtod(entry.path().filename().c_str(), nullptr), entry.path() / "bin");
  }
  std::sort(debian.rbegin(), debian.rend());
  for (const auto& [version, dir] : debian) dirs.push_back(dir);
  // Homebrew's versioned postgresql@N formulae are keg-only.
  std::vector<std::string> kegs;
  for (const char* opt : {"/opt/homebrew/opt", "/usr/local/opt"}) {
    for (const auto& entry : fs::directory_iterator(opt, ec)) {
      if (entry.path().filename().string().rfind("postgresql", 0) == 0) kegs.push_back(entry.path() / "bin");
    }
  }
  std::sort(kegs.rbegin(), kegs.rend());
  dirs.insert(dirs.end(), kegs.begin(), kegs.end());
  const char* path = std::getenv("PATH");
  for (std::string rest = path ? path : ""; !rest.empty();) {
    const size_t colon = rest.find(':');
    dirs.push_back(rest.substr(0, colon));
    rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
  }
  return dirs;
}

std::optional<PostgresServer::Programs> FindPgPrograms(std::string* why) {
  PostgresServer::Programs programs;
  for (const std::string& dir : PgBinDirs()) {
    if (!dir.empty() && IsExecutable(dir + "/initdb") && IsExecutable(dir + "/pg_ctl")) {
      programs.initdb = dir + "/initdb";
      programs.pg_ctl = dir + "/pg_ctl";
      programs.psql = IsExecutable(dir + "/psql") ? dir + "/psql" : "";
      break;
    }
  }
  if (programs.initdb.empty()) {
    *why =
        "PostgreSQL's server programs (initdb, pg_ctl) are not installed (Debian: postgresql; Homebrew: "
        "postgresql@16)";
    return std::nullopt;
  }
  for (const char* psql : {"/usr/bin/psql", "/usr/local/bin/psql", "/opt/homebrew/bin/psql"}) {
    if (programs.psql.empty() && IsExecutable(psql)) programs.psql = psql;
  }
  if (programs.psql.empty()) {
    *why = "PostgreSQL's psql is not installed beside " + programs.initdb;
    return std::nullopt;
  }
  if (geteuid() == 0) {
    const passwd* account = getpwnam("postgres");
    if (account == nullptr) {
      *why = "the tests run as root, which initdb refuses, and there is no 'postgres' account to run the server as";
      return std::nullopt;
    }
    programs.uid = account->pw_uid;
    programs.gid = account->pw_gid;
  }
  return programs;
}

std::string PgLogTail(const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.size() > 2000 ? text.substr(text.size() - 2000) : text;
}

Status PgServerError(const std::string& message) {
  return Status::Error("test.postgres", message, {}, ErrorKind::kEnvironment);
}

std::string QuotedPgIdentifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

PostgresServer::PostgresServer(std::shared_ptr<const Programs> programs, std::string directory)
    : programs_(std::move(programs)), directory_(std::move(directory)) {}

std::string PostgresServer::Unavailable() {
  std::string why;
  return FindPgPrograms(&why) ? "" : why;
}

StatusOr<std::unique_ptr<PostgresServer>> PostgresServer::Start() {
  std::string why;
  std::optional<Programs> found = FindPgPrograms(&why);
  if (!found) return PgServerError(why);
  // In /tmp, not $TMPDIR: a socket's path must be short (108 bytes), and the
  // `postgres` account must reach it.
  std::string directory = "/tmp/perfgate-pg-XXXXXX";
  if (mkdtemp(directory.data()) == nullptr) return PgServerError("cannot create a directory in /tmp");
  std::unique_ptr<PostgresServer> server(
      new PostgresServer(std::make_shared<const Programs>(*found), std::move(directory)));
  server->StartGuard();
  PERFGATE_RETURN_IF_ERROR(server->Init());
  PERFGATE_RETURN_IF_ERROR(server->StartServer());
  return server;
}

Status PostgresServer::Init() {
  const Programs& p = *programs_;
  if (p.uid && chown(directory_.c_str(), *p.uid, p.gid) != 0) {
    return PgServerError("cannot give " + directory_ + " to the postgres account");
  }
  const PgProgramRun init = RunPgProgram({p.initdb, "-D", directory_ + "/data", "-U", kSuperuser, "--auth=trust",
                                          "--encoding=UTF8", "--locale=C", "--no-sync"},
                                         p.uid, p.gid);
  if (init.exit_code != 0) return PgServerError("initdb failed:\n" + init.output);
  // Only the socket in the directory. fsync off: a test's data need not survive the
  // machine, only the server (Stop() is a crash), so commits stay synchronous.
  std::ofstream conf(directory_ + "/data/postgresql.conf", std::ios::app);
  conf << "\nlisten_addresses = ''\nunix_socket_directories = '" << directory_ << "'\nport = " << kPgTestPort
       << "\nfsync = off\nfull_page_writes = off\n";
  conf.close();
  return conf ? Status() : PgServerError("cannot write " + directory_ + "/data/postgresql.conf");
}

Status PostgresServer::StartServer() {
  const Programs& p = *programs_;
  const std::string log = directory_ + "/server.log";
  const PgProgramRun start =
      RunPgProgram({p.pg_ctl, "-D", directory_ + "/data", "-l", log, "-w", "-t", "60", "start"}, p.uid, p.gid);
  if (start.exit_code != 0) {
    return PgServerError("pg_ctl start failed:\n" + start.output + "\nThe server's log:\n" + PgLogTail(log));
  }
  running_ = true;
  return Status();
}

Status PostgresServer::Stop() {
  if (!running_) return Status();
  const Programs& p = *programs_;
  const PgProgramRun stop =
      RunPgProgram({p.pg_ctl, "-D", directory_ + "/data", "-m", "immediate", "-w", "stop"}, p.uid, p.gid);
  if (stop.exit_code != 0) return PgServerError("pg_ctl stop failed:\n" + stop.output);
  running_ = false;
  return Status();
}

Status PostgresServer::Restart() {
  PERFGATE_RETURN_IF_ERROR(Stop());
  return StartServer();
}

PostgresServer::~PostgresServer() {
  Stop();
  std::error_code ec;
  fs::remove_all(directory_, ec);
  if (guard_fd_ >= 0) {
    close(guard_fd_);  // the guard finds nothing left to do
    waitpid(guard_pid_, nullptr, 0);
  }
}

void PostgresServer::StartGuard() {
  // The guard reads its stdin until the test program's end of the pipe closes, which
  // its exit or crash does, then stops the server and removes the folder. It runs in
  // a session of its own, so that a timeout killing the program's group spares it.
  int fds[2];
  if (pipe(fds) != 0) return;
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  const std::vector<std::string> argv = {
      "/bin/sh", "-c", "read _; \"$0\" -D \"$1/data\" -m immediate -w stop; rm -rf \"$1\"", programs_->pg_ctl,
      directory_};
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::optional<uid_t> uid = programs_->uid;
  const gid_t gid = programs_->gid;
  const pid_t pid = fork();
  if (pid == 0) {
    const int null_out = open("/dev/null", O_WRONLY);
    if (setsid() < 0 || dup2(fds[0], 0) < 0 || null_out < 0 || dup2(null_out, 1) < 0 || dup2(null_out, 2) < 0) {
      _exit(126);
    }
    if (uid && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(*uid) != 0)) _exit(126);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[0]);
  if (pid < 0) {
    close(fds[1]);
    return;
  }
  guard_fd_ = fds[1];
  guard_pid_ = pid;
}

std::string PostgresServer::Url(const std::string& database, const std::string& user) const {
  return "postgresql:///" + database + "?host=" + directory_ + "&port=" + kPgTestPort + "&user=" + user;
}

StatusOr<std::string> PostgresServer::Sql(const std::string& database, const std::string& sql) const {
  const PgProgramRun run =
      RunPgProgram({programs_->psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", Url(database), "-c", sql},
                   std::nullopt, 0);
  if (run.exit_code != 0) return PgServerError("psql failed on '" + sql + "':\n" + run.output);
  return run.output;
}

int PostgresServer::SqlInBackground(const std::string& database, const std::string& sql) const {
  const int null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_out < 0) return -1;
  const pid_t pid =
      SpawnPgProgram({programs_->psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", Url(database), "-c", sql},
                     std::nullopt, 0, null_out);
  close(null_out);
  return pid;
}

StatusOr<std::string> PostgresServer::CreateDatabase(const std::string& name) {
  const std::string quoted = QuotedPgIdentifier(name);
  // FORCE: a store a failed test left open does not keep its database.
  StatusOr<std::string> done = Sql("postgres", "DROP DATABASE IF EXISTS " + quoted + " WITH (FORCE)");
  if (done.ok()) done = Sql("postgres", "CREATE DATABASE " + quoted);
  if (!done.ok()) return done.status();
  return Url(name);
}

SharedPostgres WithoutPostgres(const std::string& problem, const EnvLookup& env) {
  SharedPostgres s;
  s.problem = problem;
  const std::optional<std::string> ci = CiVariable(env);
  s.may_skip = !ci || EnvTruthy(env("PERFGATE_ALLOW_SKIP"));
  if (!s.may_skip) {
    s.problem += ". " + *ci + " is set, so a missing PostgreSQL fails; set PERFGATE_ALLOW_SKIP=1 to skip";
  }
  return s;
}

const SharedPostgres& SharedPostgresServer() {
  static std::unique_ptr<PostgresServer> server;
  static const SharedPostgres shared = [] {
#if defined(PERFGATE_HISTORY_TEST_POSTGRESQL) && !PERFGATE_HISTORY_TEST_POSTGRESQL
    const std::string missing =
        "perfgate was built without its PostgreSQL store (pkg-config found no libpq: Debian libpq-dev pkg-config, "
        "Homebrew libpq pkg-config)";
#else
    const std::string missing = PostgresServer::Unavailable();
#endif
    if (!missing.empty()) return WithoutPostgres(missing);
    SharedPostgres s;
    auto started = PostgresServer::Start();
    if (!started.ok()) {
      s.problem = started.status().message();  // installed but broken: never a skip
      return s;
    }
    server = std::move(started).value();
    s.server = server.get();
    return s;
  }();
  return shared;
}

}  // namespace perfgate::testing_support
