// The process runner on Linux: argv without a shell, environment, working directory,
// captured streams with limits, exit status and signals, timeouts that kill the whole
// process group, cancellation and heartbeats. Child programs are /bin/sh one-liners.
#include "perfgate/core/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace perfgate {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

ProcessResult Spawn(const ProcessOptions& o) {
  auto r = RunProcess(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ProcessResult{};
}

ProcessOptions Sh(const std::string& script) {
  ProcessOptions o;
  o.argv = {"/bin/sh", "-c", script};
  return o;
}

// True once `pid` has died (waits up to 2 s). A zombie counts as dead: an orphan is
// reaped by pid 1 whenever that gets to it.
bool Gone(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    size_t paren = text.rfind(')');
    if (paren != std::string::npos && text.compare(paren, 4, ") Z ") == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("perfgate-process-test-" + std::to_string(getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(RunProcess, CapturesBothStreamsAndTheExitStatus) {
  ProcessResult r = Spawn(Sh("printf out; printf err >&2; exit 3"));
  EXPECT_TRUE(r.exited);
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.stdout_text, "out");
  EXPECT_EQ(r.stderr_text, "err");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.Describe(), "exited with status 3");
}

TEST(RunProcess, PassesArgvWithoutAShell) {
  ProcessOptions o;
  o.argv = {"echo", "$HOME", "a;b", "*", "two words"};
  ProcessResult r = Spawn(o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.stdout_text, "$HOME a;b * two words\n");
}

TEST(RunProcess, StdinIsEmpty) {
  ProcessOptions o;
  o.argv = {"cat"};
  o.timeout_ms = 5000;
  ProcessResult r = Spawn(o);
  EXPECT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.stdout_text, "");
}

TEST(RunProcess, MissingProgramsAreEnvironmentErrors) {
  ProcessOptions o;
  o.argv = {"perfgate-no-such-program-xyz"};
  auto r = RunProcess(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.not_found");
  EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
  EXPECT_THAT(r.status().message(), HasSubstr("not found in PATH"));

  o.argv = {"/nonexistent/dir/program"};
  r = RunProcess(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.not_found");

  o.argv = {};
  EXPECT_EQ(RunProcess(o).status().code(), "process.bad_argv");
}

TEST(RunProcess, ExecFailureIsReportedWithItsReason) {
  TempDir dir;
  const std::string bogus = (dir.path() / "not-a-program").string();
  std::ofstream(bogus) << "\x7f"
                       << "garbage that is neither ELF nor a script";
  chmod(bogus.c_str(), 0755);
  ProcessOptions o;
  o.argv = {bogus};
  auto r = RunProcess(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.spawn_failed");
  EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
  EXPECT_THAT(r.status().message(), HasSubstr("Exec format error"));
}

TEST(RunProcess, SetsAndRemovesEnvironmentVariables) {
  ::setenv("PERFGATE_PROCESS_TEST_INHERITED", "yes", 1);
  ProcessOptions o = Sh("echo \"$FOO:${PERFGATE_PROCESS_TEST_INHERITED-unset}:${PERFGATE_PROCESS_TEST_GONE-unset}\"");
  ::setenv("PERFGATE_PROCESS_TEST_GONE", "present", 1);
  o.set_env = {{"FOO", "first"}, {"FOO", "bar"}};
  o.unset_env = {"PERFGATE_PROCESS_TEST_GONE"};
  EXPECT_EQ(Spawn(o).stdout_text, "bar:yes:unset\n");

  ProcessOptions clean;
  clean.argv = {"/usr/bin/env"};
  clean.inherit_env = false;
  clean.set_env = {{"ONLY", "1"}};
  EXPECT_EQ(Spawn(clean).stdout_text, "ONLY=1\n");
}

TEST(RunProcess, PathLookupUsesTheChildsPath) {
  TempDir dir;
  const std::string tool = (dir.path() / "perfgate-test-tool").string();
  std::ofstream(tool) << "#!/bin/sh\necho from-the-tool\n";
  chmod(tool.c_str(), 0755);
  ProcessOptions o;
  o.argv = {"perfgate-test-tool"};
  o.set_env = {{"PATH", dir.path().string() + ":/usr/bin:/bin"}};
  EXPECT_EQ(Spawn(o).stdout_text, "from-the-tool\n");
  EXPECT_EQ(FindExecutable("perfgate-test-tool", dir.path().string()), tool);
  EXPECT_FALSE(FindExecutable("perfgate-test-tool", "/usr/bin:/bin"));
  EXPECT_TRUE(FindExecutable("sh"));
}

TEST(RunProcess, RunsInTheWorkingDirectory) {
  TempDir dir;
  ProcessOptions o;
  o.argv = {"pwd"};
  o.working_directory = dir.path().string();
  std::string pwd = Spawn(o).stdout_text;
  ASSERT_FALSE(pwd.empty());
  EXPECT_EQ(fs::canonical(pwd.substr(0, pwd.size() - 1)), fs::canonical(dir.path()));

  o.working_directory = (dir.path() / "missing").string();
  auto r = RunProcess(o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "process.spawn_failed");
  EXPECT_THAT(r.status().message(), HasSubstr("missing"));
  EXPECT_THAT(r.status().message(), HasSubstr("No such file"));
}

TEST(RunProcess, ReportsTheSignalThatEndedTheProgram) {
  ProcessResult r = Spawn(Sh("kill -SEGV $$"));
  EXPECT_TRUE(r.signaled);
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.term_signal, SIGSEGV);
  Status s = CheckProcessSucceeded(r, "the crasher");
  EXPECT_EQ(s.code(), "process.signaled");
  EXPECT_EQ(s.kind(), ErrorKind::kEnvironment);
  EXPECT_THAT(s.message(), HasSubstr("the crasher killed by signal 11 (SIGSEGV)"));
}

TEST(RunProcess, TimeoutKillsTheWholeProcessGroup) {
  ProcessOptions o = Sh("sleep 30 & echo $!; wait");
  o.timeout_ms = 300;
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = Spawn(o);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(r.signaled);
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_LT(took, std::chrono::seconds(3));
  const pid_t grandchild = static_cast<pid_t>(std::stol(r.stdout_text));
  EXPECT_TRUE(Gone(grandchild)) << "the background sleep survived";
  Status s = CheckProcessSucceeded(r, "sleeper");
  EXPECT_EQ(s.code(), "process.timeout");
  EXPECT_THAT(s.message(), HasSubstr("timed out after"));
}

TEST(RunProcess, EscalatesToSigkillWhenTheTerminateSignalIsIgnored) {
  ProcessOptions o = Sh("trap '' TERM INT; sleep 30");
  o.timeout_ms = 200;
  o.kill_grace_ms = 200;
  o.terminate_signal = SIGINT;
  ProcessResult r = Spawn(o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(r.signaled);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_THAT(r.Describe(), HasSubstr("SIGKILL"));
  EXPECT_LT(r.elapsed_ms, 3000);
}

TEST(RunProcess, KillsStragglersThatHoldThePipesAfterTheProgramExits) {
  ProcessResult r = Spawn(Sh("sleep 30 & echo $!"));
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.killed_stragglers);
  EXPECT_LT(r.elapsed_ms, 3000);
  EXPECT_TRUE(Gone(static_cast<pid_t>(std::stol(r.stdout_text))));
}

TEST(RunProcess, LimitsWhatIsKeptButReadsEverything) {
  ProcessOptions o = Sh("head -c 100000 /dev/zero; head -c 5000 /dev/zero >&2");
  o.max_stdout_bytes = 1000;
  o.max_stderr_bytes = 10;
  ProcessResult r = Spawn(o);
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_text.size(), 1000u);
  EXPECT_EQ(r.stdout_bytes, 100000u);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stderr_text.size(), 10u);
  EXPECT_EQ(r.stderr_bytes, 5000u);
  EXPECT_TRUE(r.stderr_truncated);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(CheckProcessSucceeded(r, "big").code(), "process.output_too_large");
}

TEST(RunProcess, DrainsBothStreamsWithoutDeadlock) {
  ProcessOptions o = Sh("head -c 3000000 /dev/zero; head -c 3000000 /dev/zero >&2; head -c 10 /dev/zero");
  o.max_stderr_bytes = 4u << 20;
  o.timeout_ms = 10000;
  ProcessResult r = Spawn(o);
  EXPECT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.stdout_text.size(), 3000010u);
  EXPECT_EQ(r.stderr_text.size(), 3000000u);
}

TEST(RunProcess, WritesStdoutToAFile) {
  TempDir dir;
  const std::string out = (dir.path() / "out.txt").string();
  ProcessOptions o = Sh("echo hello; echo note >&2");
  o.stdout_path = out;
  ProcessResult r = Spawn(o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.stdout_text, "");
  EXPECT_EQ(r.stdout_bytes, 6u);
  EXPECT_EQ(r.stderr_text, "note\n");
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "hello");

  o.stdout_path = (dir.path() / "missing" / "out.txt").string();
  auto bad = RunProcess(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), "io.write_failed");
}

