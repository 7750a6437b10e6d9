#include "perfgate/bisect/git.h"

#include <iterator>
#include <sstream>

#include "core/string_util.h"
#include "perfgate/core/process.h"

namespace perfgate::bisect {
namespace {

// A full object name: 40 hex digits (SHA-1) or 64 (SHA-256 repositories).
bool IsSha(const std::string& s) {
  return (s.size() == 40 || s.size() == 64) && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

Status GitError(const std::vector<std::string>& args, const std::string& what) {
  std::string command = "git";
  for (const std::string& a : args) command += " " + a;
  return Status::Error("bisect.git", command + " failed: " + std::string(TrimSpace(what)), {},
                       ErrorKind::kEnvironment);
}

// The shas git lists after "could be any of:".
std::vector<std::string> ListedShas(const std::string& text) {
  std::vector<std::string> shas;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    line = std::string(TrimSpace(line));
    if (IsSha(line)) shas.push_back(line);
  }
  return shas;
}

}  // namespace

GitRepository::~GitRepository() { (void)Reset(); }

StatusOr<GitRepository::Output> GitRepository::Git(const std::vector<std::string>& args) {
  ProcessOptions options;
  options.argv = {"git", "-C", dir_};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.set_env = {{"LC_ALL", "C"}, {"GIT_TERMINAL_PROMPT", "0"}};
  options.timeout_ms = 600'000;
  PERFGATE_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(options));
  if (!r.exited) return GitError(args, r.Describe());
  return Output{r.exit_code, r.stdout_text + r.stderr_text};
}

StatusOr<std::string> GitRepository::GitOk(const std::vector<std::string>& args) {
  PERFGATE_ASSIGN_OR_RETURN(Output out, Git(args));
  if (out.exit_code != 0) return GitError(args, out.text);
  return std::string(TrimSpace(out.text));
}

Status GitRepository::CheckReady() {
  PERFGATE_ASSIGN_OR_RETURN(Output inside, Git({"rev-parse", "--is-inside-work-tree"}));
  if (inside.exit_code != 0 || TrimSpace(inside.text) != "true") {
    return Status::Error("bisect.not_a_repository", "no git work tree here: give --repo DIR", {dir_, 0, 0},
                         ErrorKind::kUsage);
  }
  // Commands run in the work tree's root, wherever in it --repo points.
  PERFGATE_ASSIGN_OR_RETURN(dir_, GitOk({"rev-parse", "--show-toplevel"}));
  PERFGATE_ASSIGN_OR_RETURN(Output log, Git({"bisect", "log"}));
  if (log.exit_code == 0) {
    return Status::Error("bisect.in_progress",
                         "a git bisect is in progress here; finish it or run `git bisect reset` first", {dir_, 0, 0},
                         ErrorKind::kUsage);
  }
  PERFGATE_ASSIGN_OR_RETURN(std::string changed, GitOk({"status", "--porcelain", "--untracked-files=no"}));
  if (!changed.empty()) {
    return Status::Error("bisect.dirty_tree",
                         "tracked files have changes a bisect's checkouts would touch; commit or stash them:\n" +
                             changed,
                         {dir_, 0, 0}, ErrorKind::kUsage);
  }
  return Status();
}

StatusOr<std::string> GitRepository::Resolve(const std::string& ref) {
  PERFGATE_ASSIGN_OR_RETURN(Output out, Git({"rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}"}));
  const std::string sha = std::string(TrimSpace(out.text));
  if (out.exit_code != 0 || !IsSha(sha)) {
    return Status::Error("bisect.unknown_ref", "'" + ref + "' names no commit of this repository", {dir_, 0, 0},
                         ErrorKind::kUsage);
  }
  return sha;
}

StatusOr<std::string> GitRepository::Subject(const std::string& commit) {
  return GitOk({"log", "-1", "--format=%s", commit});
}

StatusOr<std::string> GitRepository::Parent(const std::string& commit) {
  PERFGATE_ASSIGN_OR_RETURN(Output out, Git({"rev-parse", "--verify", "--quiet", commit + "^1"}));
  if (out.exit_code != 0) {
    return Status::Error("bisect.no_parent", commit + " has no parent to compare it with", {dir_, 0, 0});
  }
  return std::string(TrimSpace(out.text));
}

