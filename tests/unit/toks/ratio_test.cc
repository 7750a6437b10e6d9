// Ratio-floor policies (the real perf_baseline.json), ratio verdicts with and without
// samples, goldens and the assertions.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "perfgate/golden/golden.h"
#include "perfgate/document/render.h"
#include "perfgate/gtest/toks_ratio.h"
#include "perfgate/toks/ratio.h"
#include "support/corpus.h"

namespace perfgate::toks {
namespace {

// The verdicts' report document as text and as Markdown.
std::string TextOf(const std::vector<RatioVerdict>& v) { return document::Render(RatioDocument(v), "text").value(); }
std::string MarkdownOf(const std::vector<RatioVerdict>& v) {
  return document::Render(RatioDocument(v), "markdown").value();
}

const std::string kFixtures = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/toks/hf2q";

BenchReport Report(const std::string& text) {
  auto r = ParseBenchReport(text, "r.json");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : BenchReport{};
}

// A tg128 report with one sample per given tok/s (samples_ns = 128e9 / tok/s).
BenchReport Tg128(const std::vector<double>& ts) {
  std::string ns;
  for (double t : ts) ns += (ns.empty() ? "" : ", ") + std::to_string(128e9 / t);
  return Report(R"({"tests": [{"n_prompt": 0, "n_gen": 128, "samples_ns": [)" + ns + "]}]}");
}

BenchReport Tg128NoSamples(double avg_ts) {
  return Report(R"([{"n_prompt": 0, "n_gen": 128, "avg_ts": )" + std::to_string(avg_ts) + "}]");
}

// The figures below are those tests/corpus/toks_policy.py prints for the corpus file
// (run: python3 tests/corpus/toks_policy.py $PERFGATE_CORPUS_DIR/hf2q/perf_baseline.json).
TEST(ToksPolicy, ReadsTheRealPerfBaselineAsIs) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/perf_baseline.json");
  auto p = ReadRatioPolicy(path);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->has_tolerance);
  EXPECT_EQ(p->tolerance_pp, 1.0);
  EXPECT_EQ(p->commentary_keys, 103);
  ASSERT_EQ(p->cells.size(), 6u);
  const std::pair<const char*, double> expected[] = {
      {"gemma-26B-dwq", 1.0},          {"qwen3.6-27b-dwq46", 1.03},    {"qwen3.6-27b-dwq48", 1.0},
      {"qwen3.6-35b-a3b-apex", 1.05},  {"qwen3.6-35b-a3b-dwq46", 0.94}, {"qwen3.6-35b-a3b-dwq48", 1.0}};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(p->cells[i].name, expected[i].first);
    EXPECT_EQ(p->cells[i].ratio_floor, expected[i].second) << expected[i].first;
    EXPECT_EQ(p->TestOf(p->cells[i]), "tg128");
  }
  EXPECT_GT(p->cells[4].location.line, 1);
}

TEST(ToksPolicy, UnknownKeysAndMissingFloorsAreErrors) {
  auto unknown = ParseRatioPolicy(R"({"cells": {"a": {"ratio_floor": 1}}, "tolerance_pp": 1})", "p.json");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), "toks.bad_policy");
  EXPECT_NE(unknown.status().message().find("unknown key 'tolerance_pp' (known: cells, test;"), std::string::npos)
      << unknown.status().ToString();
  auto cell_key = ParseRatioPolicy(R"({"cells": {"a": {"ratio_floor": 1, "floor": 2}}})", "p.json");
  ASSERT_FALSE(cell_key.ok());
  EXPECT_NE(cell_key.status().message().find("cell 'a': unknown key 'floor' (known: ratio_floor, test"),
            std::string::npos);
  auto no_floor = ParseRatioPolicy("{\"cells\": {\n \"a\": {\"_note\": \"x\"}}}", "p.json");
  ASSERT_FALSE(no_floor.ok());
  EXPECT_EQ(no_floor.status().message(), "cell 'a' has no ratio_floor");
  EXPECT_EQ(no_floor.status().location().line, 2);
  auto bad_floor = ParseRatioPolicy(R"({"cells": {"a": {"ratio_floor": -1}}})", "p.json");
  ASSERT_FALSE(bad_floor.ok());
  auto bad_tol = ParseRatioPolicy(R"({"cells": {"a": {"ratio_floor": 1}}, "_tolerance_pp": "1"})", "p.json");
  ASSERT_FALSE(bad_tol.ok());
  EXPECT_NE(bad_tol.status().message().find("_tolerance_pp"), std::string::npos);
  auto ok = ParseRatioPolicy(R"({"cells": {"a": {"ratio_floor": 1, "test": "tg256"}}, "test": "pp512"})", "p.json");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->TestOf(ok->cells[0]), "tg256");
  EXPECT_FALSE(ok->has_tolerance);
}