TEST(RunProcess, CancelStopsTheProgram) {
  std::atomic<bool> cancel{false};
  std::thread raiser([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel.store(true);
  });
  ProcessOptions o = Sh("sleep 30");
  o.cancel = &cancel;
  ProcessResult r = Spawn(o);
  raiser.join();
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(r.elapsed_ms, 3000);
  EXPECT_EQ(CheckProcessSucceeded(r, "sleeper").code(), "process.cancelled");
}

TEST(RunProcess, CallsTheHeartbeatWhileRunning) {
  ProcessOptions o = Sh("sleep 0.3");
  int beats = 0;
  int64_t last = -1;
  o.heartbeat_ms = 50;
  o.heartbeat = [&](int64_t elapsed_ms) {
    ++beats;
    EXPECT_GT(elapsed_ms, last);
    last = elapsed_ms;
  };
  EXPECT_TRUE(Spawn(o).ok());
  EXPECT_GE(beats, 3);
}

// How many file descriptors this process has open (the directory's own one included).
size_t OpenFdCount() {
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST(RunProcess, AThrowingHeartbeatLeavesNoFdsAndNoProcessesBehind) {
  TempDir dir;
  const std::string pid_file = (dir.path() / "pid").string();
  // The background sleep shares the group; its pid appears in `pid` all at once.
  ProcessOptions o = Sh("sleep 30 & echo $! > '" + pid_file + ".tmp'; mv '" + pid_file + ".tmp' '" + pid_file +
                        "'; wait");
  o.stdout_path = (dir.path() / "out.txt").string();
  o.timeout_ms = 20000;
  o.heartbeat_ms = 20;
  o.heartbeat = [&pid_file](int64_t) {
    if (fs::exists(pid_file)) throw std::runtime_error("the heartbeat failed");
  };
  const size_t fds_before = OpenFdCount();
  EXPECT_THROW(RunProcess(o), std::runtime_error);
  EXPECT_EQ(OpenFdCount(), fds_before) << "RunProcess leaked file descriptors";
  std::ifstream in(pid_file);
  pid_t grandchild = 0;
  ASSERT_TRUE(in >> grandchild);
  EXPECT_TRUE(Gone(grandchild)) << "the process group outlived the exception";
}

TEST(RunProcess, StdinIsEmptyEvenWhenOurOwnIsClosed) {
  // With fd 0 free, /dev/null is opened as fd 0, and dup2(0, 0) alone would leave it
  // close-on-exec: the program would start with no stdin at all.
  const int saved_stdin = dup(0);
  ASSERT_GE(saved_stdin, 0);
  close(0);
  ProcessOptions o;
  o.argv = {"cat"};
  o.timeout_ms = 5000;
  auto r = RunProcess(o);
  dup2(saved_stdin, 0);
  close(saved_stdin);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->ok()) << r->Describe() << ": " << r->stderr_text;
  EXPECT_EQ(r->stdout_text, "");
}

