// The native path's protocol, run-directory lifecycle, error paths, preset scans,
// replay and the ANEC probe, on Linux with the stand-in host
// (tests/standins/ane_host). Nothing here touches an ANE.
#include "perfgate/ane/probe.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <sstream>

#include "ane/ane_test_util.h"

namespace perfgate::ane {
namespace {

namespace fs = std::filesystem;
using test::ReadJson;
using test::ScopedEnv;
using test::TempDir;

// --- DMA_JSON -------------------------------------------------------------------

TEST(AneDmaJson, ParsesTheLine) {
  auto e = ParseDmaJson("loading\nDMA_JSON {\"eval_us\": [353.5, 354.0, 353.8]}\ndone\n");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->eval_us, (std::vector<double>{353.5, 354.0, 353.8}));
  EXPECT_EQ(e->route, "");
}

TEST(AneDmaJson, LastLineWins) {
  auto e = ParseDmaJson(
      "DMA_JSON {\"eval_us\": [1]}\nnoise\r\nDMA_JSON {\"eval_us\": [785.5, 786], \"route\": \"evaluateWithModel\", "
      "\"ane_subtype\": \"h16\", \"ane_cores\": 16}\r\ntrailing\n");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->eval_us, (std::vector<double>{785.5, 786}));
  EXPECT_EQ(e->route, "evaluateWithModel");
  EXPECT_EQ(e->ane_subtype, "h16");
  EXPECT_EQ(e->ane_cores, 16);
}

TEST(AneDmaJson, OnlyAtTheStartOfALineWithTheSpace) {
  auto e = ParseDmaJson("  DMA_JSON {\"eval_us\": [1]}\nDMA_JSONX {\"eval_us\": [2]}\nDMA_JSON {\"eval_us\": [3]}\n");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->eval_us, std::vector<double>{3});
  EXPECT_EQ(ParseDmaJson("  DMA_JSON {\"eval_us\": [1]}\n").status().code(), "ane.no_dma_json");
}

TEST(AneDmaJson, Errors) {
  auto none = ParseDmaJson("ANE ready\nno timing here\n");
  EXPECT_EQ(none.status().code(), "ane.no_dma_json");
  EXPECT_EQ(none.status().kind(), ErrorKind::kEnvironment);
  EXPECT_NE(none.status().message().find("no timing here"), std::string::npos);  // the output tail
  for (const char* bad : {"DMA_JSON {eval_us: [1,", "DMA_JSON [1, 2]", "DMA_JSON {\"eval_us\": []}",
                          "DMA_JSON {\"eval_us\": [1, \"x\"]}", "DMA_JSON {\"eval_us\": [0]}",
                          "DMA_JSON {\"eval_us\": [-3]}", "DMA_JSON {\"times\": [1]}", "DMA_JSON {\"eval_us\": 5}"}) {
    auto e = ParseDmaJson(std::string(bad) + "\n");
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().code(), "ane.bad_dma_json") << bad;
  }
  // The last line decides, even when an earlier one was good.
  EXPECT_EQ(ParseDmaJson("DMA_JSON {\"eval_us\": [1]}\nDMA_JSON oops\n").status().code(), "ane.bad_dma_json");
}

TEST(AneDmaJson, HostCommandLine) {
  EXPECT_EQ(EvalHostCommand("/h/host", "/r/d2048/model.mlmodelc", 3, 12),
            (std::vector<std::string>{"/h/host", "/r/d2048/model.mlmodelc", "3", "12"}));
  EXPECT_STREQ(kAneIdentity, "kernel_dma_mib_probe");
  EXPECT_STREQ(kRemovedEnv[0], "ANE_INMEM_HWX");
  EXPECT_STREQ(kRemovedEnv[1], "ANE_INPUT_SPLIT");
}

// --- native runs with the stand-in ------------------------------------------------

class AneNative : public ::testing::Test {
 protected:
  NativeOptions Options() {
    NativeOptions o;
    o.warm = 1;
    o.timed = 5;
    o.toolchain = test::StandinToolchain(dir_.path());
    o.log = &log_;
    return o;
  }
  std::string Out() const { return dir_ / "run"; }
  nlohmann::ordered_json Report() const { return ReadJson(Out() + "/report.json"); }

