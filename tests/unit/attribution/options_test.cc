#include "perfgate/attribution/options.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "attribution/label_matcher.h"

namespace perfgate::attribution {
namespace {

TEST(Options, DefaultBucketsAreTheSeeds) {
  auto b = DefaultBuckets();
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b[0].name, "xs_<2us");
  EXPECT_EQ(b[2].lo_ns, 8000);
  EXPECT_EQ(b[2].hi_ns, 32000);
  EXPECT_EQ(b[4].name, "xl_>=80us");
  EXPECT_EQ(b[4].hi_ns, Bucket::kOpenEnd);
}

TEST(Options, ParseBuckets) {
  auto b = ParseBuckets("fast:0:10000,mid:10000:50000,slow:50000:");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->size(), 3u);
  EXPECT_EQ((*b)[1].hi_ns, 50000);
  EXPECT_EQ((*b)[2].hi_ns, Bucket::kOpenEnd);
  EXPECT_EQ(ParseBuckets("a:5:10,b:10:").status().message(),
            "bucket 'a' starts at 5 ns, expected 0 (bands must be contiguous from 0)");
  EXPECT_EQ(ParseBuckets("a:0:10,b:12:").status().code(), "cli.usage");
  EXPECT_EQ(ParseBuckets("a:0:10").status().message(), "the last bucket must be open-ended (NAME:LO_NS:)");
  EXPECT_EQ(ParseBuckets("a:0:x,b:1:").status().message(), "bucket 'a': bad upper bound");
  EXPECT_EQ(ParseBuckets("a:0").status().message(), "bucket 'a:0' is not NAME:LO_NS:HI_NS");
}

TEST(Options, ParseWindow) {
  auto l = ParseWindow("label:output_head.fused_norm_lm_argmax");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->mode, DecodeWindow::Mode::kLabel);
  EXPECT_EQ(l->label, "output_head.fused_norm_lm_argmax");
  auto t = ParseWindow("time:100:900");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->start_ns, 100);
  EXPECT_EQ(t->end_ns, 900);
  auto s = ParseWindow("skip:6");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->skip, 6);
  EXPECT_FALSE(ParseWindow("time:9:1").ok());
  EXPECT_FALSE(ParseWindow("skip:x").ok());
  EXPECT_FALSE(ParseWindow("whatever").ok());
}

TEST(Options, TypedWindowsMatchTheParsedOnes) {
  auto same = [](const DecodeWindow& a, const DecodeWindow& b) {
    return a.mode == b.mode && a.label == b.label && a.start_ns == b.start_ns && a.end_ns == b.end_ns &&
           a.skip == b.skip;
  };
  const DecodeWindow label = DecodeWindow::Label("output_head.fused_norm_lm_argmax");
  EXPECT_EQ(label.mode, DecodeWindow::Mode::kLabel);
  EXPECT_EQ(label.label, "output_head.fused_norm_lm_argmax");
  EXPECT_TRUE(same(label, *ParseWindow("label:output_head.fused_norm_lm_argmax")));
  EXPECT_TRUE(same(DecodeWindow::Label("a:b"), *ParseWindow("label:a:b")));  // colons belong to the label
  const DecodeWindow skip = DecodeWindow::SkipSubmissions(6);
  EXPECT_EQ(skip.mode, DecodeWindow::Mode::kSkipSubmissions);
  EXPECT_EQ(skip.skip, 6);
  EXPECT_TRUE(same(skip, *ParseWindow("skip:6")));
  const DecodeWindow time = DecodeWindow::TimeRange(100, 900);
  EXPECT_EQ(time.mode, DecodeWindow::Mode::kTimeRange);
  EXPECT_EQ(time.start_ns, 100);
  EXPECT_EQ(time.end_ns, 900);
  EXPECT_TRUE(same(time, *ParseWindow("time:100:900")));
  const DecodeWindow whole = DecodeWindow::WholeTrace();
  EXPECT_EQ(whole.mode, DecodeWindow::Mode::kWholeTrace);
  EXPECT_TRUE(same(whole, DecodeWindow{}));
  EXPECT_EQ(whole.end_ns, INT64_MAX);
}

