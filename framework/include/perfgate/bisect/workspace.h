// Where a bisect keeps what it measured, so that an interrupted bisect continues where
// it stopped and a later bisect over the same commits reuses it:
//
//   <root>/<recipe key>/recipe.json       the build and record commands
//   <root>/<recipe key>/<sha>/recording-N  each complete recording of the commit
//   <root>/<recipe key>/<sha>/proof/recording-N  the fresh recordings of a proof
//   <root>/<recipe key>/<sha>/build.failed the build's failure (the commit is skipped)
//   <root>/<recipe key>/<sha>/*.log        the commands' output
//
// The recipe key is a hash of the two commands: recordings made another way are never
// mixed in. A recording is written under recording-N.partial and renamed when the
// record command succeeds, so an interrupted one is never read.
#ifndef PERFGATE_BISECT_WORKSPACE_H_
#define PERFGATE_BISECT_WORKSPACE_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::bisect {

// The commands a bisect runs at each commit, through /bin/sh -c in the repository.
struct Recipe {
  std::string build;   // "" builds nothing
  std::string record;  // writes one recording into $PERFGATE_BISECT_OUT
  int64_t timeout_ms = 0;  // per command; 0: none
};

// Which recordings: those that mark a commit, or the fresh ones that prove a culprit
// (independent of the marks they would otherwise confirm).
enum class RecordingSet { kMarks, kProof };

// How a command ended: ok, or why not, with where its output went.
struct CommandOutcome {
  bool ok = false;
  std::string what;  // "exited with status 1"
  std::string log;   // its output's file
  std::string path;  // a recording: its directory
  // It ran and exited non-zero: a build failure that is kept. A timeout or a signal is
  // not kept; the next bisect tries again.
  bool failed = false;
};

class Workspace {
 public:
  // `cancel`, when raised (Ctrl-C), stops a running command.
  Workspace(std::string root, Recipe recipe, const std::atomic<bool>* cancel);

  // Creates the recipe's directory and writes recipe.json (bisect.workspace when it
  // cannot: an environment error).
  Status Prepare();
  const std::string& RecipeDir() const { return recipe_dir_; }
  std::string CommitDir(const std::string& commit) const;
  std::string SetDir(const std::string& commit, RecordingSet set) const;

  // The commit's complete recordings of `set`, in order; incomplete ones are removed.
  std::vector<std::string> Recordings(const std::string& commit, RecordingSet set = RecordingSet::kMarks) const;
  // The failure a former build of the commit left ("" when none).
  std::string BuildFailure(const std::string& commit) const;

  // Runs the build command in `repo` (the commit checked out). A non-zero exit is kept
  // (BuildFailure); an error only when the command cannot start or was cancelled.
  StatusOr<CommandOutcome> Build(const std::string& commit, const std::string& repo);
  // Runs the record command into the commit's next recording directory of `set`, with
  // PERFGATE_BISECT_ATTEMPT the commit's recording number over both sets.
  StatusOr<CommandOutcome> Record(const std::string& commit, const std::string& repo,
                                  RecordingSet set = RecordingSet::kMarks);

 private:
  StatusOr<CommandOutcome> RunShell(const std::string& command, const std::string& repo, const std::string& log,
                                    const std::vector<std::pair<std::string, std::string>>& env);

  std::string root_;
  Recipe recipe_;
  std::string recipe_dir_;
  const std::atomic<bool>* cancel_;
};

// 16 hex digits of a 64-bit FNV-1a hash: stable across builds and machines.
std::string RecipeKey(const Recipe& recipe);

}  // namespace perfgate::bisect

#endif  // PERFGATE_BISECT_WORKSPACE_H_
