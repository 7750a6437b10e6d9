// The diff engine on hand-built summaries whose every figure is known: presence,
// medians over trials (the one comparison, stats::CompareTrials, that the verdicts and
// the report's Δ table use too), shares that add up (the "(rest)" item absorbing what
// the medians leave over), ranking, the rank test, kernel-name normalisation and level
// lookup.
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <numeric>

#include "perfgate/attribution/attribute.h"
#include "perfgate/diff/diff.h"
#include "perfgate/gates/judge.h"
#include "perfgate/stats/summary.h"

namespace perfgate::diff {
namespace {

using attribution::EngineSummary;
using attribution::TrialSummary;

// One trace-JSON trial of `tokens` tokens: kernels by exact name (count, total ns), all
// in bucket "b" and phase "decode", families "gemm"/"norm" by name.
TrialSummary Trial(int64_t tokens, const std::vector<std::tuple<std::string, int64_t, int64_t>>& kernels,
                   int64_t unphased_ns = 0) {
  TrialSummary t;
  t.source = "trace_json";
  t.path = "trial";
  t.tokens = tokens;
  attribution::BucketStats bucket;
  attribution::LevelItem phase;
  for (const auto& [name, count, ns] : kernels) {
    auto& k = t.kernels[name];
    k.items += count;
    k.gpu_sum_ns += ns;
    auto& f = t.families[name.find("gemm") != std::string::npos ? "gemm" : "norm"];
    f.calls += count;
    f.gpu_sum_ns += ns;
    bucket.count += count;
    bucket.sum_ns += ns;
    phase.items += count;
    phase.gpu_sum_ns += ns;
    t.total_sum_ns += ns;
  }
  bucket.count += unphased_ns > 0;
  bucket.sum_ns += unphased_ns;
  t.total_sum_ns += unphased_ns;
  t.buckets = {{"b", bucket}};
  t.phases["decode"] = phase;
  return t;
}

EngineSummary Engine(std::string name, std::vector<TrialSummary> trials) {
  EngineSummary e;
  e.name = std::move(name);
  e.trials = std::move(trials);
  return e;
}

const Change& Named(const LevelDiff& level, const std::string& name) {
  for (const Change& c : level.changes) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no change named " << name;
  static const Change kNone;
  return kNone;
}

// before: gemm 10 µs/tok (2 calls), rmsnorm 4; after: gemm 16 (one trial 15, one 17),
// rmsnorm gone, layernorm 1 added.
Diff TwoTrialDiff() {
  const EngineSummary before = Engine("before", {Trial(2, {{"gemm_f16", 4, 20000}, {"rmsnorm", 2, 8000}}),
                                                  Trial(2, {{"gemm_f16", 4, 20000}, {"rmsnorm", 2, 8000}})});
  const EngineSummary after = Engine("after", {Trial(2, {{"gemm_f16", 4, 30000}, {"layernorm", 2, 2000}}),
                                                Trial(2, {{"gemm_f16", 4, 34000}, {"layernorm", 2, 2000}})});
  return Compute(SideOf(before), SideOf(after));
}

TEST(Diff, KernelsAddedRemovedAndChangedAreMediansOverTrials) {
  const Diff d = TwoTrialDiff();
  const LevelDiff* kernels = d.Find(Level::kKernel);
  ASSERT_NE(kernels, nullptr);
  ASSERT_EQ(kernels->changes.size(), 3u);
  const Change& gemm = Named(*kernels, "gemm_f16");
  EXPECT_EQ(gemm.presence, Presence::kBoth);
  EXPECT_DOUBLE_EQ(gemm.before_us, 10);
  EXPECT_DOUBLE_EQ(gemm.after_us, 16);  // the median of 15 and 17
  EXPECT_DOUBLE_EQ(gemm.before_calls, 2);
  EXPECT_DOUBLE_EQ(*gemm.delta_us_per_call(), 3);  // 8 - 5 µs per call
  const Change& rms = Named(*kernels, "rmsnorm");
  EXPECT_EQ(rms.presence, Presence::kRemoved);
  EXPECT_DOUBLE_EQ(rms.delta_us(), -4);
  EXPECT_FALSE(rms.after_us_per_call());
  EXPECT_EQ(Named(*kernels, "layernorm").presence, Presence::kAdded);
  // Ranked by |Δ|: gemm +6, rmsnorm -4, layernorm +1.
  EXPECT_EQ(kernels->changes[0].name, "gemm_f16");
  EXPECT_EQ(kernels->changes[1].name, "rmsnorm");
  EXPECT_EQ(kernels->changes[2].name, "layernorm");
}

TEST(Diff, SharesOfEveryLevelAddUpToTheTotal) {
  const Diff d = TwoTrialDiff();
  EXPECT_DOUBLE_EQ(d.before_total, 14);
  EXPECT_DOUBLE_EQ(d.after_total, 17);
  ASSERT_EQ(d.levels.size(), 4u);
  for (const LevelDiff& level : d.levels) {
    double shares = 0, deltas = 0;
    for (const Change& c : level.changes) {
      ASSERT_TRUE(c.share) << LevelName(level.level) << " " << c.name;
      shares += *c.share;
      deltas += c.delta_us();
    }
    EXPECT_NEAR(shares, 1, 1e-12) << LevelName(level.level);
    EXPECT_NEAR(deltas, d.delta_total(), 1e-9) << LevelName(level.level);
  }
  EXPECT_DOUBLE_EQ(*Named(*d.Find(Level::kKernel), "gemm_f16").share, 2);  // +6 of +3
}

TEST(Diff, WorkALevelDoesNotNameIsItsRest) {
  // 6000 ns over 2 tokens outside every phase: the phase level's "(rest)" holds 3 µs.
  const EngineSummary before = Engine("before", {Trial(2, {{"gemm_f16", 2, 10000}})});
  const EngineSummary after = Engine("after", {Trial(2, {{"gemm_f16", 2, 10000}}, 6000)});
  const Diff d = Compute(SideOf(before), SideOf(after));
  const Change& rest = Named(*d.Find(Level::kPhase), "(rest)");
  EXPECT_TRUE(rest.rest);
  EXPECT_DOUBLE_EQ(rest.delta_us(), 3);
  EXPECT_DOUBLE_EQ(*rest.share, 1);
  // Buckets cover every unit: no rest there.
  for (const Change& c : d.Find(Level::kBucket)->changes) EXPECT_FALSE(c.rest) << c.name;
}

// One trial of 1 token: kernels gemm_f16 and rmsnorm of `gemm` and `rms` µs, all in
// phase "decode" and bucket "b".
TrialSummary Gemm(double gemm, double rms) {
  TrialSummary t = Trial(1, {{"gemm_f16", 1, static_cast<int64_t>(gemm * 1000)},  //
                             {"rmsnorm", 1, static_cast<int64_t>(rms * 1000)}});
  t.gpu_us_per_token = gemm + rms;  // the attribution's total (SummarizeEngine reads it)
  return t;
}

// Medians do not add up: gemm's median 20 and rmsnorm's 10 make 30 where the totals'
// median is 40 (before), 22 and 10 make 32 where it is 50 (after). The kernel level's
// "(rest)" holds the 10 and 18, so its rows add up to the total, on each side and in Δ;
// the phase and bucket levels, one item each, are the total trial by trial.
TEST(Diff, TheRestAbsorbsWhatTheMediansLeaveSoEveryLevelAddsUpToTheTotal) {
  const EngineSummary before = Engine("before", {Gemm(10, 5), Gemm(20, 30), Gemm(30, 10)});
  const EngineSummary after = Engine("after", {Gemm(12, 5), Gemm(22, 30), Gemm(40, 10)});
  const Diff d = Compute(SideOf(before), SideOf(after));
  EXPECT_DOUBLE_EQ(d.before_total, 40);  // totals 15, 50, 40
  EXPECT_DOUBLE_EQ(d.after_total, 50);   // 17, 52, 50
  const LevelDiff* kernels = d.Find(Level::kKernel);
  ASSERT_NE(kernels, nullptr);
  EXPECT_DOUBLE_EQ(Named(*kernels, "gemm_f16").delta_us(), 2);
  EXPECT_DOUBLE_EQ(Named(*kernels, "rmsnorm").delta_us(), 0);
  const Change& rest = Named(*kernels, "(rest)");
  EXPECT_TRUE(rest.rest);
  EXPECT_DOUBLE_EQ(rest.before_us, 10);
  EXPECT_DOUBLE_EQ(rest.after_us, 18);
  EXPECT_DOUBLE_EQ(rest.delta_us(), 8);  // the total's +10 less gemm's +2 and rmsnorm's 0
  for (const LevelDiff& level : d.levels) {
    double before_us = 0, after_us = 0, delta = 0, shares = 0;
    for (const Change& c : level.changes) {
      before_us += c.before_us;
      after_us += c.after_us;
      delta += c.delta_us();
      shares += c.share.value_or(0);
    }
    EXPECT_NEAR(before_us, d.before_total, 1e-9) << LevelName(level.level);
    EXPECT_NEAR(after_us, d.after_total, 1e-9) << LevelName(level.level);
    EXPECT_NEAR(delta, d.delta_total(), 1e-9) << LevelName(level.level);
    EXPECT_NEAR(shares, 1, 1e-12) << LevelName(level.level);
  }
  for (const Change& c : d.Find(Level::kPhase)->changes) EXPECT_FALSE(c.rest) << "phase " << c.name;
  for (const Change& c : d.Find(Level::kBucket)->changes) EXPECT_FALSE(c.rest) << "bucket " << c.name;
}

// Four trials a side, one of them slow: the median after is 12 (the mean 18.5), so Δ is
// +2 (+20 %), not +8.5, in the diff, the report's Δ table and the verdict alike.
TEST(Diff, AnEvenCountOfSkewedTrialsIsComparedByItsMedianNotItsMean) {
  const EngineSummary before = Engine("before", {Gemm(10, 0), Gemm(10, 0), Gemm(10, 0), Gemm(10, 0)});
  const EngineSummary after = Engine("after", {Gemm(10, 0), Gemm(12, 0), Gemm(12, 0), Gemm(40, 0)});
  const Diff d = Compute(SideOf(before), SideOf(after));
  EXPECT_DOUBLE_EQ(d.after_total, 12);
  EXPECT_DOUBLE_EQ(d.delta_total(), 2);
  EXPECT_DOUBLE_EQ(*d.delta_total_pct(), 20);
  const Change& gemm = Named(*d.Find(Level::kKernel), "gemm_f16");
  EXPECT_DOUBLE_EQ(gemm.after_us, 12);
  EXPECT_DOUBLE_EQ(gemm.delta_us(), 2);
  const stats::Delta one = stats::CompareTrials({10, 10, 10, 10}, {10, 12, 12, 40});
  EXPECT_DOUBLE_EQ(one.delta, 2);
  ASSERT_TRUE(gemm.p_value);
  EXPECT_EQ(*gemm.p_value, one.p_value);
  const attribution::Comparison report =
      attribution::Compare(attribution::SummarizeEngine("after", after.trials, {}),
                           attribution::SummarizeEngine("before", before.trials, {}), {});
  EXPECT_DOUBLE_EQ(report.total.delta, 2);
  EXPECT_DOUBLE_EQ(*report.total.delta_pct, 20);
  EXPECT_EQ(report.total.p_value, one.p_value);
  ASSERT_FALSE(report.kernels.empty());
  EXPECT_EQ(report.kernels.front().name, "gemm_f16");  // by Δ, largest first
  EXPECT_DOUBLE_EQ(report.kernels.front().delta, 2);
  const gates::MetricVerdict verdict = gates::Judge("gemm", {10, 10, 10, 10}, {10, 12, 12, 40},
                                                    gates::Policy::Noisy(0.1, 0, gates::Direction::kLowerIsBetter));
  EXPECT_DOUBLE_EQ(verdict.delta, 2);
}

TEST(Diff, TheRankTestNeedsTwoTrialsASide) {
  EXPECT_TRUE(Named(*TwoTrialDiff().Find(Level::kKernel), "gemm_f16").p_value);
  const EngineSummary one = Engine("one", {Trial(1, {{"gemm_f16", 1, 1000}})});
  const Diff d = Compute(SideOf(one), SideOf(one));
  EXPECT_FALSE(d.total_p_value);
  EXPECT_FALSE(Named(*d.Find(Level::kKernel), "gemm_f16").p_value);
  EXPECT_FALSE(Named(*d.Find(Level::kKernel), "gemm_f16").share);  // no total Δ to share
}

TEST(Diff, KernelNamesMatchAfterNormalisationKeepingTheOriginals) {
  const EngineSummary before = Engine("before", {Trial(1, {{"kernel_mul_mv_q4_0_f32_nsg=2", 1, 3000}})});
  const EngineSummary after = Engine("after", {Trial(1, {{"kernel_mul_mv_q4_0_f32_nsg=4", 1, 2000},
                                                          {"kernel_mul_mv_q4_0_f32", 1, 2000}})});
  const Diff d = Compute(SideOf(before), SideOf(after));
  const LevelDiff* kernels = d.Find(Level::kKernel);
  ASSERT_EQ(kernels->changes.size(), 1u);
  const Change& c = kernels->changes[0];
  EXPECT_EQ(c.name, "kernel_mul_mv_q4_0_f32");
  EXPECT_EQ(c.before_names, std::vector<std::string>{"kernel_mul_mv_q4_0_f32_nsg=2"});
  EXPECT_EQ(c.after_names, (std::vector<std::string>{"kernel_mul_mv_q4_0_f32", "kernel_mul_mv_q4_0_f32_nsg=4"}));
  EXPECT_DOUBLE_EQ(c.delta_us(), 1);
}

TEST(NormalizeKernelName, DropsTemplatesSpecialisationsAndDecorations) {
  EXPECT_EQ(NormalizeKernelName("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
                                "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(NormalizeKernelName("kernel_flash_attn_ext_vec_reduce_dv=256_nwg=32"), "kernel_flash_attn_ext_vec_reduce");
  EXPECT_EQ(NormalizeKernelName("Cijk_Alik_Bljk_HHS_BH_MT64x64x64.kd"), "Cijk_Alik_Bljk_HHS_BH_MT64x64x64");
  EXPECT_EQ(NormalizeKernelName("void rms_norm_kernel<float>(float*) [clone .constprop.0]"), "rms_norm_kernel");
  EXPECT_EQ(NormalizeKernelName("triton_poi_fused_add_0"), "triton_poi_fused_add_0");  // a variant, not a decoration
}

TEST(DiffLevel, AnUnknownNameListsTheLevels) {
  EXPECT_EQ(*LevelFromName("phase"), Level::kPhase);
  auto bad = LevelFromName("phases");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), "diff.unknown_level");
  EXPECT_NE(bad.status().message().find("bucket, family, phase, kernel"), std::string::npos) << bad.status().message();
}

TEST(Diff, LevelsOneSideLacksAreLeftOutAndSaidSo) {
  EngineSummary metal = Engine("metal", {Trial(1, {{"gemm_f16", 1, 1000}})});
  metal.trials[0].kernels.clear();  // Metal names no kernels
  const Diff d = Compute(SideOf(metal), SideOf(Engine("json", {Trial(1, {{"gemm_f16", 1, 1000}})})));
  EXPECT_EQ(d.Find(Level::kKernel), nullptr);
  EXPECT_EQ(d.one_sided_levels, std::vector<std::string>{"kernel (only json has it)"});
}

TEST(Diff, SidesWithoutTrialsOrItemsGiveAnEmptyDiff) {
  const Diff d = Compute(Side{}, Side{});
  EXPECT_TRUE(d.levels.empty());
  EXPECT_EQ(d.delta_total(), 0);
  EXPECT_FALSE(d.delta_total_pct());
  EXPECT_FALSE(d.total_p_value);
}

TEST(Diff, ANaNFigureRanksLastAndSharesNothing) {
  Side before, after;
  before.name = "a";
  after.name = "b";
  before.trials = after.trials = 1;
  before.total_us_per_token = {10};
  after.total_us_per_token = {12};
  LevelItems level{Level::kKernel, "kernel", "calls", {}};
  level.items = {Item{"k1", {"k1"}, {1}, {10}, std::nullopt}};
  before.levels = {level};
  level.items = {Item{"k1", {"k1"}, {1}, {std::nan("")}, std::nullopt}, Item{"k2", {"k2"}, {1}, {2}, std::nullopt}};
  after.levels = {level};
  const Diff d = Compute(before, after);
  const LevelDiff* kernels = d.Find(Level::kKernel);
  ASSERT_NE(kernels, nullptr);
  // NaN last of the named items, whatever else ranks; only "(rest)" comes after.
  auto last_named = std::find_if(kernels->changes.rbegin(), kernels->changes.rend(),
                                 [](const Change& c) { return !c.rest; });
  ASSERT_NE(last_named, kernels->changes.rend());
  EXPECT_EQ(last_named->name, "k1");
  EXPECT_FALSE(last_named->share);
  EXPECT_TRUE(std::all_of(kernels->changes.rbegin(), last_named, [](const Change& c) { return c.rest; }));
}

TEST(Diff, TheRestRanksLastHoweverLarge) {
  Side before, after;
  before.name = "a";
  after.name = "b";
  before.trials = after.trials = 1;
  before.total_us_per_token = {10};
  after.total_us_per_token = {50};  // the level names 1 µs/tok of the 40 that changed
  LevelItems level{Level::kKernel, "kernel", "calls", {}};
  level.items = {Item{"k1", {"k1"}, {1}, {1}, std::nullopt}};
  before.levels = {level};
  level.items = {Item{"k1", {"k1"}, {1}, {2}, std::nullopt}};
  after.levels = {level};
  const Diff d = Compute(before, after);
  const LevelDiff* kernels = d.Find(Level::kKernel);
  ASSERT_NE(kernels, nullptr);
  ASSERT_EQ(kernels->changes.size(), 2u);
  EXPECT_EQ(kernels->changes.front().name, "k1");
  EXPECT_TRUE(kernels->changes.back().rest);
  EXPECT_DOUBLE_EQ(kernels->changes.back().delta_us(), 39);
}

TEST(Diff, AGoldenWithoutATotalHasNoSharesAndSaysSo) {
  golden::GoldenFile g;
  g.values["buckets/b/us_per_token"].value = 5;
  g.values["buckets/b/submissions_per_token"].value = 1;
  const Side like;
  const Side a = SideOf(g, "golden", like), b = SideOf(g, "now", like);
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_EQ(a.notes[0], "golden holds no gpu_us_per_token: no total to share out (no shares, no (rest))");
  const Diff d = Compute(a, b);
  ASSERT_NE(d.Find(Level::kBucket), nullptr);
  for (const Change& c : d.Find(Level::kBucket)->changes) {
    EXPECT_FALSE(c.share) << c.name;
    EXPECT_FALSE(c.rest) << c.name;
  }
}

TEST(Diff, FiguresOnlyOneSideHasAreSaid) {
  Side metal, json;
  metal.name = "metal";
  json.name = "json";
  metal.figures["submissions_per_token"] = {40};
  json.figures["kernels_per_token"] = {400};
  const Diff d = Compute(metal, json);
  EXPECT_TRUE(d.figures.empty());
  EXPECT_EQ(d.one_sided_figures,
            (std::vector<std::string>{"kernels_per_token (only json has it)", "submissions_per_token (only metal has it)"}));
}

// A Metal side counts submissions, a trace side kernels: a level both have compares
// calls of two units, and the diff says so.
TEST(Diff, CallsOfTwoUnitsAreSaid) {
  Side metal = SideOf(Engine("hf2q", {Trial(2, {{"gemm_f16", 4, 20000}})}));
  const Side cuda = SideOf(Engine("torch", {Trial(2, {{"gemm_f16", 4, 20000}})}));
  for (LevelItems& l : metal.levels) l.calls_word = "submissions";
  const Diff d = Compute(metal, cuda);
  ASSERT_FALSE(d.notes.empty());
  EXPECT_NE(d.notes[0].find("hf2q counts submissions, torch kernels: its calls per token are not one unit"),
            std::string::npos)
      << d.notes[0];
  EXPECT_TRUE(Compute(cuda, cuda).notes.empty());  // one unit: nothing to say
}

}  // namespace
}  // namespace perfgate::diff