TEST(Options, LabelSpellingsOfWindowAndTokens) {
  auto prefix = ParseWindow("label-prefix:step[DECODE");
  ASSERT_TRUE(prefix.ok()) << prefix.status().ToString();
  EXPECT_EQ(prefix->mode, DecodeWindow::Mode::kLabel);
  EXPECT_EQ(prefix->label, LabelMatch::Prefix("step[DECODE"));
  auto regex = ParseWindow(R"(label-regex:step\[DECODE bs=\d+\])");
  ASSERT_TRUE(regex.ok());
  EXPECT_EQ(regex->label, LabelMatch::Regex(R"(step\[DECODE bs=\d+\])"));
  EXPECT_EQ(ParseWindow("label:step[DECODE bs=32]")->label, LabelMatch::Exact("step[DECODE bs=32]"));
  EXPECT_EQ(ParseWindow("label-prefix:a:b")->label.text, "a:b");  // colons belong to the label
  EXPECT_EQ(*ParseTokenLabel("auto:decode_step"), LabelMatch::Exact("decode_step"));
  EXPECT_EQ(*ParseTokenLabel("auto-prefix:step[DECODE"), LabelMatch::Prefix("step[DECODE"));
  EXPECT_EQ(*ParseTokenLabel("auto-regex:execute_\\d+_.*"), LabelMatch::Regex("execute_\\d+_.*"));

  // Refused, with the option and its text; a bad pattern with std::regex's reason.
  EXPECT_EQ(ParseWindow("label-prefix:").status().ToString(), "error[cli.usage]: --window label-prefix: needs a label");
  EXPECT_EQ(ParseTokenLabel("auto:").status().ToString(), "error[cli.usage]: --tokens auto: needs a label");
  auto bad = ParseWindow("label-regex:step[");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), ErrorKind::kUsage);
  EXPECT_NE(bad.status().message().find("--window label-regex:step[: label regex 'step[' is not an ECMAScript "
                                        "regular expression: "),
            std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(ParseTokenLabel("auto-regex:(").ok());
  EXPECT_FALSE(ParseWindow("label-glob:x").ok());
  EXPECT_EQ(ParseTokenLabel("auto-glob:x").status().ToString(),
            "error[cli.usage]: --tokens 'auto-glob:x': expected auto:NAME, auto-prefix:TEXT or auto-regex:RE");
}

TEST(Options, LabelMatchersAndSpellings) {
  auto exact = LabelMatcher::Compile("layer.attn");
  ASSERT_TRUE(exact.ok());
  EXPECT_TRUE(exact->Matches("[3] layer.12.attn"));  // normalised, as before
  EXPECT_FALSE(exact->Matches("layer.attn2"));
  auto prefix = LabelMatcher::Compile(LabelMatch::Prefix("step[DECODE"));
  ASSERT_TRUE(prefix.ok());
  EXPECT_TRUE(prefix->Matches("step[DECODE bs=32]"));
  EXPECT_FALSE(prefix->Matches("step[PREFILL bs=32]"));
  EXPECT_FALSE(prefix->Matches("step[DECOD"));
  auto regex = LabelMatcher::Compile(LabelMatch::Regex(R"(step\[DECODE bs=\d+\])"));
  ASSERT_TRUE(regex.ok());
  EXPECT_TRUE(regex->Matches("step[DECODE bs=32]"));
  EXPECT_FALSE(regex->Matches("step[DECODE bs=32] "));  // the whole name
  EXPECT_FALSE(regex->Matches("xstep[DECODE bs=32]"));
  EXPECT_EQ(LabelMatcher::Compile(LabelMatch()).status().code(), "cli.usage");

  EXPECT_EQ(LabelMatch("decode_step").Spelling(), "decode_step");  // reports unchanged
  EXPECT_EQ(LabelMatch::Prefix("step[").Spelling(), "prefix:step[");
  EXPECT_EQ(LabelMatch::Regex("a.*").Spelling(), "regex:a.*");
  EXPECT_EQ(LabelMatch("prefix:x").Spelling(), "exact:prefix:x");  // never read as a prefix
  EXPECT_TRUE(SameLabel("layer.1.attn", "layer.attn"));
  EXPECT_FALSE(SameLabel(LabelMatch::Prefix("a"), "a"));
  EXPECT_TRUE(SameLabel(LabelMatch::Regex("a+"), LabelMatch::Regex("a+")));
  EXPECT_FALSE(SameLabel(LabelMatch::Regex("a+"), LabelMatch::Regex("a*")));
}

