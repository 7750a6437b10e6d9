// simdjson's On-Demand reading of trace-event JSON (json_simd_walk.h), whole and in
// pieces, on one thread and by worker threads (json_simd_pipeline.h), against nlohmann's SAX
// reading (the reader before it, and still the reader of malformed input): on every
// bundled recording, the corpus's Kineto traces and a list of inputs at the edges of
// the JSON grammar, in strict and lenient mode, all three give the same trace, field
// for field, or the same error, word for word and located alike. (A bundled recording
// is read as an excerpt of its own bytes: see Excerpt.)
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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

// [begin, end) of each element of the JSON array whose '[' is at `open`, and in *close
// the ']' that closes it (npos, and no elements, when it is not closed). Written apart
// from the reader's own scanning, so that a bug there cannot shape its own input.
std::vector<std::pair<size_t, size_t>> ArrayElements(std::string_view b, size_t open, size_t* close) {
  // On the bytes themselves: this test's code is built unoptimized, and it scans 410 MB.
  const char* const p = b.data();
  const size_t size = b.size();
  std::vector<std::pair<size_t, size_t>> elements;
  int depth = 0;
  size_t start = std::string_view::npos, last = 0;
  *close = std::string_view::npos;
  for (size_t i = open + 1; i < size; ++i) {
    const char c = p[i];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (depth == 0 && (c == ',' || c == ']')) {
      if (start != std::string_view::npos) elements.emplace_back(start, last + 1);
      start = std::string_view::npos;
      if (c == ']') {
        *close = i;
        return elements;
      }
      continue;
    }
    if (start == std::string_view::npos) start = i;
    if (c == '"') {  // to the closing quote: the first not escaped by an odd run of backslashes
      for (;;) {
        const void* q = std::memchr(p + i + 1, '"', size - i - 1);
        if (q == nullptr) return {};
        i = static_cast<size_t>(static_cast<const char*>(q) - p);
        size_t backslashes = 0;
        while (p[i - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) break;
      }
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
    last = i;
  }
  return {};
}

// The value of the first "key" in an event's first 100 bytes ("" when none): enough
// to tell the kinds of event apart ("ph" and "cat" lead every producer's events).
std::string_view FirstValue(std::string_view event, std::string_view quoted_key) {
  const size_t k = event.find(quoted_key);
  const size_t colon = k == std::string_view::npos ? k : event.find(':', k + quoted_key.size());
  const size_t open = colon == std::string_view::npos ? colon : event.find('"', colon);
  if (open == std::string_view::npos) return {};
  const size_t end = event.find('"', open + 1);
  return end == std::string_view::npos ? std::string_view() : event.substr(open + 1, end - open - 1);
}

// A bundled recording is 7 to 60 MB of JSON (410 MB in all: minutes under the
// sanitizers, read five ways). Each is read as an excerpt of its own bytes, about
// kExcerptBytes of events (still thousands of kSmallPieces pieces): the document's
// head and tail as they are, and of its traceEvents runs of kExcerptRun consecutive
// events spread evenly from the first event to the last, plus the first
// kExcerptPerKind events of every kind ("ph" and "cat"), so that a rare kind (a memset,
// an overhead span) is read too; each event byte for byte with the separator that
// follows it in the file. A recording of kExcerptBytes or less is read whole.
constexpr size_t kExcerptBytes = size_t{1} << 20;
constexpr size_t kExcerptRun = 64;
constexpr size_t kExcerptPerKind = 8;
std::string Excerpt(const std::string& bytes) {
  const size_t key = bytes.find("\"traceEvents\"");
  const size_t open = key == std::string::npos ? key : bytes.find('[', key);
  if (open == std::string::npos) return bytes;
  size_t close = 0;
  const std::vector<std::pair<size_t, size_t>> events = ArrayElements(bytes, open, &close);
  const size_t n = events.size();
  if (close == std::string::npos || close - open <= kExcerptBytes || n < 4 * kExcerptRun) return bytes;
  std::vector<bool> keep(n, false);
  const size_t runs = std::clamp(kExcerptBytes / ((close - open) / n * kExcerptRun), size_t{2}, n / kExcerptRun / 2);
  for (size_t r = 0; r < runs; ++r) {
    const size_t from = (n - kExcerptRun) * r / (runs - 1);
    for (size_t i = from; i < from + kExcerptRun; ++i) keep[i] = true;
  }
  // Kinds ("ph", "cat") and how many of each are kept so far: a few, searched in a list.
  std::vector<std::tuple<std::string_view, std::string_view, size_t>> kinds;
  for (size_t i = 0; i < n; ++i) {
    const std::string_view event = std::string_view(bytes).substr(events[i].first, 100);
    const std::string_view ph = FirstValue(event, "\"ph\""), cat = FirstValue(event, "\"cat\"");
    auto kind = std::find_if(kinds.begin(), kinds.end(),
                             [&](const auto& k) { return std::get<0>(k) == ph && std::get<1>(k) == cat; });
    if (kind == kinds.end()) kind = kinds.insert(kinds.end(), {ph, cat, 0});
    if (std::get<2>(*kind)++ < kExcerptPerKind) keep[i] = true;
  }
  std::string out = bytes.substr(0, events[0].first);
  size_t previous = n;  // the last event kept so far (n: none)
  for (size_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    if (previous != n) {  // the separator that follows the previous kept event in the file
      out.append(bytes, events[previous].second, events[previous + 1].first - events[previous].second);
    }
    out.append(bytes, events[i].first, events[i].second - events[i].first);
    previous = i;
  }
  return out + bytes.substr(events[n - 1].second);
}

TEST(SimdReader, EveryBundledRecordingReadsAsWithNlohmann) {
  int traces = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(PERFGATE_SOURCE_DIR) / "fixtures")) {
    const std::string name = e.path().filename().string();
    if (name != "trace.json.gz" && name != "trace.json") continue;
    const std::string bytes = Inflated(e.path());
    const std::string excerpt = Excerpt(bytes);
    if (excerpt.size() < bytes.size()) {
      ASSERT_GT(excerpt.size(), kExcerptBytes * 3 / 4) << e.path();
      ASSERT_LT(excerpt.size(), kExcerptBytes * 2) << e.path();
    }
    ExpectSameReading(excerpt, e.path().string(), true, /*lenient_too=*/false);
    ++traces;
  }
  EXPECT_GE(traces, 18) << "the fixtures' trace-event recordings (PyTorch, JAX, the CUPTI tracer)";
}

