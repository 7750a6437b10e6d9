// A .trace bundle given to LoadTrial is exported with xctrace first. On Linux the
// stand-in xctrace (PERFGATE_XCTRACE) serves a bundled trial's tables.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/text_input.h"
#include "perfgate/attribution/attribute.h"
#include "trial_paths.h"

namespace perfgate::attribution {
namespace {

namespace fs = std::filesystem;

using testing_support::ExpandTrialPaths;


class TraceBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("perfgate-trace-bundle-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "source");
    // The stand-in prints SOURCE/<schema>.xml as is: serve plain copies of trial-1.
    const fs::path trial = fs::path(PERFGATE_SOURCE_DIR) / "fixtures/recordings/decode_q4_0/hf2q/trial-1";
    for (const auto& entry : fs::directory_iterator(trial)) {
      std::string name = entry.path().filename().string();
      if (name == "meta.json") continue;
      auto bytes = internal::ReadWholeFile(entry.path().string());
      ASSERT_TRUE(bytes.ok());
      if (name.size() > 3 && name.substr(name.size() - 3) == ".gz") name.resize(name.size() - 3);
      std::ofstream(root_ / "source" / name, std::ios::binary) << *bytes;
    }
    fs::create_directories(root_ / "run.trace");
    std::ofstream(root_ / "run.trace" / "source") << (root_ / "source").string();
    std::ofstream(root_ / "run.trace" / "target-exit") << 0;
  }
  void TearDown() override {
    unsetenv("PERFGATE_XCTRACE");
    fs::remove_all(root_);
  }
  fs::path root_;
};

TEST_F(TraceBundle, IsExportedWithXctraceThenAttributed) {
  setenv("PERFGATE_XCTRACE", PERFGATE_FAKE_XCTRACE, 1);
  const std::string bundle = (root_ / "run.trace").string();
  auto paths = ExpandTrialPaths(bundle);
  ASSERT_TRUE(paths.ok()) << paths.status().ToString();
  ASSERT_EQ(paths->size(), 1u);
  auto tables = LoadTrial(bundle);
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_EQ(tables->path, bundle);
  EXPECT_EQ(tables->execution_points.size(), 6616u);
  ASSERT_TRUE(tables->submission_map.has_value());
  AttributionOptions o;
  o.process_prefix = "hf2q";
  o.tokens = 64;
  auto s = SummarizeTrial(*tables, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items_read, 3308);
}

TEST_F(TraceBundle, WithoutXctraceIsAnEnvironmentError) {
  setenv("PERFGATE_XCTRACE", "/nonexistent/xctrace", 1);
  auto tables = LoadTrial((root_ / "run.trace").string());
  ASSERT_FALSE(tables.ok());
  EXPECT_EQ(tables.status().code(), "attr.trace_bundle");
  EXPECT_EQ(tables.status().kind(), ErrorKind::kEnvironment);
}

}  // namespace
}  // namespace perfgate::attribution
