// Attribution on small hand-built trials whose every figure is computed by hand.
#include "perfgate/attribution/attribute.h"
#include "support/source_count.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <utility>
#include <vector>

namespace perfgate::attribution {
namespace {

using xctrace::CommandBufferId;
using xctrace::EncoderId;
using xctrace::ExecutionPoint;
using xctrace::ProcessRef;
using xctrace::SubmissionId;

ProcessRef Proc(const std::string& name, int64_t pid) { return ProcessRef{name, pid, false}; }
const ProcessRef kEngine = Proc("hf2q", 4242);
const ProcessRef kWindowServer = Proc("WindowServer", 181);

// Builds a trial submission by submission: each gets a start/end pair on a channel,
// a submission-map row and (for the engine) an encoder row.
class TrialBuilder {
 public:
  // Adds a submission; returns its id. `cb_label`/`encoder_label` describe its encoder.
  uint64_t Add(int64_t start_ns, int64_t duration_ns, const ProcessRef& process, const std::string& cb_label,
               const std::string& encoder_label = "Compute Command 0", std::optional<uint64_t> cb = std::nullopt) {
    uint64_t sub = next_sub_++;
    points_.push_back({start_ns, 1, sub});
    points_.push_back({start_ns + duration_ns, 2, sub});
    uint64_t encoder = next_encoder_++;
    uint64_t cmdbuffer = cb.value_or(next_cb_++);
    xctrace::SubmissionMapRow m;
    m.timestamp_ns = start_ns;
    m.submission = SubmissionId{sub};
    m.cmdbuffer = CommandBufferId{cmdbuffer};
    m.encoder = EncoderId{encoder};
    m.process = process;
    m.pid = process.pid;
    t_.submission_map->push_back(m);
    xctrace::EncoderRow e;
    e.start_ns = start_ns - 5000;
    e.duration_ns = 2000;
    e.process = process;
    e.cmdbuffer_label = cb_label;
    e.encoder_label = encoder_label;
    e.cmdbuffer = CommandBufferId{cmdbuffer};
    e.encoder = EncoderId{encoder};
    t_.encoders->push_back(e);
    xctrace::GpuInterval g;
    g.start_ns = start_ns;
    g.duration_ns = duration_ns;
    g.process = process;
    t_.gpu_intervals->push_back(g);
    return sub;
  }
  // A raw execution point, for pairing tests.
  void Point(int64_t ts, uint32_t function, uint64_t sub) { points_.push_back({ts, function, sub}); }
  void Shader(const std::string& name, const ProcessRef& process) {
    xctrace::ShaderRow r;
    r.name = name;
    r.process = process;
    t_.shaders->push_back(r);
  }
  TrialTables Build() {
    std::stable_sort(points_.begin(), points_.end(), [](const P& a, const P& b) { return a.ts < b.ts; });
    TrialTables t;
    t.path = "trial";
    t.submission_map = t_.submission_map;
    t.encoders = t_.encoders;
    t.gpu_intervals = t_.gpu_intervals;
    t.shaders = t_.shaders;
    t.shader_timeline_rows = 0;
    for (const P& p : points_) {
      ExecutionPoint e;
      e.timestamp_ns = p.ts;
      e.function = p.function;
      e.submission = SubmissionId{p.sub};
      e.channel_id = 0x123457;
      t.execution_points.push_back(e);
    }
    return t;
  }

