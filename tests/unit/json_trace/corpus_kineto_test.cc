// Conformance of the trace-event source on the real Kineto traces of the corpus
// (shared/corpus/kineto, read in place through PERFGATE_CORPUS_DIR). Every figure
// here was computed independently of perfgate, by tests/corpus/kineto_figures.py
// (stdlib json + gzip, times parsed as Decimal):
//
//   python3 tests/corpus/kineto_figures.py --names
//       --label-prefix 'ProfilerStep#' --label-prefix 'step[DECODE' --label-prefix 'execute_'
//       --label 'step[DECODE bs=32]'
//       --label 'execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32sqsk32785)'
//       --label 'execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)'
//       $PERFGATE_CORPUS_DIR/kineto/*/*.json.gz
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/attribution/work.h"
#include "support/corpus.h"

namespace perfgate::json_trace {
namespace {

using attribution::AttributionOptions;
using attribution::DecodeWindow;
using attribution::LabelMatch;

// One trace's figures, as the script prints them.
struct Figures {
  const char* file;  // under kineto/
  int64_t kernels;
  int64_t kernel_ns;
  int64_t memcpys;
  int64_t memcpy_ns;
  int64_t memsets;
  int64_t memset_ns;
  int64_t distinct_kernels;
  int64_t device;  // the one device every kernel ran on
  int64_t kernel_launches;
  int64_t graph_launches;
  int64_t other_launches;
  int64_t graph_kernels;
  int64_t unlaunched_kernels;
  int64_t not_used_events;  // events attribution does not use: json.skipped_event
  int64_t ignored_fields;   // args.stream/device that is no index, on events other than GPU work
};

void PrintTo(const Figures& f, std::ostream* os) { *os << f.file; }

const Figures kTraces[] = {
    {"hta/alexnet_benchmark_result_2869224_1695835535_trace.json.gz", 79, 10692000, 16, 55503000, 3, 8000, 16, 0, 79,
     0, 0, 0, 0, 927, 0},
    {"hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz", 14, 110881, 2, 38161, 0, 0, 12, 2, 14, 0, 0, 0, 0,
     157, 16},
    {"hta/cuda_event_sync_event_sync_trace.json.gz", 4, 49000, 1, 2000, 0, 0, 4, 0, 4, 0, 0, 0, 0, 61, 3},
    {"hta/cuda_event_sync_multi_stream_event_sync_trace.json.gz", 3, 369000, 0, 0, 3, 3000, 1, 0, 3, 0, 0, 0, 0, 89, 4},
    {"hta/execution_trace_benchmark_simple_add_trace.json.gz", 4, 16000, 0, 0, 0, 0, 2, 0, 4, 0, 0, 0, 0, 72, 0},
    {"hta/ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", 4350, 468153602, 1600, 3715404, 145,
     585435, 77, 0, 4350, 0, 0, 0, 0, 47170, 0},
    {"hta/trace_diff_control_control.json.gz", 8568, 446813000, 228, 53498000, 654, 1256000, 170, 3, 8568, 0, 0, 0, 0,
     74677, 0},
    {"hta/trace_diff_test_test.json.gz", 9876, 801858000, 4856, 159699000, 900, 2205000, 131, 1, 4866, 12, 0, 4464,
     546, 68064, 0},
    {"hta/triton_example_triton_example.json.gz", 1, 1760, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 47, 0},
    {"tracelens/b200_eager_trace.json.gz", 768, 10862916, 161, 802844, 0, 0, 29, 0, 768, 0, 0, 0, 0, 22349, 0},
    {"tracelens/inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz", 555, 9765437, 3, 13177, 0, 0, 27, 9, 11, 1,
     0, 544, 0, 1469, 0},
    {"tracelens/inference_vllm_decode_full_graph_execution.json.gz", 425, 10674517, 9, 43191, 0, 0, 24, 2, 4, 1, 0,
     421, 0, 1538, 0},
    {"tracelens/torch_compile_triton_trace.json.gz", 12, 12549021, 0, 0, 0, 0, 8, 2, 12, 0, 0, 0, 0, 153, 0},
};

// `perfgate attribute`'s defaults for trace-event JSON: no process choice (kernels of
// several processes would be attr.several_processes: every corpus trace has one
// launching process), one token.
AttributionOptions WholeTrace() {
  AttributionOptions o;
  o.tokens = 1;
  return o;
}

class CorpusKineto : public ::testing::TestWithParam<Figures> {};

// One strict read per trace (the default mode), attributed twice.
TEST_P(CorpusKineto, FiguresEqualTheScripts) {
  const Figures& f = GetParam();
  PERFGATE_CORPUS_FILE_OR_SKIP(path, std::string("kineto/") + f.file);
  auto trace = ReadTraceJsonFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  // A field attribution does not use never stops a strict read: every such event, and
  // every malformed field on an event that does not use it, is counted under its named
  // code, and nothing else is reported.
  EXPECT_EQ(trace->diagnostics.Count("json.skipped_event"), f.not_used_events);
  EXPECT_EQ(trace->diagnostics.Count("json.ignored_field"), f.ignored_fields);
  for (const auto& entry : trace->diagnostics.Entries()) {
    EXPECT_TRUE(entry.code == "json.skipped_event" || entry.code == "json.ignored_field")
        << entry.code << ": " << entry.first_detail;
  }
  attribution::WorkExtras x;
  auto s = attribution::AttributeWork(*trace, WholeTrace(), &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, f.kernels);
  EXPECT_EQ(x.kernels, f.kernels);
  EXPECT_EQ(s->total_sum_ns, f.kernel_ns);
  EXPECT_EQ(x.memcpys, f.memcpys);
  EXPECT_EQ(x.memcpy_ns, f.memcpy_ns);
  EXPECT_EQ(x.memsets, f.memsets);
  EXPECT_EQ(x.memset_ns, f.memset_ns);
  EXPECT_EQ(s->registered_kernels, f.distinct_kernels);
  EXPECT_EQ(static_cast<int64_t>(s->kernels.size()), f.distinct_kernels);
  EXPECT_EQ(x.kernel_launches, f.kernel_launches);
  EXPECT_EQ(x.graph_launches, f.graph_launches);
  EXPECT_EQ(x.other_launches, f.other_launches);
  EXPECT_EQ(x.graph_kernels, f.graph_kernels);
  EXPECT_EQ(x.unlaunched_kernels, f.unlaunched_kernels);
  EXPECT_FALSE(s->diagnostics.Has("attr.mixed_processes"));
  // Choosing the one device changes nothing, and no other device is counted.
  AttributionOptions on_device = WholeTrace();
  on_device.device = f.device;
  auto d = attribution::AttributeWork(*trace, on_device);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->items, f.kernels);
  EXPECT_EQ(d->total_sum_ns, f.kernel_ns);
  EXPECT_EQ(d->diagnostics.Count("attr.other_device"), 0);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusKineto, ::testing::ValuesIn(kTraces),
                         [](const ::testing::TestParamInfo<Figures>& info) {
                           std::string name = std::string(info.param.file).substr(std::string(info.param.file).find('/') + 1);
                           name = name.substr(0, name.find('.'));
                           for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return name;
                         });

// The CUPTI-profiler trace holds profiler ranges and no kernel event: a clear error,
// after a strict read that skipped its 2,341 unused events (the script's not_used).
TEST(CorpusKinetoNoKernels, CuptiProfilerTraceIsAClearError) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "kineto/hta/cupti_profiler_benchmark_result_924719_1679055439_trace.json.gz");
  auto trace = ReadTraceJsonFile(path);
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  EXPECT_EQ(trace->diagnostics.Count("json.skipped_event"), 2341);
  auto s = attribution::AttributeWork(*trace, WholeTrace());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            path + ": error[attr.no_target_rows]: the trace has no kernel events (0 GPU work items in all)");
}