  TempDir dir_;
  std::ostringstream log_;
};

#ifndef __APPLE__
TEST_F(AneNative, RefusedOffMacOSWithoutStandIns) {
  NativeOptions o;
  auto r = RunNative(Out(), o, test::LinuxChip());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "ane.unsupported");
  EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
  EXPECT_NE(r.status().message().find("macOS"), std::string::npos);
  EXPECT_FALSE(fs::exists(Out()));  // nothing created
  EXPECT_FALSE(kSupported);
  EXPECT_FALSE(NativeUnavailableReason().empty());
}
#endif

TEST_F(AneNative, PassedLifecycle) {
  ScopedEnv snapshot("ANE_STANDIN_SNAPSHOT", dir_ / "preparing.json");
  auto r = RunNative(Out(), Options(), test::LinuxChip());
  ASSERT_TRUE(r.ok()) << r.status().ToString();

  // While the models were generated, report.json said "preparing".
  auto prep = ReadJson(dir_ / "preparing.json");
  ASSERT_FALSE(prep.is_discarded());
  EXPECT_EQ(prep["status"], "preparing");
  EXPECT_EQ(prep["passed"], false);
  EXPECT_EQ(prep["metric"], "native_eval_us");
  EXPECT_EQ(prep["points"][0].count("median_eval_us"), 0u);

  // The stand-in emulates an M3-class notch: 44.5 GB/s off, 16.93 GB/s on.
  EXPECT_EQ(r->classification.notch_class, NotchClass::kM3ClassNotch);
  EXPECT_NEAR(r->ratio_on_over_off, (16777216 / 16.93) / (16515072 / 44.5), 1e-3);
  EXPECT_EQ(r->on().dense.cin, 2048);
  EXPECT_EQ(r->off().dense.cin, 2016);
  EXPECT_EQ(r->on().eval_us_samples.size(), 5u);
  EXPECT_NEAR(r->on().gbps_weight_payload, 16.93, 0.05);
  EXPECT_EQ(r->chip.ane_subtype, "h15");
  EXPECT_NE(r->timing_path.find("native: stand-in evaluateWithModel"), std::string::npos) << r->timing_path;
  EXPECT_EQ(r->source_path, fs::absolute(Out()).lexically_normal().string());

  auto j = Report();
  EXPECT_EQ(j["status"], "passed_kernel_dma_profile");
  EXPECT_EQ(j["passed"], true);
  EXPECT_EQ(j["metric"], "native_eval_us");
  EXPECT_EQ(j["class_name"], "m3_class_notch");
  EXPECT_EQ(j["m3_class_notch"], true);
  EXPECT_EQ(j["milder_1mib_slowdown"], false);
  EXPECT_EQ(j["ratio_2048_over_2016"], j["ratio_on_over_off"]);
  EXPECT_EQ(j["borderline"], false);
  EXPECT_EQ(j["chip"]["ane_subtype"], "h15");
  EXPECT_EQ(j.count("error"), 0u);
  const auto keys = test::Keys(j);
  // The seed's order: host keys, then status, passed, metric, then the results.
  auto pos = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
  EXPECT_LT(pos("reference_m3_ultra_20260911"), pos("status"));
  EXPECT_LT(pos("status"), pos("passed"));
  EXPECT_LT(pos("metric"), pos("ratio_on_over_off"));
  EXPECT_LT(pos("ratio_on_over_off"), pos("ratio_2048_over_2016"));
  EXPECT_LT(pos("ratio_2048_over_2016"), pos("class_name"));
  const auto& p = j["points"][1];
  EXPECT_EQ(p["cin"], 2048);
  EXPECT_EQ(p["eval_us_samples"].size(), 5u);
  EXPECT_TRUE(p.contains("gbps_weight_payload"));
  EXPECT_TRUE(p.contains("median_eval_us"));
  EXPECT_TRUE(fs::exists(Out() + "/d2016/model.mlmodelc"));
  EXPECT_TRUE(fs::exists(Out() + "/d2048/model.mlmodelc"));

  const std::string log = log_.str();
  EXPECT_NE(log.find("DMA_NOTCH_COMPILE 2016 cout 4096 cores 16"), std::string::npos) << log;
  EXPECT_NE(log.find("DMA_NOTCH_TIME 2048 "), std::string::npos);
  EXPECT_NE(log.find("DMA_NOTCH_RESULT passed_kernel_dma_profile 2.67"), std::string::npos) << log;
}

