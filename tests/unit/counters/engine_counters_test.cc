// Counter reports as figures of an engine: read beside each trial's trace, medians
// over trials (failing closed on trials that disagree), the catalogue's "counters"
// scope and golden entries, and the assertions, including where they must fail.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "perfgate/attribution/attribute.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/gtest/perfgate_gtest.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/report/formats.h"
#include "support/report_render.h"

namespace perfgate {
namespace {

namespace fs = std::filesystem;
using attribution::EngineSummary;
using attribution::TrialSummary;

counters::CounterReport Report(const std::string& text, const std::string& path = "c.txt") {
  auto h = counters::ParseCounterHistory(text, path);
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return h->reports.front();
}

TrialSummary Trial(const std::string& path, std::optional<std::string> counters, double submissions = 44) {
  TrialSummary t;
  t.path = path;
  t.tokens = 64;
  t.items_per_token = submissions;
  if (counters) t.counters = Report(*counters, path + "/counters.txt");
  return t;
}

StatusOr<EngineSummary> Engine(std::vector<TrialSummary> trials) {
  EngineSummary e = attribution::SummarizeEngine("hf2q", std::move(trials), {}, false);
  PERFGATE_RETURN_IF_ERROR(attribution::MedianCounters(&e));
  return e;
}

const char kTrial1[] = "model: m.gguf\nforward_count: 63\ndispatches_per_token: 1070.52\nmedian_tok_per_sec: 92.10\n";
const char kTrial2[] = "model: m.gguf\nforward_count: 63\ndispatches_per_token: 1070.52\nmedian_tok_per_sec: 92.42\n";
const char kTrial3[] = "model: m.gguf\nforward_count: 64\ndispatches_per_token: 1071.00\nmedian_tok_per_sec: 91.96\n";

TEST(EngineCounters, MediansOverTrialsKeepPerTrialValuesAndText) {
  auto e = Engine({Trial("t1", kTrial1), Trial("t2", kTrial2), Trial("t3", kTrial3)});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const auto& d = e->counters.at("dispatches_per_token");
  EXPECT_EQ(d.value.median, 1070.52);
  EXPECT_EQ(d.value.per_trial, (std::vector<double>{1070.52, 1070.52, 1071.0}));
  EXPECT_EQ(d.per_trial_text, (std::vector<std::string>{"1070.52", "1070.52", "1071.00"}));
  EXPECT_FALSE(d.is_integer);
  EXPECT_EQ(e->counters.at("median_tok_per_sec").value.median, 92.10);
  EXPECT_EQ(e->counters.at("forward_count").value.median, 63);
  EXPECT_TRUE(e->counters.at("forward_count").is_integer);
  EXPECT_EQ(e->counter_text.at("model"), "m.gguf");
  EXPECT_EQ(e->counters_path, "t1/counters.txt");
}

TEST(EngineCounters, AnEvenMedianOfIntegersIsNoInteger) {
  auto e = Engine({Trial("t1", "n: 3\n"), Trial("t2", "n: 4\n")});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->counters.at("n").value.median, 3.5);
  EXPECT_FALSE(e->counters.at("n").is_integer);
}

TEST(EngineCounters, NoReportsNoCounters) {
  auto e = Engine({Trial("t1", std::nullopt), Trial("t2", std::nullopt)});
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->counters.empty());
  EXPECT_TRUE(e->counters_path.empty());
}