// A backtracking matcher recurses per character and overflows the stack on a long
// name (a 100 KB name against "a.*" did with libstdc++'s default executor; libc++'s
// is one). Names over kMaxRegexNameBytes are not tested: they do not match, counted.
TEST(Options, LabelPatternsSurviveLongNames) {
  auto m = LabelMatcher::Compile(LabelMatch::Regex("execute_.*|a.*"));
  ASSERT_TRUE(m.ok());
  const size_t cap = LabelMatcher::kMaxRegexNameBytes;
  EXPECT_EQ(cap, 4096u);
  EXPECT_TRUE(m->Matches(std::string(cap, 'a')));
  EXPECT_FALSE(m->Matches(std::string(cap, 'b')));
  EXPECT_FALSE(m->Matches(std::string(cap + 1, 'a')));
  EXPECT_FALSE(m->Matches(std::string(1'000'000, 'a')));
  const LabelMatcher copy = *m;  // copies share the counts
  EXPECT_FALSE(copy.Matches(std::string(cap + 2, 'a')));
  Diagnostics d;
  m->CountUntested(&d);
  EXPECT_EQ(d.Count("attr.label_too_long"), 3);
  EXPECT_FALSE(d.Has("attr.label_regex_error"));
  // Prefixes and exact labels have no cap: they cost the label, not the name.
  auto prefix = LabelMatcher::Compile(LabelMatch::Prefix("a"));
  ASSERT_TRUE(prefix.ok());
  EXPECT_TRUE(prefix->Matches(std::string(1'000'000, 'a')));
  Diagnostics none;
  prefix->CountUntested(&none);
  EXPECT_FALSE(none.Has("attr.label_too_long"));
#ifdef __GLIBCXX__
  auto backref = LabelMatcher::Compile(LabelMatch::Regex(R"((a)\1)"));
  EXPECT_EQ(backref.status().code(), "cli.usage");  // the linear-time matcher has no back-references
#endif
}

TEST(Options, DefaultProcessFilterIsTheEngineName) {
  AttributionOptions o;
  ApplyDefaultProcessFilter("hf2q", &o);
  EXPECT_EQ(o.process_prefix, "hf2q");
  ApplyDefaultProcessFilter("llama", &o);  // an explicit (or already applied) prefix stays
  EXPECT_EQ(o.process_prefix, "hf2q");
  AttributionOptions all;
  all.all_processes = true;
  ApplyDefaultProcessFilter("hf2q", &all);
  EXPECT_EQ(all.process_prefix, "");  // every process, as asked
  AttributionOptions mine;
  mine.process_prefix = "llama-server";
  ApplyDefaultProcessFilter("llama", &mine);
  EXPECT_EQ(mine.process_prefix, "llama-server");
}

TEST(Options, KernelFamilyNamesAreTheRulesFamilies) {
  const std::set<std::string> names = KernelFamilyNames(DefaultKernelFamilies());
  EXPECT_EQ(names.count("moe_q4_0_mv"), 1u);
  EXPECT_EQ(names.count("kv_cache"), 1u);
  EXPECT_EQ(names.count("kv_cache_copy"), 0u);  // a prefix, not a family
  EXPECT_EQ(names.count("other_get"), 0u);      // fallbacks are not rule families
  KernelFamilyTable t;
  t.rules = {{"gemm", "matmul"}, {"gemv", "matmul"}, {"softmax", "softmax"}};
  EXPECT_EQ(KernelFamilyNames(t), (std::set<std::string>{"matmul", "softmax"}));
  EXPECT_TRUE(KernelFamilyNames(KernelFamilyTable{}).empty());
}