TEST(ToksRatio, WithSamplesAttachesTheRankTest) {
  const BenchReport engine = Tg128({101, 102, 100, 103, 99});
  const BenchReport baseline = Tg128({100, 99.5, 100.5, 99, 101});
  auto v = JudgeRatio("c", engine, baseline, "tg128", 1.0, 1.0);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->has_samples);
  EXPECT_NEAR(v->ratio, 1.01, 1e-9);
  EXPECT_TRUE(v->pass);
  ASSERT_TRUE(v->verdict.p_value.has_value());
  EXPECT_EQ(v->verdict.n_current, 5);
  EXPECT_EQ(v->verdict.n_baseline, 5);
  EXPECT_EQ(v->verdict.metric, "toks/c/ratio");
  EXPECT_EQ(v->verdict.explanation.find("no rank test"), std::string::npos) << v->verdict.explanation;
}

// perf_baseline.json's rule: a cell fails when its ratio drops more than
// _tolerance_pp points below ratio_floor; exactly at floor - tolerance passes.
TEST(ToksRatio, FailsOnlyBeyondTheTolerance) {
  const BenchReport baseline = Tg128NoSamples(100);
  auto at_edge = JudgeRatio("c", Tg128NoSamples(93), baseline, "tg128", 0.94, 1.0);
  ASSERT_TRUE(at_edge.ok());
  EXPECT_TRUE(at_edge->pass) << at_edge->verdict.explanation;
  auto beyond = JudgeRatio("c", Tg128NoSamples(92.9), baseline, "tg128", 0.94, 1.0);
  ASSERT_TRUE(beyond.ok());
  EXPECT_FALSE(beyond->pass);
  EXPECT_NE(beyond->verdict.explanation.find("beyond the floor"), std::string::npos) << beyond->verdict.explanation;
  auto no_tolerance = JudgeRatio("c", Tg128NoSamples(93.9), baseline, "tg128", 0.94, 0);
  ASSERT_TRUE(no_tolerance.ok());
  EXPECT_FALSE(no_tolerance->pass);
}

TEST(ToksRatio, WithoutSamplesSaysItHasNone) {
  auto v = JudgeRatio("c", Tg128NoSamples(101), Tg128NoSamples(100), "tg128", 1.0, 1.0);
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->has_samples);
  EXPECT_FALSE(v->verdict.p_value.has_value());
  EXPECT_NE(v->verdict.explanation.find("no rank test: neither side has per-repetition samples"), std::string::npos)
      << v->verdict.explanation;
  auto one_side = JudgeRatio("c", Tg128({101, 102, 100}), Tg128NoSamples(100), "tg128", 1.0, 1.0);
  ASSERT_TRUE(one_side.ok());
  // The side without samples is named as lacking them (the sentence said "has" before).
  EXPECT_NE(one_side->verdict.explanation.find("no rank test: the baseline has no per-repetition samples"),
            std::string::npos)
      << one_side->verdict.explanation;
  auto other_side = JudgeRatio("c", Tg128NoSamples(101), Tg128({100, 101, 99}), "tg128", 1.0, 1.0);
  ASSERT_TRUE(other_side.ok());
  EXPECT_NE(other_side->verdict.explanation.find("no rank test: the engine has no per-repetition samples"),
            std::string::npos)
      << other_side->verdict.explanation;
}