TEST(EngineCounters, FailsClosedOnTrialsThatDisagree) {
  auto some = Engine({Trial("t1", kTrial1), Trial("t2", std::nullopt)});
  ASSERT_FALSE(some.ok());
  EXPECT_EQ(some.status().code(), "counters.missing_report");
  EXPECT_NE(some.status().message().find("trial t2"), std::string::npos) << some.status().message();

  auto lacking = Engine({Trial("t1", kTrial1), Trial("t2", "model: m.gguf\nforward_count: 63\n")});
  ASSERT_FALSE(lacking.ok());
  EXPECT_EQ(lacking.status().code(), "counters.missing_counter");
  EXPECT_NE(lacking.status().message().find("trial t2 lacks the counter 'dispatches_per_token'"), std::string::npos)
      << lacking.status().message();

  // Also when the later trial has the extra counter.
  auto extra = Engine({Trial("t1", "a: 1\n"), Trial("t2", "a: 1\nb: 2\n")});
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.status().code(), "counters.missing_counter");
  EXPECT_NE(extra.status().message().find("trial t1 lacks the counter 'b'"), std::string::npos);

  auto kinds = Engine({Trial("t1", "a: 1\n"), Trial("t2", "a: n/a\n")});
  ASSERT_FALSE(kinds.ok());
  EXPECT_EQ(kinds.status().code(), "counters.mixed_kinds");
  EXPECT_EQ(kinds.status().location().path, "t2/counters.txt");

  // Trials of different models are not one engine's trials: an error, never a merge.
  auto models = Engine({Trial("t1", "model: a.gguf\na: 1\n"), Trial("t2", "model: b.gguf\na: 1\n")});
  ASSERT_FALSE(models.ok());
  EXPECT_EQ(models.status().code(), "counters.mixed_text");
  EXPECT_EQ(models.status().location().path, "t2/counters.txt");
  EXPECT_EQ(models.status().location().line, 1);
  EXPECT_NE(models.status().message().find("'model' is 'b.gguf' in trial t2 but 'a.gguf' in trial t1"),
            std::string::npos)
      << models.status().message();
}

TEST(EngineCounters, CatalogueScopeCountersExactByDefault) {
  auto e = Engine({Trial("t1", kTrial1), Trial("t2", kTrial2), Trial("t3", kTrial3)});
  ASSERT_TRUE(e.ok());
  auto m = metrics::FindMetric(*e, "counters/dispatches_per_token");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->id.VerdictName("hf2q"), "hf2q.counters.dispatches_per_token");
  EXPECT_EQ(m->id.CounterName(), "counters.dispatches_per_token");
  EXPECT_EQ(m->value.median, 1070.52);
  EXPECT_EQ(m->policy.kind, gates::Kind::kExact);
  EXPECT_EQ(m->policy.abs, 0);
  auto unknown = metrics::FindMetric(*e, "counters/dispatches");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("counters/dispatches_per_token"), std::string::npos);

  const golden::GoldenFile g = metrics::EngineGolden(*e);
  ASSERT_TRUE(g.values.count("counters/forward_count"));
  EXPECT_TRUE(g.values.at("counters/forward_count").is_integer);
  EXPECT_FALSE(g.values.at("counters/dispatches_per_token").is_integer);
  EXPECT_EQ(g.values.at("counters/dispatches_per_token").samples, (std::vector<double>{1070.52, 1070.52, 1071.0}));
  EXPECT_EQ(g.context.at("counters.model"), "m.gguf");
  EXPECT_FALSE(g.values.count("counters/model"));  // text goes to the context only
}

TEST(EngineCounters, RateAndTimingCountersAreNoisyCountsExact) {
  auto e = Engine({Trial("t1", kTrial1), Trial("t2", kTrial2), Trial("t3", kTrial3)});
  ASSERT_TRUE(e.ok());
  auto rate = metrics::FindMetric(*e, "counters/median_tok_per_sec");
  ASSERT_TRUE(rate.ok()) << rate.status().ToString();
  EXPECT_EQ(rate->policy.kind, gates::Kind::kNoisy);
  EXPECT_EQ(rate->policy.rel, 0.05);
  EXPECT_EQ(rate->policy.dir, gates::Direction::kHigherIsBetter);
  EXPECT_EQ(rate->policy.abs, 0);  // no floor: 5 % of 24 tok/s is 1.2 tok/s
  auto count = metrics::FindMetric(*e, "counters/forward_count");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(count->policy.kind, gates::Kind::kExact);
  EXPECT_EQ(count->policy.abs, 0);
}

