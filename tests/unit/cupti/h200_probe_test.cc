// What `perfgate record --backend cuda` made of tools/recordings/cuda_probe.cu on an
// H200 (fixtures/cupti/probe): a run that calls cudaDeviceReset between two halves
// keeps both halves' kernels (the tracer flushed at the reset), and a run that
// crashes is an INCOMPLETE trial that attribution refuses. The counts were read off
// the files with Python's json module: 24 kernels named "Scale(float*, int, float)"
// in contexts 1 and 2, 8 NVTX "step" ranges.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "core/text_input.h"
#include "perfgate/attribution/options.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/attribution/work.h"

namespace perfgate::cupti {
namespace {

const std::string kProbe = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/cupti/probe/";

TEST(H200Probe, AResetMidRunKeepsTheKernelsOfBothContexts) {
  auto trace = json_trace::ReadTraceJsonFile(kProbe + "probe-reset/trial-1/trace.json.gz");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  std::set<std::string> names;
  for (const auto& w : trace->items) {
    if (w.kind == model::WorkKind::kKernel) names.insert(w.name);
  }
  EXPECT_EQ(names, std::set<std::string>{"Scale(float*, int, float)"});
  attribution::AttributionOptions o;
  o.window = attribution::DecodeWindow::Label("step");
  o.token_label = "step";
  attribution::WorkExtras extras;
  auto summary = attribution::AttributeWork(*trace, o, &extras);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->tokens, 8);  // 4 steps before the reset, 4 after
  EXPECT_EQ(extras.kernels, 24);
  EXPECT_DOUBLE_EQ(summary->items_per_token, 3.0);

  auto text = internal::ReadWholeFile(kProbe + "probe-reset/trial-1/trace.json.gz");
  ASSERT_TRUE(text.ok());
  const auto root = nlohmann::json::parse(*text);
  std::set<int> contexts;
  for (const auto& e : root.at("traceEvents")) {
    if (e.value("cat", "") == "kernel") contexts.insert(e.at("args").at("context").get<int>());
  }
  EXPECT_EQ(contexts, (std::set<int>{1, 2}));  // the context before the reset, and the one after
  const auto tracer = root.at("perfgate_tracer");
  EXPECT_EQ(tracer.at("flushes").at("device_reset"), 1);
  EXPECT_EQ(tracer.at("flushes").at("context_destroy"), 1);
  EXPECT_EQ(tracer.at("dropped_records"), 0);
}

TEST(H200Probe, ACrashedTargetLeftAnIncompleteTrialThatIsRefused) {
  auto recording = bundle::DiscoverTrials(kProbe + "probe-crash");
  ASSERT_FALSE(recording.ok());
  EXPECT_EQ(recording.status().code(), "record.incomplete_bundle");
  EXPECT_NE(recording.status().message().find("SIGSEGV"), std::string::npos) << recording.status().ToString();
  auto meta = internal::ReadWholeFile(kProbe + "probe-crash/trial-1/meta.json");
  ASSERT_TRUE(meta.ok());
  const auto m = nlohmann::json::parse(*meta);
  EXPECT_EQ(m.at("complete"), false);
  EXPECT_EQ(m.at("error").at("code"), "process.signaled");
}

}  // namespace
}  // namespace perfgate::cupti