 private:
  struct P {
    int64_t ts;
    uint32_t function;
    uint64_t sub;
  };
  std::vector<P> points_;
  TrialTables t_{"", {}, std::vector<xctrace::EncoderRow>{}, std::vector<xctrace::SubmissionMapRow>{},
                 std::vector<xctrace::ShaderRow>{}, 0, std::vector<xctrace::GpuInterval>{}, {}};
  uint64_t next_sub_ = 1000;
  uint64_t next_encoder_ = 5000;
  uint64_t next_cb_ = 9000;
};

AttributionOptions Options(int64_t tokens) {
  AttributionOptions o;
  o.process_prefix = "hf2q";
  o.tokens = tokens;
  return o;
}

// The submissions of one decode token: (duration, command-buffer label) each.
using TokenSubmissions = std::vector<std::pair<int64_t, std::string>>;

// A 5 ms "prefill.forward" at 0, then from 6 ms `tokens` decode tokens of the engine,
// token i the submissions `of_token(i)` names, each followed by a 10 us gap.
TrialBuilder PrefillThenDecode(int tokens, const std::function<TokenSubmissions(int)>& of_token) {
  TrialBuilder b;
  b.Add(0, 5'000'000, kEngine, "prefill.forward");
  int64_t t = 6'000'000;
  for (int token = 0; token < tokens; ++token) {
    for (const auto& [duration_ns, label] : of_token(token)) {
      b.Add(t, duration_ns, kEngine, label);
      t += duration_ns + 10'000;
    }
  }
  return b;
}

const BucketStats& BucketNamed(const TrialSummary& s, const std::string& name) {
  for (const auto& [n, b] : s.buckets) {
    if (n == name) return b;
  }
  static BucketStats none;
  ADD_FAILURE() << "no bucket " << name;
  return none;
}

TEST(Attribute, PairingQueuesDuplicateStartsWhileTheSeedOverwrote) {
  TrialBuilder b;
  // start A@0, start A@10, end A@20, end A@35.
  b.Point(0, 1, 7);
  b.Point(10, 1, 7);
  b.Point(20, 2, 7);
  b.Point(35, 2, 7);
  b.Point(40, 2, 8);  // an end without a start
  b.Point(50, 1, 9);  // a start without an end
  TrialTables t = b.Build();
  AttributionOptions o = Options(1);
  o.all_processes = true;
  auto fixed = SummarizeTrial(t, o);
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_EQ(fixed->items_read, 2);
  EXPECT_EQ(fixed->total_sum_ns, 20 + 25);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*fixed, "duplicate_starts"), 1);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*fixed, "unpaired_ends"), 1);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*fixed, "leftover_starts"), 1);
  o.seed_compat = true;
  auto seed = SummarizeTrial(t, o);
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ(seed->items_read, 1);  // the second start replaced the first
  EXPECT_EQ(seed->total_sum_ns, 10);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*seed, "unpaired_ends"), 2);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*seed, "leftover_starts"), 1);
}

// Three starts of one submission waiting at once, a fourth queued behind them, and the
// id used again once all have ended: each end takes the oldest open start. By hand:
// 30-0, 50-10, 60-20, 70-40, 85-80 = 30 + 40 + 40 + 30 + 5; the starts at 10, 20 and 40
// found others open (3 duplicates), the one at 80 none.
TEST(Attribute, PairingTakesTheOldestOpenStartAndForgetsEndedSubmissions) {
  TrialBuilder b;
  for (int64_t at : {0, 10, 20}) b.Point(at, 1, 7);
  b.Point(30, 2, 7);
  b.Point(40, 1, 7);
  for (int64_t at : {50, 60, 70}) b.Point(at, 2, 7);
  b.Point(80, 1, 7);
  b.Point(85, 2, 7);
  TrialTables t = b.Build();
  AttributionOptions o = Options(1);
  o.all_processes = true;
  auto s = SummarizeTrial(t, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items_read, 5);
  EXPECT_EQ(s->total_sum_ns, 30 + 40 + 40 + 30 + 5);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*s, "duplicate_starts"), 3);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*s, "unpaired_ends"), 0);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*s, "leftover_starts"), 0);
}

TEST(Attribute, BucketsPercentilesAndPerTokenFigures) {
  TrialBuilder b;
  // Durations (ns), in submission order: 1000, 3000, 5000, 7000 (sm x3, xs x1),
  // 100000, 300000, 200000 (xl).
  int64_t t = 0;
  for (int64_t d : {1000, 3000, 5000, 7000, 100000, 300000, 200000}) {
    b.Add(t, d, kEngine, "layer.attn");
    t += d + 1000;
  }
  auto s = SummarizeTrial(b.Build(), Options(2));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, 7);
  EXPECT_DOUBLE_EQ(s->items_per_token, 3.5);
  EXPECT_DOUBLE_EQ(s->gpu_us_per_token, 616.0 / 2);
  const BucketStats& xs = BucketNamed(*s, "xs_<2us");
  EXPECT_EQ(xs.count, 1);
  EXPECT_EQ(xs.p95_ns, 1000);
  const BucketStats& sm = BucketNamed(*s, "sm_2_8us");
  EXPECT_EQ(sm.count, 3);
  EXPECT_EQ(sm.sum_ns, 15000);
  EXPECT_EQ(sm.p50_ns, 5000);
  EXPECT_EQ(sm.mean_ns, 5000);
  const BucketStats& xl = BucketNamed(*s, "xl_>=80us");
  EXPECT_EQ(xl.count, 3);
  EXPECT_EQ(xl.p50_ns, 200000);
  EXPECT_EQ(xl.p95_ns, 300000);  // nearest rank over sorted durations
  EXPECT_EQ(BucketNamed(*s, "md_8_32us").count, 0);
  // The seed's p95 is element floor(0.95*2) = 1 of the pair-order list: 300000 here,
  // and 200000 once the order is 100000, 200000, 300000... so check a case that differs.
  TrialBuilder b2;
  t = 0;
  for (int64_t d : {300000, 200000, 100000}) {
    b2.Add(t, d, kEngine, "layer.attn");
    t += d + 1000;
  }
  AttributionOptions seed = Options(1);
  seed.seed_compat = true;
  auto s2 = SummarizeTrial(b2.Build(), seed);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(BucketNamed(*s2, "xl_>=80us").p95_ns, 200000);  // index 1 of [300000, 200000, 100000]
  auto s3 = SummarizeTrial(b2.Build(), Options(1));
  EXPECT_EQ(BucketNamed(*s3, "xl_>=80us").p95_ns, 300000);
}

