// The torch_decode_h200 suite's configuration over the bundled PyTorch-profiler
// recordings (trace-event JSON from an H200), shared by the suite tests.
#ifndef PERFGATE_TESTS_UNIT_SUITE_TORCH_SUITE_H_
#define PERFGATE_TESTS_UNIT_SUITE_TORCH_SUITE_H_

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "perfgate/suite/suite.h"
#include "unit/suite/decode_suite.h"

namespace perfgate::suite::test {

// A fresh temporary directory named after `prefix`, removed when the program exits.
inline std::string ScratchDir(const std::string& prefix) {
  namespace fs = std::filesystem;
  static std::vector<std::string> made;
  std::string templ = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr) return "/nonexistent-" + prefix;
  if (made.empty()) {
    std::atexit([] {
      std::error_code ec;
      for (const std::string& dir : made) fs::remove_all(dir, ec);
    });
  }
  made.push_back(templ);
  return templ;
}

// The first trial of each mode only, linked into a temporary directory once per
// program: the vocabulary tests need the source, not three trials (each costs ~1 s).
inline std::string TorchFirstTrials() {
  static const std::string dir = [] {
    namespace fs = std::filesystem;
    const std::string templ = ScratchDir("perfgate-torch");
    for (const char* mode : {"graphs", "eager"}) {
      fs::create_directories(fs::path(templ) / mode);
      fs::create_directory_symlink(kFixtures + "/torch_decode_h200/" + mode + "/trial-1",
                                   fs::path(templ) / mode / "trial-1");
    }
    return templ;
  }();
  return dir;
}

// `recordings` defaults to the bundled three trials per mode.
inline SuiteConfig TorchSuite(const std::string& recordings = kFixtures + "/torch_decode_h200") {
  SuiteConfig c;
  c.suite = "torch_decode";
  c.recordings_dir = recordings;
  c.min_trials = 1;
  for (const char* mode : {"graphs", "eager"}) {
    EngineSpec e;
    e.name = mode;
    e.options.all_processes = true;
    e.options.window = attribution::DecodeWindow::Label("decode_step");
    e.options.token_label = "decode_step";
    c.engines.push_back(e);
  }
  c.baseline = "eager";
  return c;
}

}  // namespace perfgate::suite::test

#endif  // PERFGATE_TESTS_UNIT_SUITE_TORCH_SUITE_H_
