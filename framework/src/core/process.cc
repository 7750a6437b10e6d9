// The process runner: fork/execve in a new process group, poll on the pipes, kill the
// group on timeout or cancel. See perfgate/core/process.h.
#include "perfgate/core/process.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#if defined(__unix__) || defined(__APPLE__)
#define PERFGATE_INTERNAL_POSIX_PROCESS 1
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#if defined(__APPLE__)
#include <crt_externs.h>
#define PERFGATE_INTERNAL_ENVIRON (*_NSGetEnviron())
#else
extern char** environ;
#define PERFGATE_INTERNAL_ENVIRON environ
#endif
#endif

namespace perfgate {
namespace {

std::string FormatSeconds(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buf;
}

// The last `max_lines` lines of `text` (at most `max_chars` characters), each on its
// own line and indented.
std::string Tail(const std::string& text, size_t max_lines, size_t max_chars) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  if (lines.size() > max_lines) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(max_lines));
  std::string out;
  for (const std::string& l : lines) out += "\n  " + l;
  if (out.size() > max_chars) out = "\n  ..." + out.substr(out.size() - max_chars);
  return out;
}

}  // namespace

std::string ShellQuote(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                             "0123456789_./:=@%+,-") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string SignalName(int signal) {
  struct Named {
    int number;
    const char* name;
  };
  static const Named kNames[] = {
      {SIGABRT, "SIGABRT"}, {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGINT, "SIGINT"},
      {SIGSEGV, "SIGSEGV"}, {SIGTERM, "SIGTERM"},
#ifdef PERFGATE_INTERNAL_POSIX_PROCESS
      {SIGKILL, "SIGKILL"}, {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"}, {SIGPIPE, "SIGPIPE"},
      {SIGBUS, "SIGBUS"},   {SIGALRM, "SIGALRM"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"},
      {SIGTRAP, "SIGTRAP"}, {SIGXCPU, "SIGXCPU"}, {SIGSYS, "SIGSYS"},
#endif
  };
  for (const Named& n : kNames) {
    if (n.number == signal) return n.name;
  }
  return "signal " + std::to_string(signal);
}

std::string ProcessResult::Describe() const {
  std::string how;
  if (exited) {
    how = "exited with status " + std::to_string(exit_code);
  } else if (signaled) {
    how = "killed by signal " + std::to_string(term_signal) + " (" + SignalName(term_signal) + ")";
  } else {
    how = "ended in an unknown way";
  }
  if (timed_out) return "timed out after " + FormatSeconds(elapsed_ms) + " and was stopped (" + how + ")";
  if (cancelled) return "was interrupted after " + FormatSeconds(elapsed_ms) + " (" + how + ")";
  if (stdout_truncated && exited && exit_code == 0) {
    return "wrote " + std::to_string(stdout_bytes) + " bytes of output, more than the limit";
  }
  return how;
}

Status CheckProcessSucceeded(const ProcessResult& result, std::string_view what) {
  if (result.ok()) return Status();
  std::string code = result.timed_out                            ? "process.timeout"
                     : result.cancelled                          ? "process.cancelled"
                     : result.signaled                           ? "process.signaled"
                     : !(result.exited && result.exit_code == 0) ? "process.exit_status"
                                                                 : "process.output_too_large";
  std::string message = std::string(what) + " " + result.Describe();
  std::string tail = Tail(result.stderr_text, 8, 2000);
  if (!tail.empty()) message += "; its stderr ends:" + tail;
  return Status::Error(std::move(code), std::move(message), {}, ErrorKind::kEnvironment);
}

#ifdef PERFGATE_INTERNAL_POSIX_PROCESS

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start).count();
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// A file descriptor that closes itself, so that no return path has to list them all.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = other.fd_;
      other.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }

  int get() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// A pipe whose two ends are closed on exec (the child dup2s the one it needs).
// Atomically where the system allows: a fork by another thread between pipe() and
// fcntl() would hand its child our write end, and we would wait for that child's exit
// to see end of file.
bool MakePipe(Fd* read_end, Fd* write_end) {
  int fds[2];
#if defined(__linux__)
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
#else
  if (::pipe(fds) != 0) return false;
  for (int fd : fds) ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC);
#endif
  *read_end = Fd(fds[0]);
  *write_end = Fd(fds[1]);
  return true;
}

// Signals the child's process group; the child alone if the group does not exist
// (setpgid failed). Only while the child is unreaped, so its pid cannot be reused.
void SignalGroup(pid_t pid, int signal, bool reaped) {
  if (::kill(-pid, signal) != 0 && errno == ESRCH && !reaped) ::kill(pid, signal);
}

