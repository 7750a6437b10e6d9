// The trace-event JSON reader: the Kineto layout, exact times, gzip, sniffing, and
// every error path with its exact `path:line:col` message.
#include "perfgate/json_trace/reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "sources/trace_json/json_trace_internal.h"
#include "perfgate/core/input_limits.h"
#include "kineto_gen.h"
#include "support/corpus.h"

namespace perfgate::json_trace {
namespace {

namespace fs = std::filesystem;

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  fs::path p = fs::path(::testing::TempDir()) / "json_trace_reader_test";
  fs::create_directories(p);
  p /= name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p.string();
}

// A small trace with one of everything the reader keeps or skips.
std::string SmallTrace() {
  gen::KinetoWriter w;
  w.ProcessName(4242, "python3");
  w.ThreadName(4242, 4242, "thread 4242 (python3)");
  w.ProcessName(0, "GPU 0");
  w.ThreadName(0, 7, "stream 7");
  w.SortIndex(0, 5000000);
  w.Annotation("decode_step", false, 4242, 4242, 100'000, 50'000, 11);
  w.CpuOp("aten::add", 4242, 4242, 101'000, 9'000, 12);
  w.Runtime("cudaLaunchKernel", 4242, 4242, 102'000, 5'000, 1, 12);
  w.Flow(1, 4242, 4242, 102'000, 0, 7, 120'000);
  w.Kernel("void at::native::vectorized_elementwise_kernel<4>(int)", 0, 7, 120'000, 1'500, 1, 12);
  w.Runtime("cudaMemcpyAsync", 4242, 4242, 108'000, 3'000, 2);
  w.Memcpy("Memcpy DtoH (Device -> Pinned)", 0, 7, 125'000, 2'250, 2);
  w.Memset("Memset (Device)", 0, 7, 130'000, 750, 3);
  w.Annotation("decode_step", true, 0, 7, 119'999, 11'002, 11);
  w.PythonFunction("model.py(12): forward", 4242, 4242, 100'000, 40'000);
  w.Raw(R"js({"ph": "X", "cat": "Trace", "ts": 1.000, "dur": 2.000, "pid": "Spans", "tid": "PyTorch Profiler (0)", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})js");
  w.Raw(R"({"ph": "X", "cat": "mystery", "ts": 1, "dur": 2, "pid": 1, "tid": 1, "name": "m"})");
  w.Raw(R"({"ph": "Z", "ts": 1, "pid": 1, "tid": 1, "name": "z"})");
  return w.Finish();
}

TEST(JsonTraceReader, ReadsTheKinetoLayout) {
  const std::string bytes = SmallTrace();
  auto t = ReadTraceJsonBuffer(bytes, "small.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->path, "small.json");
  ASSERT_EQ(t->items.size(), 3u);
  const model::WorkItem& k = t->items[0];
  EXPECT_EQ(k.kind, model::WorkKind::kKernel);
  EXPECT_EQ(k.name, "void at::native::vectorized_elementwise_kernel<4>(int)");
  EXPECT_EQ(k.start_ns, 120'000);
  EXPECT_EQ(k.end_ns, 121'500);
  EXPECT_EQ(k.duration_ns(), 1'500);
  EXPECT_EQ(k.pid, 0);
  EXPECT_EQ(k.tid, 7);
  EXPECT_EQ(k.device, 0);
  EXPECT_EQ(k.stream, 7);
  EXPECT_EQ(k.correlation, 1);
  EXPECT_EQ(t->items[1].kind, model::WorkKind::kMemcpy);
  EXPECT_EQ(t->items[1].name, "Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(t->items[1].duration_ns(), 2'250);
  EXPECT_EQ(t->items[2].kind, model::WorkKind::kMemset);
  EXPECT_EQ(t->items[2].duration_ns(), 750);
  EXPECT_EQ(model::WorkKindName(t->items[2].kind), "memset");

  ASSERT_EQ(t->host_calls.size(), 2u);
  EXPECT_EQ(t->host_calls[0].name, "cudaLaunchKernel");
  EXPECT_EQ(t->host_calls[0].pid, 4242);
  EXPECT_EQ(t->host_calls[0].tid, 4242);
  EXPECT_EQ(t->host_calls[0].start_ns, 102'000);
  EXPECT_EQ(t->host_calls[0].end_ns, 107'000);
  EXPECT_EQ(t->host_calls[0].correlation, 1);
  EXPECT_FALSE(t->host_calls[0].driver);

  ASSERT_EQ(t->host_spans.size(), 1u);
  EXPECT_EQ(t->host_spans[0].name, "decode_step");
  EXPECT_EQ(t->host_spans[0].external_id, 11);
  ASSERT_EQ(t->gpu_spans.size(), 1u);
  EXPECT_EQ(t->gpu_spans[0].start_ns, 119'999);
  EXPECT_EQ(t->gpu_spans[0].end_ns, 131'001);
  EXPECT_EQ(t->gpu_spans[0].pid, 0);
  EXPECT_EQ(t->gpu_spans[0].tid, 7);

  EXPECT_EQ(t->process_names, (std::map<int64_t, std::string>{{0, "GPU 0"}, {4242, "python3"}}));
  EXPECT_EQ(t->thread_names.at({4242, 4242}), "thread 4242 (python3)");
  EXPECT_EQ(t->thread_names.at({0, 7}), "stream 7");

  // String pids and tids get synthetic ids: "Spans", "PyTorch Profiler (0)", "".
  ASSERT_EQ(t->string_ids.size(), 3u);
  EXPECT_EQ(t->string_ids.at(model::kStringIdBase), "Spans");
  EXPECT_EQ(t->string_ids.at(model::kStringIdBase - 1), "PyTorch Profiler (0)");
  EXPECT_EQ(t->string_ids.at(model::kStringIdBase - 2), "");

  EXPECT_EQ(t->events, 20);
  EXPECT_EQ(t->bad_events, 0);
  const std::map<std::string, int64_t> kinds = {
      {"M/process_name", 2}, {"M/thread_name", 2}, {"M/process_sort_index", 1}, {"X/user_annotation", 1},
      {"X/cpu_op", 1},       {"X/cuda_runtime", 2}, {"s/ac2g", 1},             {"f/ac2g", 1},
      {"X/kernel", 1},       {"X/gpu_memcpy", 1},  {"X/gpu_memset", 1},        {"X/gpu_user_annotation", 1},
      {"X/python_function", 1}, {"X/Trace", 1},    {"X/mystery", 1},           {"Z/", 1},
      {"i/", 1}};
  EXPECT_EQ(t->event_kinds, kinds);
  // Skipped: sort index, cpu_op, 2 flows, python_function, Trace, the instant event.
  EXPECT_EQ(t->diagnostics.Count("json.skipped_event"), 7);
  EXPECT_EQ(t->diagnostics.Count("json.unknown_category"), 1);
  EXPECT_EQ(t->diagnostics.Count("json.unknown_phase"), 1);
  EXPECT_EQ(t->diagnostics.Count("json.missing_correlation"), 0);
  EXPECT_EQ(t->diagnostics.ErrorCount(), 0);
  for (const auto& e : t->diagnostics.Entries()) {
    if (e.code == "json.unknown_category") {
      EXPECT_EQ(e.first_detail, "X/mystery");
      EXPECT_EQ(e.first_location.path, "small.json");
      const size_t at = bytes.find(R"({"ph": "X", "cat": "mystery")");
      EXPECT_EQ(e.first_location.line, 1 + std::count(bytes.begin(), bytes.begin() + static_cast<long>(at), '\n'));
      EXPECT_EQ(e.first_location.column, 1);
    }
  }
}

TEST(JsonTraceReader, MicrosecondsBecomeExactNanosecondsRoundedToNearest) {
  const std::string trace = R"({"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 345.0005, "dur": 1.5, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 545.0004, "dur": 0.0015, "args": {"correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "c", "pid": 0, "tid": 7, "ts": 1697128112345678.123, "dur": 2, "args": {"correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "d", "pid": 0, "tid": 7, "ts": 1.5e3, "dur": 25E-4, "args": {"correlation": 4}},
{"ph": "X", "cat": "kernel", "name": "e", "pid": 0, "tid": 7, "ts": -2.0004, "dur": 0, "args": {"correlation": 5}}
]})";
  auto t = ReadTraceJsonBuffer(trace, "t.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->items.size(), 5u);
  EXPECT_EQ(t->items[0].start_ns, 345'001);  // 345000.5 ns rounds up
  EXPECT_EQ(t->items[0].duration_ns(), 1'500);
  EXPECT_EQ(t->items[1].start_ns, 545'000);  // 545000.4 ns rounds down
  EXPECT_EQ(t->items[1].duration_ns(), 2);   // 1.5 ns rounds up
  // A double would give ...678.125 µs; the text gives the exact value.
  EXPECT_EQ(t->items[2].start_ns, 1'697'128'112'345'678'123);
  EXPECT_EQ(t->items[3].start_ns, 1'500'000);
  EXPECT_EQ(t->items[3].duration_ns(), 3);  // 2.5 ns, half away from zero
  EXPECT_EQ(t->items[4].start_ns, -2'000);
  EXPECT_EQ(t->items[4].duration_ns(), 0);
}

TEST(JsonTraceReader, MicrosTextToNanos) {
  struct Case {
    const char* text;
    bool ok;
    int64_t ns;
  };
  const Case cases[] = {
      {"0", true, 0},
      {"1", true, 1'000},
      {"1.5", true, 1'500},
      {"0.0005", true, 1},
      {"0.0004", true, 0},
      {"0.00049999", true, 0},
      {"-0.0005", true, -1},
      {"-0.0004", true, 0},
      {"1234567890123.456", true, 1'234'567'890'123'456},
      {"1697128112345678.123", true, 1'697'128'112'345'678'123},
      {"1.5e3", true, 1'500'000},
      {"1.5E-3", true, 2},
      {"15e-4", true, 2},
      {"1e-4", true, 0},
      {"5e-4", true, 1},
      {"1e-400", true, 0},
      {"0e999999999", true, 0},
      {"0.000000000000000000000000000000001", true, 0},
      {"9223372036854775.807", true, INT64_MAX},
      {"9223372036854775.8074", true, INT64_MAX},
      {"9223372036854775.8075", false, 0},
      {"9223372036854775.808", false, 0},
      {"-9223372036854775.807", true, -INT64_MAX},
      {"1e16", false, 0},
      {"1e400", false, 0},
      {"123456789012345678901234567890", false, 0},
      {"", false, 0},
      {"-", false, 0},
  };
  for (const Case& c : cases) {
    int64_t ns = -42;
    EXPECT_EQ(detail::MicrosTextToNanos(c.text, &ns), c.ok) << c.text;
    if (c.ok) {
      EXPECT_EQ(ns, c.ns) << c.text;
    }
  }
  int64_t ns = 0;
  EXPECT_TRUE(detail::MicrosIntegerToNanos(false, 9'223'372'036'854'775, &ns));
  EXPECT_EQ(ns, 9'223'372'036'854'775'000);
  EXPECT_FALSE(detail::MicrosIntegerToNanos(false, 9'223'372'036'854'776, &ns));
  EXPECT_TRUE(detail::MicrosIntegerToNanos(true, 3, &ns));
  EXPECT_EQ(ns, -3'000);
}

TEST(JsonTraceReader, AcceptsABareArrayOfEvents) {
  auto t = ReadTraceJsonBuffer(
      R"([{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2, "args": {"correlation": 9, "device": 1, "stream": 13}}])",
      "bare.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->items.size(), 1u);
  EXPECT_EQ(t->items[0].device, 1);  // args win over pid and tid
  EXPECT_EQ(t->items[0].stream, 13);
  EXPECT_EQ(t->items[0].pid, 0);
  EXPECT_EQ(t->items[0].tid, 7);
}

TEST(JsonTraceReader, KeepsOnlyWhatItNeedsAndSkipsTheRest) {
  // Unknown top-level keys of every type, nested args, keys in any order, a key
  // with an escape (a kept key given twice is an error: see BadInputIs...), capitalised
  // categories of the first Kineto releases, a driver call and a decimal-string pid.
  const std::string trace = R"js({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "H100", "nested": [[[{}]]]}],
"distributedInfo": {"backend": "nccl", "rank": 0}, "flag": true, "nothing": null, "pi": 3.14,
"traceEvents": [
{"args": {"correlation": 5, "grid": [1, 2, 3], "deep": {"a": [{"b": {"c": [1, 2]}}]}}, "name": "late_keys", "dur": 2, "ts": 1, "tid": 7, "pid": 0, "cat": "Kernel", "ph": "X"},
{"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": "4242", "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 5, "cbid": 211}},
{"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 4242, "tid": 1, "ts": 3, "dur": 1, "args": {"correlation": 6}},
{"ph": "X", "cat": "kernel", "na\u006De": "escaped_key", "pid": 0, "tid": 7, "ts": 6, "dur": 1, "args": {"correlation": 7}},
{"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 9, "dur": 1},
{"ph": "X", "cat": "kernel", "pid": 0, "tid": 7, "ts": 10, "dur": 1, "args": {"correlation": 8}},
{"ph": "M", "pid": 3, "args": {"name": "no event name"}}
], "traceName": "x"})js";
  auto t = ReadTraceJsonBuffer(trace, "t.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->items.size(), 4u);
  EXPECT_EQ(t->items[0].name, "late_keys");
  EXPECT_EQ(t->items[3].name, "");  // no "name": not the previous event's
  EXPECT_TRUE(t->process_names.empty());
  EXPECT_EQ(t->event_kinds.at("M/"), 1);
  EXPECT_EQ(t->items[0].correlation, 5);
  EXPECT_EQ(t->items[1].name, "escaped_key");
  EXPECT_EQ(t->items[1].start_ns, 6'000);
  EXPECT_EQ(t->items[1].correlation, 7);
  EXPECT_EQ(t->items[2].kind, model::WorkKind::kMemcpy);
  EXPECT_FALSE(t->items[2].correlation.has_value());
  EXPECT_EQ(t->diagnostics.Count("json.missing_correlation"), 1);
  ASSERT_EQ(t->host_calls.size(), 2u);
  EXPECT_EQ(t->host_calls[0].pid, 4242);
  EXPECT_FALSE(t->host_calls[0].driver);
  EXPECT_TRUE(t->host_calls[1].driver);
  EXPECT_TRUE(t->string_ids.empty());
}

TEST(JsonTraceReader, ReadsGzipFilesByTheirMagicBytes) {
  const std::string plain = SmallTrace();
  const std::string path = WriteTemp("small.pt.trace.json.gz", gen::Gzip(plain));
  auto t = ReadTraceJsonFile(path);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->path, path);
  EXPECT_EQ(t->items.size(), 3u);
  EXPECT_EQ(t->events, 20);

  const std::string gz = gen::Gzip(plain);
  const std::string cut = WriteTemp("cut.json.gz", gz.substr(0, gz.size() / 2));
  auto bad = ReadTraceJsonFile(cut);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), "io.bad_gzip");

  auto missing = ReadTraceJsonFile(WriteTemp("exists.json", "") + ".nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), "io.not_found");
}

TEST(JsonTraceReader, SniffsTraceJson) {
  EXPECT_TRUE(LooksLikeTraceJsonBuffer(SmallTrace()));
  EXPECT_TRUE(LooksLikeTraceJsonBuffer("\xEF\xBB\xBF  [{\"ph\" : \"X\"}]"));
  EXPECT_TRUE(LooksLikeTraceJsonBuffer("{\n\"traceEvents\"\n:\n[]}"));
  EXPECT_FALSE(LooksLikeTraceJsonBuffer("<?xml version=\"1.0\"?><trace-query-result>"));
  EXPECT_FALSE(LooksLikeTraceJsonBuffer("{\"rules\": [{\"prefix\": \"ph\"}]}"));  // "ph" as a value
  EXPECT_FALSE(LooksLikeTraceJsonBuffer("{\"traceEvents\" \"x\"}"));
  EXPECT_FALSE(LooksLikeTraceJsonBuffer(""));
  EXPECT_FALSE(LooksLikeTraceJsonBuffer("   "));
  // A key after a long first value is found (the sniff once looked at 64 KiB only).
  EXPECT_TRUE(LooksLikeTraceJsonBuffer("{\"pad\": \"" + std::string(70'000, 'x') + "\", \"traceEvents\": []}"));
  // Inside a string, escaped quotes do not make a key.
  EXPECT_FALSE(LooksLikeTraceJsonBuffer("{\"note\": \"\\\"ph\\\": 1\"}"));
  EXPECT_FALSE(LooksLikeTraceJsonBuffer("\xEF\xBB{\"ph\": 1}"));  // a broken BOM
  // The same through files, plain and gzip: the key is 200 KB in, past several chunks.
  const std::string late = "{\"pad\": \"" + std::string(200'000, 'x') + "\", \"traceEvents\": []}";
  EXPECT_TRUE(LooksLikeTraceJson(WriteTemp("late.json", late)));
  EXPECT_TRUE(LooksLikeTraceJson(WriteTemp("late.json.gz", gen::Gzip(late))));
  EXPECT_FALSE(LooksLikeTraceJson(WriteTemp("nokey.json", "{\"pad\": \"" + std::string(200'000, 'x') + "\"}")));

  EXPECT_TRUE(LooksLikeTraceJson(WriteTemp("s.json", SmallTrace())));
  EXPECT_TRUE(LooksLikeTraceJson(WriteTemp("s.json.gz", gen::Gzip(SmallTrace()))));
  // A large gzip file: only its head is inflated.
  EXPECT_TRUE(LooksLikeTraceJson(WriteTemp("big.json.gz", gen::Gzip(gen::DecodeTrace({4, 4})))));
  EXPECT_FALSE(LooksLikeTraceJson(WriteTemp("x.xml", "<?xml version=\"1.0\"?><trace-query-result/>")));
  EXPECT_FALSE(LooksLikeTraceJson(WriteTemp("bad.gz", std::string("\x1f\x8b garbage", 10))));
  EXPECT_FALSE(LooksLikeTraceJson(::testing::TempDir()));
  EXPECT_FALSE(LooksLikeTraceJson("/nonexistent/trace.json"));
}

// The sniff reads no further than the reader may: a key past the input limit (a gzip
// bomb of whitespace, here a plain file over a 1 MiB limit) leaves it undecided, "no".
TEST(JsonTraceReader, SniffStopsAtTheInputLimit) {
  InputLimits limits;
  limits.max_input_bytes = uint64_t{1} << 20;
  SetInputLimits(limits);
  const std::string key = "\"traceEvents\": []}";
  const bool near = LooksLikeTraceJson(WriteTemp("near.json", "{" + std::string(500'000, ' ') + key));
  const bool far = LooksLikeTraceJson(WriteTemp("far.json", "{" + std::string(2'000'000, ' ') + key));
  const bool far_gz = LooksLikeTraceJson(WriteTemp("far.json.gz", gen::Gzip("{" + std::string(2'000'000, ' ') + key)));
  ClearInputLimits();
  EXPECT_TRUE(near);
  EXPECT_FALSE(far);
  EXPECT_FALSE(far_gz);
}

// A bounded prefix inflates only as much as asked; a whole stream tells how it ended.
TEST(JsonTraceReader, StreamFilePrefixIsBounded) {
  using detail::StreamEnd;
  uint64_t fed = 0;
  auto count = [&](std::string_view chunk) {
    fed += chunk.size();
    return true;
  };
  const std::string a5m = gen::Gzip(std::string(5'000'000, 'a'));
  const std::string path = WriteTemp("prefix.json.gz", a5m);
  EXPECT_EQ(detail::StreamFilePrefix(path, 4096, count), StreamEnd::kSinkStopped);
  EXPECT_EQ(fed, 4096u);
  fed = 0;
  EXPECT_EQ(detail::StreamFilePrefix(path, UINT64_MAX, count), StreamEnd::kEnded);
  EXPECT_EQ(fed, 5'000'000u);
  EXPECT_EQ(detail::StreamFilePrefix(WriteTemp("cut.json.gz", a5m.substr(0, a5m.size() / 2)), UINT64_MAX, count),
            StreamEnd::kBrokenGzip);
  EXPECT_EQ(detail::StreamFilePrefix(::testing::TempDir(), 4096, count), StreamEnd::kNotARegularFile);
  // Past the inflation cap (1 MiB here): the stream stops one byte past it.
  InputLimits limits;
  limits.max_input_bytes = uint64_t{1} << 20;
  SetInputLimits(limits);
  fed = 0;
  const StreamEnd bomb = detail::StreamFilePrefix(path, UINT64_MAX, count);
  ClearInputLimits();
  EXPECT_EQ(bomb, StreamEnd::kPastLimit);
  EXPECT_EQ(fed, (uint64_t{1} << 20) + 1);
}

// Every way a file can be bad, with the exact message the CLI prints.
TEST(JsonTraceReader, BadInputIsAnErrorWithItsLocation) {
  struct Case {
    std::string bytes;
    std::string error;
  };
  const std::string kernel_prefix = R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, )";
  const Case cases[] = {
      {"", "t.json:1:1: error[json.empty_file]: the file is empty"},
      {" \n\t\n", "t.json:1:1: error[json.empty_file]: the file holds only whitespace"},
      {"hello", "t.json:1:1: error[json.not_json]: syntax error while parsing value - invalid literal; last read: 'h'"},
      {"42", "t.json:1:1: error[json.not_json]: the top-level value is an integer; expected an object with "
             "\"traceEvents\" or an array of events"},
      {"\n  \"x\"", "t.json:2:3: error[json.not_json]: the top-level value is a string; expected an object with "
                    "\"traceEvents\" or an array of events"},
      {"{\"traceEvents\": {}}",
       "t.json:1:2: error[json.not_json]: \"traceEvents\" is an object; expected an array of events"},
      {"{\"traceEvents\": 7}",
       "t.json:1:2: error[json.not_json]: \"traceEvents\" is an integer; expected an array of events"},
      {"{\"traceEvents\": [], \"traceEvents\": []}", "t.json:1:21: error[json.not_json]: a second \"traceEvents\" array"},
      {"{\"schemaVersion\": 1}", "t.json:1:1: error[json.no_events]: no \"traceEvents\" array: not a trace-event file"},
      {"{\"traceEvents\": []}", "t.json:1:1: error[json.no_events]: \"traceEvents\" is empty"},
      {"{\"traceEvents\": [\n  {\"ph\": \"X\", \"ts\": 1",
       "t.json:2:22: error[json.truncated]: the file ends inside event /traceEvents/0 (syntax error while parsing "
       "object - unexpected end of input; expected '}')"},
      {"{\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"unterminated",
       "t.json:2:36: error[json.truncated]: the file ends inside event /traceEvents/0 (syntax error while parsing "
       "value - invalid string: missing closing quote; last read: '\"unterminated')"},
      {"{\"traceEvents\": [{\"ph\": \"i\"},",
       "t.json:1:30: error[json.truncated]: the file ends inside the \"traceEvents\" array (syntax error while parsing "
       "value - unexpected end of input; expected '[', '{', or a literal)"},
      {"{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"a\xff\"}]}",
       "t.json:1:40: error[json.bad_utf8]: invalid UTF-8 sequence starting with byte 0xFF"},
      {"{\"traceEvents\": [{\"ph\": \"i\", \"name\": \"\xC0\xAF\"}]}",
       "t.json:1:39: error[json.bad_utf8]: invalid UTF-8 sequence starting with byte 0xC0"},
      {"{\"traceEvents\": [{\"ph\": \"i\"}]} x",
       "t.json:1:32: error[json.not_json]: syntax error while parsing value - invalid literal; last read: "
       "'\"i\"}]} x'; expected end of input"},
      {"{\"traceEvents\": [{\"ph\": \"i\"},]}",
       "t.json:1:30: error[json.not_json]: syntax error while parsing value - unexpected ']'; expected '[', '{', or a "
       "literal"},
      {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1e400}]}",
       "t.json:1:36: error[json.not_json]: number overflow parsing '1e400'"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"dur\": 1}]}",
       "t.json:2:1: error[json.bad_event]: the complete event has no \"ts\" (in /traceEvents/0, a \"X\" event of cat "
       "\"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 1}]}",
       "t.json:2:1: error[json.bad_event]: the complete event has no \"dur\" (in /traceEvents/0, a \"X\" event of cat "
       "\"kernel\" named \"k\")"},
      {"{\"traceEvents\": [{\"ph\": \"i\"},\n {\"name\": \"no_ph\"}]}",
       "t.json:2:2: error[json.bad_event]: the event has no \"ph\" (in /traceEvents/1 named \"no_ph\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": \"12\", \"dur\": 1}]}",
       "t.json:2:63: error[json.bad_event]: \"ts\" is a string; expected a number of microseconds (in "
       "/traceEvents/0, a \"X\" event of cat \"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 1, \"dur\": -1}]}",
       "t.json:2:1: error[json.bad_event]: \"dur\" is negative (in /traceEvents/0, a \"X\" event of cat \"kernel\" "
       "named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 9300000000000000, \"dur\": 1}]}",
       "t.json:2:63: error[json.bad_event]: \"ts\" is out of range for nanoseconds in 64 bits (in /traceEvents/0, a "
       "\"X\" event of cat \"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 99999999999999999999, \"dur\": 1}]}",
       "t.json:2:63: error[json.bad_event]: \"ts\" is 99999999999999999999, out of range for nanoseconds in 64 bits "
       "(in /traceEvents/0, a \"X\" event of cat \"kernel\" named \"k\")"},
      // Times are bounded by 2^61 ns, so ts + dur and every difference of two times fit.
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 9223372036854775, \"dur\": 1}]}",
       "t.json:2:1: error[json.bad_event]: \"ts\" is beyond 2^61 ns (73 years), the most a trace time may be (in "
       "/traceEvents/0, a \"X\" event of cat \"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": -2305843009213694, \"dur\": 1}]}",
       "t.json:2:1: error[json.bad_event]: \"ts\" is beyond 2^61 ns (73 years), the most a trace time may be (in "
       "/traceEvents/0, a \"X\" event of cat \"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 0, \"dur\": 2305843009213693.953}]}",
       "t.json:2:1: error[json.bad_event]: \"dur\" is beyond 2^61 ns (73 years), the most a trace time may be (in "
       "/traceEvents/0, a \"X\" event of cat \"kernel\" named \"k\")"},
      // A wrong stream matters to GPU work only (real traces put "stream": -1 on
      // cuda_sync events and "0x0" on HIP runtime calls).
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 1, \"dur\": 1, \"args\": {\"stream\": -1}}]}",
       "t.json:2:91: error[json.bad_event]: \"args.stream\" is out of range (in /traceEvents/0, a \"X\" event of cat "
       "\"kernel\" named \"k\")"},
      // A kept field written twice would silently keep the last.
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 1, \"ts\": 2, \"dur\": 1}]}",
       "t.json:2:72: error[json.bad_event]: \"ts\" is given twice (in /traceEvents/0, a \"X\" event of cat "
       "\"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 1, \"dur\": 1, \"args\": {\"correlation\": 1, \"correlation\": 2}}]}",
       "t.json:2:109: error[json.bad_event]: \"args.correlation\" is given twice (in /traceEvents/0, a \"X\" event of "
       "cat \"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 1, \"dur\": 1, \"args\": {\"correlation\": \"7\"}}]}",
       "t.json:2:91: error[json.bad_event]: \"args.correlation\" is a string; expected an integer (in /traceEvents/0, "
       "a \"X\" event of cat \"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 1, \"dur\": 1, \"args\": {\"stream\": 7.5}}]}",
       "t.json:2:91: error[json.bad_event]: \"args.stream\" is 7.5; expected an integer (in /traceEvents/0, a \"X\" "
       "event of cat \"kernel\" named \"k\")"},
      {"{\"traceEvents\": [\n" + kernel_prefix + "\"ts\": 1, \"dur\": 1, \"args\": [1]}]}",
       "t.json:2:82: error[json.bad_event]: \"args\" is an array (in /traceEvents/0, a \"X\" event of cat \"kernel\" "
       "named \"k\")"},
      {"{\"traceEvents\": [{\"ph\": \"X\", \"pid\": 1.5, \"ts\": 1, \"dur\": 1}]}",
       "t.json:1:30: error[json.bad_event]: \"pid\" is 1.5; expected an integer or a string (in /traceEvents/0, a "
       "\"X\" event)"},
      {"{\"traceEvents\": [{\"ph\": 1}]}",
       "t.json:1:19: error[json.bad_event]: \"ph\" is a number (in /traceEvents/0)"},
      {"{\"traceEvents\": [{\"ph\": \"X\", \"name\": null, \"ts\": 1, \"dur\": 1}]}",
       "t.json:1:30: error[json.bad_event]: \"name\" is null (in /traceEvents/0, a \"X\" event)"},
      {"{\"traceEvents\": [{\"ph\": \"M\", \"name\": \"process_name\", \"args\": {\"name\": \"x\"}}]}",
       "t.json:1:18: error[json.bad_event]: the process_name event has no \"pid\" (in /traceEvents/0, a \"M\" event "
       "named \"process_name\")"},
      {"{\"traceEvents\": [{\"ph\": \"i\"},\n  7]}",
       "t.json:2:3: error[json.bad_event]: the event is an integer, not an object (in /traceEvents/1)"},
      {"{\"traceEvents\": [\n  [1, 2]]}",
       "t.json:2:3: error[json.bad_event]: the event is an array, not an object (in /traceEvents/0)"},
      {"{\"a\": " + std::string(300, '['), "t.json:1:262: error[json.too_deep]: values nest deeper than 256 levels"},
      {"{\"traceEvents\": [{\"ph\": \"i\", \"args\": " + std::string(300, '[') + std::string(300, ']') + "}]}",
       "t.json:1:291: error[json.too_deep]: values nest deeper than 256 levels"},
  };
  for (const Case& c : cases) {
    auto t = ReadTraceJsonBuffer(c.bytes, "t.json");
    ASSERT_FALSE(t.ok()) << c.bytes;
    EXPECT_EQ(t.status().ToString(), c.error) << c.bytes;
    EXPECT_EQ(t.status().kind(), ErrorKind::kInput);
    // Every error code is catalogued, with error severity.
    const DiagnosticDescriptor* d = FindDiagnostic(t.status().code());
    ASSERT_NE(d, nullptr) << t.status().code();
    EXPECT_EQ(d->severity, Severity::kError);
  }
}

TEST(JsonTraceReader, WrongArgsOfEventsThatDoNotUseThemAreIgnored) {
  auto t = ReadTraceJsonBuffer(R"({"traceEvents": [
{"ph": "X", "cat": "cuda_sync", "name": "Event Sync", "pid": 0, "tid": -1, "ts": 1, "dur": 1, "args": {"stream": -1}},
{"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyWithStream", "pid": 5, "tid": 5, "ts": 1, "dur": 1,
 "args": {"stream": "0x0", "correlation": 117}}]})",
                               "t.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->host_calls.size(), 1u);
  EXPECT_EQ(t->host_calls[0].correlation, 117);
  EXPECT_EQ(t->diagnostics.Count("json.ignored_field"), 2);  // counted, not silent
  // The correlation of a runtime call is used: a wrong one is still an error.
  auto bad = ReadTraceJsonBuffer(R"({"traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "l", "pid": 5, "tid": 5, "ts": 1, "dur": 1, "args": {"correlation": "7"}}]})",
                                 "t.json");
  EXPECT_EQ(bad.status().code(), "json.bad_event");
}

// A field that attribution does not use on the event's kind never stops a read: it is
// counted (json.ignored_field, with the first one's location), never an error. The
// same fields on events that use them are still errors.
TEST(JsonTraceReader, FieldsAnEventKindDoesNotUseNeverStopARead) {
  const std::string trace = R"js({"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 5, "tid": 5, "ts": "12", "dur": 1},
{"ph": "X", "cat": "python_function", "name": null, "pid": 1.5, "tid": [], "ts": 1, "ts": 2},
{"ph": "X", "cat": "mystery", "args": [1, 2]},
{"ph": "s", "id": 1, "pid": 5, "tid": 5, "ts": true, "cat": "ac2g", "name": {}},
{"ph": "i", "name": "Record Window End", "pid": "", "tid": "", "ts": "x", "s": "g"},
{"ph": "M", "name": "process_sort_index", "pid": 5, "ts": "0", "args": {"name": 7, "sort_index": 1}},
{"ph": "M", "name": "process_name", "pid": 5, "ts": "0", "args": {"name": "python3", "stream": "0x0"}},
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1,
 "args": {"correlation": 1, "correlation_id": "x"}},
{}]})js";
  auto t = ReadTraceJsonBuffer(trace, "t.json");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->items.size(), 1u);
  EXPECT_EQ(t->process_names.at(5), "python3");
  // cpu_op ts; python_function name, pid, tid, ts twice; mystery args; the flow's ts and
  // name; the instant's ts; the sort index's ts and args.name; process_name's ts and
  // args.stream; XLA's correlation_id on a Kineto kernel.
  EXPECT_EQ(t->diagnostics.Count("json.ignored_field"), 1 + 4 + 1 + 2 + 1 + 2 + 2 + 1);
  EXPECT_EQ(t->diagnostics.Count("json.skipped_event"), 6);  // cpu_op, python_function, s, i, sort index, `{}`
  EXPECT_EQ(t->diagnostics.Count("json.unknown_category"), 1);
  EXPECT_EQ(t->diagnostics.ErrorCount(), 0);
  EXPECT_EQ(t->bad_events, 0);
  for (const auto& e : t->diagnostics.Entries()) {
    if (e.code != "json.ignored_field") continue;
    EXPECT_EQ(e.first_detail, "\"ts\" is a string; expected a number of microseconds (in /traceEvents/0, a \"X\" event "
                              "of cat \"cpu_op\" named \"aten::mm\")");
    EXPECT_EQ(e.first_location.line, 2);
    EXPECT_EQ(e.first_location.column, 70);  // its key
  }

  // Where the kind uses the field, it is an error at its key.
  const std::pair<std::string, std::string> used[] = {
      {R"js({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": [], "ts": 1, "dur": 1})js",
       "t.json:1:70: error[json.bad_event]: \"tid\" is an array (in /traceEvents/0, a \"X\" event of cat \"kernel\" "
       "named \"k\")"},
      {R"js({"ph": "X", "cat": "user_annotation", "name": "s", "pid": 0, "tid": 1, "ts": 1, "dur": 1, "dur": 2})js",
       "t.json:1:108: error[json.bad_event]: \"dur\" is given twice (in /traceEvents/0, a \"X\" event of cat "
       "\"user_annotation\" named \"s\")"},
      {R"js({"ph": "M", "name": "thread_name", "pid": 5, "tid": "x", "args": {"name": 7}})js",
       "t.json:1:84: error[json.bad_event]: \"args.name\" is a number (in /traceEvents/0, a \"M\" event named "
       "\"thread_name\")"},
      {R"js({"ph": "M", "name": "thread_name", "pid": 5, "tid": 1.5, "args": {"name": "t"}})js",
       "t.json:1:63: error[json.bad_event]: \"tid\" is 1.5; expected an integer or a string (in /traceEvents/0, a "
       "\"M\" event named \"thread_name\")"},
      {R"js({"ph": "X", "cat": 3, "name": "k", "ts": 1, "dur": 1})js",
       "t.json:1:30: error[json.bad_event]: \"cat\" is a number (in /traceEvents/0, a \"X\" event named \"k\")"},
  };
  for (const auto& [event, error] : used) {
    auto bad = ReadTraceJsonBuffer("{\"traceEvents\": [" + event + "]}", "t.json");
    ASSERT_FALSE(bad.ok()) << event;
    EXPECT_EQ(bad.status().ToString(), error);
  }
}

// Both were refused in strict mode ("args.stream" of -1 on cuda_sync events, "0x0" on
// HIP runtime calls). The counts are `kernels` and `runtime_calls` of
//   python3 tests/corpus/kineto_figures.py $D/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz
//       $D/cuda_event_sync_event_sync_trace.json.gz
// (one line; D=$PERFGATE_CORPUS_DIR/kineto/hta): 14 and 21, 4 and 12.
TEST(JsonTraceReader, CorpusTracesWithStreamsOnEventsThatDoNotUseThem) {
  PERFGATE_CORPUS_FILE_OR_SKIP(amd, "kineto/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  PERFGATE_CORPUS_FILE_OR_SKIP(sync, "kineto/hta/cuda_event_sync_event_sync_trace.json.gz");
  auto a = ReadTraceJsonFile(amd);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  size_t kernels = 0;
  for (const model::WorkItem& w : a->items) kernels += w.kind == model::WorkKind::kKernel;
  EXPECT_EQ(kernels, 14u);
  EXPECT_EQ(a->host_calls.size(), 21u);
  auto s = ReadTraceJsonFile(sync);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  kernels = 0;
  for (const model::WorkItem& w : s->items) kernels += w.kind == model::WorkKind::kKernel;
  EXPECT_EQ(kernels, 4u);
  EXPECT_EQ(s->host_calls.size(), 12u);
}

TEST(JsonTraceReader, LenientModeCountsAndDropsMalformedEvents) {
  const std::string trace = "{\"traceEvents\": [\n"
                            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"good\", \"pid\": 0, \"tid\": 7, \"ts\": 1, "
                            "\"dur\": 2, \"args\": {\"correlation\": 1}},\n"
                            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"no_ts\", \"dur\": 2},\n"
                            "42,\n"
                            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bad_ts\", \"ts\": \"x\", \"dur\": 2},\n"
                            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"good2\", \"pid\": 0, \"tid\": 7, \"ts\": 5, "
                            "\"dur\": 2, \"args\": {\"correlation\": 2}}\n]}";
  ReadOptions lenient;
  lenient.mode = ReadMode::kLenient;
  auto t = ReadTraceJsonBuffer(trace, "t.json", lenient);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->items.size(), 2u);
  EXPECT_EQ(t->items[1].name, "good2");
  EXPECT_EQ(t->events, 5);
  EXPECT_EQ(t->bad_events, 3);
  EXPECT_EQ(t->diagnostics.Count("json.bad_event"), 3);
  EXPECT_EQ(t->diagnostics.ErrorCount(), 3);
  auto entries = t->diagnostics.Entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].first_location.line, 3);
  EXPECT_EQ(entries[0].first_location.column, 1);
  EXPECT_EQ(entries[0].first_detail,
            "the complete event has no \"ts\" (in /traceEvents/1, a \"X\" event of cat \"kernel\" named \"no_ts\")");

  auto strict = ReadTraceJsonBuffer(trace, "t.json");
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), "json.bad_event");
  EXPECT_EQ(strict.status().location().line, 3);

  // Malformed JSON is fatal in lenient mode too.
  auto broken = ReadTraceJsonBuffer(trace.substr(0, trace.size() - 3), "t.json", lenient);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().code(), "json.truncated");
}

// No prefix of a trace, and no corruption of one, crashes the reader or slips
// through as a success with events it did not read.
TEST(JsonTraceReader, NeverCrashesOnTruncatedOrCorruptedInput) {
  const std::string trace = SmallTrace();
  size_t errors = 0;
  for (size_t n = 0; n < trace.size(); n += 7) {
    auto t = ReadTraceJsonBuffer(std::string_view(trace).substr(0, n), "t.json");
    if (!t.ok()) ++errors;
  }
  EXPECT_EQ(errors, (trace.size() + 6) / 7);
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes = trace;
    for (int k = 0; k < 3; ++k) {
      bytes[rng() % bytes.size()] = static_cast<char>(rng() % 256);
    }
    ReadOptions o;
    o.mode = i % 2 ? ReadMode::kLenient : ReadMode::kStrict;
    auto t = ReadTraceJsonBuffer(bytes, "t.json", o);
    if (t.ok()) {
      EXPECT_LE(t->items.size(), 3u);
    } else {
      EXPECT_FALSE(t.status().code().empty());
      EXPECT_GT(t.status().location().line, 0) << t.status().ToString();
    }
  }
}

}  // namespace
}  // namespace perfgate::json_trace