TEST_F(AneNative, RefusesAnExistingDirectory) {
  fs::create_directories(Out());
  test::WriteText(Out() + "/keep.txt", "mine");
  auto r = RunNative(Out(), Options(), test::LinuxChip());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "ane.out_exists");
  EXPECT_EQ(r.status().kind(), ErrorKind::kUsage);
  EXPECT_NE(r.status().message().find("fresh kernel-DMA profile directory required"), std::string::npos);
  EXPECT_FALSE(fs::exists(Out() + "/report.json"));
  EXPECT_EQ(test::Slurp(Out() + "/keep.txt"), "mine");
}

TEST_F(AneNative, HostCrashStopsTheRun) {
  ScopedEnv mode("ANE_STANDIN_MODE", "crash");
  auto r = RunNative(Out(), Options(), test::LinuxChip());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "ane.host_failed");
  EXPECT_EQ(r.status().kind(), ErrorKind::kEnvironment);
  EXPECT_NE(r.status().message().find("SIGABRT"), std::string::npos) << r.status().message();
  auto j = Report();
  EXPECT_EQ(j["status"], "stopped_no_retry");
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["error"].get<std::string>().rfind("ane.host_failed: ", 0), 0u) << j["error"];
  EXPECT_EQ(j.count("class_name"), 0u);
  EXPECT_NE(log_.str().find("DMA_NOTCH_RESULT stopped_no_retry ane.host_failed"), std::string::npos);
}

TEST_F(AneNative, HostExitCodeAndStderrAreReported) {
  ScopedEnv mode("ANE_STANDIN_MODE", "exit");
  auto r = RunNative(Out(), Options(), test::LinuxChip());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "ane.host_failed");
  EXPECT_NE(r.status().message().find("status 5"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("_ANEClient loadModel failed"), std::string::npos);
  EXPECT_EQ(Report()["status"], "stopped_no_retry");
}

TEST_F(AneNative, HangTimesOutAndKillsTheHost) {
  ScopedEnv mode("ANE_STANDIN_MODE", "hang");
  NativeOptions o = Options();
  o.toolchain.host_timeout_s = 0.5;
  const auto start = std::chrono::steady_clock::now();
  auto r = RunNative(Out(), o, test::LinuxChip());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "ane.host_timeout");
  EXPECT_NE(r.status().message().find("hanging"), std::string::npos) << r.status().message();  // output tail
  EXPECT_LT(s, 10);
  auto j = Report();
  EXPECT_EQ(j["status"], "stopped_no_retry");
  EXPECT_EQ(j["error"].get<std::string>().rfind("ane.host_timeout: ", 0), 0u);
}

TEST_F(AneNative, GarbageAndMissingProtocolLines) {
  {
    ScopedEnv mode("ANE_STANDIN_MODE", "garbage");
    auto r = RunNative(dir_ / "garbage", Options(), test::LinuxChip());
    EXPECT_EQ(r.status().code(), "ane.bad_dma_json");
    EXPECT_EQ(ReadJson(dir_ / "garbage/report.json")["status"], "stopped_no_retry");
  }
  {
    ScopedEnv mode("ANE_STANDIN_MODE", "none");
    auto r = RunNative(dir_ / "none", Options(), test::LinuxChip());
    EXPECT_EQ(r.status().code(), "ane.no_dma_json");
    EXPECT_NE(ReadJson(dir_ / "none/report.json")["error"].get<std::string>().find("printed no DMA_JSON"),
              std::string::npos);
  }
  {
    ScopedEnv mode("ANE_STANDIN_MODE", "empty");
    EXPECT_EQ(RunNative(dir_ / "empty", Options(), test::LinuxChip()).status().code(), "ane.bad_dma_json");
  }
}

