// XLA's trace-event dialect (jax.profiler.trace(..., create_perfetto_trace=True)) on
// small hand-written traces: stream lines are GPU work, derived lines are not,
// correlation ids and module executions come from string args, metadata may come
// last, and what attribution does not use never stops a read.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "perfgate/json_trace/reader.h"
#include "perfgate/attribution/work.h"

namespace perfgate::json_trace {
namespace {

// The metadata of the recordings' layout: a device with a compute stream, a copy
// stream and three derived lines, and a host with a Python thread and a PJRT thread.
const char* const kMetadata = R"js(
{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
{"ph": "M", "pid": 1, "name": "process_sort_index", "args": {"sort_index": 1}},
{"ph": "M", "pid": 1, "tid": 14, "name": "thread_name", "args": {"name": "Stream #14(MemcpyD2D,Compute)"}},
{"ph": "M", "pid": 1, "tid": 16, "name": "thread_name", "args": {"name": "Stream #16(MemcpyD2H)"}},
{"ph": "M", "pid": 1, "tid": 20, "name": "thread_name", "args": {"name": "XLA Ops"}},
{"ph": "M", "pid": 1, "tid": 21, "name": "thread_name", "args": {"name": "XLA Modules"}},
{"ph": "M", "pid": 1, "tid": 22, "name": "thread_name", "args": {"name": "Steps"}},
{"ph": "M", "pid": 701, "name": "process_name", "args": {"name": "/host:CPU"}},
{"ph": "M", "pid": 701, "tid": 5, "name": "thread_name", "args": {"name": "python3"}},
{"ph": "M", "pid": 701, "tid": 6, "name": "thread_name", "args": {"name": "pjrt_async_work_runner/1"}})js";

// A kernel on stream 14 of module execution `scope`, launched by correlation `corr`.
std::string Kernel(const char* name, const char* ts, const char* dur, const char* corr, const char* scope) {
  return std::string(R"({"ph": "X", "pid": 1, "tid": 14, "ts": )") + ts + R"(, "dur": )" + dur + R"(, "name": ")" +
         name + R"(", "args": {"correlation_id": ")" + corr +
         R"(", "hlo_module": "jit_decode_step", "hlo_op": "command_buffer_1", "scope_range_id": ")" + scope +
         R"(", "cuda_graph_id": "5", "kernel_details": "regs:30 grid:32,1,1"}})";
}

// Attribution as the recordings' suite does it: every process, tokens and window
// from the host's "decode_step" ranges.
StatusOr<attribution::TrialSummary> SummarizeDecodeSteps(const model::WorkSet& trace, attribution::WorkExtras* extras) {
  attribution::AttributionOptions o;
  o.all_processes = true;
  o.window = attribution::DecodeWindow::Label("decode_step");
  o.token_label = "decode_step";
  return attribution::AttributeWork(trace, o, extras);
}

