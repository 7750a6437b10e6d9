// Trial discovery fails closed: every trial directory present is read or named in an
// error (bundle/trials.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "perfgate/attribution/attribute.h"
#include "perfgate/bundle/trials.h"
#include "unit/core/as_nobody.h"

namespace perfgate::bundle {
namespace {

namespace fs = std::filesystem;

// A copy of the bundled hf2q recording (3 Metal trials) to break in each test.
class Discover : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("perfgate-bundle-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    fs::copy(fs::path(PERFGATE_SOURCE_DIR) / "fixtures/recordings/decode_q4_0/hf2q", root_ / "hf2q",
             fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string Hf2q() const { return (root_ / "hf2q").string(); }
  fs::path root_;
};

TEST_F(Discover, ReadsEveryTrialOnceWithItsSourceAndMeta) {
  auto r = DiscoverTrials(Hf2q());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->trials.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(fs::path(r->trials[i].path).filename(), "trial-" + std::to_string(i + 1));
    EXPECT_EQ(r->trials[i].source->descriptor.name, "metal");
    EXPECT_EQ(fs::path(r->trials[i].meta_path).filename(), "meta.json");
  }
  EXPECT_TRUE(r->ignored.empty());
}

// The issue's case: deleting one trial's execution points left the suite green with
// two trials. Now the trial is named in an error.
TEST_F(Discover, ATrialWithoutItsRequiredTableIsAnErrorNotADroppedTrial) {
  fs::remove(root_ / "hf2q/trial-2/metal-gpu-execution-points.xml.gz");
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "bundle.bad_trial");
  EXPECT_NE(r.status().ToString().find("trial-2"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("metal-application-encoders-list.xml.gz"), std::string::npos)
      << "the error lists what the directory holds: " << r.status().message();
}

TEST_F(Discover, AnEmptyTrialDirectoryIsAnError) {
  fs::create_directories(root_ / "hf2q/trial-4");
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "bundle.bad_trial");
  EXPECT_NE(r.status().ToString().find("trial-4"), std::string::npos);
  EXPECT_NE(r.status().message().find("it is empty"), std::string::npos) << r.status().message();
}

TEST_F(Discover, AnIncompleteRecordingIsRefusedByName) {
  std::ofstream(root_ / "hf2q/trial-3/INCOMPLETE") << "export failed\n";
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.incomplete_bundle") << r.status().ToString();
}

TEST_F(Discover, AReadmeIsListedAsIgnoredButAStrayTraceFileIsAnError) {
  std::ofstream(root_ / "hf2q/README.md") << "notes\n";
  auto r = DiscoverTrials(Hf2q());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->ignored.size(), 1u);
  EXPECT_EQ(fs::path(r->ignored[0]).filename(), "README.md");
  std::ofstream(root_ / "hf2q/trial-5.json") << "{\"not\": \"a trace\"}\n";
  auto bad = DiscoverTrials(Hf2q());
  ASSERT_FALSE(bad.ok());
  // Named JSON but no trace: said so, not left to a reader of another format.
  EXPECT_EQ(bad.status().code(), "source.unknown_format");
}

TEST_F(Discover, TrialsOfTwoSourcesInOneRecordingAreAnError) {
  std::ofstream(root_ / "hf2q/trial-9.json") << "{\"traceEvents\": []}\n";
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "bundle.mixed_sources") << r.status().ToString();
}

TEST_F(Discover, FewerTrialsThanTheMinimumFail) {
  fs::remove_all(root_ / "hf2q/trial-3");
  auto r = DiscoverTrials(Hf2q());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(RequireTrials(Hf2q(), *r, 2).ok());
  Status s = RequireTrials(Hf2q(), *r, 3);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), "bundle.too_few_trials");
  EXPECT_NE(s.message().find("2 trials (trial-1, trial-2), fewer than the 3 required"), std::string::npos)
      << s.message();
}

TEST(TrialMeta, FlattensTheRecordersMetaJson) {
  const std::string trial = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/torch_decode_h200/eager/trial-1";
  auto r = DiscoverTrials(trial);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->trials.size(), 1u);
  EXPECT_EQ(fs::path(r->trials[0].path).filename(), "trace.json.gz");
  EXPECT_EQ(r->trials[0].source->descriptor.name, "trace_json");
  auto meta = ReadTrialMeta(r->trials[0]);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  // Values as fixtures/recordings/torch_decode_h200/eager/trial-1/meta.json has them.
  EXPECT_EQ(meta->at("environment.gpu"), "NVIDIA H200");
  EXPECT_EQ(meta->at("environment.torch"), "2.11.0+cu130");
  EXPECT_EQ(meta->at("tokens"), "64");
  EXPECT_EQ(meta->at("launch_counts.kernels"), "27474");
}

