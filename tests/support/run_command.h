// Running the perfgate CLI from tests: captures stdout, stderr and the exit code.
#ifndef PERFGATE_TESTS_SUPPORT_RUN_COMMAND_H_
#define PERFGATE_TESTS_SUPPORT_RUN_COMMAND_H_

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace perfgate::testing_support {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string SlurpFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `command` through /bin/sh, capturing both streams through temporary files.
inline CommandResult RunCommand(const std::string& command) {
  char out_path[] = "/tmp/perfgate-test-out-XXXXXX";
  char err_path[] = "/tmp/perfgate-test-err-XXXXXX";
  int out_fd = mkstemp(out_path);
  int err_fd = mkstemp(err_path);
  close(out_fd);
  close(err_fd);
  std::string full = command + " >" + out_path + " 2>" + err_path + " </dev/null";
  int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = SlurpFile(out_path);
  r.err = SlurpFile(err_path);
  unlink(out_path);
  unlink(err_path);
  return r;
}

// Runs the perfgate CLI built with the tests.
inline CommandResult RunPerfgate(const std::string& args) {
  return RunCommand(std::string(PERFGATE_CLI_PATH) + " " + args);
}

// Writes `bytes` to a fresh temporary file and returns its path.
inline std::string WriteTempFile(const std::string& bytes, const std::string& suffix = ".xml") {
  std::string templ = "/tmp/perfgate-test-XXXXXX" + suffix;
  std::string buf = templ;
  int fd = mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) return "";
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + off, bytes.size() - off);
    if (n <= 0) break;
    off += static_cast<size_t>(n);
  }
  close(fd);
  return buf;
}

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_SUPPORT_RUN_COMMAND_H_