Status SpawnError(const std::string& what, int err) {
  return Status::Error("process.spawn_failed", "cannot run " + what + ": " + std::strerror(err), {},
                       ErrorKind::kEnvironment);
}

// One captured stream: where its bytes go and how many are kept.
struct Sink {
  Fd fd;             // read end of the pipe; closed at end of file
  int file_fd = -1;  // stdout_path, or -1 to keep bytes in `text`
  std::string* text = nullptr;
  size_t max_bytes = 0;
  uint64_t* total = nullptr;
  bool* truncated = nullptr;
  size_t kept = 0;
  int write_errno = 0;

  void Consume(const char* data, size_t n) {
    *total += n;
    size_t take = kept < max_bytes ? std::min(n, max_bytes - kept) : 0;
    if (take < n) *truncated = true;
    if (take == 0) return;
    kept += take;
    if (file_fd < 0) {
      text->append(data, take);
      return;
    }
    size_t off = 0;
    while (off < take && write_errno == 0) {
      ssize_t w = ::write(file_fd, data + off, take - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        write_errno = w < 0 ? errno : EIO;
        break;
      }
      off += static_cast<size_t>(w);
    }
  }
};

// Reads what is available on the sink's pipe; closes it at end of file.
void Drain(Sink* sink) {
  char buf[65536];
  ssize_t n = ::read(sink->fd.get(), buf, sizeof buf);
  if (n > 0) {
    sink->Consume(buf, static_cast<size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    sink->fd.Reset();
  }
}

std::string PathForLookup(const ProcessOptions& o) {
  for (auto it = o.set_env.rbegin(); it != o.set_env.rend(); ++it) {
    if (it->first == "PATH") return it->second;
  }
  bool unset = std::find(o.unset_env.begin(), o.unset_env.end(), "PATH") != o.unset_env.end();
  if (o.inherit_env && !unset) {
    const char* p = std::getenv("PATH");
    if (p != nullptr) return p;
  }
  return "/usr/bin:/bin";
}

std::vector<std::string> BuildEnvironment(const ProcessOptions& o) {
  auto removed = [&](const std::string& entry) {
    std::string name = entry.substr(0, entry.find('='));
    if (std::find(o.unset_env.begin(), o.unset_env.end(), name) != o.unset_env.end()) return true;
    for (const auto& kv : o.set_env) {
      if (kv.first == name) return true;
    }
    return false;
  };
  std::vector<std::string> env;
  if (o.inherit_env) {
    for (char** e = PERFGATE_INTERNAL_ENVIRON; e != nullptr && *e != nullptr; ++e) {
      std::string entry = *e;
      if (!removed(entry)) env.push_back(std::move(entry));
    }
  }
  for (const auto& kv : o.set_env) {
    bool later = false;  // a later pair for the same name wins
    for (auto it = &kv + 1; it != o.set_env.data() + o.set_env.size(); ++it) later |= it->first == kv.first;
    if (!later) env.push_back(kv.first + "=" + kv.second);
  }
  return env;
}

// The file argv[0] runs as, looked up in the PATH the child will see.
StatusOr<std::string> ResolveProgram(const ProcessOptions& o) {
  if (o.argv.empty() || o.argv[0].empty()) {
    return Status::Error("process.bad_argv", "no program to run (empty argv)", {}, ErrorKind::kEnvironment);
  }
  const std::string& program = o.argv[0];
  std::optional<std::string> path = FindExecutable(program, PathForLookup(o));
  if (path) return *std::move(path);
  std::string where = program.find('/') != std::string::npos ? "no such executable file" : "not found in PATH";
  return Status::Error("process.not_found", "cannot run '" + program + "': " + where, {}, ErrorKind::kEnvironment);
}

// argv and envp as execve takes them. Built before fork, because between fork and
// exec the child may only make async-signal-safe calls (no allocation).
struct ExecImage {
  std::vector<std::string> env;  // owns what envp points to
  std::vector<char*> argv;       // points into ProcessOptions::argv
  std::vector<char*> envp;
};

ExecImage BuildExecImage(const ProcessOptions& o) {
  ExecImage image;
  image.env = BuildEnvironment(o);
  for (const std::string& a : o.argv) image.argv.push_back(const_cast<char*>(a.c_str()));
  image.argv.push_back(nullptr);
  for (const std::string& e : image.env) image.envp.push_back(const_cast<char*>(e.c_str()));
  image.envp.push_back(nullptr);
  return image;
}

// The descriptors of one run. The child's ends are closed in the parent right after
// fork; the report pipe carries the errno of a failed chdir or exec.
struct ChildIo {
  Fd stdin_null;
  Fd stdout_read, stdout_write;
  Fd stderr_read, stderr_write;
  Fd report_read, report_write;
  Fd stdout_file;  // stdout_path, when given
};

Status OpenChildIo(const ProcessOptions& o, ChildIo* io) {
  if (!o.stdout_path.empty()) {
    io->stdout_file = Fd(::open(o.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!io->stdout_file.is_open()) {
      return Status::Error("io.write_failed", std::string("cannot create the output file: ") + std::strerror(errno),
                           {o.stdout_path}, ErrorKind::kEnvironment);
    }
  }
  io->stdin_null = Fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!io->stdin_null.is_open() || !MakePipe(&io->stdout_read, &io->stdout_write) ||
      !MakePipe(&io->stderr_read, &io->stderr_write) || !MakePipe(&io->report_read, &io->report_write)) {
    return SpawnError(o.argv[0], errno);
  }
  return Status();
}

// In the child: makes `fd` the descriptor `target`. When perfgate's own 0, 1 or 2 was
// closed, /dev/null or a pipe may already have that number, and dup2 onto itself would
// leave it close-on-exec (the program would start without it), so the flag is cleared
// instead. A source never equals an earlier target (which dup2 would have replaced):
// /dev/null and the pipes are opened in the order of their targets, each taking the
// lowest free number.
bool MoveFdTo(int fd, int target) {
  if (fd != target) return ::dup2(fd, target) >= 0;
  const int flags = ::fcntl(fd, F_GETFD);
  return flags >= 0 && ::fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) >= 0;
}

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void ExecChild(const ProcessOptions& o, const char* path, const ExecImage& image, const ChildIo& io) {
  const int report_fd = io.report_write.get();
  auto fail = [report_fd](int err) {
    ssize_t ignored = ::write(report_fd, &err, sizeof err);
    (void)ignored;
    ::_exit(127);
  };
  ::setpgid(0, 0);
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s) {
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (!o.working_directory.empty() && ::chdir(o.working_directory.c_str()) != 0) fail(errno);
  if (!MoveFdTo(io.stdin_null.get(), 0) || !MoveFdTo(io.stdout_write.get(), 1) ||
      !MoveFdTo(io.stderr_write.get(), 2)) {
    fail(errno);
  }
  ::execve(path, image.argv.data(), image.envp.data());
  fail(errno);
  ::_exit(127);
}

