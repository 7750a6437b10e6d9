// `perfgate ane-dma` end to end: host-only, classify, replay, exit codes, and a native
// run through the stand-in host.
#include <gtest/gtest.h>

#include <filesystem>

#include "ane/ane_test_util.h"
#include "support/run_command.h"

namespace perfgate::ane {
namespace {

namespace fs = std::filesystem;
using testing_support::RunCommand;
using testing_support::RunPerfgate;
using test::ReadJson;
using test::TempDir;

nlohmann::ordered_json Json(const std::string& text) { return nlohmann::ordered_json::parse(text, nullptr, false); }

std::string Fixture(const std::string& name) { return std::string(PERFGATE_SOURCE_DIR) + "/fixtures/ane/" + name; }

TEST(AneCli, HostOnly) {
  auto r = RunPerfgate("ane-dma --host-only");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = Json(r.out);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["cores"], 16);
  EXPECT_EQ(j["cout"], 4096);
  EXPECT_EQ(j["points"].size(), 2u);
  EXPECT_EQ(j["points"][1]["bytes_per_core"], 1048576);
#ifndef __APPLE__
  EXPECT_EQ(j["preset"], "stock");
  EXPECT_EQ(j["chip"]["guessed_chip"], "unknown");
  EXPECT_NE(j["chip"]["unknown_reason"].get<std::string>().find("not macOS"), std::string::npos);
#endif
}

TEST(AneCli, HostOnlyFlags) {
  auto r = RunPerfgate("ane-dma --host-only --label m3u --cores 32 --cout 8192 --cins 2016,2048");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = Json(r.out);
  EXPECT_EQ(j["preset"], "dual");  // auto: the label is an Ultra
  EXPECT_EQ(j["chip"]["label"], "m3u");
  EXPECT_EQ(j["cores"], 32);
  EXPECT_EQ(j["points"][1]["on_prefetch_notch"], true);  // 8192 x 2048 / 32 = 1 MiB
  EXPECT_EQ(RunPerfgate("ane-dma --host-only --preset stock --label m3u").exit_code, 0);
  EXPECT_EQ(Json(RunPerfgate("ane-dma --host-only --preset stock --label m3u").out)["preset"], "stock");
}

TEST(AneCli, BadInput) {
  EXPECT_EQ(RunPerfgate("ane-dma --host-only --cins 2016,abc").exit_code, 2);
  EXPECT_EQ(RunPerfgate("ane-dma --host-only --cout 4095").exit_code, 2);
  EXPECT_EQ(RunPerfgate("ane-dma --host-only --preset ultra").exit_code, 2);
  EXPECT_EQ(RunPerfgate("ane-dma --host-only --milder-ratio 3").exit_code, 2);
  auto r = RunPerfgate("ane-dma --host-only --cout 4095");
  EXPECT_NE(r.err.find("error[ane.bad_shape]"), std::string::npos) << r.err;
}

TEST(AneCli, Classify) {
  auto r = RunPerfgate("ane-dma classify --on-us 785.5 --off-us 353.8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = Json(r.out);
  EXPECT_NEAR(j["ratio"].get<double>(), 2.22, 0.005);
  EXPECT_EQ(j["class_name"], "m3_class_notch");
  EXPECT_EQ(j["borderline"], false);
  auto m4 = Json(RunPerfgate("ane-dma classify --on-us 840 --off-us 426").out);
  EXPECT_EQ(m4["class_name"], "milder_1mib_slowdown");
  EXPECT_EQ(m4["borderline"], true);
  auto moved = Json(RunPerfgate("ane-dma classify --on-us 840 --off-us 426 --m3-ratio 1.9").out);
  EXPECT_EQ(moved["class_name"], "m3_class_notch");
  auto host = Json(RunPerfgate("ane-dma classify --on-us 6000 --off-us 2000").out);
  EXPECT_EQ(host["class_name"], "host_dominated_invalid");
  auto bad = RunPerfgate("ane-dma classify --on-us 0 --off-us 353.8");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("error[ane.bad_timing]"), std::string::npos);
  EXPECT_EQ(RunPerfgate("ane-dma classify --on-us 1").exit_code, 2);  // --off-us is required
}

TEST(AneCli, Replay) {
  auto r = RunPerfgate("ane-dma replay " + Fixture("m5.json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = Json(r.out);
  EXPECT_EQ(j["class_name"], "m3_class_notch");
  EXPECT_EQ(j["chip"]["guessed_chip"], "Apple M5");
  EXPECT_EQ(j["on_cin"], 2048);
  EXPECT_EQ(j["off_cin"], 2016);
  EXPECT_NEAR(j["points"][1]["gbps_weight_payload"].get<double>(), 21.36, 0.01);
  auto m4 = Json(RunPerfgate("ane-dma replay " + Fixture("m4_coreml.json")).out);
  EXPECT_EQ(m4["borderline"], true);
  EXPECT_EQ(RunPerfgate("ane-dma replay /nonexistent/report.json").exit_code, 2);
}

#ifndef __APPLE__
TEST(AneCli, NativeRunIsAnEnvironmentErrorOffMacOS) {
  TempDir dir;
  auto r = RunPerfgate("ane-dma --out " + (dir / "run"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("error[ane.unsupported]"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "run"));
}

TEST(AneCli, ProbeAnecSkipsOffMacOS) {
  TempDir dir;
  auto r = RunCommand("cd " + dir.path() + " && " + PERFGATE_CLI_PATH + " ane-dma --host-only --probe-anec");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"status\": \"skipped_unsupported\""), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir / "anec_dma_split_probe/flags.json"));
}
#endif

// The shipped model generator's command line (coremltools itself cannot run here).
TEST(AneModelGen, CommandLine) {
  TempDir dir;
  const std::string script = std::string(PERFGATE_SOURCE_DIR) + "/framework/src/ane/model_gen.py";
  auto bad = RunCommand("python3 " + script + " --cin 0 --cout 4096 --out " + (dir / "m"));
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("must be positive"), std::string::npos) << bad.err;
  auto usage = RunCommand("python3 " + script + " --cin 2048");
  EXPECT_EQ(usage.exit_code, 2);
  auto run = RunCommand("python3 " + script + " --cin 2048 --cout 4096 --out " + (dir / "m"));
  EXPECT_NE(run.exit_code, 0);  // no Core ML compiler off macOS
  if (run.exit_code == 3) {
    EXPECT_NE(run.err.find("coremltools and numpy are required"), std::string::npos) << run.err;
  }
}