TEST_F(AneNative, SeveralDmaJsonLinesLastWins) {
  ScopedEnv mode("ANE_STANDIN_MODE", "multi");
  auto r = RunNative(Out(), Options(), test::LinuxChip());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const auto& p : r->points) {
    EXPECT_EQ(p.eval_us_samples.size(), 5u);  // not the decoy [1.0, 1.0]
    EXPECT_GT(p.median_eval_us, 100);
  }
}

TEST_F(AneNative, HostEnvironmentIsSetAndCleaned) {
  // The stand-in exits 9 unless ANE_IDENTITY is kernel_dma_mib_probe and the other two are gone.
  ScopedEnv identity("ANE_IDENTITY", "something_else");
  ScopedEnv hwx("ANE_INMEM_HWX", "1");
  ScopedEnv split("ANE_INPUT_SPLIT", "2");
  auto r = RunNative(Out(), Options(), test::LinuxChip());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

TEST_F(AneNative, FailureOnTheSecondPointKeepsTheFirst) {
  ScopedEnv mode("ANE_STANDIN_MODE", "exit");
  ScopedEnv which("ANE_STANDIN_FAIL_CIN", "2048");
  auto r = RunNative(Out(), Options(), test::LinuxChip());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("d2048"), std::string::npos);
  EXPECT_NE(log_.str().find("DMA_NOTCH_TIME 2016 "), std::string::npos);
  EXPECT_EQ(Report()["status"], "stopped_no_retry");
}

TEST_F(AneNative, ModelGenerationErrors) {
  {
    ScopedEnv fail("ANE_STANDIN_MODEL_FAIL", "1");
    auto r = RunNative(dir_ / "a", Options(), test::LinuxChip());
    EXPECT_EQ(r.status().code(), "ane.model_gen_failed");
    EXPECT_NE(r.status().message().find("coremltools"), std::string::npos);
    EXPECT_EQ(ReadJson(dir_ / "a/report.json")["status"], "stopped_no_retry");
  }
  {
    ScopedEnv noout("ANE_STANDIN_MODEL_NOOUT", "1");
    auto r = RunNative(dir_ / "b", Options(), test::LinuxChip());
    EXPECT_EQ(r.status().code(), "ane.model_gen_failed");
    EXPECT_NE(r.status().message().find("wrote no model.mlmodelc"), std::string::npos);
  }
  {
    NativeOptions o = Options();
    o.toolchain.model_generator = {dir_ / "no-such-generator"};
    auto r = RunNative(dir_ / "c", o, test::LinuxChip());
    EXPECT_EQ(r.status().code(), "ane.model_gen_failed");
    EXPECT_NE(r.status().message().find("could not start"), std::string::npos) << r.status().message();
  }
}

TEST_F(AneNative, MissingEvalHost) {
  NativeOptions o = Options();
  o.toolchain.eval_host = dir_ / "no-such-host";
  auto r = RunNative(Out(), o, test::LinuxChip());
  EXPECT_EQ(r.status().code(), "ane.no_eval_host");
  EXPECT_EQ(Report()["status"], "stopped_no_retry");
}

TEST_F(AneNative, BusyLockStopsTheRun) {
  NativeOptions o = Options();
  int fd = ::open(o.toolchain.lock_path.c_str(), O_RDWR | O_CREAT, 0666);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  // flock locks belong to the open file description: a second open in this process conflicts.
  auto r = RunNative(Out(), o, test::LinuxChip());
  ::close(fd);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), "ane.busy");
  EXPECT_EQ(Report()["status"], "stopped_no_retry");
}

TEST_F(AneNative, BadScansAreRefusedBeforeAnythingIsCreated) {
  NativeOptions o = Options();
  o.cins = {2000, 2016};  // neither is on the notch
  auto r = RunNative(Out(), o, test::LinuxChip());
  EXPECT_EQ(r.status().code(), "ane.bad_scan");
  EXPECT_EQ(r.status().kind(), ErrorKind::kUsage);
  o.cins = {2016, 2048};
  o.cout = 4095;
  EXPECT_EQ(RunNative(Out(), o, test::LinuxChip()).status().code(), "ane.bad_shape");
  o.cout = 4096;
  o.timed = 0;
  EXPECT_EQ(RunNative(Out(), o, test::LinuxChip()).status().code(), "ane.bad_options");
  EXPECT_FALSE(fs::exists(Out()));
}

