// A one-second slice of a two-GPU FSDP run on 2xH100, profiled with Nsight Systems
// (shared/corpus/nsys/h100_2gpu_1s.sqlite): one engine per device, tokens and window
// from the NVTX range "aten::mm" (PyTorch's emit_nvtx names it "aten::mm, op_id = N";
// the nsys source keys it by the op name). gpu1 is compared with gpu0: the two ranks
// of one job should cost the same.
#include <cstdio>
#include <filesystem>
#include <string>

#include "../label_engine.h"
#include "perfgate/gtest.h"
#include "support/corpus.h"

namespace {

namespace fs = std::filesystem;
using perfgate::testing::EngineSpec;
using perfgate::testing::SuiteConfig;

constexpr const char* kExport = "nsys/h100_2gpu_1s.sqlite";
constexpr const char* kEngines[] = {"gpu0", "gpu1"};

// The recording: <build>/recordings/gpuN/, each holding a symbolic link to the corpus
// export (read in place, never copied into the repository; PERFGATE_CORPUS_DIR wins
// over the CMake cache's corpus directory). Without the export the engine directories
// are removed, so the suite skips, visibly, and fails under CI.
std::string Recordings() {
  const fs::path dir = PERFGATE_NSYS_RECORDINGS_DIR;
  const std::string file = perfgate::testing_support::CorpusFile(kExport);
  std::error_code ec;
  if (file.empty()) {
    std::fprintf(stderr,
                 "nsys_h100: the corpus export %s is not under '%s'; set PERFGATE_CORPUS_DIR to shared/corpus\n",
                 kExport, perfgate::testing_support::CorpusDir().c_str());
  }
  for (const char* engine : kEngines) {
    const fs::path link = dir / engine / fs::path(kExport).filename();
    if (file.empty()) {
      fs::remove_all(dir / engine, ec);
      continue;
    }
    if (fs::equivalent(link, file, ec)) continue;
    fs::remove_all(dir / engine, ec);
    fs::create_directories(dir / engine, ec);
    fs::create_symlink(fs::absolute(file), link, ec);
  }
  return dir.string();
}

SuiteConfig NsysH100Suite() {
  SuiteConfig c;
  c.suite = PERFGATE_SUITE_NAME;
  c.recordings_dir = Recordings();
  c.golden_dir = PERFGATE_GOLDEN_DIR;
  c.min_trials = 1;  // one export: a single trial per device
  for (int device = 0; device < 2; ++device) {
    EngineSpec e = perfgate_suites::LabelEngine(kEngines[device], "aten::mm");
    e.options.device = device;
    c.engines.push_back(e);
  }
  c.baseline = "gpu0";
  return c;
}

class NsysH100 : public perfgate::testing::PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override { return NsysH100Suite(); }
};

TEST_F(NsysH100, KernelsPerTokenBudgets) {
  // 1719 kernels in the window over 140 aten::mm ranges on each device (12.28).
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("gpu0"), 12.5);
  PERFGATE_EXPECT_SUBMISSIONS_PER_TOKEN_AT_MOST(engine("gpu1"), 12.5);
}

TEST_F(NsysH100, GpuTimePerTokenBudgets) {
  // Summed kernel time: about 160 µs per aten::mm range on each device.
  PERFGATE_EXPECT_METRIC_AT_MOST(engine("gpu0"), "gpu_us_per_token", 165);
  PERFGATE_EXPECT_METRIC_AT_MOST(engine("gpu1"), "gpu_us_per_token", 165);
  // The matmuls are most of it.
  PERFGATE_EXPECT_PHASE_GPU_US_PER_TOKEN_AT_MOST(engine("gpu0"), "aten::mm", 145);
  PERFGATE_EXPECT_PHASE_GPU_US_PER_TOKEN_AT_MOST(engine("gpu1"), "aten::mm", 145);
}

TEST_F(NsysH100, RanksCostTheSame) {
  PERFGATE_EXPECT_GPU_TIME_RATIO_AT_MOST(engine("gpu1"), engine("gpu0"), 1.02);
  PERFGATE_EXPECT_FAMILY_DELTA_AT_MOST_PERCENT(engine("gpu1"), engine("gpu0"), "gemm", 2);
}

TEST_F(NsysH100, Gpu0Golden) { PERFGATE_EXPECT_MATCHES_GOLDEN("gpu0"); }

TEST_F(NsysH100, Gpu1Golden) { PERFGATE_EXPECT_MATCHES_GOLDEN("gpu1"); }

}  // namespace
