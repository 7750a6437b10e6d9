// The walk of a trace in pieces (json_simd_chunks.h), on the calling thread and by
// worker threads (json_simd_pipeline.h): where the pieces are cut, that the walk in
// pieces gives the whole walk's callbacks and cursors exactly (so it is not quietly
// falling back to the whole walk), and that a layout the cuts get wrong is refused
// rather than misread.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <utility>

#include "sources/trace_json/json_simd_chunks.h"
#include "sources/trace_json/json_simd_pipeline.h"
#include "unit/json_trace/kineto_gen.h"

namespace perfgate::json_trace::detail {
namespace {

// This unit is built at -O0, the library optimized: simdjson's development checks
// (on by default without optimization) would give the two units different parsers.
static_assert(SIMDJSON_DEVELOPMENT_CHECKS == 0, "json_simd_walk.h sets them off for every unit");

// Every callback with the cursor's offset, as text.
class LogSax {
 public:
  explicit LogSax(const char* input) : input_(input) {}
  const char** cursor() { return &at_; }
  std::string log() const { return out_.str(); }

  bool null() { return Put("null"); }
  bool boolean(bool b) { return Put(b ? "true" : "false"); }
  bool number_integer(int64_t v) { return Put("i" + std::to_string(v)); }
  bool number_unsigned(uint64_t v) { return Put("u" + std::to_string(v)); }
  bool number_float(double, const std::string& t) { return Put("f" + t); }
  bool string(std::string& s) { return Put("s" + s); }
  bool key(std::string& k) { return Put("k" + k); }
  bool start_object(size_t) { return Put("{"); }
  bool end_object() { return Put("}"); }
  bool start_array(size_t) { return Put("["); }
  bool end_array() { return Put("]"); }

