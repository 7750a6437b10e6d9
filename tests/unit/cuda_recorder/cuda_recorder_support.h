// Shared set-up of the CUDA recorder tests: a per-process scratch directory, a stand-in
// tracer file (any file will do: the stand-in target writes the tracer's files
// itself), engines that run the stand-in target in a given mode, and its run log.
#ifndef PERFGATE_TESTS_UNIT_CUDA_RECORDER_CUDA_RECORDER_SUPPORT_H_
#define PERFGATE_TESTS_UNIT_CUDA_RECORDER_CUDA_RECORDER_SUPPORT_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "perfgate/cuda/recorder.h"
#include "support/file_text.h"

namespace perfgate::testing_support {

namespace fs = std::filesystem;


class CudaRecorderSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "-" + info->name();
    for (char& c : name) c = c == '/' ? '_' : c;
    root_ = fs::temp_directory_path() / ("perfgate-cuda-recorder-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(root_);
    fs::create_directories(root_);
    tracer_ = (root_ / "libstandin_cupti.so").string();
    std::ofstream(tracer_) << "not a real tracer\n";
    out_ = (root_ / "out").string();
    log_ = (root_ / "runs.log").string();
    unsetenv("PERFGATE_CUPTI_TRACER");
  }

  void TearDown() override {
    unsetenv("PERFGATE_CUPTI_TRACER");
    if (!HasFailure()) fs::remove_all(root_);
  }

  // An engine that runs the stand-in in `mode`, writing {tokens} kernels per process.
  xctrace::EngineRecordSpec Engine(const std::string& name, const std::string& mode, int64_t kernels = 4) const {
    xctrace::EngineRecordSpec spec;
    spec.engine = name;
    spec.command = {PERFGATE_FAKE_CUDA_TARGET, mode, "{tokens}"};
    spec.tokens = kernels;
    spec.environment = {{"FAKE_CUDA_LOG", log_}, {"FAKE_EXTRA", "extra value"}};
    return spec;
  }

  cuda::RecordOptions Options(int trials = 1) {
    cuda::RecordOptions o;
    o.trials = trials;
    o.tracer_path = tracer_;
    o.record_timeout_ms = 20 * 1000;
    o.kill_grace_ms = 200;
    o.progress = &progress_;
    o.source_directory = PERFGATE_SOURCE_DIR;
    return o;
  }

  // The trial directories the stand-in ran in, in order.
  std::vector<std::string> Runs() const {
    std::vector<std::string> runs;
    std::istringstream in(ReadText(log_));
    for (std::string line; std::getline(in, line);) runs.push_back(line);
    return runs;
  }

  std::string TrialDir(const std::string& engine, int k) const {
    return (fs::path(out_) / engine / ("trial-" + std::to_string(k))).string();
  }

  nlohmann::json Meta(const std::string& engine, int k) const {
    return nlohmann::json::parse(ReadText(fs::path(TrialDir(engine, k)) / "meta.json"));
  }

  fs::path root_;
  std::string tracer_;
  std::string out_;
  std::string log_;
  std::ostringstream progress_;
};

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_UNIT_CUDA_RECORDER_CUDA_RECORDER_SUPPORT_H_