TEST_F(AneNative, PositionalRuleReproducesTheSeedsInversion) {
  NativeOptions o = Options();
  o.cins = {2048, 2016};
  o.analyze.rule = OnOffRule::kPositional;
  auto seed = RunNative(dir_ / "seed", o, test::LinuxChip());
  ASSERT_TRUE(seed.ok());
  EXPECT_LT(seed->ratio_on_over_off, 1);
  EXPECT_EQ(seed->classification.notch_class, NotchClass::kNoNotch);
  o.analyze.rule = OnOffRule::kPredicate;
  auto ours = RunNative(dir_ / "ours", o, test::LinuxChip());
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ(ours->classification.notch_class, NotchClass::kM3ClassNotch);
  EXPECT_EQ(ReadJson(dir_ / "seed/report.json")["on_off_rule"], "positional");
}

TEST_F(AneNative, RoundsAndDispatchOverhead) {
  ScopedEnv overhead("ANE_STANDIN_OVERHEAD_US", "150");
  ScopedEnv tiny("ANE_STANDIN_TINY_US", "150");
  NativeOptions o = Options();
  o.rounds = 2;
  o.overhead_channels = 64;
  auto r = RunNative(Out(), o, test::LinuxChip());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->on().eval_us_samples.size(), 10u);
  ASSERT_TRUE(r->overhead.has_value());
  EXPECT_EQ(r->overhead->eval_us_samples.size(), 10u);
  EXPECT_NEAR(r->overhead->median_us, 150, 0.5);
  ASSERT_TRUE(r->overhead->corrected_ratio.has_value());
  // 150 us per call compresses the raw ratio; subtracting it restores the stand-in's 2.67.
  EXPECT_LT(r->ratio_on_over_off, 2.2);
  EXPECT_NEAR(*r->overhead->corrected_ratio, 2.67, 0.02);
  auto j = Report();
  EXPECT_EQ(j["dispatch_overhead"]["corrected_class_name"], "m3_class_notch");
  EXPECT_TRUE(fs::exists(Out() + "/overhead_c64/model.mlmodelc"));
  // Reverse order on the second round: 2048 is timed twice in a row at the turn.
  const std::string log = log_.str();
  size_t first = log.find("DMA_NOTCH_TIME 2048");
  size_t second = log.find("DMA_NOTCH_TIME 2048", first + 1);
  ASSERT_NE(second, std::string::npos);
  EXPECT_EQ(log.find("DMA_NOTCH_TIME 2016", first), log.find("DMA_NOTCH_TIME 2016", second));
}

// --- preset scans ------------------------------------------------------------------

TEST_F(AneNative, DualPresetWritesTheSummary) {
  // The stand-in as a 32-core Ultra: the stock pair is 0.5 MiB per core, off-lattice.
  ScopedEnv cores("ANE_STANDIN_CORES", "32");
  auto s = RunPreset(Out(), Preset::kDual, Options(), test::LinuxChip());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->scans.size(), 5u);
  auto j = ReadJson(Out() + "/summary.json");
  EXPECT_EQ(test::Keys(j), (std::vector<std::string>{"preset", "chip", "scans"}));
  EXPECT_EQ(j["preset"], "dual");
  ASSERT_EQ(j["scans"].size(), 5u);
  EXPECT_EQ(j["scans"][0]["name"], "16c_stock_1mib");
  EXPECT_EQ(j["scans"][0]["class_name"], "no_notch");
  for (size_t i = 1; i < 5; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(j["scans"][i]["class_name"], "m3_class_notch");
    EXPECT_EQ(j["scans"][i]["cores"], 32);
    EXPECT_EQ(j["scans"][i]["points"].size(), 2u);
    EXPECT_EQ(test::Keys(j["scans"][i]["points"][0]),
              (std::vector<std::string>{"cin", "median_eval_us", "gbps_weight_payload", "mib_per_core",
                                        "on_prefetch_notch"}));
  }
  for (const auto& scan : DualLattice()) {
    EXPECT_EQ(ReadJson(Out() + "/" + scan.name + "/report.json")["status"], "passed_kernel_dma_profile");
  }
  EXPECT_NE(log_.str().find("DMA_NOTCH_SUMMARY ["), std::string::npos);
}