TEST(EngineCounters, GoldensWithoutCountersGainNoFields) {
  auto with = Engine({Trial("t1", kTrial1)});
  auto without = Engine({Trial("t1", std::nullopt)});
  ASSERT_TRUE(with.ok() && without.ok());
  const auto g = metrics::EngineGolden(*without);
  for (const auto& [path, _] : g.values) EXPECT_NE(path.rfind("counters/", 0), 0u) << path;
  for (const auto& [key, _] : g.context) EXPECT_NE(key.rfind("counters.", 0), 0u) << key;
  EXPECT_EQ(metrics::EngineGolden(*with).values.size(), g.values.size() + 3);
}

TEST(EngineCounters, CounterAtMostPassesAndFails) {
  auto e = Engine({Trial("t1", kTrial1), Trial("t2", kTrial2), Trial("t3", kTrial3)});
  ASSERT_TRUE(e.ok());
  PERFGATE_EXPECT_COUNTER_AT_MOST(*e, "dispatches_per_token", 2200);
  const auto over = testing::CounterAtMost(*e, "dispatches_per_token", 1000);
  ASSERT_FALSE(over);
  const std::string msg = over.message();
  EXPECT_NE(msg.find("hf2q.counters.dispatches_per_token at most 1000 (from the engine's counters, t1/counters.txt)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("regressed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(engine counters: t2/counters.txt)"), std::string::npos) << msg;
  // Exact: no tolerance above the budget.
  EXPECT_FALSE(testing::CounterAtMost(*e, "dispatches_per_token", 1070.51));
  EXPECT_TRUE(testing::CounterAtMost(*e, "dispatches_per_token", 1070.52));
}

TEST(EngineCounters, CounterAtMostFailsOnUnknownAndAbsentCounters) {
  auto e = Engine({Trial("t1", kTrial1)});
  ASSERT_TRUE(e.ok());
  const auto unknown = testing::CounterAtMost(*e, "dispatch_per_token", 1);
  ASSERT_FALSE(unknown);
  EXPECT_NE(std::string(unknown.message())
                .find("no counter 'dispatch_per_token' (counters: dispatches_per_token, forward_count, "
                      "median_tok_per_sec)"),
            std::string::npos)
      << unknown.message();
  const auto text = testing::CounterAtMost(*e, "model", 1);
  ASSERT_FALSE(text);
  EXPECT_NE(std::string(text.message()).find("is text"), std::string::npos);
  auto none = Engine({Trial("t1", std::nullopt)});
  const auto absent = testing::CounterAtMost(*none, "dispatches_per_token", 1);
  ASSERT_FALSE(absent);
  EXPECT_NE(std::string(absent.message()).find("trial-K/counters.txt"), std::string::npos) << absent.message();
}

TEST(EngineCounters, DispatchBudgetTakesTheBestSource) {
  auto counted = Engine({Trial("t1", kTrial1)});
  ASSERT_TRUE(counted.ok());
  EXPECT_TRUE(testing::DispatchesPerTokenAtMost(*counted, 1100));
  const auto over = testing::DispatchesPerTokenAtMost(*counted, 1000);
  ASSERT_FALSE(over);
  EXPECT_NE(std::string(over.message()).find("from the engine's counters"), std::string::npos);
  EXPECT_NE(std::string(over.message()).find("hf2q.counters.dispatches_per_token"), std::string::npos);

  // A Metal trace without counters counts submissions: no dispatch budget from it.
  auto metal = Engine({Trial("t1", std::nullopt, 44)});
  const auto refused = testing::DispatchesPerTokenAtMost(*metal, 1000);
  ASSERT_FALSE(refused);
  EXPECT_NE(std::string(refused.message()).find("a Metal trace counts submissions"), std::string::npos)
      << refused.message();

  // A kernel trace counts kernels: its kernels per token are the dispatches.
  TrialSummary kernels = Trial("k1", std::nullopt);
  kernels.source = "trace_json";
  kernels.extras["kernels_per_token"] = 812;
  auto traced = Engine({kernels});
  EXPECT_TRUE(testing::DispatchesPerTokenAtMost(*traced, 900));
  const auto traced_over = testing::DispatchesPerTokenAtMost(*traced, 800);
  ASSERT_FALSE(traced_over);
  EXPECT_NE(std::string(traced_over.message()).find("(from the trace: kernels per token)"), std::string::npos);
}

// The reports show the counters table only where an engine has counters.
TEST(EngineCounters, ReportsShowCountersOnlyWhereThereAreSome) {
  report::Report without;
  without.engines.push_back(*Engine({Trial("t1", std::nullopt)}));
  EXPECT_EQ(report::RenderText(without).find("Engine counters"), std::string::npos);
  EXPECT_EQ(report::RenderMarkdown(without).find("Engine counters"), std::string::npos);
  report::Report with;
  with.engines.push_back(*Engine({Trial("t1", kTrial1)}));
  EXPECT_NE(report::RenderText(with).find("Engine counters"), std::string::npos);
  EXPECT_NE(report::RenderMarkdown(with).find("| `model` | engine counters | m.gguf |"), std::string::npos);
}

// A recording's trials carry counters.txt beside the trace, whatever the source.
class EngineCountersBundle : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("perfgate_counters_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    const fs::path fixture = fs::path(PERFGATE_SOURCE_DIR) / "fixtures/recordings/decode_q4_0/hf2q";
    for (int k = 1; k <= 1; ++k) {  // one trial: a trace read is the slow part
      const fs::path trial = dir_ / ("trial-" + std::to_string(k));
      fs::create_directories(trial);
      for (const auto& f : fs::directory_iterator(fixture / ("trial-" + std::to_string(k)))) {
        fs::create_symlink(f.path(), trial / f.path().filename());
      }
    }
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(int k, const std::string& text) {
    std::ofstream(dir_ / ("trial-" + std::to_string(k)) / "counters.txt") << text;
  }
  StatusOr<EngineSummary> Attribute() {
    auto rec = bundle::DiscoverTrials(dir_.string());
    if (!rec.ok()) return rec.status();
    attribution::AttributionOptions o;
    o.tokens = 64;
    o.process_prefix = "hf2q";
    return bundle::AttributeTrials("hf2q", rec->trials, o);
  }
  fs::path dir_;
};

TEST_F(EngineCountersBundle, ReadsEachTrialsCountersTxt) {
  Write(1, kTrial1);
  auto e = Attribute();
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->counters.at("median_tok_per_sec").value.per_trial, (std::vector<double>{92.10}));
  EXPECT_EQ(e->trials[0].counters->location.path, (dir_ / "trial-1/counters.txt").string());
  EXPECT_EQ(e->counters_path, (dir_ / "trial-1/counters.txt").string());
  EXPECT_GT(e->items_per_token.median, 40);  // the trace's own figures are still there
}

// Both fail before any trace is read (the reports are checked first).
TEST_F(EngineCountersBundle, FailsClosedOnAMissingFileOrAHistory) {
  fs::create_directories(dir_ / "trial-2");
  for (const auto& f : fs::directory_iterator(dir_ / "trial-1")) {
    fs::create_symlink(fs::read_symlink(f.path()), dir_ / "trial-2" / f.path().filename());
  }
  Write(1, kTrial1);
  auto missing = Attribute();
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), "counters.missing_report");
  EXPECT_NE(missing.status().message().find("trial-2"), std::string::npos) << missing.status().message();
  Write(2, std::string(kTrial1) + "# ====\n# second\n# ====\n" + kTrial2);
  auto history = Attribute();
  ASSERT_FALSE(history.ok());
  EXPECT_EQ(history.status().code(), "counters.history_in_trial");
  EXPECT_NE(history.status().message().find("holds 2"), std::string::npos);
}

}  // namespace
}  // namespace perfgate