// count, sum, min and max per exact kernel name, sorted: the script's --names lines.
using NameStats = std::tuple<int64_t, int64_t, int64_t, int64_t>;

std::vector<NameStats> SortedNameStats(const attribution::TrialSummary& s) {
  std::vector<NameStats> out;
  for (const auto& [name, k] : s.kernels) out.emplace_back(k.items, k.gpu_sum_ns, k.min_ns, k.max_ns);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CorpusKinetoKernelNames, Mi250PerNameFiguresEqualTheScripts) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "kineto/hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  auto s = SummarizeJsonTrialFile(path, WholeTrace());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  std::vector<NameStats> expected = {
      {1, 17600, 17600, 17600}, {1, 13600, 13600, 13600}, {1, 12640, 12640, 12640}, {1, 11040, 11040, 11040},
      {2, 9120, 4160, 4960},    {1, 8481, 8481, 8481},    {1, 8320, 8320, 8320},    {1, 6880, 6880, 6880},
      {1, 6720, 6720, 6720},    {1, 5600, 5600, 5600},    {2, 5600, 2240, 3360},    {1, 5280, 5280, 5280},
  };
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(SortedNameStats(*s), expected);
  // The two Tensile (rocBLAS) GEMMs are the gemm family and its whole time.
  int64_t cijk_ns = 0;
  for (const auto& [name, k] : s->kernels) {
    if (name.rfind("Cijk_", 0) != 0) continue;
    EXPECT_EQ(k.family, "gemm") << name;
    cijk_ns += k.gpu_sum_ns;
  }
  EXPECT_EQ(cijk_ns, 17600 + 12640);
  EXPECT_EQ(s->families.at("gemm").gpu_sum_ns, cijk_ns);
}