// The errno the child reported through the pipe; nullopt when the pipe closed
// without one (exec succeeded).
std::optional<int> ReadExecReport(Fd* report_read) {
  int child_errno = 0;
  size_t got = 0;
  while (got < sizeof child_errno) {
    ssize_t n = ::read(report_read->get(), reinterpret_cast<char*>(&child_errno) + got, sizeof child_errno - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  report_read->Reset();
  if (got < sizeof child_errno) return std::nullopt;
  return child_errno;
}

// Forks the child into its own process group and waits until it has exec'd; a child
// that could not chdir or exec is reaped and becomes the error.
StatusOr<pid_t> Spawn(const ProcessOptions& o, const std::string& path, const ExecImage& image, ChildIo* io) {
  const std::string& program = o.argv[0];
  pid_t pid = ::fork();
  if (pid < 0) return SpawnError(program, errno);
  if (pid == 0) ExecChild(o, path.c_str(), image, *io);
  // Also from the parent, so the group exists before any kill(-pid) below.
  ::setpgid(pid, pid);
  io->stdout_write.Reset();
  io->stderr_write.Reset();
  io->report_write.Reset();
  io->stdin_null.Reset();
  const std::optional<int> child_errno = ReadExecReport(&io->report_read);
  if (!child_errno) return pid;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return SpawnError("'" + program + "'" + (o.working_directory.empty() ? "" : " in " + o.working_directory),
                    *child_errno);
}

// Stdout and stderr as sinks that own the pipes' read ends.
std::array<Sink, 2> MakeSinks(const ProcessOptions& o, ChildIo* io, ProcessResult* r) {
  std::array<Sink, 2> sinks;
  sinks[0].fd = std::move(io->stdout_read);
  sinks[0].file_fd = io->stdout_file.get();
  sinks[0].text = &r->stdout_text;
  sinks[0].max_bytes = o.max_stdout_bytes;
  sinks[0].total = &r->stdout_bytes;
  sinks[0].truncated = &r->stdout_truncated;
  sinks[1].fd = std::move(io->stderr_read);
  sinks[1].text = &r->stderr_text;
  sinks[1].max_bytes = o.max_stderr_bytes;
  sinks[1].total = &r->stderr_bytes;
  sinks[1].truncated = &r->stderr_truncated;
  return sinks;
}

// Watches a spawned child until it is reaped and its pipes are closed: pumps the
// pipes into the sinks, stops the group on timeout or cancel (terminate_signal, then
// SIGKILL after the grace period), deals with stragglers, and calls the heartbeat.
class Supervisor {
 public:
  Supervisor(const ProcessOptions& o, pid_t pid, Clock::time_point start, std::array<Sink, 2>* sinks,
             ProcessResult* r)
      : o_(o),
        pid_(pid),
        start_(start),
        sinks_(*sinks),
        r_(*r),
        deadline_(start + milliseconds(o.timeout_ms > 0 ? o.timeout_ms : 0)),
        next_heartbeat_(start + milliseconds(o.heartbeat_ms > 0 ? o.heartbeat_ms : 0)) {}
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Leaving before Run has finished (the heartbeat or an allocation threw): nothing
  // started by this call may outlive it, so the group is killed and the child reaped.
  // The sinks close the pipes after this.
  ~Supervisor() {
    if (reaped_ && !PipesOpen()) return;
    SignalGroup(pid_, SIGKILL, reaped_);
    while (!reaped_) {
      if (::waitpid(pid_, &wait_status_, 0) == pid_ || errno != EINTR) reaped_ = true;
    }
  }

  void Run() {
    while (true) {
      Reap();
      if (reaped_ && !PipesOpen()) return;
      const Clock::time_point now = Clock::now();
      EnforceDeadline(now);
      if (reaped_ && PipesOpen() && HandleStragglers(now)) continue;
      Heartbeat(now);
      PumpOutput();
    }
  }

  // How the program ended, once Run has returned.
  void CollectStatus() {
    if (!status_known_) return;
    if (WIFEXITED(wait_status_)) {
      r_.exited = true;
      r_.exit_code = WEXITSTATUS(wait_status_);
    } else if (WIFSIGNALED(wait_status_)) {
      r_.signaled = true;
      r_.term_signal = WTERMSIG(wait_status_);
    }
  }

 private:
  bool PipesOpen() const { return sinks_[0].fd.is_open() || sinks_[1].fd.is_open(); }

  void Reap() {
    if (reaped_) return;
    const pid_t w = ::waitpid(pid_, &wait_status_, WNOHANG);
    if (w == pid_) {
      reaped_ = true;
    } else if (w < 0 && errno == ECHILD) {
      // Reaped by someone else (SIGCHLD ignored, or a wait(-1) in another thread): it
      // has ended, but how is unknown, so the result is neither exited nor signaled
      // and fails closed.
      reaped_ = true;
      status_known_ = false;
    }
  }

  // Timeout or cancel: the terminate signal now, SIGKILL once the grace period is over.
  void EnforceDeadline(Clock::time_point now) {
    if (!stopping_ && !reaped_) {
      if (o_.timeout_ms > 0 && now >= deadline_) {
        r_.timed_out = stopping_ = true;
      } else if (o_.cancel != nullptr && o_.cancel->load()) {
        r_.cancelled = stopping_ = true;
      }
      if (stopping_) {
        SignalGroup(pid_, o_.terminate_signal, reaped_);
        kill_at_ = now + milliseconds(std::max<int64_t>(o_.kill_grace_ms, 0));
      }
    } else if (stopping_ && !group_killed_ && now >= kill_at_) {
      SignalGroup(pid_, SIGKILL, reaped_);
      group_killed_ = true;
    }
  }

  // The program ended but something it started still holds a pipe: give it a moment
  // to finish writing, then kill the group, and at last give up on the pipes (true).
  bool HandleStragglers(Clock::time_point now) {
    if (!stragglers_seen_) {
      stragglers_seen_ = true;
      straggler_kill_at_ = now + milliseconds(200);
      give_up_at_ = straggler_kill_at_ + milliseconds(1000);
    } else if (!r_.killed_stragglers && now >= straggler_kill_at_) {
      SignalGroup(pid_, SIGKILL, reaped_);
      r_.killed_stragglers = true;
    } else if (now >= give_up_at_) {
      sinks_[0].fd.Reset();
      sinks_[1].fd.Reset();
      return true;
    }
    return false;
  }

  void Heartbeat(Clock::time_point now) {
    if (o_.heartbeat_ms <= 0 || !o_.heartbeat || now < next_heartbeat_) return;
    o_.heartbeat(MillisSince(start_));
    next_heartbeat_ = now + milliseconds(o_.heartbeat_ms);
  }

  // Waits up to one tick for output and drains what came.
  void PumpOutput() {
    constexpr int kTickMs = 20;
    struct pollfd fds[2];
    Sink* polled[2];
    nfds_t n = 0;
    for (Sink& s : sinks_) {
      if (!s.fd.is_open()) continue;
      fds[n].fd = s.fd.get();
      fds[n].events = POLLIN;
      fds[n].revents = 0;
      polled[n++] = &s;
    }
    // With the pipes closed the program is about to end: wait in short, growing steps.
    idle_wait_ms_ = n > 0 ? 1 : std::min(idle_wait_ms_ * 2, kTickMs);
    int ready = ::poll(n > 0 ? fds : nullptr, n, n > 0 ? kTickMs : idle_wait_ms_);
    if (ready <= 0) return;  // timeout or EINTR
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) Drain(polled[i]);
    }
  }

  const ProcessOptions& o_;
  const pid_t pid_;
  const Clock::time_point start_;
  std::array<Sink, 2>& sinks_;
  ProcessResult& r_;
  const Clock::time_point deadline_;
  Clock::time_point next_heartbeat_;

  bool reaped_ = false;
  bool status_known_ = true;
  int wait_status_ = 0;
  bool stopping_ = false;
  bool group_killed_ = false;
  Clock::time_point kill_at_{};
  bool stragglers_seen_ = false;
  Clock::time_point straggler_kill_at_{};
  Clock::time_point give_up_at_{};
  int idle_wait_ms_ = 1;
};