TEST(Attribute, ProcessFilterExcludesOtherProcessesAndCountsThem) {
  TrialBuilder b;
  b.Add(0, 100000, kEngine, "layer.attn");
  b.Add(50000, 40000, kWindowServer, "Command Buffer 0");
  b.Add(200000, 100000, kEngine, "layer.attn");
  uint64_t lost = b.Add(400000, 10000, Proc("", -1), "x");
  TrialTables t = b.Build();
  (*t.submission_map)[3].process = ProcessRef{};  // a <sentinel/> process cell
  (void)lost;
  auto s = SummarizeTrial(t, Options(1));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, 2);
  EXPECT_EQ(s->total_sum_ns, 200000);
  EXPECT_EQ(s->excluded_other_process, 1);
  EXPECT_EQ(s->excluded_unnamed_owner, 1);
  EXPECT_EQ(s->diagnostics.Count("attr.other_process"), 1);
  EXPECT_EQ(s->diagnostics.Count("attr.sentinel_process"), 1);
  // The seed counted everything.
  AttributionOptions seed = Options(1);
  seed.seed_compat = true;
  auto s2 = SummarizeTrial(t, seed);
  EXPECT_EQ(s2->total_sum_ns, 250000);
  // An unmapped submission is excluded and counted.
  t.submission_map->erase(t.submission_map->begin());
  auto s3 = SummarizeTrial(t, Options(1));
  EXPECT_EQ(s3->excluded_no_owner, 1);
  EXPECT_EQ(s3->items, 1);
}

// A process named by its path is the target in every table the process filter
// reads, not only the submission map: its encoders, shaders and GPU intervals too.
TEST(Attribute, AProcessNamedByItsPathIsTheTargetInEveryTable) {
  const ProcessRef app = Proc("/Applications/hf2q.app/Contents/MacOS/hf2q", 4242);
  TrialBuilder b;
  b.Add(0, 100000, app, "decode");
  b.Shader("kernel_mul_mv_q4_0_f32", app);
  auto s = SummarizeTrial(b.Build(), Options(1));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, 1);
  EXPECT_EQ(s->items_with_call, 1);
  EXPECT_EQ(s->families.at("compute").calls, 1);
  EXPECT_EQ(s->registered_kernels, 1);
  ASSERT_GE(perfgate::testing_support::SourceCount(*s, "gpu_intervals_union_ns"), 0);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*s, "gpu_intervals_union_ns"), 100000);
}

TEST(Attribute, NoTargetRowsIsAnErrorNamingWhatWasThere) {
  TrialBuilder b;
  b.Add(0, 100000, kWindowServer, "x");
  auto s = SummarizeTrial(b.Build(), Options(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            "trial: error[attr.no_target_rows]: no submission of a process named 'hf2q*' among 1 paired "
            "submissions (other processes: WindowServer (181) x1; of no known process: 0; of the sentinel or an "
            "unnamed process: 0)");
}

TEST(Attribute, FamiliesAndPhasesJoinThroughTheSubmissionMap) {
  TrialBuilder b;
  b.Add(0, 100000, kEngine, "[0] layer.12.attn_moe_ffn", "Compute Command 0", 1);
  b.Add(110000, 50000, kEngine, "layer.13.attn_moe_ffn", "Compute Command 1", 1);
  b.Add(200000, 20000, kEngine, "output_head.fused_norm_lm_argmax", "Blit Command 0", 2);
  b.Add(300000, 30000, kEngine, "Command Buffer 0", "Compute Command 0", 3);
  auto s = SummarizeTrial(b.Build(), Options(2));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->families.size(), 2u);
  EXPECT_EQ(s->families.at("compute").gpu_sum_ns, 180000);
  EXPECT_EQ(s->families.at("compute").calls, 3);
  EXPECT_EQ(s->families.at("compute").host_sum_ns, 6000);
  EXPECT_EQ(s->families.at("blit").items, 1);
  const LevelItem& ffn = s->phases.at("layer.attn_moe_ffn");
  EXPECT_EQ(ffn.gpu_sum_ns, 150000);
  EXPECT_EQ(ffn.calls, 2);              // encoders, as the seed counts
  EXPECT_EQ(ffn.groups, 1);  // both encoders are in command buffer 1
  EXPECT_EQ(ffn.items, 2);
  EXPECT_EQ(s->labelled_units, 3);
  EXPECT_EQ(s->phase_units, 4);
  EXPECT_EQ(s->items_with_call, 4);
  EngineSummary e = SummarizeEngine("hf2q", {*s}, DefaultBuckets());
  EXPECT_DOUBLE_EQ(e.phases.at("layer.attn_moe_ffn").gpu_us_per_token.median, 75.0);
  EXPECT_DOUBLE_EQ(e.phases.at("layer.attn_moe_ffn").mean_us_per_call, 75.0);  // 75 µs/tok over 1 CB/tok
  EXPECT_DOUBLE_EQ(e.label_coverage, 0.75);
}