TEST(CorpusKinetoKernelNames, TorchCompileOnRocmPerNameFiguresEqualTheScripts) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "kineto/tracelens/torch_compile_triton_trace.json.gz");
  auto s = SummarizeJsonTrialFile(path, WholeTrace());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  std::vector<NameStats> expected = {
      {2, 3749165, 1775035, 1974130}, {1, 3683509, 3683509, 3683509}, {4, 2246691, 527342, 597526},
      {1, 2033699, 2033699, 2033699}, {1, 527382, 527382, 527382},    {1, 140848, 140848, 140848},
      {1, 90653, 90653, 90653},       {1, 77074, 77074, 77074},
  };
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(SortedNameStats(*s), expected);
  const auto& attn = s->kernels.at("attn_fwd");
  EXPECT_EQ(attn.family, "attention");
  EXPECT_EQ(attn.gpu_sum_ns, 3683509);
  EXPECT_EQ(s->kernels.at("triton_red_fused_add_mean_mul_pow_rsqrt_0").family, "triton_reduction");
  EXPECT_EQ(s->kernels.at("triton_poi_fused__unsafe_view_add_3").family, "triton_pointwise");
}

// The ROCm traces leave no kernel time in other_* families, but for two SGLang
// scheduling kernels that name no kind of work (resolve_future_token_ids_kernel,
// clamp_position_kernel: 12.1 us of 9,765 us).
TEST(CorpusKinetoFamilies, RocmKernelsAreClassified) {
  const std::pair<const char*, std::set<std::string>> kRocm[] = {
      {"hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz", {}},
      {"tracelens/inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz", {"clamp_position_kernel", "resolve_future_token_ids_kernel"}},
      {"tracelens/inference_vllm_decode_full_graph_execution.json.gz", {}},
      {"tracelens/torch_compile_triton_trace.json.gz", {}},
  };
  for (const auto& [file, unclassified] : kRocm) {
    SCOPED_TRACE(file);
    PERFGATE_CORPUS_FILE_OR_SKIP(path, std::string("kineto/") + file);
    auto s = SummarizeJsonTrialFile(path, WholeTrace());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    std::set<std::string> other;
    for (const auto& [name, k] : s->kernels) {
      if (k.family.rfind("other_", 0) == 0 || k.family == "(unknown)") other.insert(k.short_name);
    }
    EXPECT_EQ(other, unclassified);
  }
}

