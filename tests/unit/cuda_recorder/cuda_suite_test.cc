// Suites with CUDA engines (EngineSpec::record_backend = kCuda): a missing recording
// says exactly why CUDA cannot record here, and under CI it fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "perfgate/cuda/recorder.h"
#include "perfgate/suite/suite.h"

namespace perfgate {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

// An environment of exactly `vars`.
EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) {
    auto it = vars.find(name);
    return it == vars.end() ? std::optional<std::string>() : std::optional<std::string>(it->second);
  };
}

suite::SuiteConfig CudaSuite(const std::string& recordings) {
  suite::SuiteConfig c;
  c.suite = "cuda_suite";
  c.recordings_dir = recordings;
  suite::EngineSpec e;
  e.name = "torch";
  e.record_command = {"python3", "decode.py", "--tokens", "{tokens}"};
  e.record_tokens = 16;
  e.record_backend = suite::RecordBackend::kCuda;
  c.engines = {e};
  return c;
}

std::string EmptyRecordings() {
  const fs::path dir = fs::temp_directory_path() / ("perfgate-cuda-suite-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir.string();
}

TEST(CudaSuite, AMissingRecordingUnderCiFailsSayingWhyCudaCannotRecord) {
  suite::SuiteLoad load = suite::LoadSuite(CudaSuite(EmptyRecordings()), Env({{"CI", "true"}}));
  EXPECT_FALSE(load.data);
  EXPECT_FALSE(load.unavailable);
  ASSERT_FALSE(load.error.ok());
  EXPECT_EQ(load.error.code(), "suite.no_recording");
  EXPECT_THAT(load.error.message(), HasSubstr("no recording of engine 'torch'"));
  const std::optional<std::string> why = cuda::WhyCudaRecordingImpossible();
  // Here (no GPU): the driver or GPU named exactly; on a machine that can record, that it could.
  EXPECT_THAT(load.error.message(), HasSubstr(why.value_or("CUDA recording is available")));
  if (why) {
    EXPECT_THAT(load.error.message(), HasSubstr("PERFGATE_ALLOW_SKIP=1"));
  }
}

TEST(CudaSuite, OutsideCiItSkipsWithTheSameReason) {
  const std::optional<std::string> why = cuda::WhyCudaRecordingImpossible();
  suite::SuiteLoad load = suite::LoadSuite(CudaSuite(EmptyRecordings()), Env({}));
  if (!why) {
    EXPECT_EQ(load.error.code(), "suite.no_recording");  // it could be recorded here
    return;
  }
  ASSERT_TRUE(load.error.ok()) << load.error.ToString();
  ASSERT_TRUE(load.unavailable);
  EXPECT_THAT(load.unavailable->reason, HasSubstr(*why));
  EXPECT_THAT(load.unavailable->reason, HasSubstr("NVIDIA GPU, its driver and perfgate's CUPTI tracer"));
}

TEST(CudaSuite, RecordingWhereCudaCannotRecordSaysWhy) {
  // A tracer that is not there makes CUDA recording impossible on every machine, one
  // with a GPU included (here the driver is missing too, and named first).
  const std::string missing = (fs::temp_directory_path() / ("no-tracer-" + std::to_string(getpid()) + ".so")).string();
  setenv("PERFGATE_CUPTI_TRACER", missing.c_str(), 1);
  const std::optional<std::string> why = cuda::WhyCudaRecordingImpossible();
  suite::SuiteLoad load = suite::LoadSuite(CudaSuite(EmptyRecordings()), Env({{"PERFGATE_RECORD", "1"}}));
  unsetenv("PERFGATE_CUPTI_TRACER");
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, AnyOf(StartsWith("no NVIDIA driver"), StartsWith("no GPU"), StartsWith("no usable GPU"),
                          HasSubstr(missing + " is not a file")));
  ASSERT_FALSE(load.error.ok());
  EXPECT_EQ(load.error.code(), "suite.record_unavailable");
  EXPECT_THAT(load.error.message(), HasSubstr("PERFGATE_RECORD=1 asks to record, but " + *why));
}

TEST(CudaSuite, EnginesOfTwoBackendsAreNotRecordedTogether) {
  suite::SuiteConfig c = CudaSuite(EmptyRecordings());
  suite::EngineSpec metal = c.engines.front();
  metal.name = "llama";
  metal.record_backend = suite::RecordBackend::kXctrace;
  c.engines.push_back(metal);
  suite::SuiteLoad load = suite::LoadSuite(c, Env({{"PERFGATE_RECORD", "1"}}));
  EXPECT_EQ(load.error.code(), "suite.bad_config");
  EXPECT_THAT(load.error.message(), HasSubstr("engine 'torch' records with cuda and engine 'llama' with xctrace"));
}

TEST(CudaSuite, TheBackendIsPartOfTheConfigKey) {
  suite::SuiteConfig cuda = CudaSuite("r");
  suite::SuiteConfig xctrace = cuda;
  xctrace.engines.front().record_backend = suite::RecordBackend::kXctrace;
  EXPECT_NE(suite::ConfigKey(cuda), suite::ConfigKey(xctrace));
}

}  // namespace
}  // namespace perfgate