TEST(Attribute, BusyTimeIsTheUnionAndIsCrossCheckedWithGpuIntervals) {
  TrialBuilder b;
  b.Add(0, 100000, kEngine, "a");
  b.Add(50000, 100000, kEngine, "b");  // overlaps the first by 50 µs
  TrialTables t = b.Build();
  auto s = SummarizeTrial(t, Options(1));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->total_sum_ns, 200000);
  EXPECT_EQ(s->busy_union_ns, 150000);
  EXPECT_DOUBLE_EQ(s->busy_us_per_token, 150.0);
  ASSERT_GE(perfgate::testing_support::SourceCount(*s, "gpu_intervals_union_ns"), 0);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*s, "gpu_intervals_union_ns"), 150000);
}

TEST(Attribute, DecodeWindowByLabelAndTokensFromTheTrace) {
  // The prefill is excluded.
  TrialBuilder b = PrefillThenDecode(5, [](int) {
    return TokenSubmissions{{100000, "layer.1.attn_moe_ffn"}, {200000, "output_head.fused_norm_lm_argmax"}};
  });
  AttributionOptions o = Options(64);
  o.window.mode = DecodeWindow::Mode::kLabel;
  o.window.label = "output_head.fused_norm_lm_argmax";
  o.token_label = "output_head.fused_norm_lm_argmax";
  auto s = SummarizeTrial(b.Build(), o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // Five output heads: the window runs from the end of the first to the end of the
  // last, holding four tokens of (layer + head) work.
  EXPECT_EQ(s->tokens, 4);
  EXPECT_EQ(s->tokens_source, "label:output_head.fused_norm_lm_argmax");
  EXPECT_EQ(s->items, 8);
  EXPECT_EQ(s->total_sum_ns, 4 * 300000);
  EXPECT_DOUBLE_EQ(s->gpu_us_per_token, 300.0);
  EXPECT_EQ(s->excluded_outside_window, 3);  // prefill, first layer, first head
  EXPECT_EQ(s->diagnostics.Count("attr.token_count_mismatch"), 1);  // 4 found, 64 configured
  // Skipping the first N submissions instead.
  AttributionOptions skip = Options(5);
  skip.window.mode = DecodeWindow::Mode::kSkipSubmissions;
  skip.window.skip = 1;
  auto s2 = SummarizeTrial(b.Build(), skip);
  EXPECT_EQ(s2->items, 10);
  EXPECT_DOUBLE_EQ(s2->gpu_us_per_token, 300.0);
  // A label that occurs once cannot bound a window.
  AttributionOptions bad = Options(1);
  bad.window.mode = DecodeWindow::Mode::kLabel;
  bad.window.label = "prefill.forward";
  EXPECT_EQ(SummarizeTrial(b.Build(), bad).status().code(), "attr.window_label");
}

// The same window and token count from a prefix or a pattern of the label, matched on
// the command-buffer label as recorded ("[7] output_head.fused_norm_lm_argmax"),
// while the exact label compares normalised names, as it always did.
TEST(Attribute, LabelsMatchByPrefixAndPatternOnMetal) {
  TrialBuilder b = PrefillThenDecode(5, [](int token) {
    return TokenSubmissions{{100000, "layer.1.attn_moe_ffn"},
                            {200000, "[" + std::to_string(token) + "] output_head.fused_norm_lm_argmax"}};
  });
  for (const LabelMatch& label : {LabelMatch::Exact("output_head.fused_norm_lm_argmax"),
                                  LabelMatch::Prefix("[") /* every head, none of the layers */,
                                  LabelMatch::Regex(R"(\[\d+\] output_head\..*)")}) {
    SCOPED_TRACE(label.Spelling());
    AttributionOptions o = Options(4);
    o.window = DecodeWindow::Label(label);
    o.token_label = label;
    auto s = SummarizeTrial(b.Build(), o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->tokens, 4);
    EXPECT_EQ(s->items, 8);
    EXPECT_EQ(s->total_sum_ns, 4 * 300000);
    EXPECT_EQ(s->tokens_source, "label:" + label.Spelling());
    EXPECT_EQ(s->diagnostics.Count("attr.token_count_mismatch"), 0);
  }
  // Tokens by a prefix of the layers' label, inside the exact window: the 4 layers.
  AttributionOptions o = Options(4);
  o.window = DecodeWindow::Label("output_head.fused_norm_lm_argmax");
  o.token_label = LabelMatch::Prefix("layer.1.");
  auto layers = SummarizeTrial(b.Build(), o);
  ASSERT_TRUE(layers.ok()) << layers.status().ToString();
  EXPECT_EQ(layers->tokens, 4);
  // A prefix matches the raw label, so the normalised "layer.attn_moe_ffn" is no prefix of it.
  o.token_label = LabelMatch::Prefix("layer.attn");
  EXPECT_EQ(SummarizeTrial(b.Build(), o).status().code(), "attr.token_label");
  // A pattern must match the whole label; one std::regex refuses is a usage error.
  o.window = DecodeWindow::Label(LabelMatch::Regex("output_head"));
  o.token_label.clear();
  EXPECT_EQ(SummarizeTrial(b.Build(), o).status().code(), "attr.window_label");
  o.window = DecodeWindow::Label(LabelMatch::Regex("(output"));
  auto bad = SummarizeTrial(b.Build(), o);
  EXPECT_EQ(bad.status().code(), "cli.usage");
  EXPECT_EQ(bad.status().kind(), ErrorKind::kUsage);
}

TEST(Attribute, MissingTokenCountIsAUsageError) {
  TrialBuilder b;
  b.Add(0, 1000, kEngine, "a");
  AttributionOptions o;
  o.process_prefix = "hf2q";
  auto s = SummarizeTrial(b.Build(), o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.no_tokens");
  EXPECT_EQ(s.status().kind(), ErrorKind::kUsage);
}

TEST(Attribute, KernelRegistryFiltersByProcessAndGroupsFamilies) {
  TrialBuilder b;
  b.Add(0, 1000, kEngine, "a");
  b.Shader("kernel_mul_mv_id_q4_0_f32 (35)", kEngine);
  b.Shader("kernel_mul_mv_id_q4_0_f32 (36)", kEngine);
  b.Shader("rms_norm_f32", kEngine);
  b.Shader("kernel_flash_attn_ext_f16_h128", kEngine);
  b.Shader("kernel_frobnicate_x", kEngine);
  b.Shader("kernel_rms_norm", kWindowServer);
  auto s = SummarizeTrial(b.Build(), Options(1));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->registered_kernels, 5);
  ASSERT_EQ(s->kernel_registry.count("moe_q4_0_mv"), 1u);
  EXPECT_EQ(s->kernel_registry.at("moe_q4_0_mv").size(), 2u);
  EXPECT_EQ(s->kernel_registry.count("rms_norm"), 1u);  // mlx-native name, no kernel_ prefix
  EXPECT_EQ(s->kernel_registry.count("flash_attn"), 1u);
  EXPECT_EQ(s->kernel_registry.count("other_frobnicate"), 1u);
  AttributionOptions seed = Options(1);
  seed.seed_compat = true;
  auto s2 = SummarizeTrial(b.Build(), seed);
  EXPECT_EQ(s2->kernel_registry.count("rms_norm_f32"), 1u);  // the seed's own-family behaviour
}

TEST(Attribute, EngineMediansAndComparison) {
  auto trial = [](int64_t xl_ns, int64_t sm_ns, int subs_per_token) {
    TrialBuilder b;
    int64_t t = 0;
    for (int i = 0; i < subs_per_token; ++i) {
      b.Add(t, xl_ns, kEngine, "layer.attn");
      t += xl_ns + 1000;
    }
    b.Add(t, sm_ns, kEngine, "small");
    return *SummarizeTrial(b.Build(), Options(1));
  };
  std::vector<TrialSummary> engine = {trial(200000, 5000, 2), trial(210000, 5000, 2), trial(190000, 6000, 2)};
  std::vector<TrialSummary> base = {trial(180000, 5000, 2), trial(181000, 5000, 2), trial(179000, 5000, 2)};
  EngineSummary e = SummarizeEngine("hf2q", engine, DefaultBuckets());
  EngineSummary l = SummarizeEngine("llama", base, DefaultBuckets());
  EXPECT_DOUBLE_EQ(e.gpu_us_per_token.median, 405.0);
  ASSERT_EQ(e.gpu_us_per_token.per_trial.size(), 3u);
  EXPECT_DOUBLE_EQ(e.gpu_us_per_token.per_trial[2], 386.0);
  Comparison c = Compare(e, l, DefaultBuckets());
  EXPECT_DOUBLE_EQ(c.total.delta, 405.0 - 365.0);
  EXPECT_NEAR(*c.total.delta_pct, 40.0 / 365.0 * 100, 1e-9);
  EXPECT_NEAR(c.total.p_value, 0.1, 1e-12);  // 3 vs 3, fully separated: the exact test's floor
  ASSERT_TRUE(c.attack_target.has_value());
  EXPECT_EQ(*c.attack_target, "xl_>=80us");
  EXPECT_NE(c.attack_hint.find("lm_head"), std::string::npos);
  // No bucket regressed: the corrected method names no target, the seed still did.
  Comparison reverse = Compare(l, e, DefaultBuckets());
  EXPECT_FALSE(reverse.attack_target.has_value());
  EXPECT_TRUE(Compare(l, e, DefaultBuckets(), true).attack_target.has_value());
  // Δ% is undefined against a zero baseline.
  EXPECT_FALSE(c.buckets[0].delta_pct.has_value());  // xs bucket: 0 vs 0
}

TEST(Attribute, EmptyBucketP50IsSkippedUnlessSeedCompat) {
  TrialBuilder a, b;
  a.Add(0, 5000, kEngine, "x");
  b.Add(0, 100000, kEngine, "x");
  std::vector<TrialSummary> trials = {*SummarizeTrial(a.Build(), Options(1)), *SummarizeTrial(b.Build(), Options(1))};
  EngineSummary fixed = SummarizeEngine("e", trials, DefaultBuckets());
  EngineSummary seed = SummarizeEngine("e", trials, DefaultBuckets(), true);
  EXPECT_DOUBLE_EQ(fixed.buckets[1].second.p50_us.median, 5.0);  // sm: only the trial that has it
  EXPECT_DOUBLE_EQ(seed.buckets[1].second.p50_us.median, 2.5);   // (5 + 0) / 2
}

TEST(Attribute, KeptWorkOfSeveralProcessesIsCountedAsMixed) {
  TrialBuilder b;
  b.Add(0, 100000, kEngine, "layer.attn");
  b.Add(50000, 40000, kWindowServer, "Command Buffer 0");
  b.Add(200000, 100000, kEngine, "layer.attn");
  b.Add(400000, 100000, kEngine, "layer.attn");
  const TrialTables t = b.Build();

  // One process kept: no diagnostic.
  auto filtered = SummarizeTrial(t, Options(1));
  ASSERT_TRUE(filtered.ok()) << filtered.status().ToString();
  EXPECT_EQ(filtered->items, 3);
  EXPECT_FALSE(filtered->diagnostics.Has("attr.mixed_processes"));

  // Every process kept: the one WindowServer submission is counted and named.
  AttributionOptions all = Options(1);
  all.all_processes = true;
  auto mixed = SummarizeTrial(t, all);
  ASSERT_TRUE(mixed.ok()) << mixed.status().ToString();
  EXPECT_EQ(mixed->items, 4);
  EXPECT_EQ(mixed->diagnostics.Count("attr.mixed_processes"), 1);
  const Diagnostics::Entry* e = mixed->diagnostics.Find("attr.mixed_processes");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->severity, Severity::kWarning);
  EXPECT_EQ(e->first_location.path, "trial");
  EXPECT_EQ(e->first_detail, "kept work of 2 processes: hf2q (4242) x3, WindowServer (181) x1");

  // An empty prefix keeps every named process too, and so does the seed (whose own
  // map holds the target's rows only).
  AttributionOptions no_prefix = Options(1);
  no_prefix.process_prefix.clear();
  EXPECT_EQ(SummarizeTrial(t, no_prefix)->diagnostics.Count("attr.mixed_processes"), 1);
  AttributionOptions seed = Options(1);
  seed.seed_compat = true;
  EXPECT_EQ(SummarizeTrial(t, seed)->diagnostics.Count("attr.mixed_processes"), 1);

  // Merged into the engine like any other count.
  EngineSummary engine = SummarizeEngine("hf2q", {*mixed, *mixed}, DefaultBuckets());
  EXPECT_EQ(engine.diagnostics.Count("attr.mixed_processes"), 2);
}