TEST(Options, NormalizePhaseLabelLikeTheSeed) {
  EXPECT_EQ(NormalizePhaseLabel(""), "(unknown)");
  EXPECT_EQ(NormalizePhaseLabel("layer.12.attn_moe_ffn"), "layer.attn_moe_ffn");
  EXPECT_EQ(NormalizePhaseLabel("[3] layer.12.attn"), "layer.attn");
  EXPECT_EQ(NormalizePhaseLabel("Command Buffer 0"), "Command Buffer 0");
  EXPECT_EQ(NormalizePhaseLabel("1.2.3"), "1.2.3");  // nothing left: kept as is
  EXPECT_EQ(NormalizePhaseLabel("[0] 12"), "12");
  EXPECT_EQ(NormalizePhaseLabel("a..b"), "a..b");
}

TEST(Options, EncoderFamilyLikeTheSeed) {
  EXPECT_EQ(EncoderFamily("Compute Command 0"), "compute");
  EXPECT_EQ(EncoderFamily("Blit Command 3"), "blit");
  EXPECT_EQ(EncoderFamily("Render Command 1"), "render");
  EXPECT_EQ(EncoderFamily("Acceleration Structure"), "accel");
  EXPECT_EQ(EncoderFamily("MoE Dispatch"), "moe");
  EXPECT_EQ(EncoderFamily(""), "(unknown)");
}

TEST(Options, KernelFamiliesFollowTheSeedsTableInOrder) {
  const KernelFamilyTable t = DefaultKernelFamilies();
  EXPECT_EQ(KernelFamily(t, "kernel_mul_mm_id_map0_f16"), "moe_map0");
  EXPECT_EQ(KernelFamily(t, "kernel_mul_mm_id_q4_0_f32"), "moe_mm");
  EXPECT_EQ(KernelFamily(t, "kernel_mul_mv_q4_0_f32 (35)"), "dense_q4_0_mv");
  EXPECT_EQ(KernelFamily(t, "kernel_mul_mv_f16_f32|variant"), "dense_mv");
  EXPECT_EQ(KernelFamily(t, "kernel_kv_cache_copy_f16"), "kv_cache");
  EXPECT_EQ(KernelFamily(t, "kernel_get_rows_q4_0"), "other_get");
  EXPECT_EQ(KernelFamily(t, "  kernel_rope_norm_f32  "), "rope");
  EXPECT_EQ(KernelFamily(t, ""), "(unknown)");
  // Names without the prefix: the corrected method still applies the rules; the seed
  // made each its own family.
  EXPECT_EQ(KernelFamily(t, "rms_norm_f32"), "rms_norm");
  EXPECT_EQ(KernelFamily(t, "rms_norm_f32", true), "rms_norm_f32");
}

TEST(Options, KernelFamiliesLoadFromJson) {
  const std::string path = "/tmp/perfgate-families-test.json";
  {
    std::ofstream out(path);
    out << R"({"strip_prefix": "", "rules": [{"prefix": "gemm", "family": "matmul"}, {"prefix": "softmax", "family": "softmax"}]})";
  }
  auto t = LoadKernelFamilies(path);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(KernelFamily(*t, "gemm_bf16_128x128"), "matmul");
  EXPECT_EQ(KernelFamily(*t, "elementwise_add"), "other_elementwise");
  {
    std::ofstream out(path);
    out << R"({"rules": [{"prefix": ""}]})";
  }
  EXPECT_EQ(LoadKernelFamilies(path).status().message(), "rules[0] needs non-empty string prefix and family");
  {
    std::ofstream out(path);
    out << "{not json";
  }
  EXPECT_EQ(LoadKernelFamilies(path).status().code(), "families.bad_json");
  std::remove(path.c_str());
}

TEST(Options, GenericPhases) {
  EXPECT_TRUE(IsGenericPhase("Command Buffer 0"));
  EXPECT_TRUE(IsGenericPhase("Compute Command 3"));
  EXPECT_TRUE(IsGenericPhase("(unknown)"));
  EXPECT_FALSE(IsGenericPhase("layer.attn_moe_ffn"));
}

}  // namespace
}  // namespace perfgate::attribution