// Two decode steps of two kernels and a D2H copy each, launched by one cuGraphLaunch
// per step; every kernel repeated on the derived lines, the python tracer's ranges,
// XLA's TraceMe ranges, and the `{}` XLA's writer ends with.
std::string Events() {
  return std::string(R"js(
{"ph": "X", "pid": 701, "tid": 5, "ts": 100.000, "dur": 50.000, "name": "decode_step", "args": {"step_num": "0"}},
{"ph": "X", "pid": 701, "tid": 5, "ts": 101.000, "dur": 40.000, "name": "PjitFunction(decode_step)"},
{"ph": "X", "pid": 701, "tid": 5, "ts": 100.500, "dur": 1.000, "name": "$jax/_src/pjit.py:300 cache_miss"},
{"ph": "X", "pid": 701, "tid": 6, "ts": 105.000, "dur": 3.500, "name": "cuGraphLaunch (CudaGraph:5)",
 "args": {"context_id": "$$1", "correlation_id": "133", "cuda_graph_id": "5", "device_id": "0", "scope_range_id": "281474976710791"}},
)js") + Kernel("input_reduce_fusion_73", "110.125", "2.944", "133", "281474976710791") + ",\n" +
         Kernel("gemm_fusion_dot_89", "113.000", "20.000", "133", "281474976710791") + R"js(,
{"ph": "X", "pid": 1, "tid": 16, "ts": 134.000, "dur": 1.000, "name": "MemcpyD2H",
 "args": {"context_id": "$$1", "correlation_id": "134", "memcpy_details": "kind_src:device size:4"}},
{"ph": "X", "pid": 701, "tid": 6, "ts": 133.000, "dur": 4.000, "name": "MemcpyD2H", "args": {"correlation_id": "134", "device_id": "0"}},
{"ph": "X", "pid": 1, "tid": 20, "ts": 110.125, "dur": 2.944, "name": "input_reduce_fusion_73", "args": {"correlation_id": "not a number"}},
{"ph": "X", "pid": 1, "tid": 20, "ts": 113.000, "dur": 20.000, "name": "gemm_fusion_dot_89"},
{"ph": "X", "pid": 1, "tid": 21, "ts": 110.125, "dur": 22.875, "name": "jit_decode_step"},
{"ph": "X", "pid": 1, "tid": 22, "ts": 110.125, "dur": 22.875, "name": "0"},
{"ph": "X", "pid": 701, "tid": 5, "ts": 200.000, "dur": 50.000, "name": "decode_step", "args": {"step_num": "1"}},
{"ph": "X", "pid": 701, "tid": 6, "ts": 205.000, "dur": 3.000, "name": "cuGraphLaunch (CudaGraph:5)", "args": {"correlation_id": "140"}},
)js" + Kernel("input_reduce_fusion_73", "210.000", "3.000", "140", "281474976710800") + ",\n" +
         Kernel("gemm_fusion_dot_89", "213.5", "19.5", "140", "281474976710800") + ",\n{}";
}

std::string Trace(bool metadata_last) {
  const std::string events = Events();
  return std::string(R"({"displayTimeUnit": "ns", "traceEvents": [)") +
         (metadata_last ? events + "," + kMetadata : std::string(kMetadata) + "," + events) + "]}";
}