// A failed write to stdout_path is an error even though the program itself succeeded.
Status CheckOutputFileWritten(const ProcessOptions& o, const Sink& stdout_sink) {
  if (stdout_sink.write_errno == 0) return Status();
  return Status::Error("io.write_failed",
                       std::string("cannot write the output of '") + o.argv[0] + "': " +
                           std::strerror(stdout_sink.write_errno),
                       {o.stdout_path}, ErrorKind::kEnvironment);
}

}  // namespace

std::optional<std::string> FindExecutable(std::string_view name, std::optional<std::string> path_list) {
  if (name.empty()) return std::nullopt;
  std::string n(name);
  if (n.find('/') != std::string::npos) {
    if (IsExecutableFile(n)) return n;
    return std::nullopt;
  }
  std::string paths;
  if (path_list) {
    paths = *path_list;
  } else {
    const char* p = std::getenv("PATH");
    paths = p != nullptr ? p : "/usr/bin:/bin";
  }
  size_t begin = 0;
  while (begin <= paths.size()) {
    size_t end = paths.find(':', begin);
    if (end == std::string::npos) end = paths.size();
    std::string dir = paths.substr(begin, end - begin);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + n;
    if (IsExecutableFile(candidate)) return candidate;
    begin = end + 1;
  }
  return std::nullopt;
}