TEST(Attribute, MixedProcessCountIsTheWorkOutsideTheLargestProcess) {
  Diagnostics d;
  CountMixedProcesses({{"hf2q (1)", 40}}, "t", &d);
  EXPECT_FALSE(d.Has("attr.mixed_processes"));
  CountMixedProcesses({}, "t", &d);
  EXPECT_FALSE(d.Has("attr.mixed_processes"));
  CountMixedProcesses({{"a (1)", 2}, {"b (2)", 40}, {"c (3)", 5}}, "t", &d);
  EXPECT_EQ(d.Count("attr.mixed_processes"), 7);
  EXPECT_EQ(d.Find("attr.mixed_processes")->first_detail, "kept work of 3 processes: b (2) x40, c (3) x5, a (1) x2");
}

TEST(Attribute, KnownKernelFamiliesAreTheRulesFamiliesAndThoseMet) {
  TrialBuilder b;
  b.Add(0, 1000, kEngine, "a");
  b.Shader("kernel_mul_mv_id_q4_0_f32 (35)", kEngine);
  b.Shader("kernel_frobnicate_x", kEngine);
  auto s = SummarizeTrial(b.Build(), Options(1));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const std::set<std::string>& known = s->known_kernel_families;
  EXPECT_EQ(known.count("moe_q4_0_mv"), 1u);       // named by a rule and met
  EXPECT_EQ(known.count("dense_q8_0_mm"), 1u);     // named by a rule, not met
  EXPECT_EQ(known.count("other_frobnicate"), 1u);  // the fallback, met
  EXPECT_EQ(known.count("moe_q4_0_mw"), 0u);       // a typo is unknown
  std::set<std::string> rules = KernelFamilyNames(DefaultKernelFamilies());
  EXPECT_TRUE(std::includes(known.begin(), known.end(), rules.begin(), rules.end()));
  EXPECT_EQ(known.size(), rules.size() + 1);

  // A user's table names its own families; the engine takes the union over trials.
  AttributionOptions mine = Options(1);
  mine.kernel_families.rules = {{"mul_mv", "matvec"}};
  auto t = SummarizeTrial(b.Build(), mine);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->known_kernel_families, (std::set<std::string>{"matvec", "other_frobnicate"}));
  EngineSummary e = SummarizeEngine("hf2q", {*s, *t}, DefaultBuckets());
  EXPECT_EQ(e.known_kernel_families.count("matvec"), 1u);
  EXPECT_EQ(e.known_kernel_families.count("moe_q4_0_mv"), 1u);
  EXPECT_EQ(e.known_kernel_families.size(), known.size() + 1);
}