// Names as ROCm traces hold them: Tensile GEMMs, CK-tile kernels (mangled), aiter,
// vLLM's paged attention and KV-cache writes, triton_kernels' MoE routing.
TEST(CorpusKinetoFamilies, RocmServingKernelsGetTheirFamilies) {
  PERFGATE_CORPUS_FILE_OR_SKIP(sglang, "kineto/tracelens/inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz");
  PERFGATE_CORPUS_FILE_OR_SKIP(vllm, "kineto/tracelens/inference_vllm_decode_full_graph_execution.json.gz");
  auto s = SummarizeJsonTrialFile(sglang, WholeTrace());
  auto v = SummarizeJsonTrialFile(vllm, WholeTrace());
  ASSERT_TRUE(s.ok() && v.ok());
  auto family_of_short = [](const attribution::TrialSummary& t, const std::string& short_name) {
    std::set<std::string> families;
    for (const auto& [name, k] : t.kernels) {
      if (k.short_name == short_name) families.insert(k.family);
    }
    return families;
  };
  using Set = std::set<std::string>;
  EXPECT_EQ(family_of_short(*s, "add_rmsnorm_quant_kernel"), Set{"norm"});  // demangled aiter::
  EXPECT_EQ(family_of_short(*s, "act_and_mul_kernel"), Set{"activation"});
  EXPECT_EQ(family_of_short(*s, "paged_attention_ll4mi_QKV_mfma16_kernel"), Set{"attention"});
  EXPECT_EQ(family_of_short(*s, "paged_attention_ll4mi_reduce_kernel"), Set{"attention"});
  EXPECT_EQ(family_of_short(*s, "store_kvcache"), Set{"kv_cache"});
  EXPECT_EQ(family_of_short(*s, "rotary_embedding_kernel"), Set{"rope"});
  EXPECT_EQ(family_of_short(*s, "wrapped_scan_config"), Set{"reduction"});  // rocPRIM trampoline_kernel<...>
  EXPECT_EQ(family_of_short(*v, "Rmsnorm2dFwd"), Set{"norm"});  // ck_tile::kentry<1, Rmsnorm2dFwd<...>>
  EXPECT_EQ(family_of_short(*v, "reshape_and_cache_flash_kernel"), Set{"kv_cache"});
  EXPECT_EQ(family_of_short(*v, "_combined_routing_compute"), Set{"moe"});
  EXPECT_EQ(family_of_short(*v, "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1"), Set{"gemm"});
  EXPECT_EQ(family_of_short(*v, "kernel_unified_attention_3d"), Set{"attention"});
  for (const auto* t : {&*s, &*v}) {
    for (const auto& [name, k] : t->kernels) {
      if (name.rfind("Cijk_", 0) == 0) {
        EXPECT_EQ(k.family, "gemm") << name;
      }
    }
  }
}

// SGLang writes one `step[DECODE bs=32]` user annotation per decode step: a prefix
// or a pattern names it without escaping. The script: 1 host instance, around
// kernel launches; 550 of the 555 kernels are launched inside it.
TEST(CorpusKinetoLabels, SglangDecodeStepByPrefixAndPattern) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "kineto/tracelens/inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz");
  for (const LabelMatch& label : {LabelMatch::Prefix("step[DECODE"), LabelMatch::Regex(R"(step\[DECODE bs=\d+\])"),
                                  LabelMatch::Exact("step[DECODE bs=32]")}) {
    SCOPED_TRACE(label.Spelling());
    AttributionOptions o;
    o.all_processes = true;
    o.token_label = label;
    auto tokens_only = SummarizeJsonTrialFile(path, o);
    ASSERT_TRUE(tokens_only.ok()) << tokens_only.status().ToString();
    EXPECT_EQ(tokens_only->tokens, 1);
    EXPECT_EQ(tokens_only->tokens_source, "label:" + label.Spelling());
    EXPECT_EQ(tokens_only->items, 555);
    o.window = DecodeWindow::Label(label);
    attribution::WorkExtras x;
    auto windowed = SummarizeJsonTrialFile(path, o, &x);
    ASSERT_TRUE(windowed.ok()) << windowed.status().ToString();
    EXPECT_EQ(windowed->tokens, 1);
    EXPECT_EQ(windowed->items, 550);
    EXPECT_EQ(windowed->excluded_outside_window, 5);
    EXPECT_EQ(x.label_source, "user_annotation");
    EXPECT_EQ(x.label_occurrences, 1);
  }
}

