// The JSON report: schema_version 6, exact keys, band order, exact values after a round trip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "perfgate/core/version.h"
#include "perfgate/report/formats.h"
#include "report/report_util.h"
#include "unit/report/report_test_data.h"

namespace perfgate::report {
namespace {

using nlohmann::json;
using attribution::EngineSummary;
using testdata::Bits;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAreArray;

std::set<std::string> Keys(const json& j) {
  std::set<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.insert(k);
  return keys;
}

// The goldens round to 6 significant digits (reviewable diffs); the JSON report never
// rounds (DoublesAreShortestRoundTripAndParseBackIdentical below).
TEST(JsonReport, RoundSignificantIsTheGoldensNotTheReports) {
  using ::perfgate::internal::RoundSignificant;
  EXPECT_EQ(RoundSignificant(2.0 / 252.0), 0.00793651);
  EXPECT_EQ(RoundSignificant(9735.6 - 8937.5), 798.1);  // 798.1000000000004 in binary
  EXPECT_EQ(RoundSignificant(123456789.0), 123457000.0);
  EXPECT_EQ(RoundSignificant(-1.23456789), -1.23457);
  EXPECT_EQ(RoundSignificant(0.0), 0.0);
  EXPECT_EQ(RoundSignificant(1e-12 / 3), 3.33333e-13);
  EXPECT_TRUE(std::isnan(RoundSignificant(std::nan(""))));
}

// `out` laid out as nlohmann's dump(2) of the same document read in its own key order:
// the same lines, except that a number may be written in fewer digits (never another
// value).
void ExpectNlohmannLayout(const std::string& out) {
  const std::vector<std::string> ours = testdata::SplitLines(out);
  const std::vector<std::string> theirs = testdata::SplitLines(nlohmann::ordered_json::parse(out).dump(2) + "\n");
  ASSERT_EQ(ours.size(), theirs.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    if (ours[i] == theirs[i]) continue;
    SCOPED_TRACE(ours[i] + " | " + theirs[i]);
    const size_t colon = ours[i].rfind(": ");
    ASSERT_NE(colon, std::string::npos);
    ASSERT_EQ(ours[i].substr(0, colon), theirs[i].substr(0, colon));
    const double a = std::strtod(ours[i].c_str() + colon + 2, nullptr);
    const double b = std::strtod(theirs[i].c_str() + colon + 2, nullptr);
    EXPECT_EQ(Bits(a), Bits(b));
    EXPECT_LE(ours[i].size(), theirs[i].size());
  }
}

TEST(JsonReport, TopLevelShape) {
  std::string out = RenderJson(testdata::Iter22());
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  json j = json::parse(out);
  EXPECT_EQ(Keys(j), (std::set<std::string>{"buckets", "comparison", "engines", "movers", "options", "perfgate",
                                            "schema_version", "seed_compat", "source", "units", "words"}));
  EXPECT_EQ(j["schema_version"], 6);
  EXPECT_TRUE(j["schema_version"].is_number_integer());
  EXPECT_EQ(j["seed_compat"], true);
  EXPECT_EQ(j["units"]["item"],
            "one GPU execution-point pair (about one encoder), not a kernel dispatch");
  EXPECT_EQ(j["units"]["time"], "microseconds per decode token unless the key ends in _ns");
  EXPECT_EQ(Keys(j["engines"]), (std::set<std::string>{"hf2q", "llama"}));
  // 2-space indent: nlohmann's dump of itself, but for doubles, which are the shortest
  // round-trip text. nlohmann's Grisu2 is not always shortest: it writes this report's
  // -7571.099999999999 as -7571.0999999999995.
  ExpectNlohmannLayout(out);
  EXPECT_THAT(out, HasSubstr("\"delta_us_per_token\": -7571.099999999999,"));
  EXPECT_THAT(j.dump(2), HasSubstr("\"delta_us_per_token\": -7571.0999999999995,"));
  EXPECT_EQ(out.substr(0, 32), "{\n  \"buckets\": {\n    \"xs_<2us\": ");
}

TEST(JsonReport, EngineKeysAndMedians) {
  json e = json::parse(RenderJson(testdata::Iter22()))["engines"]["hf2q"];
  EXPECT_EQ(Keys(e), (std::set<std::string>{
                         "n_trials", "median_items_per_token", "median_gpu_us_per_token",
                         "median_busy_us_per_token", "buckets", "families", "phases", "kernels",
                         "kernel_registry", "label_coverage", "gpu_us_per_token_per_trial", "trials",
                         "diagnostics", "counters", "counter_text", "counters_path"}));
  EXPECT_EQ(e["n_trials"], 5);
  EXPECT_EQ(e["median_items_per_token"].get<double>(), 44.2);
  EXPECT_EQ(e["median_gpu_us_per_token"].get<double>(), 9735.6);
  EXPECT_EQ(e["median_busy_us_per_token"].get<double>(), 9735.6);
  EXPECT_EQ(e["label_coverage"].get<double>(), 2583.0 / 2786.0);  // 0.9271356783919598
  EXPECT_EQ(e["gpu_us_per_token_per_trial"],
            json::parse("[9768.9, 9697.5, 9741.1, 9520.9, 9735.6]"));
  EXPECT_EQ(e["diagnostics"], json::parse(R"({"attr.unpaired_end": 3})"));

  json xl = e["buckets"]["xl_>=80us"];
  EXPECT_EQ(Keys(xl),
            (std::set<std::string>{"median_items_per_token", "median_us_per_token", "median_p50_us_per_item"}));
  EXPECT_EQ(xl["median_items_per_token"].get<double>(), 42.1);
  EXPECT_EQ(xl["median_p50_us_per_item"].get<double>(), 194.23);
  EXPECT_EQ(xl["median_us_per_token"].get<double>(), 9703.2);
  EXPECT_EQ(Keys(e["buckets"]).size(), 5u);

  // Families and phases are items of a level alike: calls, items, GPU and host time
  // per token, with the per-trial values the GPU median came from.
  EXPECT_EQ(e["families"]["compute"],
            json::parse(R"({"median_gpu_us_per_token": 3711.0, "median_host_us_per_token": 0.0,
                            "median_calls_per_token": 13.7, "median_items_per_token": 0.0,
                            "mean_us_per_call": 0.0, "gpu_us_per_token_per_trial": [3711.0],
                            "trials_with": 0})"));
  EXPECT_EQ(e["phases"]["layer.attn_moe_ffn"],
            json::parse(R"({"median_gpu_us_per_token": 7779.8, "median_host_us_per_token": 0.0,
                            "median_calls_per_token": 39.38, "median_items_per_token": 39.38,
                            "mean_us_per_call": 197.6, "gpu_us_per_token_per_trial": [],
                            "trials_with": 0})"));
  EXPECT_EQ(e["kernel_registry"]["rms_norm"],
            json::parse(R"(["kernel_rms_norm_f32", "kernel_rms_norm_fuse_f32"])"));
}

TEST(JsonReport, TrialsKeepIntegersAndNullCrossCheck) {
  const Report r = testdata::Iter22();
  json trials = json::parse(RenderJson(r))["engines"]["hf2q"]["trials"];
  ASSERT_EQ(trials.size(), 5u);
  json t = trials[0];  // not const: a missing key reads as null instead of asserting
  EXPECT_EQ(Keys(t), (std::set<std::string>{"path", "tokens", "tokens_source", "items_read", "source_counts",
                                             "items", "excluded", "items_per_token", "gpu_us_per_token",
                                             "busy_us_per_token", "buckets", "diagnostics", "counters_path"}));
  EXPECT_EQ(t["path"], "recordings/hf2q/trial-1");
  EXPECT_EQ(t["tokens"], 64);
  EXPECT_EQ(t["tokens_source"], "given");
  for (const char* k : {"tokens", "items_read", "items"}) EXPECT_TRUE(t[k].is_number_integer()) << k;
  // The source's own counts, whole, under their names.
  json counts = t["source_counts"];
  counts.erase("gpu_intervals_union_ns");
  EXPECT_EQ(counts, json::parse(R"({"rows": 5658, "unpaired_ends": 3, "leftover_starts": 0,
                                   "duplicate_starts": 0, "shader_timeline_rows": 0})"));
  EXPECT_EQ(t["source_counts"]["gpu_intervals_union_ns"].get<int64_t>(),
            r.engines[0].trials[0].busy_union_ns - 64000);
  EXPECT_EQ(t["items_read"], 2829);
  EXPECT_EQ(t["excluded"], json::parse(R"({"other_process": 0, "no_owner": 0, "unnamed_owner": 0,
                                          "outside_window": 0})"));
  EXPECT_FALSE(trials[1]["source_counts"].contains("gpu_intervals_union_ns"));
  EXPECT_EQ(t["gpu_us_per_token"].get<double>(), 9768.9);
  EXPECT_EQ(t["buckets"]["xl_>=80us"],
            json::parse(R"({"count": 2694, "sum_ns": 175000000, "p50_ns": 194230,
                                                      "p95_ns": 560000, "mean_ns": 64960})"));
  EXPECT_TRUE(t["buckets"]["xl_>=80us"]["sum_ns"].is_number_integer());
  EXPECT_EQ(t["diagnostics"], json::parse(R"({"attr.unpaired_end": 3})"));
  EXPECT_EQ(trials[1]["diagnostics"], json::object());
}

TEST(JsonReport, ComparisonExactValues) {
  json c = json::parse(RenderJson(testdata::Iter22()))["comparison"];
  EXPECT_EQ(Keys(c), (std::set<std::string>{"engine", "baseline", "buckets", "total",
                                            "items_per_token", "attack_target", "attack_hint",
                                            "families", "phases", "kernels"}));
  EXPECT_EQ(c["kernels"], json::object());  // Metal summaries name no kernels
  EXPECT_EQ(c["engine"], "hf2q");
  EXPECT_EQ(c["baseline"], "llama");
  EXPECT_EQ(c["attack_target"], "xl_>=80us");
  EXPECT_EQ(c["attack_hint"], "prefill mul_mm_id / lm_head / large blits");
  EXPECT_EQ(c["total"],
            json::parse(R"({"engine_us_per_token": 9735.6, "baseline_us_per_token": 8937.5,
                                       "delta_us_per_token": 798.1000000000004,
                                       "delta_pct": 8.929790209790214,
                                       "p_value": 0.007936507936507936})"));
  EXPECT_EQ(c["total"]["delta_us_per_token"].get<double>(), 9735.6 - 8937.5);
  EXPECT_EQ(c["total"]["delta_pct"].get<double>(), (9735.6 - 8937.5) / 8937.5 * 100.0);
  EXPECT_EQ(c["total"]["p_value"].get<double>(), testdata::kSeparatedP);
  EXPECT_EQ(c["buckets"]["xl_>=80us"]["delta_us_per_token"].get<double>(), 9703.2 - 8930.3);  // 772.9000000000015
  EXPECT_EQ(c["buckets"]["xl_>=80us"]["delta_pct"].get<double>(), (9703.2 - 8930.3) / 8930.3 * 100.0);
  EXPECT_TRUE(c["buckets"]["lg_32_80us"]["delta_pct"].is_null());  // baseline 0
  EXPECT_EQ(c["buckets"]["lg_32_80us"]["delta_us_per_token"].get<double>(), 14.8);
  EXPECT_EQ(
      c["items_per_token"],
      json::parse(R"({"engine_items_per_token": 44.2, "baseline_items_per_token": 3.3,
                            "delta_items_per_token": 40.900000000000006,
                            "delta_pct": 1239.3939393939397, "p_value": 0.007936507936507936})"));
  EXPECT_EQ(c["items_per_token"]["delta_items_per_token"].get<double>(), 44.2 - 3.3);
  EXPECT_EQ(c["items_per_token"]["delta_pct"].get<double>(), (44.2 - 3.3) / 3.3 * 100.0);
  EXPECT_EQ(Keys(c["families"]), (std::set<std::string>{"blit", "compute"}));
  EXPECT_EQ(c["families"]["compute"]["delta_us_per_token"].get<double>(), -4118.9);
  EXPECT_EQ(Keys(c["phases"]), (std::set<std::string>{"layer.attn_moe_ffn", "Command Buffer 0",
                                                      "output_head.fused_norm_lm_argmax"}));
  EXPECT_EQ(c["phases"]["Command Buffer 0"]["baseline_us_per_token"].get<double>(), 8933.8);
}

TEST(JsonReport, NoAttackTargetIsNull) {
  Report r = testdata::Iter22();
  r.comparison->attack_target.reset();
  r.comparison->attack_hint.clear();
  json c = json::parse(RenderJson(r))["comparison"];
  EXPECT_TRUE(c["attack_target"].is_null());
  EXPECT_EQ(c["attack_hint"], "");
}

TEST(JsonReport, EngineOnlyHasNullComparison) {
  json j = json::parse(RenderJson(testdata::EngineOnly()));
  EXPECT_TRUE(j["comparison"].is_null());
  EXPECT_TRUE(j["movers"].is_null());
  EXPECT_EQ(j["seed_compat"], false);
  EXPECT_EQ(Keys(j["engines"]), (std::set<std::string>{"hf2q"}));
}

TEST(JsonReport, NonFiniteBecomesNullAndDuplicateNamesAreKept) {
  Report r = testdata::EngineOnly();
  r.engines[0].gpu_us_per_token.median = std::numeric_limits<double>::infinity();
  r.engines.push_back(testdata::Hf2q());
  json j = json::parse(RenderJson(r));
  EXPECT_TRUE(j["engines"]["hf2q"]["median_gpu_us_per_token"].is_null());
  EXPECT_EQ(Keys(j["engines"]), (std::set<std::string>{"hf2q", "hf2q_2"}));
}

TEST(JsonReport, UnitsSayWhatAnItemIsForTheSource) {
  EXPECT_EQ(json::parse(RenderJson(testdata::Iter22()))["units"]["item"],
            "one GPU execution-point pair (about one encoder), not a kernel dispatch");
  EXPECT_EQ(json::parse(RenderJson(testdata::Iter22FromTraceJson()))["units"]["item"],
            "one GPU kernel event (memcpy and memset included)");
}

// Machine-readable output is lossless: a double is written as the shortest text that
// reads back as the identical double, never rounded to 6 significant digits.
TEST(JsonReport, DoublesAreShortestRoundTripAndParseBackIdentical) {
  Report r = testdata::EngineOnly();
  EngineSummary& e = r.engines[0];
  const double sum = 0.1 + 0.2;  // 0.30000000000000004
  e.items_per_token.median = 1.015625;
  e.gpu_us_per_token.median = 16.4279375;
  e.busy_us_per_token.median = sum;
  e.label_coverage = 1e-7;
  e.gpu_us_per_token.per_trial = {1.015625, 16.4279375, sum, 1e-7, 2.0 / 3.0, 3711.0};
  const std::string out = RenderJson(r);
  EXPECT_THAT(out, HasSubstr("\"median_items_per_token\": 1.015625,"));
  EXPECT_THAT(out, HasSubstr("\"median_gpu_us_per_token\": 16.4279375,"));
  EXPECT_THAT(out, HasSubstr("\"median_busy_us_per_token\": 0.30000000000000004,"));
  EXPECT_THAT(out, HasSubstr("\"label_coverage\": 1e-07,"));
  EXPECT_THAT(out, HasSubstr("      \"gpu_us_per_token_per_trial\": [\n        1.015625,\n        16.4279375,\n"
                             "        0.30000000000000004,\n        1e-07,\n        0.6666666666666666,\n"
                             "        3711.0\n      ],"));
  json j = json::parse(out)["engines"]["hf2q"];
  EXPECT_EQ(Bits(j["median_items_per_token"].get<double>()), Bits(1.015625));
  EXPECT_EQ(Bits(j["median_gpu_us_per_token"].get<double>()), Bits(16.4279375));
  EXPECT_EQ(Bits(j["median_busy_us_per_token"].get<double>()), Bits(sum));
  EXPECT_EQ(Bits(j["label_coverage"].get<double>()), Bits(1e-7));
  ASSERT_EQ(j["gpu_us_per_token_per_trial"].size(), e.gpu_us_per_token.per_trial.size());
  for (size_t i = 0; i < e.gpu_us_per_token.per_trial.size(); ++i) {
    EXPECT_TRUE(j["gpu_us_per_token_per_trial"][i].is_number_float()) << i;  // 3711.0 too
    EXPECT_EQ(Bits(j["gpu_us_per_token_per_trial"][i].get<double>()), Bits(e.gpu_us_per_token.per_trial[i])) << i;
  }
}

// Every double of a full report reads back bit-identical to the summary's, and every
// number in the text is the shortest form of its value (integers stay integers).
TEST(JsonReport, EveryNumberIsLosslessAndShortest) {
  const Report r = testdata::Iter22();
  const std::string out = RenderJson(r);
  const json j = json::parse(out);
  const attribution::Comparison& c = *r.comparison;
  const json& total = j["comparison"]["total"];
  EXPECT_EQ(Bits(total["delta_us_per_token"].get<double>()), Bits(c.total.delta));  // 798.1000000000004
  EXPECT_THAT(out, HasSubstr("\"delta_us_per_token\": 798.1000000000004,"));
  EXPECT_EQ(Bits(total["delta_pct"].get<double>()), Bits(*c.total.delta_pct));
  EXPECT_EQ(Bits(total["p_value"].get<double>()), Bits(2.0 / 252.0));
  for (const auto& d : c.buckets) {
    SCOPED_TRACE(d.name);
    const json& b = j["comparison"]["buckets"][d.name];
    EXPECT_EQ(Bits(b["engine_us_per_token"].get<double>()), Bits(d.engine));
    EXPECT_EQ(Bits(b["delta_us_per_token"].get<double>()), Bits(d.delta));
    if (d.delta_pct) {
      EXPECT_EQ(Bits(b["delta_pct"].get<double>()), Bits(*d.delta_pct));
    }
  }
  EXPECT_EQ(Bits(j["engines"]["hf2q"]["label_coverage"].get<double>()), Bits(2583.0 / 2786.0));
  const std::vector<std::string> numbers = testdata::JsonNumberTokens(out);
  ASSERT_GT(numbers.size(), 100u);
  for (const std::string& n : numbers) {
    SCOPED_TRACE(n);
    if (n.find_first_of(".eE") == std::string::npos) continue;  // an integer
    const double v = std::strtod(n.c_str(), nullptr);
    EXPECT_EQ(testdata::SignificantDigits(n), testdata::ShortestDigits(v));
  }
}

// The keys of `j`'s object members in the order the text lists them.
std::vector<std::string> KeysInOrder(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  return keys;
}

TEST(JsonReport, BucketsInBandOrderWithTheirBounds) {
  Report r = testdata::Iter22();
  r.engines[0].trials[0].buckets = {{"md_8_32us", {1, 9000, 9000, 9000, 9000}},
                                    {"xl_>=80us", {2694, 175000000, 194230, 560000, 64960}}};
  const auto j = nlohmann::ordered_json::parse(RenderJson(r));
  const std::vector<std::string> bands = {"xs_<2us", "sm_2_8us", "md_8_32us", "lg_32_80us", "xl_>=80us"};
  EXPECT_EQ(KeysInOrder(j["buckets"]), bands);  // not sorted: "lg" < "md" < "sm" < "xl" < "xs"
  EXPECT_EQ(KeysInOrder(j["engines"]["hf2q"]["buckets"]), bands);
  EXPECT_EQ(KeysInOrder(j["comparison"]["buckets"]), bands);
  EXPECT_EQ(KeysInOrder(j["engines"]["hf2q"]["trials"][0]["buckets"]),
            (std::vector<std::string>{"md_8_32us", "xl_>=80us"}));
  EXPECT_EQ(j["buckets"]["md_8_32us"],
            nlohmann::ordered_json::parse(R"({"hi_ns": 32000, "hi_us": 32.0,
                "hint": "Q4_0 MoE mat-vec_id (gate/up/down), primary Q4_0 attack surface",
                "lo_ns": 8000, "lo_us": 8.0})"));
  EXPECT_TRUE(j["buckets"]["md_8_32us"]["lo_ns"].is_number_integer());
  EXPECT_TRUE(j["buckets"]["xl_>=80us"]["hi_ns"].is_null());  // the open end
  EXPECT_TRUE(j["buckets"]["xl_>=80us"]["hi_us"].is_null());
  EXPECT_EQ(j["buckets"]["xl_>=80us"]["lo_us"].get<double>(), 80.0);
  // Every other object keeps sorted keys.
  const std::vector<std::string> engine_keys = KeysInOrder(j["engines"]["hf2q"]);
  EXPECT_TRUE(std::is_sorted(engine_keys.begin(), engine_keys.end()));
  const std::vector<std::string> top = KeysInOrder(j);
  EXPECT_TRUE(std::is_sorted(top.begin(), top.end()));
  const std::vector<std::string> md = KeysInOrder(j["comparison"]["buckets"]["md_8_32us"]);
  EXPECT_TRUE(std::is_sorted(md.begin(), md.end()));
}

TEST(JsonReport, VersionAndTheOptionsUsed) {
  Report r = testdata::Iter22();
  attribution::AttributionOptions hf2q;
  hf2q.process_prefix = "hf2q";
  hf2q.tokens = 64;
  hf2q.token_label = "output_head.fused_norm_lm_argmax";
  hf2q.window = attribution::DecodeWindow::Label("output_head.fused_norm_lm_argmax");
  hf2q.device = 1;
  hf2q.process_id = 4242;
  hf2q.lenient = true;
  attribution::AttributionOptions llama;
  llama.all_processes = true;
  llama.window = attribution::DecodeWindow::SkipSubmissions(6);
  llama.kernel_families = {"k_", {{"mv", "matvec"}}};
  r.options = {{"hf2q", hf2q}, {"llama", llama}};
  r.flags = {{"baseline", "llama"}, {"min_trials", "3"}};
  const json j = json::parse(RenderJson(r));
  EXPECT_EQ(j["perfgate"]["version"], std::string(Version()));
  EXPECT_EQ(j["perfgate"]["commit"], std::string(BuildCommit()));
  EXPECT_FALSE(j["perfgate"]["version"].get<std::string>().empty());
  const json& e = j["options"]["engines"]["hf2q"];
  EXPECT_EQ(Keys(e), (std::set<std::string>{"all_processes", "device", "kernel_families", "lenient", "process_id",
                                            "process_prefix", "run", "seed_compat", "token_label", "tokens",
                                            "window"}));  // schema 3: device, process_id, lenient
  EXPECT_EQ(e["process_prefix"], "hf2q");
  EXPECT_EQ(e["device"], 1);
  EXPECT_EQ(e["process_id"], 4242);
  EXPECT_EQ(e["lenient"], true);
  EXPECT_EQ(e["tokens"], 64);
  EXPECT_EQ(e["token_label"], "output_head.fused_norm_lm_argmax");
  EXPECT_EQ(e["window"], json::parse(R"({"mode": "label", "label": "output_head.fused_norm_lm_argmax"})"));
  EXPECT_EQ(e["kernel_families"]["strip_prefix"], "kernel_");
  EXPECT_EQ(e["kernel_families"]["rules"].size(), attribution::DefaultKernelFamilies().rules.size());
  const json& l = j["options"]["engines"]["llama"];
  EXPECT_EQ(l["all_processes"], true);
  EXPECT_TRUE(l["device"].is_null());  // unset: every device kept
  EXPECT_TRUE(l["process_id"].is_null());
  EXPECT_EQ(l["lenient"], false);
  EXPECT_TRUE(l["tokens"].is_null());
  EXPECT_TRUE(l["token_label"].is_null());
  EXPECT_EQ(l["window"], json::parse(R"({"mode": "skip", "skip": 6})"));
  EXPECT_EQ(l["kernel_families"], json::parse(R"({"strip_prefix": "k_", "rules": [{"prefix": "mv", "family": "matvec"}]})"));
  EXPECT_EQ(j["options"]["flags"], json::parse(R"({"baseline": "llama", "min_trials": "3"})"));
  // A report built without options says so with empty objects, not missing keys.
  const json bare = json::parse(RenderJson(testdata::Iter22()));
  EXPECT_EQ(bare["options"], json::parse(R"({"engines": {}, "flags": {}})"));
}

TEST(JsonReport, SourceAndWords) {
  const json metal = json::parse(RenderJson(testdata::Iter22()));
  EXPECT_EQ(metal["source"], "metal");
  EXPECT_EQ(metal["words"]["units"], "submissions");
  EXPECT_EQ(metal["words"]["phase"], "command-buffer phase");
  Report mixed = testdata::Iter22();
  mixed.engines[1].trials[0].source = "trace_json";
  EXPECT_TRUE(json::parse(RenderJson(mixed))["source"].is_null());
  const json kernels = json::parse(RenderJson(testdata::Iter22FromTraceJson()));
  EXPECT_EQ(kernels["source"], "trace_json");
  json words = kernels["words"];
  EXPECT_THAT(words["kernel_names"].get<std::string>(), HasSubstr("the JSON report keeps them whole"));
  words.erase("kernel_names");  // schema 3
  EXPECT_EQ(words, json::parse(R"({"unit": "kernel", "units": "kernels", "family": "kernel family",
                                   "phase": "annotation phase", "registry": "kernel list"})"));
}

// Collects every key of `j` that is not an identifier, except inside the maps keyed by
// names from the configuration or the trace (`named`), whose own keys it checks only
// below them.
void NonIdentifierKeys(const json& j, const std::set<std::string>& named, bool keys_are_names,
                       std::set<std::string>* out) {
  if (j.is_array()) {
    for (const json& e : j) NonIdentifierKeys(e, named, false, out);
    return;
  }
  if (!j.is_object()) return;
  for (const auto& [k, v] : j.items()) {
    const bool identifier = !k.empty() && !std::isdigit(static_cast<unsigned char>(k[0])) &&
                            k.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                                std::string::npos;
    if (!identifier) out->insert(k);
    if (keys_are_names && !identifier) continue;
    NonIdentifierKeys(v, named, !keys_are_names && named.count(k) > 0, out);
  }
}

// `jq .buckets.md_8_32us` works: every key perfgate chooses is an identifier. The keys
// that still need quoting are names from the configuration or the trace, kept as given
// so that they match the text reports, goldens and --buckets: the seed's xs_<2us and
// xl_>=80us, dotted phase labels, diagnostic codes (area.name).
TEST(JsonReport, KeysAreIdentifiersExceptGivenNames) {
  Report r = testdata::Iter22();
  r.engines.push_back(testdata::Llama());  // a duplicate name gets "_2"
  r.flags = {{"min_trials", "3"}};
  r.options = {{"hf2q", {}}};
  std::set<std::string> quoted;
  NonIdentifierKeys(json::parse(RenderJson(r)), {"buckets", "engines", "kernel_registry", "diagnostics",
                                                 "families", "phases", "kernels"},
                    false, &quoted);
  EXPECT_EQ(quoted, (std::set<std::string>{"xs_<2us", "xl_>=80us", "attr.unpaired_end", "layer.attn_moe_ffn",
                                           "Command Buffer 0", "output_head.fused_norm_lm_argmax"}));
}

TEST(JsonReport, StableAcrossCalls) {
  EXPECT_EQ(RenderJson(testdata::Iter22()), RenderJson(testdata::Iter22()));
}

}  // namespace
}  // namespace perfgate::report
