// The CUPTI tracer's trace writer (framework/src/cupti/kineto_writer.h): what it writes
// is read back by the json_trace source and attributed, as `perfgate attribute` and
// the suites read a recorded trial. Captures here are built by hand; the
// record conversion from real CUPTI records is record_dump_test.cc's.
#include "cupti/kineto_writer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "perfgate/attribution/options.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/attribution/work.h"

namespace perfgate::cupti {
namespace {

constexpr uint32_t kPid = 4242;
constexpr uint64_t kBase = 1796173967322666008;  // a CUPTI timestamp of 2026-12-02 (ns)

ApiRecord Launch(const char* name, uint32_t correlation, uint64_t start_ns) {
  ApiRecord a;
  a.name = name;
  a.cupti_name = std::string(name) + "_v7000";
  a.cbid = 211;
  a.start_ns = start_ns;
  a.end_ns = start_ns + 3000;
  a.pid = kPid;
  a.tid = kPid;
  a.correlation = correlation;
  return a;
}

KernelRecord Kernel(const char* name, uint32_t correlation, uint64_t start_ns, uint64_t dur_ns, uint32_t graph = 0) {
  KernelRecord k;
  k.name = name;
  k.start_ns = start_ns;
  k.end_ns = start_ns + dur_ns;
  k.stream = 7;
  k.context = 1;
  k.correlation = correlation;
  k.graph_id = graph;
  k.graph_node_id = graph != 0 ? correlation * 10 : 0;
  return k;
}

RangeRecord Step(uint64_t start_ns, uint64_t end_ns) {
  RangeRecord r;
  r.name = "decode_step";
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.pid = kPid;
  r.tid = kPid;
  return r;
}

// Two decode steps on one thread: the first launches two kernels itself, the second
// replays a CUDA graph of three kernels (one cudaGraphLaunch, its correlation shared).
// A cudaGetDevice query and a kernel launched outside any step complete it.
ProcessCapture TwoSteps() {
  ProcessCapture c;
  c.pid = kPid;
  c.process_name = "python3";
  c.cuda_initialized = true;
  c.tracing = true;
  c.ranges = {Step(kBase, kBase + 100000), Step(kBase + 200000, kBase + 300000)};
  c.api_calls = {Launch("cudaLaunchKernel", 1, kBase + 1000), Launch("cudaLaunchKernel", 2, kBase + 5000),
                 Launch("cudaGraphLaunch", 3, kBase + 201000), Launch("cudaLaunchKernel", 4, kBase + 400000),
                 Launch("cudaGetDevice", 5, kBase + 500)};
  c.kernels = {Kernel("gemm_a", 1, kBase + 9000, 20001), Kernel("softmax_b", 2, kBase + 30000, 1999),
               Kernel("gemm_a", 3, kBase + 209000, 20000, 5), Kernel("softmax_b", 3, kBase + 230000, 2000, 5),
               Kernel("norm_c", 3, kBase + 233000, 1500, 5), Kernel("argmax_d", 4, kBase + 409000, 900)};
  DeviceRecord d;
  d.name = "NVIDIA H200";
  d.compute_major = 9;
  d.multiprocessors = 132;
  c.devices = {d};
  return c;
}

std::string Written(const ProcessCapture& c, const WriteOptions& options = {}) {
  std::ostringstream out;
  EXPECT_TRUE(WriteKinetoTrace(c, out, options));
  return out.str();
}

TEST(MicrosecondsText, IsExactToTheNanosecond) {
  EXPECT_EQ(MicrosecondsText(0), "0.000");
  EXPECT_EQ(MicrosecondsText(999), "0.999");
  EXPECT_EQ(MicrosecondsText(1001), "1.001");
  // 19 digits: a double holding microseconds would lose the last ones.
  EXPECT_EQ(MicrosecondsText(kBase), "1796173967322666.008");
  EXPECT_EQ(MicrosecondsText(UINT64_MAX), "18446744073709551.615");
}

TEST(JsonString, EscapesAndReplacesInvalidUtf8) {
  bool replaced = false;
  EXPECT_EQ(JsonString("a\"b\\c\n\x01", &replaced), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_FALSE(replaced);
  EXPECT_EQ(JsonString("k\xC3\xA9", &replaced), "\"k\xC3\xA9\"");  // é stays
  EXPECT_FALSE(replaced);
  EXPECT_EQ(JsonString("k\xFF" "x", &replaced), "\"k\xEF\xBF\xBDx\"");
  EXPECT_TRUE(replaced);
  replaced = false;
  EXPECT_EQ(JsonString("\xED\xA0\x80", &replaced), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // a surrogate
  EXPECT_TRUE(replaced);
}

TEST(WriteKinetoTrace, TheJsonTraceSourceReadsEveryRecord) {
  auto trace = json_trace::ReadTraceJsonBuffer(Written(TwoSteps()), "trace.json");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  ASSERT_EQ(trace->items.size(), 6u);
  EXPECT_EQ(trace->items[0].name, "gemm_a");
  EXPECT_EQ(trace->items[0].start_ns, static_cast<int64_t>(kBase + 9000));  // exact
  EXPECT_EQ(trace->items[0].duration_ns(), 20001);
  EXPECT_EQ(trace->items[0].stream, 7);
  EXPECT_EQ(trace->items[2].correlation, 3);
  // cudaGetDevice launched nothing: counted, not written.
  ASSERT_EQ(trace->host_calls.size(), 4u);
  EXPECT_EQ(trace->host_calls[2].name, "cudaGraphLaunch");
  EXPECT_EQ(trace->host_calls[2].tid, static_cast<int64_t>(kPid));
  ASSERT_EQ(trace->host_spans.size(), 2u);
  EXPECT_EQ(trace->host_spans[1].name, "decode_step");
  EXPECT_EQ(trace->host_spans[1].tid, static_cast<int64_t>(kPid));
  EXPECT_EQ(trace->process_names.at(kPid), "python3");
  EXPECT_EQ(trace->bad_events, 0);
}

TEST(WriteKinetoTrace, TheTracerSummaryCountsWhatItSawAndWrote) {
  ProcessCapture c = TwoSteps();
  c.dropped_records = 2;
  c.unclosed_ranges = 1;
  c.flushes["exit"] = 1;
  OverheadRecord o;
  o.name = "CUPTI Buffer Flush";
  o.start_ns = kBase;
  o.end_ns = kBase + 1234;
  c.overheads = {o, o};
  const auto j = nlohmann::json::parse(Written(c));
  const auto& t = j.at("perfgate_tracer");
  EXPECT_EQ(t.at("complete"), true);
  EXPECT_EQ(t.at("tracing"), true);
  EXPECT_EQ(t.at("records").at("kernel"), 6);
  EXPECT_EQ(t.at("records").at("runtime"), 5);  // the summarized call is still a record seen
  EXPECT_EQ(t.at("records").at("overhead"), 2);
  EXPECT_EQ(t.at("overhead_ns"), 2468);
  EXPECT_EQ(t.at("dropped_records"), 2);
  EXPECT_EQ(t.at("unclosed_nvtx_ranges"), 1);
  EXPECT_EQ(t.at("api_calls_summarized").at("cudaGetDevice").at("calls"), 1);
  EXPECT_EQ(t.at("api_calls_summarized").at("cudaGetDevice").at("ns"), 3000);
  EXPECT_EQ(j.at("deviceProperties").at(0).at("name"), "NVIDIA H200");
  EXPECT_EQ(j.at("deviceProperties").at(0).at("numSms"), 132);
  size_t overhead_events = 0;
  for (const auto& e : j.at("traceEvents")) overhead_events += e.value("cat", "") == "overhead";
  EXPECT_EQ(overhead_events, 2u);
}

TEST(WriteKinetoTrace, AQueryWithGpuWorkIsWrittenAndAllApiCallsCanBeAsked) {
  ProcessCapture c = TwoSteps();
  c.kernels.push_back(Kernel("odd", 5, kBase + 600, 100));  // correlated with the cudaGetDevice
  auto with_work = json_trace::ReadTraceJsonBuffer(Written(c), "trace.json");
  ASSERT_TRUE(with_work.ok());
  EXPECT_EQ(with_work->host_calls.size(), 5u);
  WriteOptions all;
  all.all_api_calls = true;
  auto every = json_trace::ReadTraceJsonBuffer(Written(TwoSteps(), all), "trace.json");
  ASSERT_TRUE(every.ok());
  EXPECT_EQ(every->host_calls.size(), 5u);
}

TEST(WriteKinetoTrace, NvtxStepsWindowTheDecodeAndCountItsTokens) {
  auto trace = json_trace::ReadTraceJsonBuffer(Written(TwoSteps()), "trace.json");
  ASSERT_TRUE(trace.ok());
  attribution::AttributionOptions o;
  o.window = attribution::DecodeWindow::Label("decode_step");
  o.token_label = "decode_step";
  attribution::WorkExtras extras;
  auto summary = attribution::AttributeWork(*trace, o, &extras);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  // Steps hold 2 kernels and a graph of 3; argmax_d was launched after the last step.
  EXPECT_EQ(summary->tokens, 2);
  EXPECT_EQ(extras.kernels, 5);
  EXPECT_EQ(extras.graph_launches, 1);
  EXPECT_EQ(extras.graph_kernels, 3);
  EXPECT_EQ(extras.kernel_launches, 2);
  EXPECT_EQ(extras.label_source, "user_annotation");
  EXPECT_DOUBLE_EQ(summary->items_per_token, 2.5);
  EXPECT_EQ(summary->total_sum_ns, 20001 + 1999 + 20000 + 2000 + 1500);
}

TEST(WriteKinetoTrace, InvalidUtf8NamesAreReplacedAndCounted) {
  ProcessCapture c = TwoSteps();
  c.kernels[0].name = "bad\xFFname";
  const auto j = nlohmann::json::parse(Written(c));
  EXPECT_EQ(j.at("perfgate_tracer").at("invalid_utf8_names"), 1);
  auto trace = json_trace::ReadTraceJsonBuffer(Written(c), "trace.json");
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->items[0].name, "bad\xEF\xBF\xBDname");
}

TEST(IsSummarizedApiCall, NamesQueriesNotLaunches) {
  EXPECT_TRUE(IsSummarizedApiCall("cudaGetDevice"));
  EXPECT_TRUE(IsSummarizedApiCall("cuGetProcAddress"));
  EXPECT_FALSE(IsSummarizedApiCall("cudaLaunchKernel"));
  EXPECT_FALSE(IsSummarizedApiCall("cudaGraphLaunch"));
  EXPECT_FALSE(IsSummarizedApiCall("cudaMemcpyAsync"));
}

}  // namespace
}  // namespace perfgate::cupti