 private:
  bool Put(const std::string& what) {
    out_ << what << '@' << (at_ - input_) << '\n';
    return true;
  }
  const char* input_;
  const char* at_ = nullptr;
  std::ostringstream out_;
};

std::string WholeLog(const std::string& bytes) {
  LogSax sax(bytes.data());
  EXPECT_EQ(SimdWalker<LogSax>(bytes, &sax).Run(0), SimdWalk::kDone);
  return sax.log();
}

std::string DecodeTrace() {
  gen::DecodeTraceSpec spec;
  spec.tokens = 4;
  return gen::DecodeTrace(spec);
}

TEST(SimdPieces, CutsAKinetoTraceBetweenEvents) {
  const std::string bytes = DecodeTrace();
  const EventPieces p = FindEventPieces(bytes, 4096);
  ASSERT_NE(p.open, std::string::npos);
  EXPECT_EQ(bytes.rfind("\"traceEvents\"", p.open), bytes.find("\"traceEvents\""));
  EXPECT_EQ(bytes[p.open], '[');
  EXPECT_EQ(bytes[p.close], ']');
  // The generator writes traceEvents last but for scalars: nothing after the close
  // is an array or an event.
  EXPECT_EQ(bytes.find_first_of("[{", p.close), std::string::npos);
  // A cut about every 4 KiB, each after a ',' at a line's end, before a '{'.
  EXPECT_GT(p.cuts.size(), bytes.size() / 4096 / 2);
  EXPECT_LE(p.cuts.size(), bytes.size() / 4096);
  for (size_t cut : p.cuts) {
    ASSERT_EQ(bytes[cut - 1], ',');
    EXPECT_EQ(bytes.compare(cut, 3, "\n  "), 0);
    EXPECT_EQ(bytes[bytes.find_first_not_of(" \n", cut)], '{');
  }
}

TEST(SimdPieces, TheWalkInPiecesIsTheWholeWalk) {
  const std::string bytes = DecodeTrace();
  for (size_t piece : {size_t{1}, size_t{300}, size_t{65536}}) {
    LogSax sax(bytes.data());
    EXPECT_EQ(ChunkedSimdWalk(bytes, &sax, piece), SimdWalk::kDone) << piece;
    EXPECT_EQ(sax.log(), WholeLog(bytes)) << "pieces of " << piece << " bytes";
    for (int workers : {1, 2, 3}) {
      if (piece < 300) break;  // a piece per event: the serial walk above covers it
      LogSax replayed(bytes.data());
      EXPECT_EQ(ParallelChunkedSimdWalk(bytes, &replayed, piece, workers), SimdWalk::kDone);
      EXPECT_EQ(replayed.log(), WholeLog(bytes)) << "pieces of " << piece << " bytes, " << workers << " workers";
    }
  }
  // The events counted independently: nlohmann's DOM of the same bytes.
  const auto events = nlohmann::json::parse(bytes)["traceEvents"].size();
  const std::string log = WholeLog(bytes);
  EXPECT_GT(events, 1000u);
  EXPECT_NE(log.find("ktraceEvents@"), std::string::npos);
}

TEST(SimdPieces, AnArrayAfterTheEventsIsRefusedNotMisread) {
  const std::string bytes =
      "{\"traceEvents\": [\n  {\"ph\": \"X\", \"a\": 1},\n  {\"ph\": \"X\", \"a\": 2}\n], \"more\": [1, 2]}";
  LogSax sax(bytes.data());
  EXPECT_EQ(ChunkedSimdWalk(bytes, &sax, 1), SimdWalk::kMalformed);
}

TEST(SimdPieces, ACutInsideAnEventIsRefusedNotMisread) {
  // The args' list of objects has the events' own line layout.
  const std::string bytes =
      "{\"traceEvents\": [\n  {\"ph\": \"X\", \"args\": {\"list\": [\n  {\"a\": 1},\n  {\"b\": 2}]}},\n"
      "  {\"ph\": \"X\"}\n]}";
  const EventPieces p = FindEventPieces(bytes, 1);
  ASSERT_FALSE(p.cuts.empty());
  LogSax sax(bytes.data());
  EXPECT_EQ(ChunkedSimdWalk(bytes, &sax, 1), SimdWalk::kMalformed);
}

// A document the cuts cannot split (one run: pieces as large as the document, or no
// line end between events, as XLA's writer lays it out) is left to the whole walk.
TEST(SimdPieces, ADocumentOfOneRunIsWalkedWhole) {
  const std::string bytes = DecodeTrace();
  const std::string one_line = "{\"traceEvents\": [{\"ph\": \"X\"}, {\"ph\": \"i\"}], \"k\": 1}";
  for (const auto& [doc, piece] : {std::pair<std::string, size_t>{bytes, bytes.size()}, {one_line, size_t{1}}}) {
    const EventPieces p = FindEventPieces(doc, piece);
    ASSERT_NE(p.open, std::string::npos);
    EXPECT_TRUE(p.cuts.empty());
    EXPECT_FALSE(HasPieces(p));
    LogSax sax(doc.data());
    EXPECT_EQ(ChunkedSimdWalk(doc, &sax, piece), SimdWalk::kMalformed);
    LogSax replayed(doc.data());
    EXPECT_EQ(ParallelChunkedSimdWalk(doc, &replayed, piece, 2), SimdWalk::kMalformed);
  }
}

TEST(SimdPieces, OtherLayoutsAreNotCut) {
  for (const std::string& bytes : {std::string("[{\"ph\": \"X\"},\n{\"ph\": \"X\"}]"),
                                  std::string("{\"traceEvents\": 5}"),
                                  std::string("{\"a\": {\"traceEvents\": [1]}}")}) {
    EXPECT_EQ(FindEventPieces(bytes, 1).open, std::string::npos) << bytes;
  }
  // A quote after an even run of backslashes ends its string; after an odd one not.
  const std::string tricky = "{\"traceEvents\": [\n  {\"n\": \"a\\\\\"},\n  {\"n\": \"]\\\"]\"}\n], \"x\": \"]\\\\\"}";
  const EventPieces p = FindEventPieces(tricky, 1);
  ASSERT_NE(p.close, std::string::npos);
  EXPECT_EQ(p.close, tricky.find("\n]") + 1);
  LogSax sax(tricky.data());
  EXPECT_EQ(ChunkedSimdWalk(tricky, &sax, 1), SimdWalk::kDone);
  EXPECT_EQ(sax.log(), WholeLog(tricky));
}

}  // namespace
}  // namespace perfgate::json_trace::detail