TEST(ToksRatio, UnknownTestListsTheKnownOnes) {
  auto v = JudgeRatio("c", Tg128NoSamples(1), Tg128NoSamples(1), "tg256", 1.0, 0);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), "toks.unknown_test");
  EXPECT_NE(v.status().message().find("its tests: tg128"), std::string::npos);
}

// A report of the given tests, each {"n_prompt", "n_gen"} with avg_ts 100.
BenchReport Tests(const std::vector<std::pair<int, int>>& sizes, const std::string& extra = "") {
  std::string text = "[";
  for (const auto& [p, g] : sizes) {
    text += (text.size() > 1 ? ", " : "") + std::string("{\"n_prompt\": ") + std::to_string(p) +
            ", \"n_gen\": " + std::to_string(g) + ", \"avg_ts\": 100" + extra + "}";
  }
  return Report(text + "]");
}

// No test named: the one tg test both reports hold is gated and said; where there is
// none in common the default's error says how to choose.
TEST(ToksRatio, ChoosesTheOneCommonTgTestOrSaysHowToChoose) {
  auto one = JudgeRatio("c", Tests({{512, 0}, {0, 256}}), Tests({{0, 256}, {512, 0}}), "", 1.0, 0);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->test, "tg256");
  EXPECT_EQ(one->diagnostics.Count("toks.auto_test"), 1);
  EXPECT_NE(TextOf({*one}).find("note c: toks.auto_test x1 (info): neither --test nor the policy names a "
                                          "test: gated tg256, the one tg test of both reports"),
            std::string::npos)
      << TextOf({*one});
  auto unnamed_cell = JudgeRatio("", Tests({{0, 256}}), Tests({{0, 256}}), "", 1.0, 0);
  ASSERT_TRUE(unnamed_cell.ok());
  EXPECT_EQ(unnamed_cell->cell, "tg256");
  const char* kHow = "choose one with --test ID or a \"test\" key in the policy";
  for (const auto& [engine, baseline] :
       {std::pair{Tests({{0, 256}}), Tests({{0, 128}, {0, 256}})},  // two tg tests on one side
        std::pair{Tests({{0, 256}}), Tests({{0, 512}})}}) {           // one each, different
    auto v = JudgeRatio("c", engine, baseline, "", 1.0, 0);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), "toks.unknown_test");
    EXPECT_NE(v.status().message().find(kHow), std::string::npos) << v.status().message();
  }
  // Where both hold tg128 and more, the default reads it; a named test is never replaced.
  auto both = JudgeRatio("c", Tests({{0, 128}, {0, 256}}), Tests({{0, 128}, {0, 256}}), "", 1.0, 0);
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->test, "tg128");
  EXPECT_FALSE(both->diagnostics.Has("toks.auto_test"));
  auto named = JudgeRatio("c", Tests({{0, 256}}), Tests({{0, 256}}), "tg128", 1.0, 0);
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().message().find(kHow), std::string::npos);
}

// Both sides name a model and the names differ (file base names, without .gguf): a
// warning in the table notes; paths and the extension alone are no mismatch.
TEST(ToksRatio, ModelMismatchIsAWarningInTheNotes) {
  const auto model = [](const std::string& name) { return ", \"model_filename\": \"" + name + "\""; };
  auto differ = JudgeRatio("c", Tests({{0, 128}}, model("qwen-a")), Tests({{0, 128}}, model("models/qwen-b.gguf")),
                           "tg128", 1.0, 0);
  ASSERT_TRUE(differ.ok());
  const Diagnostics::Entry* e = differ->diagnostics.Find("toks.model_mismatch");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->severity, Severity::kWarning);
  const std::string table = TextOf({*differ});
  EXPECT_NE(table.find("note c: toks.model_mismatch x1 (warning): the engine ran model 'qwen-a', llama-bench "
                       "'models/qwen-b.gguf'"),
            std::string::npos)
      << table;
  // Markdown escapes what would format the note ("_" would open emphasis).
  EXPECT_NE(MarkdownOf({*differ}).find("- note c: toks.model\\_mismatch x1 (warning)"), std::string::npos);
  auto same = JudgeRatio("c", Tests({{0, 128}}, model("qwen-a")), Tests({{0, 128}}, model("/m/qwen-a.gguf")),
                         "tg128", 1.0, 0);
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->diagnostics.empty());
  auto unnamed = JudgeRatio("c", Tests({{0, 128}}), Tests({{0, 128}}, model("qwen-b.gguf")), "tg128", 1.0, 0);
  ASSERT_TRUE(unnamed.ok());
  EXPECT_TRUE(unnamed->diagnostics.empty());
}