TEST_F(AneNative, PresetRecordsAFailedScanAndGoesOn) {
  ScopedEnv mode("ANE_STANDIN_MODE", "exit");
  ScopedEnv which("ANE_STANDIN_FAIL_CIN", "4096");
  auto s = RunPreset(Out(), Preset::kDual, Options(), test::LinuxChip());
  ASSERT_TRUE(s.ok());
  auto j = ReadJson(Out() + "/summary.json");
  EXPECT_EQ(j["scans"][1]["class_name"], "m3_class_notch");
  EXPECT_EQ(test::Keys(j["scans"][2]), (std::vector<std::string>{"name", "error"}));
  EXPECT_EQ(j["scans"][2]["name"], "32c_1mib_cin4096");
  EXPECT_EQ(j["scans"][2]["error"].get<std::string>().rfind("ane.host_failed: ", 0), 0u);
  EXPECT_EQ(ReadJson(Out() + "/32c_1mib_cin4096/report.json")["status"], "stopped_no_retry");
  EXPECT_EQ(j["scans"][3]["class_name"], "m3_class_notch");
}

TEST_F(AneNative, StockPresetAndRefusal) {
  auto s = RunPreset(Out(), Preset::kStock, Options(), test::LinuxChip());
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->scans.size(), 1u);
  EXPECT_EQ(s->scans[0].result->classification.notch_class, NotchClass::kM3ClassNotch);
  auto again = RunPreset(Out(), Preset::kStock, Options(), test::LinuxChip());
  EXPECT_EQ(again.status().code(), "ane.out_exists");
  EXPECT_EQ(RunPreset(dir_ / "x", Preset::kAuto, Options(), test::LinuxChip()).status().code(), "ane.bad_preset");
}

// --- replay ------------------------------------------------------------------------

TEST_F(AneNative, ReplayOfANativeRunGivesTheSameResult) {
  auto r = RunNative(Out(), Options(), test::LinuxChip());
  ASSERT_TRUE(r.ok());
  for (const std::string& where : {Out(), Out() + "/report.json"}) {
    auto again = Replay(where);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_DOUBLE_EQ(again->ratio_on_over_off, r->ratio_on_over_off);
    EXPECT_EQ(again->classification.notch_class, r->classification.notch_class);
    EXPECT_EQ(again->chip.ane_subtype, "h15");
    EXPECT_EQ(again->timing_path, "replay: " + r->timing_path);
    EXPECT_EQ(again->source_path, Out() + "/report.json");
  }
  ReplayOptions strict;
  strict.thresholds.m3_class_ratio = 3.0;
  EXPECT_EQ(Replay(Out(), strict)->classification.notch_class, NotchClass::kMilder1MiBSlowdown);
}

TEST(AneReplay, EvalSamplesFile) {
  TempDir dir;
  test::WriteText(dir / "m4.json", R"js({
  "kind": "perfgate.ane_eval_samples", "schema_version": 1,
  "chip": {"guessed_chip": "Apple M4", "hw_model": "Mac16,10", "ane_cores": 16, "ane_subtype": "h16", "os": "macOS"},
  "cores": 16, "timing_path": "Core ML predict()", "source": "kasper0406",
  "points": [{"cin": 4096, "cout": 2016, "eval_us": [426]}, {"cin": 4096, "cout": 2048, "eval_us": [840]}]
})js");
  auto r = Replay(dir / "m4.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR(r->ratio_on_over_off, 1.9718, 1e-4);
  EXPECT_EQ(r->classification.notch_class, NotchClass::kMilder1MiBSlowdown);
  EXPECT_TRUE(r->classification.borderline);
  EXPECT_EQ(r->on().dense.bytes_per_core, kMiB);  // 2048 x 4096 / 16 x 2
  EXPECT_EQ(r->chip.hw_model, "Mac16,10");
  EXPECT_EQ(r->chip.ane_subtype, "h16");
  EXPECT_EQ(r->timing_path, "replay: Core ML predict()");
  EXPECT_EQ(r->source_note, "kasper0406");
  EXPECT_FALSE(r->ratio_2048_over_2016.has_value());
}

