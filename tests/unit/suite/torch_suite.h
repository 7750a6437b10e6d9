// The torch_decode_h200 suite's configuration over the bundled PyTorch-profiler
// recordings (trace-event JSON from an H200), shared by the suite tests.
#ifndef PERFGATE_TESTS_UNIT_SUITE_TORCH_SUITE_H_
#define PERFGATE_TESTS_UNIT_SUITE_TORCH_SUITE_H_

#include <string>

#include "perfgate/suite/suite.h"
#include "unit/suite/decode_suite.h"

namespace perfgate::suite::test {

inline SuiteConfig TorchSuite() {
  SuiteConfig c;
  c.suite = "torch_decode";
  c.recordings_dir = kFixtures + "/torch_decode_h200";
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