// The reports' unknown fields reach the table notes and the JSON, per cell.
TEST(ToksRatio, UnknownFieldsReachTheNotesAndTheJson) {
  auto v = JudgeRatio("c", Tests({{0, 128}}, ", \"new_knob\": 1"), Tests({{0, 128}}), "tg128", 1.0, 0);
  ASSERT_TRUE(v.ok());
  EXPECT_NE(TextOf({*v}).find("note c: toks.unknown_field x1 (info): field 'new_knob' of test tg128 is none "
                                        "of llama-bench's; kept as text, not read (first at r.json:1:2)"),
            std::string::npos)
      << TextOf({*v});
  auto j = nlohmann::json::parse(FormatRatioJson({*v}));
  ASSERT_EQ(j["cells"][0]["diagnostics"].size(), 1u);
  EXPECT_EQ(j["cells"][0]["diagnostics"][0]["code"], "toks.unknown_field");
  EXPECT_EQ(j["cells"][0]["diagnostics"][0]["severity"], "info");
  EXPECT_EQ(j["cells"][0]["diagnostics"][0]["count"], 1);
  EXPECT_EQ(j["cells"][0]["diagnostics"][0]["first_location"], "r.json:1:2");
}

TEST(ToksRatio, PolicyOverTheFixtures) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "hf2q/perf_baseline.json");
  auto p = ReadRatioPolicy(path);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  auto verdicts = JudgePolicy(*p, kFixtures, "tg256");
  ASSERT_TRUE(verdicts.ok()) << verdicts.status().ToString();
  ASSERT_EQ(verdicts->size(), 6u);
  for (const RatioVerdict& v : *verdicts) {
    EXPECT_TRUE(v.pass) << v.verdict.explanation;
    EXPECT_TRUE(v.has_samples);
  }
  // dwq46: the fixtures' medians are the cell's 114.1 / 120.07 (fixtures/toks/README.md),
  // within the rounding of whole nanoseconds.
  const RatioVerdict& dwq46 = (*verdicts)[4];
  EXPECT_EQ(dwq46.cell, "qwen3.6-35b-a3b-dwq46");
  EXPECT_NEAR(dwq46.engine_ts, 114.1, 1e-6);
  EXPECT_NEAR(dwq46.baseline_ts, 120.07, 1e-6);
  EXPECT_NEAR(dwq46.ratio, 0.9503, 1e-4);
  // Without --test (and no "test" in the policy), each cell's one tg test, tg256, is
  // gated and said; the fixtures name the same models on both sides (no mismatch).
  auto chosen = JudgePolicy(*p, kFixtures);
  ASSERT_TRUE(chosen.ok()) << chosen.status().ToString();
  ASSERT_EQ(chosen->size(), 6u);
  for (const RatioVerdict& v : *chosen) {
    EXPECT_EQ(v.test, "tg256") << v.cell;
    EXPECT_EQ(v.diagnostics.Count("toks.auto_test"), 1) << v.cell;
    EXPECT_EQ(v.diagnostics.Count("toks.model_mismatch"), 0) << v.cell;
  }
  EXPECT_EQ((*chosen)[4].ratio, dwq46.ratio);
  auto missing = JudgePolicy(*p, kFixtures + "/nowhere", "tg256");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), "toks.missing_report");
  EXPECT_EQ(missing.status().location().path, path);
}

