// The hf2q_decode suite's configuration, shared by its perf tests and its benchmark
// program: hf2q against llama.cpp, each with its own decode window.
#ifndef PERFGATE_SUITES_HF2Q_DECODE_SUITE_H_
#define PERFGATE_SUITES_HF2Q_DECODE_SUITE_H_

#include <string>

#include "perfgate/suite/suite.h"

namespace hf2q_decode {

inline constexpr const char* kOutputHead = "output_head.fused_norm_lm_argmax";

inline perfgate::testing::SuiteConfig Suite(std::string recordings_dir, std::string golden_dir) {
  perfgate::testing::SuiteConfig c;
  c.suite = "hf2q_decode";
  c.recordings_dir = std::move(recordings_dir);
  c.golden_dir = std::move(golden_dir);
  // hf2q labels its command buffers: decode runs from the first output head to the
  // last, one token per output head.
  perfgate::testing::EngineSpec hf2q;
  hf2q.name = "hf2q";
  hf2q.options.process_prefix = "hf2q";
  hf2q.options.window = *perfgate::attribution::ParseWindow(std::string("label:") + kOutputHead);
  hf2q.options.token_label = kOutputHead;
  // llama.cpp does not label: skip its six prefill submissions, 64 decode tokens.
  perfgate::testing::EngineSpec llama;
  llama.name = "llama";
  llama.options.process_prefix = "llama";
  llama.options.window = *perfgate::attribution::ParseWindow("skip:6");
  llama.options.tokens = 64;
  c.engines = {hf2q, llama};
  c.baseline = "llama";
  return c;
}

}  // namespace hf2q_decode

#endif  // PERFGATE_SUITES_HF2Q_DECODE_SUITE_H_
