// A perf suite appends each test's run to the results history: SuiteConfig::history,
// PERFGATE_HISTORY over it, and OFF.
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "perfgate/gtest/perfgate_gtest.h"
#include "perfgate/history/store.h"

namespace perfgate::history {
namespace {

namespace fs = std::filesystem;

// The README's suite on the bundled recordings, its SetUp and TearDown callable from a
// test, so that a test can check what TearDown appended.
class HistorySuiteProbe : public testing::PerfSuiteFixture {
 public:
  explicit HistorySuiteProbe(std::string history) : history_(std::move(history)) {}
  using PerfSuiteFixture::SetUp;
  using PerfSuiteFixture::TearDown;
  void TestBody() override {}
  suite::SuiteConfig Config() const override {
    suite::SuiteConfig c;
    c.suite = "probe_decode";
    c.recordings_dir = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0";
    suite::EngineSpec hf2q;
    hf2q.name = "hf2q";
    hf2q.options.tokens = 64;
    suite::EngineSpec llama = hf2q;
    llama.name = "llama";
    c.engines = {hf2q, llama};
    c.baseline = "llama";
    c.history = history_;
    return c;
  }

 private:
  std::string history_;
};

class SuiteHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perfgate-suite-history-" + NewRunKey());
    fs::create_directories(dir_);
    unsetenv("PERFGATE_HISTORY");
  }
  void TearDown() override {
    unsetenv("PERFGATE_HISTORY");
    fs::remove_all(dir_);
  }
  std::string Path(const char* name) const { return (dir_ / name).string(); }
  static void RunProbe(const std::string& history) {
    HistorySuiteProbe probe(history);
    probe.SetUp();
    probe.TearDown();
  }
  fs::path dir_;
};

TEST_F(SuiteHistoryTest, EachTestAppendsItsRunWithEveryEngine) {
  RunProbe(Path("suite.sqlite"));
  auto store = OpenStore(Path("suite.sqlite"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto run = (*store)->ReadRun(1);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->context.suite, "probe_decode");
  EXPECT_EQ(run->context.test, "EachTestAppendsItsRunWithEveryEngine");
  bool hf2q = false, llama = false;
  for (const Figure& f : run->figures) {
    hf2q = hf2q || (f.engine == "hf2q" && f.metric == "gpu_us_per_token");
    llama = llama || (f.engine == "llama" && f.metric == "gpu_us_per_token");
  }
  EXPECT_TRUE(hf2q && llama);
  EXPECT_FALSE(run->levels.empty());
  EXPECT_EQ(run->context.meta.at("hf2q.engine"), "hf2q");  // the recordings' meta.json
}

TEST_F(SuiteHistoryTest, TheEnvironmentOverridesTheSuiteAndOffTurnsItOff) {
  setenv("PERFGATE_HISTORY", Path("env.sqlite").c_str(), 1);
  RunProbe(Path("config.sqlite"));
  EXPECT_TRUE(fs::exists(Path("env.sqlite")));
  EXPECT_FALSE(fs::exists(Path("config.sqlite")));
  setenv("PERFGATE_HISTORY", "off", 1);
  RunProbe(Path("config.sqlite"));
  EXPECT_FALSE(fs::exists(Path("config.sqlite")));
}

}  // namespace
}  // namespace perfgate::history