StatusOr<bool> GitRepository::IsMerge(const std::string& commit) {
  PERFGATE_ASSIGN_OR_RETURN(Output out, Git({"rev-parse", "--verify", "--quiet", commit + "^2"}));
  return out.exit_code == 0;
}

StatusOr<bool> GitRepository::IsAncestor(const std::string& ancestor, const std::string& commit) {
  PERFGATE_ASSIGN_OR_RETURN(Output out, Git({"merge-base", "--is-ancestor", ancestor, commit}));
  if (out.exit_code > 1) return GitError({"merge-base", "--is-ancestor", ancestor, commit}, out.text);
  return out.exit_code == 0;
}

StatusOr<std::vector<std::string>> GitRepository::Range(const std::string& good, const std::string& bad) {
  PERFGATE_ASSIGN_OR_RETURN(std::string list, GitOk({"rev-list", "--reverse", good + ".." + bad}));
  return ListedShas(list);
}

StatusOr<std::string> GitRepository::CommonDir() {
  return GitOk({"rev-parse", "--path-format=absolute", "--git-common-dir"});
}

// git bisect's answer, from its first line: "<sha> is the first bad commit", "There
// are only 'skip'ped commits left to test." (the candidates follow "could be any of:"),
// or "Bisecting: ..." with the next commit checked out. Commit subjects come later in
// the output, so they cannot be mistaken for these.
StatusOr<Step> GitRepository::StepAfter(const Output& output) {
  std::istringstream in(output.text);
  std::string first;
  std::getline(in, first);
  first = std::string(TrimSpace(first));
  Step step;
  constexpr std::string_view kFirstBad = " is the first bad commit";
  if (EndsWith(first, kFirstBad) && IsSha(first.substr(0, first.size() - kFirstBad.size()))) {
    step.kind = Step::Kind::kFirstBad;
    step.commit = first.substr(0, first.size() - kFirstBad.size());
    return step;
  }
  if (first == "There are only 'skip'ped commits left to test.") {
    std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t listed = rest.find("could be any of:");
    step.kind = Step::Kind::kOnlySkipped;
    if (listed != std::string::npos) step.candidates = ListedShas(rest.substr(listed));
    if (!step.candidates.empty()) return step;
  } else if (output.exit_code == 0 && StartsWith(first, "Bisecting:")) {
    PERFGATE_ASSIGN_OR_RETURN(step.commit, GitOk({"rev-parse", "HEAD"}));
    return step;
  }
  return GitError({"bisect"}, "unexpected output: " + output.text);
}

StatusOr<Step> GitRepository::Start(const std::string& bad, const std::string& good) {
  PERFGATE_ASSIGN_OR_RETURN(Output out, Git({"bisect", "start", bad, good}));
  started_ = true;
  if (out.exit_code != 0) return GitError({"bisect", "start", bad, good}, out.text);
  return StepAfter(out);
}

// What a build or record command changed in tracked files (a lock file it updates)
// is put back before git checks out another commit: the work tree was clean when the
// bisect started (CheckReady), so nothing of the user's is lost. Untracked files stay.
Status GitRepository::RestoreTracked() { return GitOk({"reset", "--hard", "--quiet"}).status(); }

Status GitRepository::Checkout(const std::string& commit) {
  PERFGATE_RETURN_IF_ERROR(RestoreTracked());
  return GitOk({"checkout", "--quiet", "--detach", commit}).status();
}

StatusOr<Step> GitRepository::Mark(const std::string& commit, const std::string& mark) {
  PERFGATE_RETURN_IF_ERROR(RestoreTracked());
  PERFGATE_ASSIGN_OR_RETURN(Output out, Git({"bisect", mark, commit}));
  return StepAfter(out);
}

StatusOr<std::string> GitRepository::Log() { return GitOk({"bisect", "log"}); }

Status GitRepository::Reset() {
  if (!started_) return Status();
  const Status restored = RestoreTracked();
  const Status reset = GitOk({"bisect", "reset"}).status();
  if (reset.ok()) started_ = false;
  return reset.ok() ? restored : reset;
}

}  // namespace perfgate::bisect
