// `perfgate diff` (every format, --fail-on, bad input) and the movers every failing
// assertion appends, on the bundled Metal recordings: the regressed hf2q against the
// normal one (fixtures/recordings/README.md: two more md submissions per token in a
// new phase, layer.moe_gather), and against llama.cpp, where the diff, the report's Δ
// table, the verdict and the movers must give one Δ and p for a figure.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "perfgate/attribution/attribute.h"
#include "perfgate/attribution/options.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/diff/diff.h"
#include "perfgate/gates/judge.h"
#include "perfgate/gtest/perfgate_gtest.h"
#include "perfgate/stats/summary.h"
#include "support/run_command.h"

namespace perfgate {
namespace {

using testing_support::RunPerfgate;

const std::string kFixtures = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings";
const std::string kNormal = kFixtures + "/decode_q4_0/hf2q";
const std::string kRegressed = kFixtures + "/decode_q4_0_regressed/hf2q";
const std::string kWindow =
    " --tokens auto:output_head.fused_norm_lm_argmax --window label:output_head.fused_norm_lm_argmax";

testing_support::CommandResult Diff(const std::string& flags) {
  return RunPerfgate("diff " + kNormal + " " + kRegressed + kWindow + " " + flags);
}

TEST(DiffCli, TextNamesTheMoversOfEveryLevel) {
  const auto r = Diff("");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("perfgate diff: decode_q4_0_regressed/hf2q against decode_q4_0/hf2q: 3 vs 3 trials"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("submissions_per_token 45.60 \xE2\x86\x92 47.61 (+2.02"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nBy command-buffer phase: 6 (1 added, 0 removed; calls are submissions), by |"),
            std::string::npos);
  EXPECT_NE(r.out.find("\nlayer.moe_gather                  added       0 \xE2\x86\x92 2.00"), std::string::npos) << r.out;
  for (size_t start = 0, end; (end = r.out.find('\n', start)) != std::string::npos; start = end + 1) {
    size_t columns = 0;
    for (size_t i = start; i < end; ++i) columns += (static_cast<unsigned char>(r.out[i]) & 0xC0) != 0x80;
    EXPECT_LE(columns, 110u) << r.out.substr(start, end - start);
  }
}

TEST(DiffCli, JsonHoldsEveryChangeLosslesslyAndIsDeterministic) {
  const auto a = Diff("--format json"), b = Diff("--format json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  const nlohmann::json j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["kind"], "perfgate.diff");
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["after"]["trials"], 3);
  ASSERT_EQ(j["levels"].size(), 3u);  // bucket, family, phase: Metal names no kernels
  EXPECT_EQ(j["one_sided_levels"].size(), 0u);
  const nlohmann::json& phases = j["levels"][2];
  EXPECT_EQ(phases["level"], "phase");
  EXPECT_EQ(phases["changes"].size(), 7u);  // every change and the (rest), not the text's rows
  nlohmann::json top;
  for (const auto& c : phases["changes"]) {
    if (c["name"] == "layer.moe_gather") top = c;
  }
  ASSERT_FALSE(top.is_null()) << phases;
  EXPECT_EQ(top["status"], "added");
  EXPECT_EQ(top["after"]["calls_per_token"].get<double>(), 2.0);
  EXPECT_TRUE(top["before"]["us_per_call"].is_null());
  // Lossless: the shares are the Δs over the total's, to the last bit.
  const double total = j["total"]["delta_us_per_token"].get<double>();
  EXPECT_EQ(top["share"].get<double>(), top["delta"]["us_per_token"].get<double>() / total);
}

TEST(DiffCli, MarkdownAndSvgShowTheTopMovers) {
  const auto md = Diff("--format markdown --rows 3");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("## perfgate diff: decode\\_q4\\_0\\_regressed/hf2q against decode\\_q4\\_0/hf2q: 3 vs 3", 0), 0u)
      << md.out;
  EXPECT_NE(md.out.find("| `layer.moe_gather` | added | 0 \xE2\x86\x92 2.00 |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("\n4 more: --rows all, or --format json.\n"), std::string::npos) << md.out;
  const auto svg = Diff("--format svg");
  ASSERT_EQ(svg.exit_code, 0) << svg.err;
  EXPECT_EQ(svg.out.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.out.find(">layer.moe_gather</text>"), std::string::npos);
  EXPECT_NE(svg.out.find(">+35.4 (added, -81 %)</text>"), std::string::npos) << svg.out;  // Δ, status, share
  EXPECT_NE(svg.out.find("class=\"bar-delta regressed\""), std::string::npos);
  EXPECT_EQ(svg.out.find("<script"), std::string::npos);
}

TEST(DiffCli, LevelKeepsOnlyTheLevelsNamed) {
  const auto r = Diff("--level phase --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["levels"].size(), 1u);
  EXPECT_EQ(j["levels"][0]["level"], "phase");
}

TEST(DiffCli, FailOnGatesTheTotal) {
  // The regressed recording's two extra md submissions are within its trials' noise in
  // the total: its median moves -0.45 % (9752.1 -> 9708.5 µs/token), so the normal
  // recording against the regressed one is the +0.45 % that --fail-on gates.
  auto reversed = [](const std::string& flags) {
    return RunPerfgate("diff " + kRegressed + " " + kNormal + kWindow + " " + flags);
  };
  const auto fails = reversed("--fail-on 0.1");
  EXPECT_EQ(fails.exit_code, 1) << fails.err;
  EXPECT_NE(fails.err.find("beyond --fail-on 0.1 %: regressed"), std::string::npos) << fails.err;
  const auto passes = reversed("--fail-on 1");
  EXPECT_EQ(passes.exit_code, 0) << passes.err;
  EXPECT_NE(passes.err.find("within --fail-on 1 %: ok"), std::string::npos) << passes.err;
  // The other way, the total improves: never beyond.
  EXPECT_EQ(Diff("--fail-on 0").exit_code, 0);
}

TEST(DiffCli, BadInputIsAnErrorWithExitCode2) {
  const auto missing = RunPerfgate("diff " + kNormal + " /nonexistent/trace.json --tokens 1");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/trace.json"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("error["), std::string::npos) << missing.err;
  const auto one_name = Diff("--names only");
  EXPECT_EQ(one_name.exit_code, 2);
  EXPECT_NE(one_name.err.find("--names: expected two different names"), std::string::npos) << one_name.err;
  const auto typo = Diff("--names before,after --process befor=hf2q");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("before, after"), std::string::npos) << typo.err;
  EXPECT_EQ(Diff("--rows 0").exit_code, 2);
  EXPECT_EQ(Diff("--format html").exit_code, 2);
  // A percentage that is no number would make the gate unable to fail.
  for (const char* pct : {"nan", "inf", "-1", "5x"}) {
    const auto bad = Diff(std::string("--fail-on ") + pct);
    EXPECT_EQ(bad.exit_code, 2) << pct;
    EXPECT_NE(bad.err.find("expected a finite percentage"), std::string::npos) << bad.err;
  }
  const auto level = Diff("--level kernels");
  EXPECT_EQ(level.exit_code, 2);
  EXPECT_NE(level.err.find("levels: bucket, family, phase, kernel"), std::string::npos) << level.err;
  const auto absent = Diff("--level kernel");  // Metal names no kernels
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("levels compared: bucket, family, phase"), std::string::npos) << absent.err;
}

TEST(AttributeMovers, ReportsWithABaselineListTheMovers) {
  const std::string args = "attribute --trace regressed=" + kRegressed + " --trace normal=" + kNormal +
                           " --baseline normal --process hf2q" + kWindow;
  const auto text = RunPerfgate(args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Top movers (perfgate diff BASELINE ENGINE lists every change)\n" + std::string(110, '=') +
                          "\n\nregressed against normal: 3 vs 3 trials"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("\nTop 5 by command-buffer phase: 6 (1 added, 0 removed; calls are submissions)\n"),
            std::string::npos);
  const auto json = RunPerfgate(args + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["schema_version"], 6);
  EXPECT_EQ(j["movers"]["after"]["name"], "regressed");
  bool gather = false;  // the new phase, among every change of the phase level
  for (const auto& c : j["movers"]["levels"][2]["changes"]) gather = gather || c["name"] == "layer.moe_gather";
  EXPECT_TRUE(gather) << j["movers"]["levels"][2];
  const auto md = RunPerfgate(args + " --format markdown");
  EXPECT_NE(md.out.find("### Top movers"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("#### Top 5 by command-buffer phase"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| `layer.moe_gather` | added |"), std::string::npos) << md.out;
}

// --- the movers a failing assertion appends -------------------------------------

attribution::EngineSummary Engine(const std::string& name, const std::string& path) {
  attribution::AttributionOptions o;
  o.process_prefix = "hf2q";
  o.window = *attribution::ParseWindow("label:output_head.fused_norm_lm_argmax");
  o.token_label = "output_head.fused_norm_lm_argmax";
  auto trials = bundle::DiscoverTrials(path);
  auto e = bundle::AttributeTrials(name, trials->trials, o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? *e : attribution::EngineSummary{};
}

// llama.cpp of the normal recording, as the hf2q_decode suite reads it: the baseline
// the regressed hf2q's bucket deltas are gated against.
attribution::EngineSummary Llama() {
  attribution::AttributionOptions o;
  o.process_prefix = "llama";
  o.window = *attribution::ParseWindow("skip:6");
  o.tokens = 64;
  auto trials = bundle::DiscoverTrials(kFixtures + "/decode_q4_0/llama");
  auto e = bundle::AttributeTrials("llama", trials->trials, o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? *e : attribution::EngineSummary{};
}

const attribution::TrialMedian& MdBucket(const attribution::EngineSummary& e) {
  for (const auto& [name, b] : e.buckets) {
    if (name == "md_8_32us") return b.us_per_token;
  }
  ADD_FAILURE() << "no md_8_32us bucket in " << e.name;
  static const attribution::TrialMedian kNone;
  return kNone;
}

double MeanOf(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

std::string TwoDecimals(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f", v);
  return buf;
}

// The failing md-bucket delta of the regressed hf2q against llama.cpp (the
// hf2q_decode suite's gate_bites): the movers' headline says the verdict table's Δ.
// Means over trials said +49.91 µs/tok there, the verdict's medians +50.24.
TEST(Movers, TheHeadlineIsTheVerdictTablesDelta) {
  const auto llama = Llama(), hf2q = Engine("hf2q", kRegressed);
  const ::testing::AssertionResult r = testing::BucketDeltaAtMostUs(hf2q, llama, "md_8_32us", 25);
  ASSERT_FALSE(r);
  const std::string m = r.message();
  // The verdict table's row: metric, baseline, current, Δ, ...
  std::smatch row, headline;
  const std::regex verdict_row(R"(\nhf2q\.md_8_32us\.us_per_token +([0-9.]+) +([0-9.]+) +([-+][0-9.]+) )");
  ASSERT_TRUE(std::regex_search(m, row, verdict_row)) << m;
  const std::regex headline_line(R"(\n  hf2q\.md_8_32us\.us_per_token ([-+][0-9.]+) )"
                                  "\xC2\xB5"
                                  R"(s/tok: [0-9]+ % from )");
  ASSERT_TRUE(std::regex_search(m, headline, headline_line)) << m;
  const double verdict_delta = std::stod(row[3].str());
  EXPECT_EQ(headline[1].str(), TwoDecimals(verdict_delta)) << m;
  EXPECT_EQ(headline[1].str(), "+50.24") << m;
  // Not the means' Δ, which differs in the second digit after the point.
  const double means_delta = MeanOf(MdBucket(hf2q).per_trial) - MeanOf(MdBucket(llama).per_trial);
  EXPECT_NE(TwoDecimals(means_delta), headline[1].str());
}

// One figure, one comparison: `perfgate diff`, the report's Δ table
// (attribution::Compare), the verdict (gates::Judge) and the movers give the same Δ and
// p, to the last bit, for the md bucket and the total of the regressed hf2q against
// llama.cpp.
TEST(OneComparison, DiffReportVerdictAndMoversGiveTheSameDeltaAndP) {
  const auto llama = Llama(), hf2q = Engine("hf2q", kRegressed);
  const attribution::Comparison report =
      attribution::Compare(hf2q, llama, attribution::AttributionOptions().buckets);
  const diff::Diff d = diff::Compute(diff::SideOf(llama), diff::SideOf(hf2q));
  const stats::Delta one = stats::CompareTrials(MdBucket(llama).per_trial, MdBucket(hf2q).per_trial);
  const gates::MetricVerdict verdict = gates::Judge("md", MdBucket(llama).per_trial, MdBucket(hf2q).per_trial,
                                                    gates::Policy::Noisy(0.1, 20, gates::Direction::kLowerIsBetter));
  const attribution::Delta* md_report = nullptr;
  for (const attribution::Delta& b : report.buckets) {
    if (b.name == "md_8_32us") md_report = &b;
  }
  ASSERT_NE(md_report, nullptr);
  const diff::LevelDiff* buckets = d.Find(diff::Level::kBucket);
  ASSERT_NE(buckets, nullptr);
  const diff::Change* md_diff = nullptr;
  for (const diff::Change& c : buckets->changes) {
    if (c.name == "md_8_32us") md_diff = &c;
  }
  ASSERT_NE(md_diff, nullptr);
  EXPECT_EQ(md_report->delta, one.delta);
  EXPECT_EQ(md_diff->delta_us(), one.delta);
  EXPECT_EQ(verdict.delta, one.delta);
  EXPECT_EQ(md_report->p_value, one.p_value);
  ASSERT_TRUE(md_diff->p_value);
  EXPECT_EQ(*md_diff->p_value, one.p_value);
  ASSERT_TRUE(verdict.p_value);
  EXPECT_EQ(*verdict.p_value, one.p_value);
  EXPECT_EQ(md_report->delta_pct, one.delta_pct);
  EXPECT_EQ(verdict.delta_pct, one.delta_pct);
  // The total: the report's TOTAL row and the diff's total line.
  EXPECT_EQ(report.total.delta, d.delta_total());
  ASSERT_TRUE(d.total_p_value);
  EXPECT_EQ(report.total.p_value, *d.total_p_value);
  EXPECT_EQ(report.total.delta_pct, d.delta_total_pct());
  // The movers: the headline of the failing md-bucket delta prints the same Δ.
  const std::string m = testing::BucketDeltaAtMostUs(hf2q, llama, "md_8_32us", 25).message();
  EXPECT_NE(m.find("  hf2q.md_8_32us.us_per_token " + TwoDecimals(one.delta) + " \xC2\xB5s/tok: "),
            std::string::npos)
      << m;
}

TEST(Movers, AFailingDeltaSaysWhatExplainsIt) {
  const auto normal = Engine("hf2q", kNormal), regressed = Engine("hf2q-regressed", kRegressed);
  const ::testing::AssertionResult r = testing::BucketDeltaAtMostUs(regressed, normal, "md_8_32us", 25);
  ASSERT_FALSE(r);
  const std::string m = r.message();
  EXPECT_NE(m.find("what changed: hf2q-regressed against hf2q: 3 vs 3 trials"), std::string::npos) << m;
  EXPECT_NE(m.find("  hf2q-regressed.md_8_32us.us_per_token +36.33 \xC2\xB5s/tok: 98 % from command-buffer phase "
                   "layer.moe_gather (added, 2.00 submissions/tok, 35.4 \xC2\xB5s/tok)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(" top 5 by command-buffer phase"), std::string::npos) << m;
  // After the verdict table, before the recordings.
  EXPECT_LT(m.find("3 vs 3  regressed"), m.find("what changed"));
  EXPECT_LT(m.find("what changed"), m.find("recordings of hf2q-regressed"));
}

// Declared before any SetTopMovers call, which outranks the environment.
TEST(Movers, TheEnvironmentSetsTheCountAndAValueThatIsNoCountIsSaid) {
  const auto normal = Engine("hf2q", kNormal), regressed = Engine("hf2q-regressed", kRegressed);
  setenv("PERFGATE_TOP_MOVERS", "2", 1);
  std::string m = testing::GpuTimeRatioAtMost(regressed, normal, 0.9).message();
  EXPECT_NE(m.find(" top 2 by command-buffer phase"), std::string::npos) << m;
  setenv("PERFGATE_TOP_MOVERS", "five", 1);
  m = testing::GpuTimeRatioAtMost(regressed, normal, 0.9).message();
  EXPECT_NE(m.find("PERFGATE_TOP_MOVERS='five' is not a count (0 turns movers off); 5 shown"), std::string::npos) << m;
  EXPECT_NE(m.find(" top 5 by command-buffer phase"), std::string::npos) << m;
  unsetenv("PERFGATE_TOP_MOVERS");
}

TEST(Movers, ACountOfThemOrNone) {
  const auto normal = Engine("hf2q", kNormal), regressed = Engine("hf2q-regressed", kRegressed);
  testing::SetTopMovers(1);
  std::string m = testing::GpuTimeRatioAtMost(regressed, normal, 0.9).message();
  EXPECT_NE(m.find(" top 1 by command-buffer phase"), std::string::npos) << m;
  testing::SetTopMovers(0);
  m = testing::GpuTimeRatioAtMost(regressed, normal, 0.9).message();
  EXPECT_EQ(m.find("what changed"), std::string::npos) << m;
  testing::SetTopMovers(std::nullopt);
  // A passing assertion says nothing of movers.
  EXPECT_EQ(std::string(testing::GpuTimeRatioAtMost(regressed, normal, 2.0).message()).find("what changed"),
            std::string::npos);
}

}  // namespace
}  // namespace perfgate
