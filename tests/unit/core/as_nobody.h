// Runs a check as an unprivileged user, so that permission tests mean something when
// the tests run as root (as in CI): root reads files of any mode.
#ifndef PERFGATE_TESTS_UNIT_CORE_AS_NOBODY_H_
#define PERFGATE_TESTS_UNIT_CORE_AS_NOBODY_H_

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

namespace perfgate::testing_support {

// The string `check` returns, computed in a child process that has given up root for
// `nobody` (uid and gid 65534) when the test runs as root, in this process otherwise.
inline std::string AsUnprivileged(const std::function<std::string()>& check) {
  if (::geteuid() != 0) return check();
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string out = ::setgid(65534) == 0 && ::setuid(65534) == 0 ? check() : "setuid failed";
    ssize_t ignored = ::write(fds[1], out.data(), out.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_UNIT_CORE_AS_NOBODY_H_