// An excerpt is made of its trace's own bytes: the same members, and of its events
// the first, the last and every kind, in their order, each line as in the trace.
TEST(SimdReader, AnExcerptIsItsTracesOwnEventsEveryKindAmongThem) {
  gen::KinetoWriter w;
  w.ProcessName(7, "python3");
  for (int64_t i = 0; i < 4000; ++i) {
    w.Runtime("cudaLaunchKernel", 7, 7, 1000 * i, 5, i);
    w.Kernel("k" + std::to_string(i % 13), 0, 7, 1000 * i + 10, 800, i);
    if (i == 1234) w.Memset("Memset (Device)", 0, 7, 1000 * i + 900, 50, 100000);
  }
  w.Annotation("decode", true, 0, 7, 0, 4'000'000);
  const std::string bytes = w.Finish();
  const std::string excerpt = Excerpt(bytes);
  ASSERT_GT(bytes.size(), 2 * kExcerptBytes);
  ASSERT_LT(excerpt.size(), bytes.size() / 2);
  ASSERT_GT(excerpt.size(), kExcerptBytes * 3 / 4);
  const auto whole = nlohmann::ordered_json::parse(bytes), part = nlohmann::ordered_json::parse(excerpt);
  ASSERT_EQ(whole.size(), part.size());
  for (const auto& [k, v] : whole.items()) {
    if (k != "traceEvents") EXPECT_EQ(part.at(k), v) << k;
  }
  const auto &all = whole["traceEvents"], &kept = part["traceEvents"];
  std::map<std::string, int> kinds;
  size_t at = 0;
  for (const auto& ev : kept) {
    ++kinds[ev.value("ph", "") + " " + ev.value("cat", "")];
    while (at < all.size() && all[at] != ev) ++at;
    ASSERT_LT(at++, all.size()) << "not an event of the trace, or out of its order: " << ev.dump();
  }
  for (const auto& ev : all) EXPECT_GT(kinds[ev.value("ph", "") + " " + ev.value("cat", "")], 0) << ev.dump();
  EXPECT_EQ(kept.front(), all.front());
  EXPECT_EQ(kept.back(), all.back());
  std::set<std::string> lines;
  std::istringstream in(bytes);
  for (std::string line; std::getline(in, line);) lines.insert(line);
  std::istringstream ex(excerpt);
  for (std::string line; std::getline(ex, line);) ASSERT_TRUE(lines.count(line)) << line;
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