// Integers are range-checked before narrowing; shapes whose bytes overflow are errors,
// not an unchecked StatusOr that threw bad_variant_access.
TEST(AneReplay, HostileNumbersAreLocatedSchemaErrors) {
  TempDir dir;
  auto replay = [&](const std::string& cores, const std::string& points) {
    test::WriteText(dir / "r.json", "{\"kind\": \"perfgate.ane_eval_samples\", \"schema_version\": 1, \"cout\": 4096,\n"
                                    " \"cores\": " + cores + ", \"points\": " + points + "}");
    return Replay(dir / "r.json");
  };
  const std::string good_points = R"([{"cin": 2016, "eval_us": [350]}, {"cin": 2048, "eval_us": [780]}])";
  ASSERT_TRUE(replay("16", good_points).ok());
  auto narrowed = replay("4294967312", good_points);  // was read as 16
  ASSERT_FALSE(narrowed.ok());
  EXPECT_EQ(narrowed.status().code(), "ane.replay_bad_schema");
  EXPECT_EQ(narrowed.status().location().line, 2);
  EXPECT_EQ(narrowed.status().location().column, 2);
  EXPECT_NE(narrowed.status().message().find("4294967312, outside 1..1024"), std::string::npos)
      << narrowed.status().message();
  EXPECT_EQ(replay("18446744073709551615", good_points).status().code(), "ane.replay_bad_schema");
  EXPECT_EQ(replay("0", good_points).status().code(), "ane.replay_bad_schema");
  auto huge = replay("1e999", good_points);
  EXPECT_EQ(huge.status().code(), "ane.replay_bad_json");
  EXPECT_EQ(huge.status().location().column, 11);
  auto overflow = replay("1", R"([{"cin": 2147483648, "cout": 2147483648, "eval_us": [1]}, {"cin": 2048, "eval_us": [7]}])");
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().code(), "ane.bad_shape");
}

TEST(AneReplay, Errors) {
  TempDir dir;
  EXPECT_EQ(Replay(dir / "missing.json").status().code(), "ane.replay_unreadable");
  test::WriteText(dir / "bad.json", "{\n  \"kind\": \"perfgate.ane_eval_samples\",\n  oops\n}\n");
  auto bad = Replay(dir / "bad.json");
  EXPECT_EQ(bad.status().code(), "ane.replay_bad_json");
  EXPECT_EQ(bad.status().location().line, 3);
  test::WriteText(dir / "kind.json", R"js({"kind": "something"})js");
  EXPECT_EQ(Replay(dir / "kind.json").status().code(), "ane.replay_bad_schema");
  test::WriteText(dir / "pts.json",
                  R"js({"kind": "perfgate.ane_eval_samples", "schema_version": 1, "cout": 4096,
                      "points": [{"cin": 2016, "eval_us": [1]}, {"cin": 2048, "eval_us": ["x"]}]})js");
  auto pts = Replay(dir / "pts.json");
  EXPECT_EQ(pts.status().code(), "ane.replay_bad_schema");
  EXPECT_NE(pts.status().message().find("/points/1/eval_us/0"), std::string::npos) << pts.status().message();
  test::WriteText(dir / "stopped.json",
                  R"js({"metric": "native_eval_us", "status": "stopped_no_retry", "error": "ane.host_failed: boom"})js");
  auto stopped = Replay(dir / "stopped.json");
  EXPECT_EQ(stopped.status().code(), "ane.replay_not_passed");
  EXPECT_NE(stopped.status().message().find("boom"), std::string::npos);
  test::WriteText(dir / "one.json",
                  R"js({"kind": "perfgate.ane_eval_samples", "schema_version": 1, "cout": 4096,
                      "points": [{"cin": 2048, "eval_us": [1]}]})js");
  auto one = Replay(dir / "one.json");
  EXPECT_EQ(one.status().code(), "ane.bad_scan");
  EXPECT_EQ(one.status().location().path, dir / "one.json");
}

// --- ANEC options probe ---------------------------------------------------------------

