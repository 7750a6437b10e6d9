// The README's "Register a new suite in five minutes" configuration over the bundled
// decode recordings, shared by the suite tests: no process prefix, hf2q by its output
// head label, llama by skip:6 and 64 tokens.
#ifndef PERFGATE_TESTS_UNIT_SUITE_DECODE_SUITE_H_
#define PERFGATE_TESTS_UNIT_SUITE_DECODE_SUITE_H_

#include <string>

#include "perfgate/suite/suite.h"

namespace perfgate::suite::test {

inline const std::string kFixtures = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings";
inline constexpr const char* kOutputHead = "output_head.fused_norm_lm_argmax";

inline SuiteConfig ReadmeSuite(const std::string& recordings = kFixtures + "/decode_q4_0") {
  SuiteConfig c;
  c.suite = "my_decode";
  c.recordings_dir = recordings;
  EngineSpec engine;
  engine.name = "hf2q";
  engine.options.window = *attribution::ParseWindow(std::string("label:") + kOutputHead);
  engine.options.token_label = kOutputHead;
  EngineSpec baseline;
  baseline.name = "llama";
  baseline.options.window = *attribution::ParseWindow("skip:6");
  baseline.options.tokens = 64;
  c.engines = {engine, baseline};
  c.baseline = "llama";
  return c;
}

}  // namespace perfgate::suite::test

#endif  // PERFGATE_TESTS_UNIT_SUITE_DECODE_SUITE_H_
