// `git bisect` in the user's repository, through the git command (core/process.h):
// starting, marking, its log, and the reset that always ends it.
#ifndef PERFGATE_BISECT_GIT_H_
#define PERFGATE_BISECT_GIT_H_

#include <string>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::bisect {

// What git bisect asks next.
struct Step {
  enum class Kind {
    kTest,          // test `commit`, now checked out
    kFirstBad,      // `commit` is the first bad commit
    kOnlySkipped,   // only skipped commits are left: the first bad is one of `candidates`
  };
  Kind kind = Kind::kTest;
  std::string commit;
  std::vector<std::string> candidates;  // kOnlySkipped, as git lists them
};

// One repository. Every call runs git with LC_ALL=C, so its output reads the same
// everywhere; a git that fails is an environment error (bisect.git) quoting it.
class GitRepository {
 public:
  explicit GitRepository(std::string dir) : dir_(std::move(dir)) {}
  // Ends a bisect this object started (Reset), whatever happened before.
  ~GitRepository();
  GitRepository(const GitRepository&) = delete;
  GitRepository& operator=(const GitRepository&) = delete;

  // A work tree with no bisect in progress (bisect.in_progress) and no change to a
  // tracked file (bisect.dirty_tree): a bisect checks out other commits. From here on
  // dir() is the work tree's root.
  Status CheckReady();
  // The full sha of `ref`; bisect.unknown_ref when it names no commit.
  StatusOr<std::string> Resolve(const std::string& ref);
  StatusOr<std::string> Subject(const std::string& commit);
  // The first parent; bisect.no_parent for a root commit.
  StatusOr<std::string> Parent(const std::string& commit);
  StatusOr<bool> IsMerge(const std::string& commit);  // more than one parent
  StatusOr<bool> IsAncestor(const std::string& ancestor, const std::string& commit);
  // The commits after `good` up to `bad`, oldest first (git rev-list --reverse good..bad).
  StatusOr<std::vector<std::string>> Range(const std::string& good, const std::string& bad);
  // The directory git keeps for the repository (shared by its worktrees), absolute.
  StatusOr<std::string> CommonDir();

  // git bisect start BAD GOOD.
  StatusOr<Step> Start(const std::string& bad, const std::string& good);
  // Checks `commit` out (inside the bisect, which Reset undoes). This, Mark and Reset
  // first put back what the build or record commands changed in tracked files.
  Status Checkout(const std::string& commit);
  // git bisect good|bad|skip COMMIT.
  StatusOr<Step> Mark(const std::string& commit, const std::string& mark);
  // git bisect log.
  StatusOr<std::string> Log();
  // git bisect reset: back to the branch and commit the bisect started from. Safe to
  // call when no bisect was started.
  Status Reset();

  const std::string& dir() const { return dir_; }

 private:
  struct Output {
    int exit_code = 0;
    std::string text;  // stdout then stderr
  };
  StatusOr<Output> Git(const std::vector<std::string>& args);
  StatusOr<std::string> GitOk(const std::vector<std::string>& args);
  StatusOr<Step> StepAfter(const Output& output);
  Status RestoreTracked();

  std::string dir_;
  bool started_ = false;
};

}  // namespace perfgate::bisect

#endif  // PERFGATE_BISECT_GIT_H_
