// The kept recordings: one directory per recipe and commit, complete recordings only,
// build failures remembered.
#include "perfgate/bisect/workspace.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "unit/bisect/test_dir.h"

namespace perfgate::bisect {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSha = "0123456789abcdef0123456789abcdef01234567";

class WorkspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::FreshTestDir("bisect_workspace");
    fs::create_directories(root_ / "repo");
  }
  void TearDown() override { fs::remove_all(root_); }

  Workspace Make(const std::string& build, const std::string& record) {
    return Workspace((root_ / "work").string(), Recipe{build, record, 0}, nullptr);
  }
  std::string Repo() const { return (root_ / "repo").string(); }

  fs::path root_;
};

TEST(RecipeKey, IsFnv1aOfTheTwoCommands) {
  // FNV-1a 64 of "make -j2\0./record.sh", computed with Python's integers.
  EXPECT_EQ(RecipeKey(Recipe{"make -j2", "./record.sh", 0}), "b29737b83897c1f9");
  // The timeout is no part of how a recording is made.
  EXPECT_EQ(RecipeKey(Recipe{"make -j2", "./record.sh", 5000}), "b29737b83897c1f9");
  EXPECT_NE(RecipeKey(Recipe{"make -j2", "./record.sh --fast", 0}), "b29737b83897c1f9");
}

TEST_F(WorkspaceTest, ARecordingIsKeptOnlyWhenTheCommandSucceeds) {
  Workspace ws = Make("", "echo $PERFGATE_BISECT_COMMIT $PERFGATE_BISECT_ATTEMPT > \"$PERFGATE_BISECT_OUT/r.txt\"");
  ASSERT_TRUE(ws.Prepare().ok());
  auto first = ws.Record(kSha, Repo());
  ASSERT_TRUE(first.ok() && first->ok) << first->what;
  auto second = ws.Record(kSha, Repo());
  ASSERT_TRUE(second.ok() && second->ok);
  ASSERT_EQ(ws.Recordings(kSha).size(), 2u);
  std::ifstream in(fs::path(ws.Recordings(kSha)[1]) / "r.txt");
  std::string sha, attempt;
  in >> sha >> attempt;
  EXPECT_EQ(sha, kSha);
  EXPECT_EQ(attempt, "2");
  EXPECT_TRUE(fs::exists(fs::path(ws.RecipeDir()) / "recipe.json"));
  // A proof's recording is the commit's third, in proof/recording-1.
  auto proof = ws.Record(kSha, Repo(), RecordingSet::kProof);
  ASSERT_TRUE(proof.ok() && proof->ok);
  EXPECT_EQ(proof->path, ws.CommitDir(kSha) + "/proof/recording-1");
  std::ifstream(fs::path(proof->path) / "r.txt") >> sha >> attempt;
  EXPECT_EQ(attempt, "3");
}

TEST_F(WorkspaceTest, AFailedRecordLeavesNoRecording) {
  Workspace ws = Make("", "echo half > \"$PERFGATE_BISECT_OUT/r.txt\"; echo oops >&2; exit 4");
  ASSERT_TRUE(ws.Prepare().ok());
  auto r = ws.Record(kSha, Repo());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->what, "exited with status 4");
  EXPECT_TRUE(ws.Recordings(kSha).empty());
  EXPECT_FALSE(fs::exists(fs::path(ws.CommitDir(kSha)) / "recording-1.partial"));
  std::ifstream log(r->log);
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("oops"), std::string::npos) << text;
}

TEST_F(WorkspaceTest, AnInterruptedRecordingIsRemovedNotRead) {
  Workspace ws = Make("", "true");
  ASSERT_TRUE(ws.Prepare().ok());
  fs::create_directories(fs::path(ws.CommitDir(kSha)) / "recording-1");
  fs::create_directories(fs::path(ws.CommitDir(kSha)) / "recording-2.partial");
  EXPECT_EQ(ws.Recordings(kSha).size(), 1u);
  EXPECT_FALSE(fs::exists(fs::path(ws.CommitDir(kSha)) / "recording-2.partial"));
}

TEST_F(WorkspaceTest, ABuildFailureIsRemembered) {
  Workspace ws = Make("exit 2", "true");
  ASSERT_TRUE(ws.Prepare().ok());
  EXPECT_EQ(ws.BuildFailure(kSha), "");
  auto b = ws.Build(kSha, Repo());
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->ok);
  EXPECT_EQ(ws.BuildFailure(kSha), "exited with status 2");
  // Another recipe keeps its own directory: nothing of this one is seen there.
  Workspace other = Make("exit 0", "true");
  EXPECT_EQ(other.BuildFailure(kSha), "");
}

TEST_F(WorkspaceTest, TheCommandsRunInTheRepository) {
  std::ofstream(root_ / "repo" / "engine.conf") << "gemm 40\n";
  Workspace ws = Make("test -f engine.conf", "cp engine.conf \"$PERFGATE_BISECT_OUT/\"");
  ASSERT_TRUE(ws.Prepare().ok());
  EXPECT_TRUE(ws.Build(kSha, Repo())->ok);
  auto r = ws.Record(kSha, Repo());
  ASSERT_TRUE(r.ok() && r->ok);
  EXPECT_TRUE(fs::exists(fs::path(r->path) / "engine.conf"));
}

}  // namespace
}  // namespace perfgate::bisect
