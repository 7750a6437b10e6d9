// ExpandTrialPaths: what a --trace PATH stands for, and the order of its trials.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "perfgate/attribution/attribute.h"
#include "trial_paths.h"

namespace perfgate::attribution {
namespace {

namespace fs = std::filesystem;

using testing_support::ExpandTrialPaths;


class ExpandTrials : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("perfgate-expand-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // The smallest file the trace-event JSON sniffer accepts.
  void WriteTrace(const fs::path& path) { std::ofstream(path) << "{\"traceEvents\": []}\n"; }
  // A Metal trial directory: its execution-points export marks it.
  void WriteMetalTrial(const fs::path& dir) {
    fs::create_directories(dir);
    std::ofstream(dir / "metal-gpu-execution-points.xml") << "<trace-query-result/>\n";
  }
  std::vector<std::string> Names(const std::vector<std::string>& paths) {
    std::vector<std::string> names;
    for (const auto& p : paths) names.push_back(fs::path(p).filename().string());
    return names;
  }

  fs::path root_;
};

TEST_F(ExpandTrials, TraceJsonFilesInNaturalOrderWhateverTheirExtensions) {
  WriteTrace(root_ / "trial-10.json");
  WriteTrace(root_ / "trial-2.json.gz");  // not gzip inside: the sniffer reads it as text
  WriteTrace(root_ / "trial-1.json");
  std::ofstream(root_ / "notes.txt") << "not a trace";
  auto paths = ExpandTrialPaths(root_.string());
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  EXPECT_EQ(Names(*paths), (std::vector<std::string>{"trial-1.json", "trial-2.json.gz", "trial-10.json"}));

  auto one = ExpandTrialPaths((root_ / "trial-10.json").string());
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<std::string>{(root_ / "trial-10.json").string()});
}

TEST_F(ExpandTrials, TrialDirectoriesInNaturalOrder) {
  for (const char* name : {"trial-10", "trial-9", "trial-1", "trial-01b"}) WriteMetalTrial(root_ / name);
  auto paths = ExpandTrialPaths(root_.string());
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  EXPECT_EQ(Names(*paths), (std::vector<std::string>{"trial-1", "trial-01b", "trial-9", "trial-10"}));
}

TEST_F(ExpandTrials, NothingToAttributeIsAnError) {
  fs::create_directories(root_ / "empty");
  auto none = ExpandTrialPaths((root_ / "empty").string());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), "attr.no_trials");
  auto missing = ExpandTrialPaths((root_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), "io.not_found");
}

}  // namespace
}  // namespace perfgate::attribution
