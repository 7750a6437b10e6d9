// simdjson's On-Demand reading of trace-event JSON (json_simd_walk.h), whole and in
// pieces, on one thread and by worker threads (json_simd_pipeline.h), against nlohmann's SAX
// reading (the reader before it, and still the reader of malformed input): on every
// bundled recording, the corpus's Kineto traces and a list of inputs at the edges of
// the JSON grammar, in strict and lenient mode, all three give the same trace, field
// for field, or the same error, word for word and located alike.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <sstream>

#include "sources/trace_json/json_trace_internal.h"
#include "support/corpus.h"
#include "core/text_input.h"
#include "unit/json_trace/kineto_gen.h"

namespace perfgate::json_trace {
namespace {

namespace fs = std::filesystem;
using detail::JsonParser;

template <typename T>
void Put(std::ostringstream& o, const std::optional<T>& v) {
  if (v) o << *v; else o << '-';
}

// Every field of the trace (or the error) as text.
std::string Fingerprint(const Status& s, const model::WorkSet& t) {
  if (!s.ok()) return "error " + s.ToString();
  std::ostringstream o;
  o << "events " << t.events << " bad " << t.bad_events << '\n';
  for (const model::WorkItem& w : t.items) {
    o << "w " << static_cast<int>(w.kind) << ' ' << w.name << ' ' << w.start_ns << ' ' << w.end_ns << ' ' << w.pid
      << ' ' << w.tid << ' ' << w.device << ' ' << w.stream << ' ';
    Put(o, w.correlation), o << ' ', Put(o, w.process), o << '\n';
  }
  for (const model::HostCall& c : t.host_calls) {
    o << "r " << c.name << ' ' << c.start_ns << ' ' << c.end_ns << ' ' << c.pid << ' ' << c.tid << ' ' << c.driver
      << ' ';
    Put(o, c.correlation), o << '\n';
  }
  for (const auto* list : {&t.host_spans, &t.gpu_spans}) {
    for (const model::Span& a : *list) {
      o << "a " << a.name << ' ' << a.start_ns << ' ' << a.end_ns << ' ' << a.pid << ' ' << a.tid << ' ';
      Put(o, a.external_id), o << '\n';
    }
  }
  for (const auto& [pid, name] : t.process_names) o << "p " << pid << ' ' << name << '\n';
  for (const auto& [key, name] : t.thread_names) o << "t " << key.first << ' ' << key.second << ' ' << name << '\n';
  for (const auto& [id, text] : t.string_ids) o << "s " << id << ' ' << text << '\n';
  for (const auto& [kind, n] : t.event_kinds) o << "k " << kind << ' ' << n << '\n';
  for (const auto& e : t.diagnostics.Entries()) {
    o << "d " << e.code << ' ' << e.count << ' ' << e.first_location.line << ':' << e.first_location.column << ' '
      << e.first_detail << '\n';
  }
  return o.str();
}

// The ways simdjson may walk (json_trace_internal.h SimdPlan): whole, then in pieces
// cut about every 300 bytes (most inputs here are a few pieces; the recordings
// thousands), on the calling thread and by two and by three worker threads.
constexpr size_t kSmallPieces = 300;
const std::vector<std::pair<std::string, detail::SimdPlan>>& Plans() {
  static const std::vector<std::pair<std::string, detail::SimdPlan>> plans = {
      {"whole", {0, 0}},
      {"in pieces, one thread", {0, kSmallPieces}},
      {"in pieces, two workers", {2, kSmallPieces}},
      {"in pieces, three workers", {3, kSmallPieces}},
  };
  return plans;
}

struct Reading {
  std::string fingerprint;
  JsonParser parser = JsonParser::kNlohmann;
};

Reading ReadWith(std::string_view bytes, ReadMode mode, const detail::SimdPlan* plan) {
  ReadOptions options;
  options.mode = mode;
  Reading r;
  model::WorkSet t;
  t.path = "t.json";
  const Status s = plan != nullptr ? detail::ReadEvents(bytes, t.path, options, &t, 0, &r.parser, plan)
                                   : detail::ReadEventsWithNlohmann(bytes, t.path, options, &t);
  r.fingerprint = Fingerprint(s, t);
  return r;
}

// Well-formed recordings have no bad event, so lenient mode reads them as strict mode does.
void ExpectSameReading(std::string_view bytes, const std::string& what, bool well_formed, bool lenient_too = true) {
  for (ReadMode mode : {ReadMode::kStrict, ReadMode::kLenient}) {
    if (mode == ReadMode::kLenient && !lenient_too) continue;
    const char* in = mode == ReadMode::kStrict ? " (strict)" : " (lenient)";
    const Reading nlohmann = ReadWith(bytes, mode, nullptr);
    for (const auto& [name, plan] : Plans()) {
      const Reading r = ReadWith(bytes, mode, &plan);
      EXPECT_EQ(r.fingerprint, nlohmann.fingerprint) << what << in << ", simdjson " << name;
      if (well_formed) {
        EXPECT_EQ(r.parser, JsonParser::kSimdjson) << what << in << ": simdjson read it, " << name;
      }
    }
  }
}

std::string Inflated(const fs::path& p) {
  auto bytes = ::perfgate::internal::ReadWholeFile(p.string());
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::string();
}

TEST(SimdReader, EveryBundledRecordingReadsAsWithNlohmann) {
  int traces = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(PERFGATE_SOURCE_DIR) / "fixtures")) {
    const std::string name = e.path().filename().string();
    if (name != "trace.json.gz" && name != "trace.json") continue;
    const std::string bytes = Inflated(e.path());
    ExpectSameReading(bytes, e.path().string(), true, /*lenient_too=*/false);
    ++traces;
  }
  EXPECT_GE(traces, 18) << "the fixtures' trace-event recordings (PyTorch, JAX, the CUPTI tracer)";
}