TEST(XlaTrace, StreamLinesAreGpuWorkAndDerivedLinesAreNot) {
  auto t = ReadTraceJsonBuffer(Trace(/*metadata_last=*/true), "xla.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  // 4 kernels and the copy, from the stream lines only (the XLA Ops line repeats them).
  ASSERT_EQ(t->items.size(), 5u);
  const model::WorkItem& k = t->items[0];
  EXPECT_EQ(k.kind, model::WorkKind::kKernel);
  EXPECT_EQ(k.name, "input_reduce_fusion_73");
  EXPECT_EQ(k.start_ns, 110'125);
  EXPECT_EQ(k.end_ns, 113'069);
  EXPECT_EQ(k.pid, 1);
  EXPECT_EQ(k.tid, 14);
  EXPECT_EQ(k.device, 0);   // "/device:GPU:0"
  EXPECT_EQ(k.stream, 14);  // "Stream #14(...)"
  EXPECT_EQ(k.correlation, 133);
  EXPECT_EQ(t->items[2].kind, model::WorkKind::kMemcpy);
  EXPECT_EQ(t->items[2].stream, 16);
  EXPECT_EQ(t->items[2].correlation, 134);
  EXPECT_EQ(t->items[4].start_ns, 213'500);

  // Host events with a correlation id are the launch calls (driver API).
  ASSERT_EQ(t->host_calls.size(), 3u);
  EXPECT_EQ(t->host_calls[0].name, "cuGraphLaunch (CudaGraph:5)");
  EXPECT_EQ(t->host_calls[0].correlation, 133);
  EXPECT_EQ(t->host_calls[0].tid, 6);
  EXPECT_TRUE(t->host_calls[0].driver);
  EXPECT_EQ(t->host_calls[1].name, "MemcpyD2H");

  // Other host ranges are annotations; the python tracer's `$...` ranges are not.
  ASSERT_EQ(t->host_spans.size(), 3u);
  EXPECT_EQ(t->host_spans[0].name, "decode_step");
  EXPECT_EQ(t->host_spans[1].name, "PjitFunction(decode_step)");
  EXPECT_EQ(t->host_spans[2].name, "decode_step");
  EXPECT_EQ(t->host_spans[2].start_ns, 200'000);

  // One range per module execution on its stream, spanning its work.
  ASSERT_EQ(t->gpu_spans.size(), 2u);
  EXPECT_EQ(t->gpu_spans[0].name, "jit_decode_step");
  EXPECT_EQ(t->gpu_spans[0].external_id, 281474976710791);
  EXPECT_EQ(t->gpu_spans[0].start_ns, 110'125);
  EXPECT_EQ(t->gpu_spans[0].end_ns, 133'000);
  EXPECT_EQ(t->gpu_spans[0].pid, 1);
  EXPECT_EQ(t->gpu_spans[0].tid, 14);
  EXPECT_EQ(t->gpu_spans[1].external_id, 281474976710800);
  EXPECT_EQ(t->gpu_spans[1].start_ns, 210'000);
  EXPECT_EQ(t->gpu_spans[1].end_ns, 233'000);

  // Counted, never silently dropped: 4 derived-line events; the python range, the
  // sort index and `{}` skipped. The non-decimal correlation_id is on a derived line,
  // which uses none of its args: no error.
  EXPECT_EQ(t->diagnostics.Count("json.xla_derived_line"), 4);
  EXPECT_EQ(t->diagnostics.Count("json.skipped_event"), 3);
  EXPECT_EQ(t->diagnostics.Count("json.unknown_category"), 0);
  EXPECT_EQ(t->diagnostics.Count("json.missing_correlation"), 0);
  EXPECT_EQ(t->diagnostics.ErrorCount(), 0);
  for (const auto& e : t->diagnostics.Entries()) {
    if (e.code == "json.xla_derived_line") {
      EXPECT_EQ(e.first_detail, R"("XLA Ops" of "/device:GPU:0" ("input_reduce_fusion_73"))");
    }
  }
  EXPECT_EQ(t->event_kinds.at("X/xla:stream"), 5);
  EXPECT_EQ(t->event_kinds.at("X/xla:other_line"), 4);
  EXPECT_EQ(t->event_kinds.at("X/xla:host_call"), 3);
  EXPECT_EQ(t->event_kinds.at("X/xla:host_range"), 3);
  EXPECT_EQ(t->event_kinds.at("X/xla:python"), 1);
  EXPECT_EQ(t->event_kinds.at("{}"), 1);
  EXPECT_EQ(t->events, 10 + 17);  // metadata + events, `{}` included
}

TEST(XlaTrace, MetadataOrderDoesNotMatter) {
  auto last = ReadTraceJsonBuffer(Trace(true), "a.json");
  auto first = ReadTraceJsonBuffer(Trace(false), "b.json");
  ASSERT_TRUE(last.ok() && first.ok());
  ASSERT_EQ(last->items.size(), first->items.size());
  for (size_t i = 0; i < last->items.size(); ++i) {
    EXPECT_EQ(last->items[i].name, first->items[i].name);
    EXPECT_EQ(last->items[i].start_ns, first->items[i].start_ns);
    EXPECT_EQ(last->items[i].stream, first->items[i].stream);
  }
  EXPECT_EQ(last->host_calls.size(), first->host_calls.size());
  EXPECT_EQ(last->gpu_spans.size(), first->gpu_spans.size());
  EXPECT_EQ(last->event_kinds, first->event_kinds);
}

TEST(XlaTrace, AttributionCountsKernelsOncePerTokenWithModulesAsPhases) {
  auto t = ReadTraceJsonBuffer(Trace(true), "xla.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  attribution::WorkExtras x;
  auto s = SummarizeDecodeSteps(*t, &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tokens, 2);
  EXPECT_EQ(s->items, 4);  // not 8: the XLA Ops line is no GPU work
  EXPECT_DOUBLE_EQ(s->items_per_token, 2.0);
  EXPECT_EQ(x.graph_launches, 2);
  EXPECT_DOUBLE_EQ(x.graph_launches_per_token, 1.0);
  EXPECT_EQ(x.memcpys, 1);
  // The phase is the module (the synthesised gpu_user_annotation), with no trial change.
  ASSERT_EQ(s->phases.size(), 1u);
  EXPECT_EQ(s->phases.begin()->first, "jit_decode_step");
  EXPECT_EQ(s->phases.begin()->second.items, 4);
  EXPECT_EQ(s->phases.begin()->second.gpu_sum_ns, 2'944 + 20'000 + 3'000 + 19'500);
  EXPECT_EQ(s->kernels.at("gemm_fusion_dot_89").items, 2);
  EXPECT_EQ(s->kernels.at("gemm_fusion_dot_89").gpu_sum_ns, 39'500);
}

// A kernel on a stream line uses correlation_id, hlo_module and scope_range_id: a
// wrong one is an error at its key in strict mode, a dropped event in lenient mode.
TEST(XlaTrace, AMalformedIdOnAStreamKernelIsAnError) {
  std::string trace = Trace(true);
  const std::string good = R"("correlation_id": "140", "hlo_module")";
  const size_t at = trace.find(good);
  ASSERT_NE(at, std::string::npos);
  trace.replace(at, good.size(), R"("correlation_id": "0x8c", "hlo_module")");
  auto strict = ReadTraceJsonBuffer(trace, "xla.json");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), "json.bad_event");
  const std::string before = trace.substr(0, at);
  const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  const int col = static_cast<int>(at - before.rfind('\n'));
  EXPECT_EQ(strict.status().ToString(),
            "xla.json:" + std::to_string(line) + ":" + std::to_string(col) +
                ": error[json.bad_event]: \"args.correlation_id\" is \"0x8c\"; expected a decimal integer (in "
                "/traceEvents/14, a \"X\" event named \"input_reduce_fusion_73\")");

  ReadOptions lenient;
  lenient.mode = ReadMode::kLenient;
  auto t = ReadTraceJsonBuffer(trace, "xla.json", lenient);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->items.size(), 4u);
  EXPECT_EQ(t->bad_events, 1);
  EXPECT_EQ(t->diagnostics.Count("json.bad_event"), 1);

  // scope_range_id and hlo_module too; the same scope_range_id on a host call is unused.
  std::string scope = Trace(true);
  const std::string id = R"("scope_range_id": "281474976710800")";
  scope.replace(scope.find(id), id.size(), R"("scope_range_id": "-5")");
  EXPECT_EQ(ReadTraceJsonBuffer(scope, "xla.json").status().code(), "json.bad_event");
  std::string module = Trace(true);
  const std::string m = R"("hlo_module": "jit_decode_step")";
  module.replace(module.find(m), m.size(), R"("hlo_module": 7)");
  EXPECT_EQ(ReadTraceJsonBuffer(module, "xla.json").status().code(), "json.bad_event");
  std::string host = Trace(true);
  const std::string h = R"("device_id": "0", "scope_range_id": "281474976710791")";
  host.replace(host.find(h), h.size(), R"("device_id": "0", "scope_range_id": "?")");
  auto ok = ReadTraceJsonBuffer(host, "xla.json");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->host_calls.size(), 3u);
  // A host call uses its correlation id.
  std::string call = Trace(true);
  const std::string c = R"("correlation_id": "134", "device_id")";
  call.replace(call.find(c), c.size(), R"("correlation_id": "", "device_id")");
  EXPECT_EQ(ReadTraceJsonBuffer(call, "xla.json").status().code(), "json.bad_event");
}

// Without command buffers XLA launches each kernel itself, and names the launch's host
// event after the kernel: it becomes a kernel launch, "cuLaunchKernel (<kernel>)".
TEST(XlaTrace, HostCallsNamedAfterTheirKernelAreKernelLaunches) {
  const std::string trace = std::string(R"js({"traceEvents": [)js") + kMetadata + R"js(,
{"ph": "X", "pid": 701, "tid": 5, "ts": 0, "dur": 100, "name": "decode_step", "args": {"step_num": "0"}},
{"ph": "X", "pid": 701, "tid": 6, "ts": 1, "dur": 2, "name": "wrapped_broadcast", "args": {"correlation_id": "9"}},
{"ph": "X", "pid": 701, "tid": 6, "ts": 4, "dur": 2, "name": "loop_add_fusion", "args": {"correlation_id": "10"}},
{"ph": "X", "pid": 701, "tid": 6, "ts": 7, "dur": 2, "name": "MemcpyD2H", "args": {"correlation_id": "11"}},
{"ph": "X", "pid": 1, "tid": 14, "ts": 10, "dur": 1, "name": "wrapped_broadcast", "args": {"correlation_id": "9"}},
{"ph": "X", "pid": 1, "tid": 14, "ts": 12, "dur": 1, "name": "loop_add_fusion", "args": {"correlation_id": "10"}},
{"ph": "X", "pid": 1, "tid": 16, "ts": 14, "dur": 1, "name": "MemcpyD2H", "args": {"correlation_id": "11"}}]})js";
  auto t = ReadTraceJsonBuffer(trace, "xla.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->host_calls.size(), 3u);
  EXPECT_EQ(t->host_calls[0].name, "cuLaunchKernel (wrapped_broadcast)");
  EXPECT_EQ(t->host_calls[1].name, "cuLaunchKernel (loop_add_fusion)");
  EXPECT_EQ(t->host_calls[2].name, "MemcpyD2H");  // a copy, not a kernel
  attribution::WorkExtras x;
  auto s = SummarizeDecodeSteps(*t, &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(x.kernel_launches, 2);
  EXPECT_EQ(x.graph_launches, 0);
  EXPECT_DOUBLE_EQ(x.launches_per_token, 2.0);
}

// Without process names nothing says an event is XLA's: cat-less events stay events
// of unknown category, as in any other trace.
TEST(XlaTrace, WithoutProcessNamesEventsAreOfUnknownCategory) {
  auto t = ReadTraceJsonBuffer("{\"traceEvents\": [" + Events() + "]}", "xla.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->items.empty());
  EXPECT_TRUE(t->host_calls.empty());
  EXPECT_EQ(t->diagnostics.Count("json.unknown_category"), 16);
  EXPECT_EQ(t->event_kinds.at("X/"), 16);
}

// A device that is no GPU ("/device:TPU:0") holds no GPU work; a stream kernel
// without correlation_id is kept and counted.
TEST(XlaTrace, OnlyNumberedStreamsOfGpuDevicesHoldGpuWork) {
  const std::string trace = R"js({"traceEvents": [
{"ph": "M", "pid": 2, "name": "process_name", "args": {"name": "/device:TPU:0"}},
{"ph": "M", "pid": 2, "tid": 1, "name": "thread_name", "args": {"name": "Stream #1"}},
{"ph": "M", "pid": 3, "name": "process_name", "args": {"name": "/device:GPU:3"}},
{"ph": "M", "pid": 3, "tid": 2, "name": "thread_name", "args": {"name": "Stream #7(Compute)"}},
{"ph": "X", "pid": 2, "tid": 1, "ts": 1, "dur": 1, "name": "tpu_op"},
{"ph": "X", "pid": 3, "tid": 2, "ts": 1, "dur": 1, "name": "Memset"},
{"ph": "X", "pid": 3, "tid": 2, "ts": 2, "dur": 1, "name": "k2"}]})js";
  auto t = ReadTraceJsonBuffer(trace, "xla.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->items.size(), 2u);
  EXPECT_EQ(t->items[0].kind, model::WorkKind::kMemset);
  EXPECT_EQ(t->items[1].device, 3);
  EXPECT_EQ(t->items[1].stream, 7);
  EXPECT_EQ(t->diagnostics.Count("json.xla_derived_line"), 1);
  EXPECT_EQ(t->diagnostics.Count("json.missing_correlation"), 2);
  EXPECT_TRUE(t->gpu_spans.empty());  // no module execution named
}

// Every derived line XLA's profiler writes on a GPU (xprof's line names) is skipped.
TEST(XlaTrace, EveryKnownDerivedLineIsSkipped) {
  const char* const lines[] = {"Steps", "XLA Modules", "XLA Ops", "Async XLA Ops", "XLA TraceMe", "Framework Ops",
                               "Framework Name Scope", "TensorFlow Ops", "TensorFlow Name Scope", "Launch Stats",
                               "Source code", "Host Offload Ops", "_counters_", "Sparse Core Steps",
                               "Sparse Core Modules", "Sparse Core Ops", "Sparse Core Syncs", "Tensor Core Sync Flag"};
  std::string trace = R"({"traceEvents": [)"
                      R"({"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}})";
  int tid = 0;
  for (const char* line : lines) {
    ++tid;
    trace += ",\n{\"ph\": \"M\", \"pid\": 1, \"tid\": " + std::to_string(tid) +
             ", \"name\": \"thread_name\", \"args\": {\"name\": \"" + line + "\"}}";
    trace += ",\n{\"ph\": \"X\", \"pid\": 1, \"tid\": " + std::to_string(tid) +
             ", \"ts\": 1, \"dur\": 1, \"name\": \"k\", \"args\": {\"correlation_id\": \"9\"}}";
  }
  auto t = ReadTraceJsonBuffer(trace + "]}", "xla.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->items.empty());
  EXPECT_EQ(t->diagnostics.Count("json.xla_derived_line"), tid);
  EXPECT_EQ(t->diagnostics.ErrorCount(), 0);
}

// A GPU event on a line that is neither a stream nor a derived line may be GPU work
// whose stream is unknown (here a 500 µs kernel whose correlation_id matches a launch
// call): an error at the event in strict mode, a dropped and counted event in lenient
// mode, never a silent drop. Both an unnamed thread and an unknown line name.
TEST(XlaTrace, AGpuEventOffTheStreamAndDerivedLinesIsABadEvent) {
  struct Case {
    const char* thread_metadata;
    const char* error;
  };
  const Case cases[] = {
      {"", "xla.json:5:1: error[json.bad_event]: \"big_kernel\" is on \"tid 9\" of \"/device:GPU:0\" (no "
           "thread_name), neither a stream (\"Stream #N...\") nor a line derived from them (XLA Ops, XLA Modules, "
           "Steps, ...): its GPU work cannot be placed"},
      {R"({"ph": "M", "pid": 1, "tid": 9, "name": "thread_name", "args": {"name": "Stream #x"}},)",
       "xla.json:5:1: error[json.bad_event]: \"big_kernel\" is on \"Stream #x\" of \"/device:GPU:0\", neither a "
       "stream (\"Stream #N...\") nor a line derived from them (XLA Ops, XLA Modules, Steps, ...): its GPU work "
       "cannot be placed"},
      {R"({"ph": "M", "pid": 1, "tid": 9, "name": "thread_name", "args": {"name": "XLA Kernels"}},)",
       "xla.json:5:1: error[json.bad_event]: \"big_kernel\" is on \"XLA Kernels\" of \"/device:GPU:0\", neither a "
       "stream (\"Stream #N...\") nor a line derived from them (XLA Ops, XLA Modules, Steps, ...): its GPU work "
       "cannot be placed"},
  };
  for (const Case& c : cases) {
    const std::string trace = std::string(R"js({"traceEvents": [
{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:0"}},
{"ph": "M", "pid": 701, "name": "process_name", "args": {"name": "/host:CPU"}},
{"ph": "X", "pid": 701, "tid": 6, "ts": 1, "dur": 2, "name": "big_kernel", "args": {"correlation_id": "77"}},
{"ph": "X", "pid": 1, "tid": 9, "ts": 10, "dur": 500, "name": "big_kernel", "args": {"correlation_id": "77"}},
)js") + c.thread_metadata + R"js(
{"ph": "M", "pid": 1, "tid": 14, "name": "thread_name", "args": {"name": "Stream #14"}},
{"ph": "X", "pid": 1, "tid": 14, "ts": 600, "dur": 1, "name": "small", "args": {"correlation_id": "78"}}]})js";
    auto strict = ReadTraceJsonBuffer(trace, "xla.json");
    ASSERT_FALSE(strict.ok()) << c.error;
    EXPECT_EQ(strict.status().ToString(), c.error);

    ReadOptions lenient;
    lenient.mode = ReadMode::kLenient;
    auto t = ReadTraceJsonBuffer(trace, "xla.json", lenient);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ASSERT_EQ(t->items.size(), 1u);
    EXPECT_EQ(t->items[0].name, "small");
    EXPECT_EQ(t->bad_events, 1);
    EXPECT_EQ(t->diagnostics.Count("json.bad_event"), 1);
    EXPECT_EQ(t->diagnostics.Count("json.xla_derived_line"), 0);
    EXPECT_EQ(t->diagnostics.ErrorCount(), 1);
  }
}

}  // namespace
}  // namespace perfgate::json_trace
