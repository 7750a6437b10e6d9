// The counter-report reader: values keep their text, integers stay integers, unknown
// keys are kept, a history splits at `# ====` blocks and at comment paragraphs above a
// repeated key, and every malformed input is an error in compiler form.
#include <gtest/gtest.h>

#include <string>

#include "perfgate/counters/report.h"
#include "support/corpus.h"

namespace perfgate::counters {
namespace {

CounterHistory Parse(const std::string& text) {
  auto h = ParseCounterHistory(text, "c.txt");
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return h.ok() ? *h : CounterHistory{};
}

Status ErrorOf(const std::string& text) { return ParseCounterHistory(text, "c.txt").status(); }

TEST(CounterReader, ValuesKeepTheirText) {
  const CounterHistory h = Parse(
      "# Emitted by hf2q\n"
      "model: gemma-4.gguf\n"
      "hardware: Apple M5 Max, 128 GB\n"
      "forward_count: 127\n"
      "dispatches_per_token: 7513.02\n"
      "moe_to_vec2_count: 0.00\n"
      "brand_new_counter: -3e2\n");
  ASSERT_EQ(h.reports.size(), 1u);
  const CounterReport& r = h.reports[0];
  EXPECT_EQ(r.title, "Emitted by hf2q");
  EXPECT_EQ(r.Keys(), (std::vector<std::string>{"model", "hardware", "forward_count", "dispatches_per_token",
                                                 "moe_to_vec2_count", "brand_new_counter"}));
  EXPECT_FALSE(r.Find("model")->number.has_value());
  EXPECT_EQ(r.Find("hardware")->text, "Apple M5 Max, 128 GB");  // a colon-free value with a comma
  EXPECT_TRUE(r.Find("forward_count")->is_integer);
  EXPECT_EQ(*r.Find("forward_count")->number, 127);
  EXPECT_FALSE(r.Find("moe_to_vec2_count")->is_integer);  // "0.00" is written as a decimal
  EXPECT_EQ(r.Find("moe_to_vec2_count")->text, "0.00");
  EXPECT_EQ(*r.Find("dispatches_per_token")->number, 7513.02);
  EXPECT_EQ(*r.Find("brand_new_counter")->number, -300);  // unknown keys are kept
  EXPECT_EQ(r.Find("forward_count")->location.line, 4);
}

TEST(CounterReader, HistorySplitsAtRuleBlocksAndParagraphs) {
  const CounterHistory h = Parse(
      "# first\n"
      "a: 1\n"
      "\n"
      "# ====\n"
      "# second, from a header\n"
      "# more header text\n"
      "# ====\n"
      "a: 2\n"
      "# section comment, not a report\n"
      "b: 3\n"
      "\n"
      "# third, from a paragraph above a repeated key\n"
      "a: 4\n");
  ASSERT_EQ(h.reports.size(), 3u);
  EXPECT_EQ(h.reports[0].title, "first");
  EXPECT_EQ(h.reports[1].title, "second, from a header");
  EXPECT_EQ(h.reports[1].header.size(), 2u);
  EXPECT_EQ(h.reports[1].location.line, 4);
  EXPECT_EQ(h.reports[1].Keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(h.reports[2].title, "third, from a paragraph above a repeated key");
  EXPECT_EQ(h.reports[2].location.line, 12);
  EXPECT_EQ(KnownKeys(h), (std::vector<std::string>{"a", "b"}));
}

TEST(CounterReader, TextWhereEarlierReportsHoldNumbersIsKept) {
  const CounterHistory h = Parse("a: 1\n# ====\n# two\n# ====\na: n/a\n");
  ASSERT_EQ(h.reports.size(), 2u);
  EXPECT_EQ(h.reports[1].Find("a")->text, "n/a");
  EXPECT_FALSE(h.reports[1].Find("a")->number.has_value());
}

struct BadCase {
  const char* text;
  const char* code;
  int line;
};

class CounterReaderErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(CounterReaderErrors, FailWithCodeAndLine) {
  const Status s = ErrorOf(GetParam().text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), GetParam().code) << s.ToString();
  EXPECT_EQ(s.location().path, "c.txt");
  EXPECT_EQ(s.location().line, GetParam().line) << s.ToString();
}

INSTANTIATE_TEST_SUITE_P(
    All, CounterReaderErrors,
    ::testing::Values(BadCase{"a: 1\nthis is prose\n", "counters.bad_line", 2},
                      BadCase{"a: 1\nb:\n", "counters.bad_line", 2},
                      BadCase{"a b: 1\n", "counters.bad_line", 1},
                      BadCase{"a: 1\nb: 2\na: 3\n", "counters.duplicate_key", 3},
                      BadCase{"a: 1\n# ====\n# open\na: 2\n", "counters.unclosed_header", 4},
                      BadCase{"a: 1\n# ====\n# never closed\n", "counters.unclosed_header", 2},
                      BadCase{"a: 1\n# ====\n# empty\n# ====\n# ====\n# next\n# ====\na: 2\n", "counters.empty_report", 2},
                      BadCase{"# only comments\n\n", "counters.no_values", 1},
                      BadCase{"", "counters.no_values", 1},
                      BadCase{"a: 1e999\n", "counters.bad_number", 1},
                      BadCase{"a: \xff\n", "counters.bad_utf8", 1}));

TEST(CounterReader, DuplicateKeySaysWhereTheFirstIs) {
  const Status s = ErrorOf("a: 1\nb: 2\na: 3\n");
  EXPECT_NE(s.message().find("first at line 1"), std::string::npos) << s.message();
  EXPECT_EQ(s.ToString().rfind("c.txt:3:1: error[counters.duplicate_key]", 0), 0u) << s.ToString();
}

TEST(CounterReader, ChooseCountersFailsOnUnknownListingKeys) {
  const CounterHistory h = Parse("median_tok_per_sec: 1\ndispatches_per_token: 2\nother: 3\n");
  auto chosen = ChooseCounters(h, {});
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(*chosen, (std::vector<std::string>{"median_tok_per_sec", "dispatches_per_token"}));
  auto bad = ChooseCounters(h, {"other", "typo"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), "counters.unknown_counter");
  EXPECT_NE(bad.status().message().find("median_tok_per_sec, dispatches_per_token, other"), std::string::npos)
      << bad.status().message();
}

// hf2q's real history (shared/corpus/hf2q/metrics_baseline.txt). The figures were
// counted independently of perfgate's reader by tests/corpus/counter_history.py
// (which splits at each report's `model:` line instead of at headers; it prints "reports 9",
// "keys 19", each title, and each value with int/float/text):
//   python3 tests/corpus/counter_history.py $PERFGATE_CORPUS_DIR/hf2q/metrics_baseline.txt
//       median_tok_per_sec dispatches_per_token forward_count norm_dispatches_per_token model
TEST(CounterReaderCorpus, Hf2qMetricsBaseline) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/metrics_baseline.txt");
  auto h = ReadCounterHistory(path);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ(h->reports.size(), 9u);
  EXPECT_EQ(h->reports[0].title, "ADR-005 Phase 1b 1bNEW.0 \xE2\x80\x94 dispatch counter report");
  EXPECT_EQ(h->reports[1].title, "ADR-005 1bNEW.1 Phase C \xE2\x80\x94 fused MoE kernel for all 30 layers");
  EXPECT_EQ(h->reports[5].title, "ADR-005 1bNEW.6 \xE2\x80\x94 Phase C (default = fused RoPE)");  // no ==== header
  EXPECT_EQ(h->reports[6].title, "ADR-005 1bNEW.17 \xE2\x80\x94 Phase C (default = fused F16 lm_head)");
  EXPECT_EQ(h->reports[8].title,
            "ADR-005 1bNEW.20 Phase B \xE2\x80\x94 KV cache in-place append (Walk-KERNEL-PORT)");
  const char* tok_per_sec[] = {"24.17", "36.78", "37.03", "37.06", "44.55", "48.71", "58.51", "58.27", "85.10"};
  const char* dispatches[] = {"7513.02", "5653.02", "5652.52", "5652.52", "2432.52",
                              "2192.52", "2194.52", "2194.52", "2104.52"};
  for (size_t i = 0; i < 9; ++i) {
    const CounterReport& r = h->reports[i];
    EXPECT_EQ(r.Find("median_tok_per_sec")->text, tok_per_sec[i]) << i;
    EXPECT_EQ(r.Find("dispatches_per_token")->text, dispatches[i]) << i;
    EXPECT_TRUE(r.Find("forward_count")->is_integer) << i;
    EXPECT_EQ(*r.Find("forward_count")->number, 127) << i;
    EXPECT_FALSE(r.Find("norm_dispatches_per_token")->is_integer) << i;  // "3521.00", "331.00"
    EXPECT_FALSE(r.Find("model")->number.has_value()) << i;
  }
  EXPECT_EQ(*h->reports[8].Find("dispatches_per_token")->number, 2104.52);
  EXPECT_EQ(h->reports[4].Find("norm_dispatches_per_token")->text, "331.00");
  EXPECT_EQ(KnownKeys(*h).size(), 19u);
  // A trial's counters.txt holds one report: the history is refused, naming the count.
  auto one = ReadCounterReport(path);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.status().code(), "counters.history_in_trial");
  EXPECT_NE(one.status().message().find("holds 9"), std::string::npos) << one.status().message();
}

}  // namespace
}  // namespace perfgate::counters