TEST(Attribute, EngineExtrasAreMediansOfTheKeysEveryTrialHas) {
  TrialBuilder b;
  b.Add(0, 1000, kEngine, "a");
  TrialSummary base = *SummarizeTrial(b.Build(), Options(1));
  EXPECT_TRUE(base.extras.empty());  // Metal has none
  std::vector<TrialSummary> trials(3, base);
  trials[0].extras = {{"launches_per_token", 1.0}, {"graph_launches", 5.0}};
  trials[1].extras = {{"launches_per_token", 3.0}};
  trials[2].extras = {{"launches_per_token", 2.0}, {"graph_launches", 7.0}};
  EngineSummary e = SummarizeEngine("e", trials, DefaultBuckets());
  ASSERT_EQ(e.extras.size(), 1u);  // graph_launches is missing from trial 2
  EXPECT_DOUBLE_EQ(e.extras.at("launches_per_token").median, 2.0);
  EXPECT_EQ(e.extras.at("launches_per_token").per_trial, (std::vector<double>{1.0, 3.0, 2.0}));
  EXPECT_TRUE(SummarizeEngine("m", {base}, DefaultBuckets()).extras.empty());
}

TEST(Attribute, TypedWindowsDriveTheSameWindows) {
  TrialBuilder b =
      PrefillThenDecode(3, [](int) { return TokenSubmissions{{100000, "output_head.fused_norm_lm_argmax"}}; });
  AttributionOptions o = Options(2);
  o.window = DecodeWindow::Label("output_head.fused_norm_lm_argmax");
  auto label = SummarizeTrial(b.Build(), o);
  ASSERT_TRUE(label.ok()) << label.status().ToString();
  EXPECT_EQ(label->items, 2);
  o.window = DecodeWindow::SkipSubmissions(1);
  EXPECT_EQ(SummarizeTrial(b.Build(), o)->items, 3);
  o.window = DecodeWindow::TimeRange(6'000'000, 6'210'000);
  EXPECT_EQ(SummarizeTrial(b.Build(), o)->items, 2);
  o.window = DecodeWindow::WholeTrace();
  EXPECT_EQ(SummarizeTrial(b.Build(), o)->items, 4);
}