TEST_F(Discover, AMetaJsonThatIsNoObjectIsAnError) {
  std::ofstream(root_ / "hf2q/trial-1/meta.json") << "[1, 2]\n";
  // Discovery reads every file of a trial: the bad meta.json stops it.
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "bundle.bad_meta");
  EXPECT_EQ(r.status().location().path, (root_ / "hf2q/trial-1/meta.json").string());
  auto meta = ReadTrialMeta(Trial{(root_ / "hf2q/trial-1").string(), nullptr, (root_ / "hf2q/trial-1/meta.json").string(), ""});
  ASSERT_FALSE(meta.ok());
  EXPECT_EQ(meta.status().code(), "bundle.bad_meta");
}

}  // namespace
}  // namespace perfgate::bundle

namespace perfgate::bundle {
namespace {

Trial Hf2qTrial1(const fs::path& root) {
  return Trial{(root / "hf2q/trial-1").string(), nullptr, (root / "hf2q/trial-1/meta.json").string(), ""};
}

// {"a": {"b": 1}} and "a.b" both flatten to "a.b": one used to replace the other.
TEST_F(Discover, NestedAndDottedSpellingsOfOneMetaKeyAreAnError) {
  std::ofstream(root_ / "hf2q/trial-1/meta.json") << "{\"a\": {\"b\": 1},\n \"a.b\": 2}\n";
  auto meta = ReadTrialMeta(Hf2qTrial1(root_));
  ASSERT_FALSE(meta.ok());
  EXPECT_EQ(meta.status().code(), "bundle.bad_meta");
  EXPECT_NE(meta.status().message().find("'a.b' twice"), std::string::npos) << meta.status().message();
  EXPECT_EQ(meta.status().location().line, 2);
  EXPECT_EQ(meta.status().location().column, 2);
}

// One long key over many leaves stored the key once per leaf (2 MB of meta.json became
// 200 GB); the flattening is charged to a budget of a few bytes per input byte.
TEST_F(Discover, AMetaJsonThatFlattensToFarMoreThanItsSizeIsAnError) {
  std::string leaves;
  for (int i = 0; i < 5000; ++i) leaves += (i ? ",\"a" : "\"a") + std::to_string(i) + "\":1";
  const std::string text = "{\"" + std::string(100000, 'k') + "\": {" + leaves + "}}";
  std::ofstream(root_ / "hf2q/trial-1/meta.json") << text;
  auto meta = ReadTrialMeta(Hf2qTrial1(root_));
  ASSERT_FALSE(meta.ok());
  EXPECT_EQ(meta.status().code(), "bundle.bad_meta");
  EXPECT_NE(meta.status().message().find("flattens to more than"), std::string::npos) << meta.status().message();
  EXPECT_EQ(meta.status().location().line, 1);
  // The tenth leaf in key order (a0, a1, a10, a100, a1000, ...): 1 MiB holds nine.
  EXPECT_EQ(meta.status().location().column, static_cast<int>(text.find("\"a1005\"")) + 1);
}

// The same parser as every other JSON document: errors carry line:col.
TEST_F(Discover, MetaJsonErrorsAreLocated) {
  std::ofstream(root_ / "hf2q/trial-1/meta.json") << "{\"env\": {\"gpu\": \"a\",\n   \"gpu\": \"b\"}}";
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "bundle.bad_meta");
  EXPECT_EQ(r.status().location().line, 2);
  EXPECT_GT(r.status().location().column, 0);
}

TEST_F(Discover, AMetaJsonSayingIncompleteIsRefusedWithoutTheMarker) {
  std::ofstream(root_ / "hf2q/trial-2/meta.json") << R"({"recorder": "perfgate record", "complete": false})";
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "record.incomplete_bundle") << r.status().ToString();
}

TEST_F(Discover, ADanglingLinkOrAnUnreadableTrialFileIsNoIgnoredFile) {
  fs::create_symlink(root_ / "gone", root_ / "hf2q/trial-4");
  auto dangling = DiscoverTrials(Hf2q());
  ASSERT_FALSE(dangling.ok());
  EXPECT_EQ(dangling.status().code(), "bundle.bad_trial");
  fs::remove(root_ / "hf2q/trial-4");
  std::ofstream(root_ / "hf2q/trial-4.json.zst") << "compressed";
  auto unknown = DiscoverTrials(Hf2q());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), "bundle.unknown_file");
}

