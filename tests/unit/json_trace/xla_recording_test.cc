// Conformance on the real JAX recordings (fixtures/recordings/jax_decode_h200, an
// H200, JAX 0.11.2): perfgate's figures from the perfetto JSON against the counts
// each trial's meta.json holds. Those were made on the H200 by
// tools/recordings/record_jax_decode.py from the profiler's other output, the XSpace
// (`*.xplane.pb`, read through jax.profiler.ProfileData): events on the "Stream #..."
// lines of the "/device:GPU..." plane, each assigned to the host `decode_step` range
// containing its start. They were not computed from the JSON nor by perfgate.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "perfgate/json_trace/reader.h"
#include "perfgate/attribution/work.h"
#include "support/run_command.h"

namespace perfgate::json_trace {
namespace {

const std::string kRecording = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/jax_decode_h200";

nlohmann::json Meta(int trial) {
  std::ifstream in(kRecording + "/trial-" + std::to_string(trial) + "/meta.json");
  return nlohmann::json::parse(in);
}

attribution::AttributionOptions DecodeSteps() {
  attribution::AttributionOptions o;
  o.all_processes = true;
  o.window = attribution::DecodeWindow::Label("decode_step");
  o.token_label = "decode_step";
  return o;
}

class JaxRecording : public ::testing::TestWithParam<int> {};

TEST_P(JaxRecording, KernelsPerStepMatchTheXSpaceCount) {
  const nlohmann::json meta = Meta(GetParam());
  const nlohmann::json& independent = meta["independent_count"];
  const std::string path = kRecording + "/trial-" + std::to_string(GetParam()) + "/trace.json.gz";
  auto trace = ReadTraceJsonFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  // Every stream event of the XSpace is GPU work here (kernels and copies), once.
  EXPECT_EQ(static_cast<int64_t>(trace->items.size()), independent["stream_kernels_total"].get<int64_t>());
  EXPECT_EQ(trace->diagnostics.ErrorCount(), 0);
  // Counted, not errors: the python tracer's `$` ranges, the sort indexes and the
  // closing `{}` are skipped; the string "device" arg of the command_buffer TraceMe
  // ranges (no host range uses it) is ignored. Host events with a correlation_id are
  // the launch calls (trial 1 also builds the graph: 121 cuGraphAddNode_v2 and more).
  // The figures are python, sort_index, device_args and host_calls of
  //   python3 tests/corpus/xla_figures.py fixtures/recordings/jax_decode_h200/trial-*/trace.json.gz
  // (stdlib json over each JSON, by process and thread names alone).
  struct Counted {
    int64_t python, sort_indexes, device_args, host_calls;
  };
  const Counted c = GetParam() == 1 ? Counted{9295, 20, 130, 386} : Counted{9295, 21, 129, 263};
  EXPECT_EQ(trace->diagnostics.Count("json.skipped_event"), c.python + c.sort_indexes + 1);
  EXPECT_EQ(trace->diagnostics.Count("json.ignored_field"), c.device_args);
  EXPECT_EQ(trace->event_kinds.at("X/xla:host_call"), c.host_calls);
  EXPECT_EQ(trace->diagnostics.Count("json.xla_derived_line"), 0);  // this version writes no derived lines

  attribution::WorkExtras x;
  auto s = attribution::AttributeWork(*trace, DecodeSteps(), &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tokens, independent["host_decode_steps"].get<int64_t>());  // 64
  EXPECT_EQ(s->items, independent["stream_kernels_in_decode_steps"].get<int64_t>());  // 11328
  EXPECT_DOUBLE_EQ(s->items_per_token, 177.0);
  for (const auto& per_step : independent["kernels_per_step"]) EXPECT_EQ(per_step.get<int64_t>(), 177);
  // One cuGraphLaunch (CudaGraph:5) per token launches all of them.
  EXPECT_EQ(x.graph_launches, 64);
  EXPECT_DOUBLE_EQ(x.graph_launches_per_token, 1.0);
  EXPECT_EQ(x.graph_kernels, s->items);
  EXPECT_EQ(x.unlaunched_kernels, 0);

  // Per kernel name: calls and GPU time (the XSpace's durations, in ns, equal the
  // JSON's µs with 3 decimals).
  const nlohmann::json& names = independent["decode_kernel_names"];
  ASSERT_EQ(s->kernels.size(), names.size());
  for (const auto& [name, expected] : names.items()) {
    auto it = s->kernels.find(name);
    ASSERT_NE(it, s->kernels.end()) << name;
    EXPECT_EQ(it->second.items, expected["count"].get<int64_t>()) << name;
    EXPECT_EQ(it->second.gpu_sum_ns, static_cast<int64_t>(expected["gpu_ns"].get<double>())) << name;
  }
  // Every decode kernel runs in the jitted decode step's module executions.
  ASSERT_EQ(s->phases.count("jit_decode_step"), 1u);
  EXPECT_EQ(s->phases.at("jit_decode_step").items, s->items);
}

INSTANTIATE_TEST_SUITE_P(Trials, JaxRecording, ::testing::Values(1, 2, 3));

// The three trials through `perfgate attribute`, as a user runs it.
TEST(JaxRecordingCli, AttributeReadsTheThreeTrials) {
  auto r = testing_support::RunPerfgate("attribute --trace jax=" + kRecording +
                                        " --window label:decode_step --tokens auto:decode_step --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& e = j["engines"]["jax"];
  EXPECT_EQ(e["n_trials"], 3);
  for (const auto& t : e["trials"]) {
    EXPECT_EQ(t["tokens"], 64);
    EXPECT_EQ(t["items"], 11328);
    // 11451 kernels on the stream lines (stream_kernels of tests/corpus/xla_figures.py, as
    // above) less the 11328 in the decode steps: prefill, broadcasts.
    EXPECT_EQ(t["excluded"]["outside_window"], 123);
  }
  EXPECT_DOUBLE_EQ(e["median_items_per_token"].get<double>(), 177.0);
}

}  // namespace
}  // namespace perfgate::json_trace