// Per-step labels of the training and eager traces, by prefix: PyTorch's
// `ProfilerStep#N` and TraceLens's `execute_...`. Tokens are the instances around kept
// kernels: the GPU copies of the range when the trace has any (MI250: 1 of its 2
// host steps was copied to the GPU; B200), else the host ranges around a launch call.
TEST(CorpusKinetoLabels, TokensFromPerStepLabels) {
  struct Case {
    const char* file;
    const char* prefix;
    int64_t tokens;  // the script's gpu_instances_around_kernels, else host_instances_around_launches
  };
  const Case cases[] = {
      {"hta/amd_trace_mi250_minitoy_train_ROCm6_2_kineto.json.gz", "ProfilerStep#", 1},
      {"hta/cuda_event_sync_event_sync_trace.json.gz", "ProfilerStep#", 1},
      {"hta/ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "ProfilerStep#", 5},
      {"hta/trace_diff_control_control.json.gz", "ProfilerStep#", 6},
      {"hta/trace_diff_test_test.json.gz", "ProfilerStep#", 6},
      {"tracelens/b200_eager_trace.json.gz", "execute_", 1},
      {"tracelens/inference_sglang_decode_sglang_Qwen3-8B_decode.json.gz", "execute_", 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    PERFGATE_CORPUS_FILE_OR_SKIP(path, std::string("kineto/") + c.file);
    AttributionOptions o;
    o.all_processes = true;
    o.token_label = LabelMatch::Prefix(c.prefix);
    auto s = SummarizeJsonTrialFile(path, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->tokens, c.tokens);
  }
  // triton_example's ProfilerStep#1 holds no launch call (the script: 0 around
  // launches): no token count, said so.
  PERFGATE_CORPUS_FILE_OR_SKIP(triton, "kineto/hta/triton_example_triton_example.json.gz");
  AttributionOptions o;
  o.all_processes = true;
  o.token_label = LabelMatch::Prefix("ProfilerStep#");
  auto s = SummarizeJsonTrialFile(triton, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.token_label");
}

// vLLM under full graph capture: no step annotation of its own; each step is one
// hipGraphLaunch (the script: 1 graph launch, 421 of the 425 kernels) inside the
// `execute_<n>_context_<n>(...)_generation_<n>(...)` range TraceLens records around
// it (1 host instance, all 425 kernels launched inside).
TEST(CorpusKinetoLabels, VllmGraphReplayStep) {
  PERFGATE_CORPUS_FILE_OR_SKIP(path, "kineto/tracelens/inference_vllm_decode_full_graph_execution.json.gz");
  for (const LabelMatch& label :
       {LabelMatch::Prefix("execute_"), LabelMatch::Regex(R"(execute_\d+_context_\d+\(.*\)_generation_\d+\(.*\))")}) {
    SCOPED_TRACE(label.Spelling());
    AttributionOptions o;
    o.all_processes = true;
    o.token_label = label;
    o.window = DecodeWindow::Label(label);
    attribution::WorkExtras x;
    auto s = SummarizeJsonTrialFile(path, o, &x);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->tokens, 1);
    EXPECT_EQ(s->items, 425);
    EXPECT_EQ(x.graph_launches, 1);
    EXPECT_EQ(x.graph_kernels, 421);
    EXPECT_DOUBLE_EQ(x.graph_launches_per_token, 1.0);
  }
  // A pattern must match the whole name: a bare "execute" names nothing.
  AttributionOptions o;
  o.all_processes = true;
  o.window = DecodeWindow::Label(LabelMatch::Regex("execute"));
  o.tokens = 1;
  auto none = SummarizeJsonTrialFile(path, o);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().ToString().find("error[attr.window_label]: window label 'regex:execute'"), std::string::npos)
      << none.status().ToString();
}

}  // namespace
}  // namespace perfgate::json_trace