TEST_F(Discover, ASymlinkLoopInTheRecordingIsNamedNotThrownOrCalledDangling) {
  fs::create_symlink("trial-4", root_ / "hf2q/trial-4");  // ELOOP
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "io.symlink_loop") << r.status().ToString();
  EXPECT_EQ(r.status().location().path, (root_ / "hf2q/trial-4").string());
  // The recording itself a loop: the same error, no filesystem_error thrown.
  fs::create_symlink("loop", root_ / "loop");
  auto top = DiscoverTrials((root_ / "loop").string());
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.status().code(), "io.symlink_loop");
}

TEST_F(Discover, APermissionDeniedRecordingOrTrialIsNotNoTrials) {
  fs::permissions(root_, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(root_ / "hf2q", fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  auto discover = [&] {
    auto r = DiscoverTrials(Hf2q());
    return r.ok() ? std::string("ok") : r.status().code();
  };
  fs::permissions(root_ / "hf2q/trial-2", fs::perms::none);
  EXPECT_EQ(testing_support::AsUnprivileged(discover), "io.permission_denied");
  fs::permissions(root_ / "hf2q/trial-2", fs::perms::owner_all);
  fs::permissions(root_ / "hf2q", fs::perms::owner_all);  // none for others
  EXPECT_EQ(testing_support::AsUnprivileged(discover), "io.permission_denied");
}

TEST_F(Discover, EveryFileOfATrialIsReadOrRefused) {
  // A broken .xml.gz beside its .xml would be left unread.
  const fs::path points = root_ / "hf2q/trial-1/metal-gpu-execution-points.xml";
  ASSERT_TRUE(fs::exists(points.string() + ".gz"));
  std::ofstream(points) << "<broken";
  auto both = DiscoverTrials(Hf2q());
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().code(), "bundle.ambiguous") << both.status().ToString();
  fs::remove(points);
  // A meta.json that is no JSON, or gives a key twice.
  std::ofstream(root_ / "hf2q/trial-3/meta.json") << "{tokens: 64}";
  EXPECT_EQ(DiscoverTrials(Hf2q()).status().code(), "bundle.bad_meta");
  std::ofstream(root_ / "hf2q/trial-3/meta.json") << R"({"tokens": 64, "tokens": 32})";
  auto dup = DiscoverTrials(Hf2q());
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("duplicate key \"tokens\""), std::string::npos) << dup.status().message();
  EXPECT_EQ(dup.status().location().line, 1);
  EXPECT_EQ(dup.status().location().column, 16);
}

TEST_F(Discover, AJsonFileNoSourceReadsSaysSoInsteadOfTheXmlReadersError) {
  // Named JSON, with no "traceEvents" or "ph" key anywhere: the error says JSON.
  const std::string path = (root_ / "late.json").string();
  std::ofstream(path) << "{\"pad\": \"" << std::string(100000, 'x') << "\", \"samples\": []}";
  auto r = DiscoverTrials(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "source.unknown_format") << r.status().ToString();
  EXPECT_EQ(r.status().message().find("expected '<'"), std::string::npos);
}

TEST_F(Discover, ATrialDirectoryHoldingTrialsIsAmbiguous) {
  fs::copy(root_ / "hf2q/trial-1/metal-gpu-execution-points.xml.gz", root_ / "hf2q/metal-gpu-execution-points.xml.gz");
  auto r = DiscoverTrials(Hf2q());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "bundle.ambiguous") << r.status().ToString();
}

// What `perfgate record --keep-trace` leaves: a trial directory with its exports and
// the trial-N.trace bundle they came from. Read as one trial it is that trial, the
// bundle listed as not read; a recording of such trials reads each once.
TEST_F(Discover, ATrialBesideItsOwnTraceBundleIsOneTrial) {
  const fs::path trial = root_ / "hf2q/trial-1";
  fs::create_directories(trial / "trial-1.trace/Trace1.run");
  auto r = DiscoverTrials(trial.string());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->trials.size(), 1u);
  EXPECT_EQ(r->trials[0].path, trial.string());
  EXPECT_EQ(r->trials[0].source->descriptor.name, "metal");
  EXPECT_EQ(r->ignored, std::vector<std::string>{(trial / "trial-1.trace").string()});
  auto all = DiscoverTrials(Hf2q());
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->trials.size(), 3u);
}

// Any other trial inside a trial is still ambiguous: it would go unread.
TEST_F(Discover, ATrialHoldingAnotherTrialDirectoryIsStillAmbiguous) {
  fs::copy(root_ / "hf2q/trial-2", root_ / "hf2q/trial-1/trial-2", fs::copy_options::recursive);
  auto r = DiscoverTrials((root_ / "hf2q/trial-1").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "bundle.ambiguous") << r.status().ToString();
  EXPECT_NE(r.status().message().find("also holds the trial trial-2"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace perfgate::bundle