std::string StandinFlags() {
  return " --warm 1 --timed 4 --eval-host " + test::Standin() + " --model-gen '" + test::Standin() + " --model-gen'";
}

TEST(AneCli, NativeRunThroughTheStandIn) {
  TempDir dir;
  const std::string env = "TMPDIR=" + dir.path() + " ";
  auto r = RunCommand(env + PERFGATE_CLI_PATH + " ane-dma --out " + (dir / "run") + StandinFlags());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("DMA_NOTCH_COMPILE 2016 cout 4096 cores 16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DMA_NOTCH_RESULT passed_kernel_dma_profile"), std::string::npos);
  auto j = ReadJson(dir / "run/report.json");
  EXPECT_EQ(j["status"], "passed_kernel_dma_profile");
  EXPECT_EQ(j["class_name"], "m3_class_notch");
  EXPECT_EQ(j["points"][0]["eval_us_samples"].size(), 4u);

  // The same directory again: refused, exit 2, report untouched.
  auto again = RunCommand(env + PERFGATE_CLI_PATH + " ane-dma --out " + (dir / "run") + StandinFlags());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("error[ane.out_exists]"), std::string::npos) << again.err;
  EXPECT_EQ(ReadJson(dir / "run/report.json")["status"], "passed_kernel_dma_profile");

  // Replaying the run directory.
  auto rep = RunPerfgate("ane-dma replay " + (dir / "run"));
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_EQ(Json(rep.out)["class_name"], "m3_class_notch");
}

TEST(AneCli, NativeFailuresExitThree) {
  TempDir dir;
  const std::string env = "TMPDIR=" + dir.path() + " ";
  auto crash = RunCommand(env + "ANE_STANDIN_MODE=crash " + PERFGATE_CLI_PATH + " ane-dma --out " + (dir / "crash") +
                          StandinFlags());
  EXPECT_EQ(crash.exit_code, 3);
  EXPECT_NE(crash.err.find("error[ane.host_failed]"), std::string::npos) << crash.err;
  EXPECT_EQ(ReadJson(dir / "crash/report.json")["status"], "stopped_no_retry");
  auto hang = RunCommand(env + "ANE_STANDIN_MODE=hang " + PERFGATE_CLI_PATH + " ane-dma --host-timeout 0.5 --out " +
                         (dir / "hang") + StandinFlags());
  EXPECT_EQ(hang.exit_code, 3);
  EXPECT_NE(hang.err.find("error[ane.host_timeout]"), std::string::npos) << hang.err;
}

TEST(AneCli, DualPresetThroughTheStandIn) {
  TempDir dir;
  auto r = RunCommand("TMPDIR=" + dir.path() + " ANE_STANDIN_CORES=32 " + PERFGATE_CLI_PATH +
                      " ane-dma --preset dual --out " + (dir / "dual") + StandinFlags());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DMA_NOTCH_SUMMARY"), std::string::npos);
  auto j = ReadJson(dir / "dual/summary.json");
  EXPECT_EQ(j["preset"], "dual");
  EXPECT_EQ(j["scans"].size(), 5u);
  EXPECT_EQ(j["scans"][0]["class_name"], "no_notch");
  EXPECT_EQ(j["scans"][4]["class_name"], "m3_class_notch");
}

}  // namespace
}  // namespace perfgate::ane
