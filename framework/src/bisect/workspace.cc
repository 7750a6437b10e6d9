#include "perfgate/bisect/workspace.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "core/lossless_json.h"
#include "core/text_input.h"
#include "perfgate/core/process.h"

namespace perfgate::bisect {
namespace {

namespace fs = std::filesystem;

// Each command's log keeps this much of its output.
constexpr size_t kMaxLogBytes = size_t{256} << 20;

Status WorkspaceError(const std::string& path, const std::string& what) {
  return Status::Error("bisect.workspace", what, {path, 0, 0}, ErrorKind::kEnvironment);
}

bool Exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// recording-N for N = 1, 2, ... while it exists.
int CompleteRecordings(const fs::path& dir) {
  int n = 0;
  while (Exists(dir / ("recording-" + std::to_string(n + 1)))) ++n;
  return n;
}

std::string ReadSmallFile(const fs::path& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text;
}

}  // namespace

std::string RecipeKey(const Recipe& recipe) {
  uint64_t h = 1469598103934665603ull;
  const std::string text = recipe.build + '\0' + recipe.record;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

Workspace::Workspace(std::string root, Recipe recipe, const std::atomic<bool>* cancel)
    : root_(std::move(root)), recipe_(std::move(recipe)), cancel_(cancel) {
  recipe_dir_ = (fs::path(root_) / RecipeKey(recipe_)).string();
}

Status Workspace::Prepare() {
  std::error_code ec;
  fs::create_directories(recipe_dir_, ec);
  if (ec) return WorkspaceError(recipe_dir_, "cannot create the bisect's directory: " + ec.message());
  const nlohmann::ordered_json recipe = {{"build", recipe_.build}, {"record", recipe_.record}};
  return internal::WriteFileAtomic((fs::path(recipe_dir_) / "recipe.json").string(), text::RenderLosslessJson(recipe),
                         "bisect.workspace");
}

std::string Workspace::CommitDir(const std::string& commit) const {
  return (fs::path(recipe_dir_) / commit).string();
}

std::string Workspace::SetDir(const std::string& commit, RecordingSet set) const {
  const fs::path dir = CommitDir(commit);
  return (set == RecordingSet::kProof ? dir / "proof" : dir).string();
}

std::vector<std::string> Workspace::Recordings(const std::string& commit, RecordingSet set) const {
  const fs::path dir = SetDir(commit, set);
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".partial") fs::remove_all(e.path(), ec);
  }
  std::vector<std::string> recordings;
  const int n = CompleteRecordings(dir);
  for (int i = 1; i <= n; ++i) recordings.push_back((dir / ("recording-" + std::to_string(i))).string());
  return recordings;
}

std::string Workspace::BuildFailure(const std::string& commit) const {
  const fs::path marker = fs::path(CommitDir(commit)) / "build.failed";
  return Exists(marker) ? ReadSmallFile(marker) : "";
}

StatusOr<CommandOutcome> Workspace::RunShell(const std::string& command, const std::string& repo,
                                             const std::string& log,
                                             const std::vector<std::pair<std::string, std::string>>& env) {
  ProcessOptions options;
  // stderr joins stdout in the log, in order, whatever its size: a compiler's error
  // comes last.
  options.argv = {"/bin/sh", "-c", "exec 2>&1\n" + command};
  options.working_directory = repo;
  options.set_env = env;
  options.timeout_ms = recipe_.timeout_ms;
  options.cancel = cancel_;
  options.stdout_path = log;
  options.max_stdout_bytes = kMaxLogBytes;
  PERFGATE_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(options));
  if (r.cancelled) return Status::Error("bisect.interrupted", "interrupted", {}, ErrorKind::kEnvironment);
  if (r.stdout_truncated) std::ofstream(log, std::ios::app) << "\n[perfgate: the rest of the output was dropped]\n";
  // A log cut short is no failure of the command.
  const bool ok = r.exited && r.exit_code == 0 && !r.timed_out;
  return CommandOutcome{ok, r.Describe(), log, "", r.exited && r.exit_code != 0};
}

StatusOr<CommandOutcome> Workspace::Build(const std::string& commit, const std::string& repo) {
  const fs::path dir = CommitDir(commit);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return WorkspaceError(dir.string(), "cannot create the commit's directory: " + ec.message());
  if (recipe_.build.empty()) return CommandOutcome{true, "", "", ""};
  PERFGATE_ASSIGN_OR_RETURN(CommandOutcome out, RunShell(recipe_.build, repo, (dir / "build.log").string(),
                                                         {{"PERFGATE_BISECT_COMMIT", commit}}));
  if (out.failed) {
    PERFGATE_RETURN_IF_ERROR(internal::WriteFileAtomic((dir / "build.failed").string(), out.what, "bisect.workspace"));
  }
  return out;
}

StatusOr<CommandOutcome> Workspace::Record(const std::string& commit, const std::string& repo, RecordingSet set) {
  const fs::path dir = SetDir(commit, set);
  const RecordingSet other = set == RecordingSet::kMarks ? RecordingSet::kProof : RecordingSet::kMarks;
  const size_t kept = Recordings(commit, set).size();
  const std::string name = "recording-" + std::to_string(kept + 1);
  // The commit's recording number over both sets: a recorder that seeds anything from
  // it must not repeat a marking recording in the proof.
  const size_t attempt = kept + Recordings(commit, other).size() + 1;
  const fs::path partial = dir / (name + ".partial");
  std::error_code ec;
  fs::create_directories(partial, ec);
  if (ec) return WorkspaceError(partial.string(), "cannot create the recording's directory: " + ec.message());
  PERFGATE_ASSIGN_OR_RETURN(
      CommandOutcome out,
      RunShell(recipe_.record, repo, (dir / (name + ".log")).string(),
               {{"PERFGATE_BISECT_OUT", partial.string()},
                {"PERFGATE_BISECT_COMMIT", commit},
                {"PERFGATE_BISECT_ATTEMPT", std::to_string(attempt)}}));
  if (!out.ok) {
    fs::remove_all(partial, ec);
    return out;
  }
  fs::rename(partial, dir / name, ec);
  if (ec) return WorkspaceError(partial.string(), "cannot keep the recording: " + ec.message());
  out.path = (dir / name).string();
  return out;
}

}  // namespace perfgate::bisect