TEST(Attribute, ResolveTokensPrefersTheTracesCount) {
  AttributionOptions o;
  o.tokens = 64;
  TrialSummary given;
  ASSERT_TRUE(ResolveTokens(std::nullopt, o, "p", &given).ok());
  EXPECT_EQ(given.tokens, 64);
  EXPECT_EQ(given.tokens_source, "given");
  o.token_label = "step";
  TrialSummary found;
  ASSERT_TRUE(ResolveTokens(63, o, "p", &found).ok());
  EXPECT_EQ(found.tokens, 63);
  EXPECT_EQ(found.tokens_source, "label:step");
  EXPECT_EQ(found.diagnostics.Count("attr.token_count_mismatch"), 1);
  AttributionOptions none;
  TrialSummary missing;
  EXPECT_EQ(ResolveTokens(std::nullopt, none, "p", &missing).code(), "attr.no_tokens");
}


// --- checked arithmetic and empty pairings (issue #12) ------------------------------

TEST(Attribute, DurationPastInt64IsAnErrorNamingTheRows) {
  TrialBuilder b;
  b.Point(-9000000000000000000, 1, 7);
  b.Point(9000000000000000000, 2, 7);
  TrialTables t = b.Build();
  t.execution_points[0].row = 4;
  t.execution_points[1].row = 9;
  auto s = SummarizeTrial(t, Options(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            "trial: error[attr.overflow]: the duration of submission 7 (execution-point rows 5 to 10) does not fit "
            "in a signed 64-bit integer of nanoseconds");
}

TEST(Attribute, EncoderHostTimesSummingPastInt64AreAnError) {
  TrialBuilder b;
  b.Add(0, 1000, kEngine, "x");
  b.Add(5000, 1000, kEngine, "x");
  TrialTables t = b.Build();
  (*t.encoders)[0].duration_ns = INT64_MAX / 2 + 1;
  (*t.encoders)[1].duration_ns = INT64_MAX / 2 + 1;
  (*t.encoders)[1].row = 1;
  auto s = SummarizeTrial(t, Options(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.overflow");
  EXPECT_NE(s.status().message().find("metal-application-encoders-list row 2"), std::string::npos)
      << s.status().message();
}

TEST(Attribute, GpuIntervalEndPastInt64IsAnError) {
  TrialBuilder b;
  b.Add(0, 1000, kEngine, "x");
  TrialTables t = b.Build();
  (*t.gpu_intervals)[0].start_ns = INT64_MAX - 10;
  auto s = SummarizeTrial(t, Options(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.overflow");
  EXPECT_NE(s.status().message().find("metal-gpu-intervals row 1"), std::string::npos) << s.status().message();
}

TEST(Attribute, KeptWorkSpanningMoreThanInt64IsAnError) {
  TrialBuilder b;
  b.Add(-5000000000000000000, 10, kEngine, "x");
  b.Add(5000000000000000000, 10, kEngine, "x");
  TrialTables t = b.Build();
  t.gpu_intervals->clear();
  auto s = SummarizeTrial(t, Options(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            "trial: error[attr.overflow]: the span of the kept work does not fit in a signed 64-bit integer of "
            "nanoseconds");
}

TEST(Attribute, TotalOfKeptWorkPastInt64IsAnError) {
  std::vector<std::pair<int64_t, int64_t>> intervals = {{0, INT64_MAX / 2 + 1}, {0, INT64_MAX / 2 + 1}};
  TrialSummary s;
  Status st = SummarizeKeptWork(intervals, Options(1), "p", &s);
  EXPECT_EQ(st.ToString(),
            "p: error[attr.overflow]: the duration or the running total at kept submission 2 does not fit in a "
            "signed 64-bit integer of nanoseconds");
}

TEST(Attribute, BucketSumPastInt64IsAnErrorEvenWhenTheTotalFits) {
  // The running total goes -big, 0, +big; the non-negative bucket alone reaches 2 big.
  const int64_t big = INT64_MAX / 2 + 1;
  std::vector<std::pair<int64_t, int64_t>> intervals = {{big, 0}, {0, big}, {0, big}};
  AttributionOptions o = Options(1);
  o.buckets = {Bucket{"negative", INT64_MIN, 0, ""}, Bucket{"rest", 0, INT64_MAX, ""}};
  TrialSummary s;
  Status st = SummarizeKeptWork(intervals, o, "p", &s);
  EXPECT_EQ(st.ToString(),
            "p: error[attr.overflow]: the sum of bucket 'rest' does not fit in a signed 64-bit integer of "
            "nanoseconds");
}

TEST(Attribute, NoPairAtAllSaysWhyPerReason) {
  TrialBuilder b;
  b.Point(10, 1, 1);  // never ended
  b.Point(20, 2, 2);  // no start
  b.Point(30, 2, 3);  // no start
  b.Point(40, 3, 4);  // unknown function
  TrialTables t = b.Build();
  t.diagnostics.Add("xctrace.null_required_value", {}, "a skipped row");
  auto s = SummarizeTrial(t, Options(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            "trial: error[attr.no_pairs]: no execution-point start/end pair among 4 decoded rows: 1 rows skipped "
            "for a null or bad value, 2 ends without a start, 1 starts never ended, 0 ends before their start, 1 "
            "unknown functions");
}

}  // namespace
}  // namespace perfgate::attribution