StatusOr<ProcessResult> RunProcess(const ProcessOptions& o) {
  PERFGATE_ASSIGN_OR_RETURN(const std::string path, ResolveProgram(o));
  const ExecImage image = BuildExecImage(o);
  ChildIo io;
  PERFGATE_RETURN_IF_ERROR(OpenChildIo(o, &io));
  const Clock::time_point start = Clock::now();
  PERFGATE_ASSIGN_OR_RETURN(const pid_t pid, Spawn(o, path, image, &io));

  ProcessResult r;
  std::array<Sink, 2> sinks = MakeSinks(o, &io, &r);
  Supervisor supervisor(o, pid, start, &sinks, &r);
  supervisor.Run();
  r.elapsed_ms = MillisSince(start);
  supervisor.CollectStatus();
  io.stdout_file.Reset();
  PERFGATE_RETURN_IF_ERROR(CheckOutputFileWritten(o, sinks[0]));
  return r;
}

#else  // not POSIX

std::optional<std::string> FindExecutable(std::string_view, std::optional<std::string>) { return std::nullopt; }

StatusOr<ProcessResult> RunProcess(const ProcessOptions&) {
  return Status::Error("process.unsupported", "running external programs needs a POSIX system (Linux or macOS)", {},
                       ErrorKind::kEnvironment);
}

#endif

}  // namespace perfgate
