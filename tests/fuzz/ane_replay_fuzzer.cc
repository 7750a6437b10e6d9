// Fuzzes the ANE probe's replay reader (ane::Replay, `perfgate ane --replay FILE`:
// a recorded report.json or an eval-samples JSON), the analysis and the result JSON
// it leads to, and the eval host's DMA_JSON line parser (ane::ParseDmaJson). Replay
// reads only from a path: the input goes through a ScratchFile.
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "perfgate/ane/probe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace perfgate;
  static fuzz::ScratchFile scratch("ane-replay.json");
  const std::string& path = scratch.Write(data, size);
  for (bool positional : {false, true}) {
    ane::ReplayOptions options;
    if (positional) options.rule = ane::OnOffRule::kPositional;
    auto result = ane::Replay(path, options);
    if (!result.ok()) {
      (void)result.status().ToString();
      continue;
    }
    (void)ane::RenderResultJson(*result);
  }
  const std::string text = fuzz::AsString(data, size);
  (void)ane::ParseDmaJson(text);
  (void)ane::ParseDmaJson(std::string(ane::kDmaJsonPrefix) + text);
  return 0;
}