TEST(SimdReader, TheCorpusKinetoTracesReadAsWithNlohmann) {
  PERFGATE_CORPUS_FILE_OR_SKIP(hta, "kineto/hta/cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz");
  PERFGATE_CORPUS_FILE_OR_SKIP(rocm, "kineto/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  for (const std::string& p : {hta, rocm}) ExpectSameReading(Inflated(p), p, true);
}

TEST(SimdReader, ASyntheticDecodeTraceReadsAsWithNlohmann) {
  // Eight tokens of sixteen layers: every event kind, annotation and launch of the
  // generator, in some thousands of the plans' 300-byte pieces.
  gen::DecodeTraceSpec spec;
  spec.tokens = 8;
  spec.layers = 16;
  const std::string bytes = gen::DecodeTrace(spec);
  ASSERT_GT(bytes.size(), size_t{300} * 1000) << "a thousand pieces at least";
  ExpectSameReading(bytes, "synthetic decode", true);
}

// Inputs at the grammar's edges, inside a trace that is otherwise good: simdjson's
// reading must never accept what nlohmann refuses, nor read a value differently.
TEST(SimdReader, EdgesOfTheGrammarReadAsWithNlohmann) {
  const std::string head = R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.5, "dur": 2, "args": {"correlation": 3, "device": 0, "stream": 7, "x": )";
  const std::string tail = "}}]}";
  const std::vector<std::pair<std::string, bool>> args = {
      {"1", true}, {"-0", true}, {"0.0", true}, {"1e5", true}, {"1E+5", true}, {"-1.25e-3", true},
      {"18446744073709551615", true}, {"18446744073709551616", true}, {"-9223372036854775808", true},
      {"-9223372036854775809", true}, {"123456789012345678901234567890", true}, {"1e308", true},
      {"\"\\u00e9\\ud83d\\ude00\\n\\\"\"", true}, {"\"\xc3\xa9\"", true}, {"[]", true}, {"{}", true},
      {"[1, [2, {\"a\": null}]]", true}, {"true", true}, {"false", true}, {"null", true},
      {"01", false}, {"1.", false}, {".5", false}, {"+1", false}, {"-", false}, {"1e", false}, {"1e+", false},
      {"1e999", false}, {"-1e999", false}, {"NaN", false}, {"Infinity", false}, {"tru", false}, {"nul", false},
      {"truex", false}, {"\"\\ud800\"", false}, {"\"\\x41\"", false}, {"\"\t\"", false}, {"'a'", false},
      {"[1,]", false}, {"{\"a\": 1,}", false}, {"{\"a\" 1}", false}, {"[1 2]", false}, {"/* c */ 1", false},
      {"\"\xff\"", false}, {"\"\xc3\"", false}, {"\"unterminated", false}, {"", false}};
  for (const auto& [arg, good] : args) ExpectSameReading(head + arg + tail, "args.x = " + arg, good);
  // Around the document.
  const std::string doc = head + "1" + tail;
  const std::vector<std::pair<std::string, bool>> documents = {
      {"\xEF\xBB\xBF" + doc, false}, {doc + " \n", true}, {doc + " x", false}, {doc + doc, false},
      {doc.substr(0, doc.size() - 1), false}, {"[" + doc.substr(16, doc.size() - 17), false},
      {"1", false}, {"\"s\"", false}, {"[]", false}, {"{}", false}, {"{\"traceEvents\": 5}", false},
      {std::string(300, '[') + std::string(300, ']'), false}};
  for (const auto& [d, good] : documents) ExpectSameReading(d, "document " + d.substr(0, 40), good);
  // Keys: escaped, empty, repeated (the reader counts a kept field given twice).
  for (const std::string key : {R"("n\u0061me")", R"("")", R"("ph")", R"("a\"b")"}) {
    ExpectSameReading(R"({"traceEvents": [{"ph": "X", )" + key + R"(: "k2", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1, "dur": 2}]})",
                      "key " + key, true);
  }
}

// Events that the reader itself refuses (strict) or counts (lenient): located alike.
TEST(SimdReader, BadEventsAreLocatedAlike) {
  for (const std::string ev :
       {R"("just a string")", R"(17)", R"([1])", R"({"ph": 5})", R"({"ph": "X", "ts": "1", "dur": 1})",
        R"({"ph": "X", "cat": "kernel", "name": "k", "ts": 1e400, "dur": 1})", R"({})",
        R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 0, "ts": 1, "dur": 1, "args": {"device": -1}})"}) {
    ExpectSameReading("{\"traceEvents\": [\n  " + ev + ",\n  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"args\": {\"name\": \"p\"}}]}",
                      "event " + ev, ev.find("1e400") == std::string::npos);
  }
}