TEST(ToksRatio, GoldenAndFormats) {
  auto v = JudgeRatio("cell.a", Tg128({101, 102, 100}), Tg128({100, 99, 101}), "tg128", 1.0, 1.0);
  ASSERT_TRUE(v.ok());
  golden::GoldenFile g = RatioGolden({*v});
  ASSERT_EQ(g.values.size(), 3u);
  EXPECT_EQ(g.values.at("toks/cell.a/ratio").policy.abs, 0.01);
  EXPECT_EQ(g.values.at("toks/cell.a/ratio").policy.dir, gates::Direction::kHigherIsBetter);
  EXPECT_EQ(g.values.at("toks/cell.a/ratio").samples.size(), 3u);
  EXPECT_FALSE(g.values.at("toks/cell.a/baseline_ts").policy.gated);
  EXPECT_EQ(g.context.at("toks/cell.a/test"), "tg128");
  auto back = golden::ParseGolden(golden::RenderGolden(g), "g.json");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  const std::string table = TextOf({*v});
  EXPECT_NE(table.find("cell    test   engine tok/s  baseline tok/s   ratio  floor  tolerance  verdict  samples n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("1.0100"), std::string::npos) << table;
  const std::string json = FormatRatioJson({*v});
  auto parsed = nlohmann::json::parse(json);
  EXPECT_EQ(parsed["cells"][0]["ratio"].get<double>(), v->ratio);  // lossless
  EXPECT_EQ(parsed["cells"][0]["engine_samples_ts"][1].get<double>(), v->engine_samples[1]);
  EXPECT_TRUE(parsed["pass"].get<bool>());
  EXPECT_TRUE(parsed["cells"][0]["p_value"].is_number());
  EXPECT_TRUE(parsed["cells"][0]["diagnostics"].empty());
  // The shared renderer's layout (sorted keys, 2-space indent) and escaping.
  RatioVerdict odd = *v;
  odd.cell = "a \"b\"\n|c";
  const std::string odd_json = FormatRatioJson({odd});
  EXPECT_EQ(nlohmann::json::parse(odd_json)["cells"][0]["cell"], odd.cell);
  EXPECT_EQ(odd_json.rfind("{\n  \"cells\": [\n    {\n      \"baseline_samples_ts\": [", 0), 0u) << odd_json;
  EXPECT_NE(MarkdownOf({*v}).find("| cell | test | engine tok/s |"), std::string::npos);
}

TEST(ToksAssertions, PassAndFailWhereTheyMust) {
  const BenchReport engine = Tg128({95, 96, 94, 95.5, 94.5});
  const BenchReport baseline = Tg128({100, 99.5, 100.5, 99, 101});
  PERFGATE_EXPECT_TOKS_RATIO_AT_LEAST(engine, baseline, "tg128", 0.94);
  PERFGATE_EXPECT_TOKS_RATIO_AT_LEAST_WITHIN_PP(engine, baseline, "tg128", 0.96, 1.0);
  EXPECT_NONFATAL_FAILURE(PERFGATE_EXPECT_TOKS_RATIO_AT_LEAST(engine, baseline, "tg128", 0.96),
                          "tok/s ratio below its floor");
  EXPECT_NONFATAL_FAILURE(PERFGATE_EXPECT_TOKS_RATIO_AT_LEAST(engine, baseline, "tg128", 0.96),
                          "toks/tg128/ratio 0.95 vs floor 0.96: beyond the floor, regressed");
  EXPECT_NONFATAL_FAILURE(PERFGATE_EXPECT_TOKS_RATIO_AT_LEAST(engine, baseline, "pp512", 0.9),
                          "has no test 'pp512' (its tests: tg128)");
  auto v = JudgeRatio("c", engine, baseline, "tg128", 0.96, 0);
  ASSERT_TRUE(v.ok());
  EXPECT_NONFATAL_FAILURE(PERFGATE_EXPECT_TOKS_CELLS_PASS(std::vector<RatioVerdict>{*v}), "FAIL c:");
  EXPECT_NONFATAL_FAILURE(PERFGATE_EXPECT_TOKS_CELLS_PASS(std::vector<RatioVerdict>{}), "no tok/s cells");
}

}  // namespace
}  // namespace perfgate::toks
