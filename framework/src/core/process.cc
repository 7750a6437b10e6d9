// The process runner: fork/execve in a new process group, poll on the pipes, kill the
// group on timeout or cancel. See perfgate/core/process.h.
#include "perfgate/core/process.h"

#include <algorithm>
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

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void SetCloseOnExec(int fd) { ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC); }

// A pipe whose two ends are closed on exec (the child dup2s the one it needs).
bool MakePipe(int fds[2]) {
  if (::pipe(fds) != 0) return false;
  SetCloseOnExec(fds[0]);
  SetCloseOnExec(fds[1]);
  return true;
}

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
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
  int fd = -1;       // read end of the pipe; -1 once closed
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
  ssize_t n = ::read(sink->fd, buf, sizeof buf);
  if (n > 0) {
    sink->Consume(buf, static_cast<size_t>(n));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    CloseFd(&sink->fd);
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

// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void ExecChild(const ProcessOptions& o, const char* path, char* const* argv, char* const* envp,
                            int stdin_fd, int stdout_fd, int stderr_fd, int report_fd) {
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
  if (::dup2(stdin_fd, 0) < 0 || ::dup2(stdout_fd, 1) < 0 || ::dup2(stderr_fd, 2) < 0) fail(errno);
  ::execve(path, argv, envp);
  fail(errno);
  ::_exit(127);
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
  if (o.argv.empty() || o.argv[0].empty()) {
    return Status::Error("process.bad_argv", "no program to run (empty argv)", {}, ErrorKind::kEnvironment);
  }
  const std::string& program = o.argv[0];
  std::optional<std::string> path = FindExecutable(program, PathForLookup(o));
  if (!path) {
    std::string where = program.find('/') != std::string::npos ? "no such executable file" : "not found in PATH";
    return Status::Error("process.not_found", "cannot run '" + program + "': " + where, {}, ErrorKind::kEnvironment);
  }

  // Everything the child needs is built before fork.
  std::vector<std::string> env = BuildEnvironment(o);
  std::vector<char*> argv_ptrs, env_ptrs;
  for (const std::string& a : o.argv) argv_ptrs.push_back(const_cast<char*>(a.c_str()));
  argv_ptrs.push_back(nullptr);
  for (const std::string& e : env) env_ptrs.push_back(const_cast<char*>(e.c_str()));
  env_ptrs.push_back(nullptr);

  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, report_pipe[2] = {-1, -1};
  int null_fd = -1, file_fd = -1;
  auto close_all = [&] {
    for (int* fd : {&out_pipe[0], &out_pipe[1], &err_pipe[0], &err_pipe[1], &report_pipe[0], &report_pipe[1], &null_fd,
                    &file_fd}) {
      CloseFd(fd);
    }
  };
  if (!o.stdout_path.empty()) {
    file_fd = ::open(o.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (file_fd < 0) {
      return Status::Error("io.write_failed", std::string("cannot create the output file: ") + std::strerror(errno),
                           {o.stdout_path}, ErrorKind::kEnvironment);
    }
    SetCloseOnExec(file_fd);
  }
  null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0 || !MakePipe(out_pipe) || !MakePipe(err_pipe) || !MakePipe(report_pipe)) {
    int err = errno;
    close_all();
    return SpawnError(program, err);
  }
  SetCloseOnExec(null_fd);

  const Clock::time_point start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    int err = errno;
    close_all();
    return SpawnError(program, err);
  }
  if (pid == 0) {
    ExecChild(o, path->c_str(), argv_ptrs.data(), env_ptrs.data(), null_fd, out_pipe[1], err_pipe[1], report_pipe[1]);
  }
  // Also from the parent, so the group exists before any kill(-pid) below.
  ::setpgid(pid, pid);
  CloseFd(&out_pipe[1]);
  CloseFd(&err_pipe[1]);
  CloseFd(&report_pipe[1]);
  CloseFd(&null_fd);

  // The report pipe closes on a successful exec, or carries the errno of a failure.
  int child_errno = 0;
  size_t got = 0;
  while (got < sizeof child_errno) {
    ssize_t n = ::read(report_pipe[0], reinterpret_cast<char*>(&child_errno) + got, sizeof child_errno - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  CloseFd(&report_pipe[0]);
  if (got == sizeof child_errno) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    close_all();
    return SpawnError("'" + program + "'" + (o.working_directory.empty() ? "" : " in " + o.working_directory),
                      child_errno);
  }

  ProcessResult r;
  Sink sinks[2];
  sinks[0].fd = out_pipe[0];
  sinks[0].file_fd = file_fd;
  sinks[0].text = &r.stdout_text;
  sinks[0].max_bytes = o.max_stdout_bytes;
  sinks[0].total = &r.stdout_bytes;
  sinks[0].truncated = &r.stdout_truncated;
  sinks[1].fd = err_pipe[0];
  sinks[1].text = &r.stderr_text;
  sinks[1].max_bytes = o.max_stderr_bytes;
  sinks[1].total = &r.stderr_bytes;
  sinks[1].truncated = &r.stderr_truncated;
  out_pipe[0] = err_pipe[0] = -1;  // owned by the sinks now

  using std::chrono::milliseconds;
  const bool has_deadline = o.timeout_ms > 0;
  const Clock::time_point deadline = start + milliseconds(has_deadline ? o.timeout_ms : 0);
  bool reaped = false, stopping = false, group_killed = false;
  int wait_status = 0;
  Clock::time_point kill_at{}, straggler_kill_at{}, give_up_at{};
  bool stragglers_seen = false;
  int idle_wait_ms = 1;
  Clock::time_point next_heartbeat = start + milliseconds(o.heartbeat_ms > 0 ? o.heartbeat_ms : 0);

  while (true) {
    if (!reaped) {
      pid_t w = ::waitpid(pid, &wait_status, WNOHANG);
      if (w == pid) reaped = true;
    }
    const bool pipes_open = sinks[0].fd >= 0 || sinks[1].fd >= 0;
    if (reaped && !pipes_open) break;
    const Clock::time_point now = Clock::now();

    if (!stopping && !reaped) {
      if (has_deadline && now >= deadline) {
        r.timed_out = stopping = true;
      } else if (o.cancel != nullptr && o.cancel->load()) {
        r.cancelled = stopping = true;
      }
      if (stopping) {
        SignalGroup(pid, o.terminate_signal, reaped);
        kill_at = now + milliseconds(std::max<int64_t>(o.kill_grace_ms, 0));
      }
    } else if (stopping && !group_killed && now >= kill_at) {
      SignalGroup(pid, SIGKILL, reaped);
      group_killed = true;
    }
    if (reaped && pipes_open) {
      // The program ended but something it started still holds a pipe: give it a
      // moment to finish writing, then kill the group; give up on the pipes at last.
      if (!stragglers_seen) {
        stragglers_seen = true;
        straggler_kill_at = now + milliseconds(200);
        give_up_at = straggler_kill_at + milliseconds(1000);
      } else if (!r.killed_stragglers && now >= straggler_kill_at) {
        SignalGroup(pid, SIGKILL, reaped);
        r.killed_stragglers = true;
      } else if (now >= give_up_at) {
        CloseFd(&sinks[0].fd);
        CloseFd(&sinks[1].fd);
        continue;
      }
    }
    if (o.heartbeat_ms > 0 && o.heartbeat && now >= next_heartbeat) {
      o.heartbeat(MillisSince(start));
      next_heartbeat = now + milliseconds(o.heartbeat_ms);
    }

    constexpr int kTickMs = 20;
    struct pollfd fds[2];
    Sink* polled[2];
    nfds_t n = 0;
    for (Sink& s : sinks) {
      if (s.fd < 0) continue;
      fds[n].fd = s.fd;
      fds[n].events = POLLIN;
      fds[n].revents = 0;
      polled[n++] = &s;
    }
    // With the pipes closed the program is about to end: wait in short, growing steps.
    idle_wait_ms = n > 0 ? 1 : std::min(idle_wait_ms * 2, kTickMs);
    int ready = ::poll(n > 0 ? fds : nullptr, n, n > 0 ? kTickMs : idle_wait_ms);
    if (ready <= 0) continue;  // timeout or EINTR
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) Drain(polled[i]);
    }
  }

  r.elapsed_ms = MillisSince(start);
  if (WIFEXITED(wait_status)) {
    r.exited = true;
    r.exit_code = WEXITSTATUS(wait_status);
  } else if (WIFSIGNALED(wait_status)) {
    r.signaled = true;
    r.term_signal = WTERMSIG(wait_status);
  }
  int write_errno = sinks[0].write_errno;
  CloseFd(&file_fd);
  if (write_errno != 0) {
    return Status::Error("io.write_failed",
                         std::string("cannot write the output of '") + program + "': " + std::strerror(write_errno),
                         {o.stdout_path}, ErrorKind::kEnvironment);
  }
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