TEST(RunProcess, DoesNotHangWhenSigchldIsIgnored) {
  // With SIGCHLD ignored the kernel reaps the program itself and waitpid fails with
  // ECHILD; RunProcess must end (with an unknown status: it fails closed) instead of
  // waiting forever. Run in a forked tester with an alarm, so a hang fails the test.
  const pid_t tester = fork();
  ASSERT_GE(tester, 0);
  if (tester == 0) {
    alarm(10);
    signal(SIGCHLD, SIG_IGN);
    auto r = RunProcess(Sh("echo hi"));
    int code = !r.ok()                     ? 2
               : r->exited || r->signaled ? 3
               : r->ok()                   ? 4
               : r->stdout_text != "hi\n"  ? 5
                                           : 0;
    _exit(code);
  }
  int status = 0;
  ASSERT_EQ(waitpid(tester, &status, 0), tester);
  ASSERT_TRUE(WIFEXITED(status)) << "RunProcess hung (the tester was killed by signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(CheckProcessSucceeded, NamesTheProgramAndQuotesTheEndOfStderr) {
  ProcessResult r = Spawn(Sh("for i in 1 2 3 4 5 6 7 8 9 10; do echo line$i >&2; done; echo boom >&2; exit 4"));
  Status s = CheckProcessSucceeded(r, "`xctrace export`");
  EXPECT_EQ(s.code(), "process.exit_status");
  EXPECT_EQ(s.kind(), ErrorKind::kEnvironment);
  EXPECT_THAT(s.message(), HasSubstr("`xctrace export` exited with status 4"));
  EXPECT_THAT(s.message(), HasSubstr("\n  boom"));
  EXPECT_THAT(s.message(), ::testing::Not(HasSubstr("line1\n")));
  EXPECT_TRUE(CheckProcessSucceeded(Spawn(Sh("true")), "true").ok());
}

TEST(SignalName, NamesCommonSignals) {
  EXPECT_EQ(SignalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(SignalName(SIGABRT), "SIGABRT");
  EXPECT_EQ(SignalName(77), "signal 77");
}

}  // namespace
}  // namespace perfgate
