// `perfgate attribute --format all` over both bundled sources: every report heading,
// table column, chart title and progress line speaks the source's language (kernels,
// kernel families, annotation phases for the H200 trace-event JSON; submissions,
// encoder families, command-buffer phases for the Metal exports), and the JSON report
// records the version, the options used and the bands in band order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfgate/core/version.h"
#include "perfgate/sources/source.h"
#include "support/run_command.h"
#include "unit/report/attribute_all_formats.h"

namespace perfgate::report {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kRecordings = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings";

using Reports = testing_support::AllFormats;

Reports Attribute(const std::string& args, const std::string& name) {
  return testing_support::AttributeAllFormats(args, "vocabulary-" + name);
}

Reports Torch() {
  // One trial each: the words do not depend on the trial count, and each trial costs
  // about 0.5 s to read.
  const std::string rec = kRecordings + "/torch_decode_h200";
  return Attribute("--trace graphs=" + rec + "/graphs/trial-1/trace.json.gz --trace eager=" + rec +
                       "/eager/trial-1/trace.json.gz --baseline eager --tokens auto:decode_step --window label:decode_step",
                   "torch");
}

Reports Metal() {
  const std::string rec = kRecordings + "/decode_q4_0", head = "output_head.fused_norm_lm_argmax";
  return Attribute("--trace hf2q=" + rec + "/hf2q --trace llama=" + rec + "/llama --baseline llama --tokens hf2q=auto:" +
                       head + " --window hf2q=label:" + head + " --tokens llama=64 --window llama=skip:6",
                   "metal");
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Each source.cc fills the words by field name; a word left out would print as "".
TEST(SourceWords, EveryBuiltinSourceFillsEveryWord) {
  using W = sources::SourceWords;
  const std::vector<std::pair<const char*, std::string_view W::*>> fields = {
      {"unit", &W::unit},           {"units", &W::units},
      {"family", &W::family},       {"families", &W::families},
      {"per_token", &W::per_token}, {"dispatch_note", &W::dispatch_note},
      {"phase", &W::phase},         {"phases", &W::phases},
      {"registry", &W::registry},   {"unit_abbrev", &W::unit_abbrev},
      {"instance", &W::instance},   {"labelled", &W::labelled},
      {"registry_title", &W::registry_title}, {"registry_names", &W::registry_names},
      {"distinct_names", &W::distinct_names}, {"kernel_names", &W::kernel_names},
      {"source", &W::source},       {"method_note", &W::method_note},
      {"unit_definition", &W::unit_definition}, {"figures_note", &W::figures_note},
      {"families_banner", &W::families_banner}, {"families_note", &W::families_note},
      {"phases_banner", &W::phases_banner},     {"phases_note", &W::phases_note},
      {"generic_phases", &W::generic_phases},   {"registry_note", &W::registry_note}};
  // Empty where the source has none: further method paragraphs, a per-kernel timing table.
  const size_t optional_fields = 2;  // method_details, timeline_rows
  ASSERT_EQ((fields.size() + optional_fields) * sizeof(std::string_view), sizeof(W))
      << "a field of SourceWords is not listed here";
  for (const sources::TraceSource& s : sources::BuiltinSources()) {
    for (const auto& [name, field] : fields) {
      EXPECT_FALSE((s.descriptor.words.*field).empty()) << s.descriptor.name << "." << name;
    }
  }
  const W& metal = sources::BuiltinSources().at(0).descriptor.words;
  const W& json = sources::BuiltinSources().at(1).descriptor.words;
  EXPECT_EQ(metal.unit, "submission");
  EXPECT_EQ(metal.unit_abbrev, "sub");
  EXPECT_EQ(metal.instance, "CB");
  EXPECT_EQ(json.unit, "kernel");
  EXPECT_EQ(json.phase, "annotation phase");
  EXPECT_EQ(json.distinct_names, "distinct kernels");
  EXPECT_FALSE(metal.method_details.empty());
  EXPECT_FALSE(metal.timeline_rows.empty());
  EXPECT_TRUE(json.timeline_rows.empty());
  const W& nsys = sources::BuiltinSources().at(2).descriptor.words;
  EXPECT_EQ(nsys.generic_phases, "kernels outside every NVTX range");
}

TEST(ReportVocabularyCli, TraceEventJsonSpeaksOfKernels) {
  const Reports r = Torch();
  for (const std::string* report : {&r.progress, &r.markdown, &r.svg}) {
    for (const char* metal_word : {"submission", "encoder", "command-buffer", "command buffer", "shader", "pipeline",
                                   "cbs/tok", "sub/tok", "µs/cb"}) {
      EXPECT_THAT(Lower(*report), Not(HasSubstr(metal_word))) << *report;
    }
  }
  // The whole text report, its diagnostics table too (whose meanings once said "A
  // submission lies outside the decode window" for kernels), and no Metal bucket hint
  // (the default buckets' "Q4_0 MoE mat-vec_id ... primary Q4_0 attack surface").
  const std::string text = Lower(r.text);
  ASSERT_THAT(text, HasSubstr("diagnostics (counted"));
  ASSERT_THAT(text, HasSubstr("attr.outside_window"));
  for (const char* metal_word : {"submission", "encoder", "command-buffer", "command buffer", "shader", "pipeline",
                                 "cbs/tok", "sub/tok", "µs/cb", "q4_0", "mat-vec", "mul_mm_id", "flash_attn",
                                 "lm_head"}) {
    EXPECT_THAT(text, Not(HasSubstr(metal_word)));
  }
  for (const std::string* report : {&r.markdown, &r.svg}) {
    for (const char* hint_word : {"q4_0", "mat-vec", "mul_mm_id", "flash_attn", "lm_head"}) {
      EXPECT_THAT(Lower(*report), Not(HasSubstr(hint_word))) << *report;
    }
  }
  EXPECT_THAT(r.text, HasSubstr("\nmd_8_32us bucket summary:\n"));
  EXPECT_THAT(r.text, HasSubstr(" A GPU work item lies outside the decode window"));
  EXPECT_THAT(r.progress, HasSubstr(": 10240 kernels over 64 tokens (label:decode_step), 29 distinct kernels\n"));
  EXPECT_THAT(r.text, HasSubstr("\nKernels/tok: 160.0 vs 423.0"));
  EXPECT_THAT(r.text, HasSubstr("Per-annotation-phase GPU time"));
  EXPECT_THAT(r.text, HasSubstr("graphs label coverage (trial 0): 10240 / 10240 kernels carry a phase label"));
  EXPECT_THAT(r.markdown, HasSubstr("### Per-kernel-family GPU time"));
  EXPECT_THAT(r.markdown, HasSubstr("### Per-annotation-phase GPU time"));
  EXPECT_THAT(r.markdown, HasSubstr("| bucket | graphs (engine) kern/tok |"));
  EXPECT_THAT(r.svg, HasSubstr(">GPU µs/token by kernel-duration bucket</text>"));
  EXPECT_THAT(r.svg, HasSubstr(">GPU µs/token by annotation phase (top 10)</text>"));
  EXPECT_THAT(r.svg, HasSubstr(">Δ GPU µs/token by kernel-duration bucket: graphs − eager</text>"));
  // The JSON report names the source and its words, and each engine's options as its
  // trials ran: trace-event JSON's default leaves the options as given (no prefix).
  const auto j = nlohmann::json::parse(r.json);
  EXPECT_EQ(j["source"], "trace_json");
  EXPECT_EQ(j["words"]["phase"], "annotation phase");
  EXPECT_EQ(j["options"]["engines"]["graphs"]["all_processes"], false);
  EXPECT_EQ(j["options"]["engines"]["graphs"]["process_prefix"], "");
  EXPECT_EQ(j["options"]["engines"]["eager"]["window"]["label"], "decode_step");
}

TEST(ReportVocabularyCli, MetalSpeaksOfSubmissions) {
  const Reports r = Metal();
  for (const std::string* report : {&r.progress, &r.text, &r.markdown, &r.svg}) {
    for (const char* json_word : {"kern/tok", "annotation", "ranges/tok", "distinct kernels", "Kernel list"}) {
      EXPECT_THAT(*report, Not(HasSubstr(json_word)));
    }
  }
  EXPECT_THAT(r.progress, HasSubstr(" submissions over 62 tokens (label:output_head.fused_norm_lm_argmax), 14 shaders\n"));
  // The default buckets' hints name these Metal kernels, and Metal reports keep them.
  EXPECT_THAT(r.text, HasSubstr("md_8_32us bucket summary (Q4_0 MoE mat-vec_id (gate/up/down) — primary Q4_0 attack surface):"));
  EXPECT_THAT(r.text, HasSubstr("\nSubmissions/tok: "));
  EXPECT_THAT(r.text, HasSubstr("Per-command-buffer-phase GPU time"));
  EXPECT_THAT(r.markdown, HasSubstr("### Per-encoder-family GPU time"));
  EXPECT_THAT(r.markdown, HasSubstr("### Per-command-buffer-phase GPU time"));
  EXPECT_THAT(r.svg, HasSubstr(">GPU µs/token by submission-duration bucket</text>"));
  EXPECT_THAT(r.svg, HasSubstr(">GPU µs/token by command-buffer phase (top 10)</text>"));

  // The JSON report says which perfgate wrote it and with which options (each engine's
  // as its trials ran: for Metal the default process filter is the engine's name), and
  // lists the bands in band order with their bounds.
  const auto metal = nlohmann::ordered_json::parse(r.json);
  EXPECT_EQ(metal["schema_version"], 6);
  EXPECT_EQ(metal["source"], "metal");
  EXPECT_EQ(metal["perfgate"]["version"], std::string(Version()));
  EXPECT_EQ(metal["perfgate"]["commit"], std::string(BuildCommit()));
  std::vector<std::string> bands;
  for (auto it = metal["buckets"].begin(); it != metal["buckets"].end(); ++it) bands.push_back(it.key());
  EXPECT_EQ(bands, (std::vector<std::string>{"xs_<2us", "sm_2_8us", "md_8_32us", "lg_32_80us", "xl_>=80us"}));
  EXPECT_EQ(metal["buckets"]["md_8_32us"]["lo_ns"], 8000);
  EXPECT_EQ(metal["buckets"]["md_8_32us"]["hi_ns"], 32000);
  std::vector<std::string> compared;
  for (auto it = metal["comparison"]["buckets"].begin(); it != metal["comparison"]["buckets"].end(); ++it) {
    compared.push_back(it.key());
  }
  EXPECT_EQ(compared, bands);
  const auto& hf2q = metal["options"]["engines"]["hf2q"];
  EXPECT_EQ(hf2q["process_prefix"], "hf2q");
  EXPECT_EQ(hf2q["all_processes"], false);
  EXPECT_EQ(hf2q["token_label"], "output_head.fused_norm_lm_argmax");
  EXPECT_EQ(hf2q["window"]["mode"], "label");
  const auto& llama = metal["options"]["engines"]["llama"];
  EXPECT_EQ(llama["process_prefix"], "llama");
  EXPECT_EQ(llama["tokens"], 64);
  EXPECT_EQ(llama["window"], nlohmann::ordered_json::parse(R"({"mode": "skip", "skip": 6})"));
  EXPECT_EQ(metal["options"]["flags"]["baseline"], "llama");
  EXPECT_EQ(metal["options"]["flags"]["min_trials"], "1");
}

}  // namespace
}  // namespace perfgate::report