TEST(AneAnec, FlagsAndVerdict) {
  auto flags = nlohmann::ordered_json::parse(AnecFlagsJson());
  ASSERT_EQ(flags.size(), 15u);
  EXPECT_EQ(test::Keys(flags).front(), "SplitKernelSection");
  EXPECT_EQ(test::Keys(flags).back(), "SplitCoeffBuffer");
  EXPECT_EQ(flags["MaxKernelDMASize"], 1048575);
  EXPECT_EQ(flags["DisableCachePrefetchMask"], 0);
  EXPECT_FALSE(MentionsKernelDmaSplit("--split-kernel-section=false --enable-l2-batch-splitting=true"));
  EXPECT_TRUE(MentionsKernelDmaSplit("--Max-Kernel-DMA-size=1048575"));
  EXPECT_TRUE(MentionsKernelDmaSplit("avoid-one-mib"));
}

TEST(AneAnec, SkipsWithoutSourceOrOffMacOS) {
  TempDir dir;
  NativeToolchain t;
  t.source_dir = dir / "nowhere";
  AnecProbeResult r = ProbeAnec(dir / "probe", t);
  EXPECT_EQ(r.status, "skipped_no_probe_source");
  EXPECT_EQ(r.path, dir / "nowhere/anec_options_probe.m");
  EXPECT_TRUE(fs::exists(dir / "probe/flags.json"));
  auto j = nlohmann::ordered_json::parse(RenderAnecProbeJson(r));
  EXPECT_EQ(test::Keys(j), (std::vector<std::string>{"status", "path"}));
#ifndef __APPLE__
  NativeToolchain real;  // the framework's own source directory
  AnecProbeResult off = ProbeAnec(dir / "probe2", real);
  EXPECT_EQ(off.status, "skipped_unsupported");
  EXPECT_NE(off.stderr_tail.find("macOS"), std::string::npos);
#endif
}

// A source directory whose name is too long used to throw filesystem_error out of
// ProbeAnec (is_regular_file without an error_code): now it is a skip that says why.
TEST(AneAnec, AnUnreadableSourceDirectoryIsASkipNotAnException) {
  TempDir dir;
  NativeToolchain t;
  t.source_dir = dir / std::string(300, 'n');
  AnecProbeResult r = ProbeAnec(dir / "probe", t);
  EXPECT_EQ(r.status, "skipped_no_probe_source");
  EXPECT_NE(r.stderr_tail.find("too long"), std::string::npos) << r.stderr_tail;
}

TEST(AneAnec, ProbesWithAStandInCompiler) {
  TempDir dir;
  // A "compiler" that writes a probe printing serialized options without a DMA split.
  const std::string cc = dir / "fakecc";
  test::WriteText(cc,
                  "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then out=$2; fi; shift; done\n"
                  "printf '#!/bin/sh\\necho \"--split-kernel-section=false --enable-l2-batch-splitting=true\"\\n' "
                  "> \"$out\"\nchmod +x \"$out\"\n");
  fs::permissions(cc, fs::perms::owner_all);
  NativeToolchain t;
  t.compiler = cc;
  AnecProbeResult r = ProbeAnec(dir / "probe", t);
  EXPECT_EQ(r.status, "probed") << r.stderr_tail;
  EXPECT_EQ(r.returncode, 0);
  EXPECT_EQ(r.has_1mib_kernel_dma_split_flag, false);
  EXPECT_EQ(r.fabricated_keys_dropped, true);
  EXPECT_NE(r.serialized.find("--split-kernel-section=false"), std::string::npos);
  auto j = nlohmann::ordered_json::parse(RenderAnecProbeJson(r));
  EXPECT_EQ(test::Keys(j), (std::vector<std::string>{"status", "returncode", "serialized", "fabricated_keys_dropped",
                                                     "has_1mib_kernel_dma_split_flag"}));
  // A compiler that fails.
  NativeToolchain broken;
  broken.compiler = "false";
  AnecProbeResult b = ProbeAnec(dir / "probe2", broken);
  EXPECT_EQ(b.status, "probe_build_failed");
}

}  // namespace
}  // namespace perfgate::ane
