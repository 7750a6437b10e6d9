// Shared set-up of the recorder tests: a scratch directory, exports for the xctrace
// stand-in to serve (generated with perfgate::gen), engine commands, and the
// stand-in's call log.
#ifndef PERFGATE_TESTS_UNIT_RECORDER_RECORDER_SUPPORT_H_
#define PERFGATE_TESTS_UNIT_RECORDER_RECORDER_SUPPORT_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "support/file_text.h"
#include "xctrace_gen/recording.h"

namespace perfgate::testing_support {

namespace fs = std::filesystem;


// A scratch directory per test with:
//   served/hf2q/, served/llama/   toc.xml and <schema>.xml of one generated trial (4 tokens)
//   bin/hf2q, bin/llama           the engines: links to /bin/true (the stand-in picks
//                                 served/<basename of the command>)
//   bin-failing/hf2q              an engine that exits 1 (a link to /bin/false)
//   log                           the stand-in's call log
//   out/                          where recordings go
// and the environment pointing the recorder at the stand-in.
class RecorderSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("perfgate-recorder-" + std::to_string(getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "bin");
    fs::create_directories(root_ / "bin-failing");
    out_ = (root_ / "out").string();
    Serve();
    fs::create_symlink("/bin/true", root_ / "bin" / "hf2q");
    fs::create_symlink("/bin/true", root_ / "bin" / "llama");
    fs::create_symlink("/bin/false", root_ / "bin-failing" / "hf2q");
    setenv("PERFGATE_XCTRACE", PERFGATE_FAKE_XCTRACE, 1);
    setenv("FAKE_XCTRACE_SOURCE", (root_ / "served").c_str(), 1);
    setenv("FAKE_XCTRACE_LOG", (root_ / "log").c_str(), 1);
    unsetenv("FAKE_XCTRACE_MODE");
    unsetenv("FAKE_XCTRACE_MATCH");
    setenv("FAKE_XCTRACE_PIDFILE", (root_ / "grandchild.pid").c_str(), 1);
  }

  void TearDown() override {
    unsetenv("FAKE_XCTRACE_MODE");
    unsetenv("FAKE_XCTRACE_MATCH");
    if (!HasFailure()) fs::remove_all(root_);
  }

  // Writes one generated trial per engine under served/, uncompressed.
  void Serve() {
    gen::RecordingSpec spec;
    spec.engines = {{"hf2q", gen::Hf2qProfile()}, {"llama", gen::LlamaProfile()}};
    spec.trials = 1;
    spec.tokens = 4;
    spec.gzip = false;
    for (size_t i = 0; i < spec.engines.size(); ++i) {
      gen::TrialRecording t = gen::GenerateTrial(spec, i, 1);
      fs::path dir = root_ / "served" / spec.engines[i].first;
      fs::create_directories(dir);
      std::ofstream(dir / "toc.xml", std::ios::binary) << t.toc_xml;
      for (const auto& [schema, xml] : t.exports) std::ofstream(dir / (schema + ".xml"), std::ios::binary) << xml;
    }
  }

  static void SetMode(const std::string& mode, const std::string& match = "") {
    setenv("FAKE_XCTRACE_MODE", mode.c_str(), 1);
    if (match.empty()) {
      unsetenv("FAKE_XCTRACE_MATCH");
    } else {
      setenv("FAKE_XCTRACE_MATCH", match.c_str(), 1);
    }
  }

  // The stand-in's calls, each as its argument list.
  std::vector<std::vector<std::string>> Calls() const {
    std::vector<std::vector<std::string>> calls;
    std::istringstream in(ReadText(root_ / "log"));
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> args;
      std::istringstream fields(line);
      std::string f;
      while (std::getline(fields, f, '\t')) args.push_back(f);
      calls.push_back(args);
    }
    return calls;
  }

  // The --output of every `record` call, in order.
  std::vector<std::string> RecordOutputs() const {
    std::vector<std::string> out;
    for (const auto& c : Calls()) {
      if (c.empty() || c[0] != "record") continue;
      for (size_t i = 0; i + 1 < c.size(); ++i) {
        if (c[i] == "--output") out.push_back(c[i + 1]);
      }
    }
    return out;
  }

  void ClearLog() const { fs::remove(root_ / "log"); }

  std::string Bin(const std::string& name) const { return (root_ / "bin" / name).string(); }
  std::string TrialDir(const std::string& engine, int k) const {
    return (fs::path(out_) / engine / ("trial-" + std::to_string(k))).string();
  }

  fs::path root_;
  std::string out_;
};

}  // namespace perfgate::testing_support

#endif  // PERFGATE_TESTS_UNIT_RECORDER_RECORDER_SUPPORT_H_