// A trace of many pieces, with one fault placed early, in the middle or near the end:
// a bad event (the handler stops there in strict mode, counts it in lenient mode) or
// a byte that is not JSON (nlohmann reads it all again). Every plan stops, or falls
// back, where the whole walk on one thread does.
TEST(SimdReader, FaultsAnywhereInALongTraceEndItAlike) {
  gen::DecodeTraceSpec spec;
  spec.tokens = 4;
  const std::string bytes = gen::DecodeTrace(spec);
  ASSERT_GT(bytes.size(), size_t{300} * 1000) << "long enough for thousands of 300-byte pieces";
  for (double at : {0.05, 0.5, 0.97}) {
    // The start of an event line past `at` of the file.
    const size_t line = bytes.find("\n  {", static_cast<size_t>(static_cast<double>(bytes.size()) * at));
    ASSERT_NE(line, std::string::npos);
    const std::string where = " at " + std::to_string(line) + " of " + std::to_string(bytes.size());
    std::string bad_event = bytes;
    bad_event.insert(line + 3, R"({"ph": "X", "cat": "kernel", "name": "k", "ts": "1", "dur": 1}, )");
    ExpectSameReading(bad_event, "a bad event" + where, true);
    std::string not_json = bytes;
    not_json.insert(line + 3, "@");
    ExpectSameReading(not_json, "a stray byte" + where, false);
  }
}

}  // namespace
}  // namespace perfgate::json_trace
