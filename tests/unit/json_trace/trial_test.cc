// Attribution of trace-event trials on hand-placed Kineto-style traces whose every
// figure is computed by hand (times in the comments are microseconds).
#include "perfgate/attribution/kernel_families.h"
#include "perfgate/attribution/work.h"

#include <gtest/gtest.h>

#include <fstream>
#include <cctype>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "attribution/family_matcher.h"
#include "sources/trace_json/json_trace_internal.h"
#include "kineto_gen.h"
#include "perfgate/attribution/attribute.h"
#include "support/source_count.h"

namespace perfgate::json_trace {
namespace {

using attribution::AttributionOptions;
using attribution::DecodeWindow;
using attribution::TrialSummary;

constexpr int64_t kUs = 1'000;
constexpr int64_t kPid = 4242;
constexpr int64_t kOther = 5151;

const char* const kGemm = "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn";
const char* const kFlash =
    "void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t, "
    "Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, false>(Flash_fwd_params)";
const char* const kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)";
const char* const kGraphKernels[] = {
    "triton_poi_fused_add_mul_0",
    "triton_red_fused_sum_1",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
    "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
    "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>("
    "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8::Params)",
    "void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, c10::BFloat16, float, 10, false, false>("
    "c10::BFloat16*, c10::BFloat16 const*, int, int, int, bool const*, int, bool)",
};

// Trace A: host annotations only.
//  - python3 (4242): "prefill" [100, 150] launches a 100 µs gemm (corr 1).
//  - three "decode_step" ranges [300, 400], [500, 600], [700, 800]; in each, a
//    "layer.<i>.attn" range [b+5, b+35] launches flash (corr 10i+1, runs b+20.5 for
//    10.25 µs) and the step launches an add (corr 10i+2, 1.5 µs at b+45.0005,
//    545.0004 and 745.0015: 345001, 545000 and 745002 ns).
//  - step 3 replays a CUDA graph (corr 100, cudaGraphLaunch at 760): five kernels of
//    3, 3, 2.5, 9 and 40 µs from 770 to 830, past the host range.
//  - a memset in step 1 (corr 51) and a memcpy in step 2 (corr 50).
//  - other_worker (5151) has its own "decode_step" and a 7 µs kernel (corr 900).
//  - an orphan kernel (corr 999, no runtime call) and one without a correlation.
std::string TraceA() {
  gen::KinetoWriter w;
  w.ProcessName(kPid, "python3");
  w.ThreadName(kPid, kPid, "thread 4242 (python3)");
  w.ProcessName(kOther, "other_worker");
  w.ProcessName(0, "GPU 0");
  w.SortIndex(0, 5000000);
  w.Annotation("prefill", false, kPid, kPid, 100 * kUs, 50 * kUs, 1);
  w.CpuOp("aten::mm", kPid, kPid, 105 * kUs, 20 * kUs, 2);
  w.Runtime("cudaLaunchKernel", kPid, kPid, 110 * kUs, 5 * kUs, 1);
  w.Flow(1, kPid, kPid, 110 * kUs, 0, 7, 120 * kUs);
  w.Kernel(kGemm, 0, 7, 120 * kUs, 100 * kUs, 1);
  const char* const add_ts[] = {"345.0005", "545.0004", "745.0015"};
  for (int i = 1; i <= 3; ++i) {
    const int64_t b = (100 + 200 * i) * kUs;
    w.Annotation("decode_step", false, kPid, kPid, b, 100 * kUs, 100 + i);
    w.Annotation("layer." + std::to_string(i - 1) + ".attn", false, kPid, kPid, b + 5 * kUs, 30 * kUs, 200 + i);
    w.Runtime("cudaLaunchKernel", kPid, kPid, b + 10 * kUs, 4 * kUs, 10 * i + 1);
    w.Kernel(kFlash, 0, 7, b + 20'500, 10'250, 10 * i + 1);
    w.Runtime("cudaLaunchKernel", kPid, kPid, b + 40 * kUs, 4 * kUs, 10 * i + 2);
    w.Raw(std::string(R"({"ph": "X", "cat": "kernel", "name": ")") + kAdd + R"(", "pid": 0, "tid": 7, "ts": )" +
          add_ts[i - 1] + R"(, "dur": 1.5, "args": {"device": 0, "stream": 7, "correlation": )" +
          std::to_string(10 * i + 2) + "}}");
  }
  w.Runtime("cudaMemsetAsync", kPid, kPid, 360 * kUs, 3 * kUs, 51);
  w.Memset("Memset (Device)", 0, 7, 362 * kUs, 750, 51);
  w.Runtime("cudaMemcpyAsync", kPid, kPid, 560 * kUs, 6 * kUs, 50);
  w.Memcpy("Memcpy DtoH (Device -> Pinned)", 0, 7, 570 * kUs, 2'250, 50);
  w.Runtime("cudaGraphLaunch", kPid, kPid, 760 * kUs, 8 * kUs, 100);
  const int64_t graph_ts[] = {770'000, 773'500, 777'000, 780'000, 790'000};
  const int64_t graph_dur[] = {3'000, 3'000, 2'500, 9'000, 40'000};
  for (int k = 0; k < 5; ++k) w.Kernel(kGraphKernels[k], 0, 7, graph_ts[k], graph_dur[k], 100);
  w.Annotation("decode_step", false, kOther, kOther, 320 * kUs, 50 * kUs, 900);
  w.Runtime("cudaLaunchKernel", kOther, kOther, 330 * kUs, 2 * kUs, 900);
  w.Kernel("other_kernel_x", 0, 9, 340 * kUs, 7 * kUs, 900);
  w.Kernel("orphan_kernel", 0, 7, 900 * kUs, 1 * kUs, 999);
  w.Kernel("orphan_nocorr", 0, 7, 950 * kUs, 1 * kUs, std::nullopt);
  w.PythonFunction("model.py(40): forward", kPid, kPid, 299 * kUs, 600 * kUs);
  return w.Finish();
}

model::WorkSet Read(const std::string& bytes, const std::string& path) {
  auto t = ReadTraceJsonBuffer(bytes, path);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(t).value() : model::WorkSet{};
}

// A kernel name and the family the CUDA table must give it.
struct FamilyCase {
  const char* name;
  const char* family;
};

void ExpectCudaFamilies(const std::vector<FamilyCase>& cases) {
  const auto table = attribution::CudaKernelFamilies();
  for (const FamilyCase& c : cases) EXPECT_EQ(attribution::CudaKernelFamily(table, c.name), c.family) << c.name;
}

AttributionOptions DecodeOptions() {
  AttributionOptions o;
  o.process_prefix = "python";
  o.window.mode = DecodeWindow::Mode::kLabel;
  o.window.label = "decode_step";
  o.token_label = "decode_step";
  return o;
}

const attribution::BucketStats& Bucket(const TrialSummary& s, const std::string& name) {
  for (const auto& [n, b] : s.buckets) {
    if (n == name) return b;
  }
  static attribution::BucketStats none;
  ADD_FAILURE() << "no bucket " << name;
  return none;
}

TEST(JsonTrial, DecodeWindowFromHostAnnotations) {
  const model::WorkSet trace = Read(TraceA(), "a.json");
  attribution::WorkExtras x;
  auto s = attribution::AttributeWork(trace, DecodeOptions(), &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->path, "a.json");
  EXPECT_EQ(s->tokens, 3);
  EXPECT_EQ(s->tokens_in_trace, 3);
  EXPECT_EQ(s->tokens_source, "label:decode_step");
  EXPECT_EQ(s->window_start_ns, 300'000);
  EXPECT_EQ(s->window_end_ns, 800'000);
  // 15 kernels read: gemm, 3 flash, 3 add, 5 graph, other_worker's, 2 orphans.
  EXPECT_EQ(s->items_read, 15);
  EXPECT_EQ(s->excluded_other_process, 1);
  EXPECT_EQ(s->excluded_no_owner, 2);
  EXPECT_EQ(s->excluded_unnamed_owner, 0);
  EXPECT_EQ(s->excluded_outside_window, 1);  // the prefill gemm
  EXPECT_EQ(s->items, 11);

  // xs: 3 adds of 1.5; sm: 3, 3, 2.5; md: 3 flash of 10.25 and 9; lg: 40.
  const auto& xs = Bucket(*s, "xs_<2us");
  EXPECT_EQ(xs.count, 3);
  EXPECT_EQ(xs.sum_ns, 4'500);
  EXPECT_EQ(xs.p50_ns, 1'500);
  EXPECT_EQ(xs.p95_ns, 1'500);
  EXPECT_EQ(xs.mean_ns, 1'500);
  const auto& sm = Bucket(*s, "sm_2_8us");
  EXPECT_EQ(sm.count, 3);
  EXPECT_EQ(sm.sum_ns, 8'500);
  EXPECT_EQ(sm.p50_ns, 3'000);
  EXPECT_EQ(sm.p95_ns, 3'000);
  EXPECT_EQ(sm.mean_ns, 2'833);
  const auto& md = Bucket(*s, "md_8_32us");
  EXPECT_EQ(md.count, 4);
  EXPECT_EQ(md.sum_ns, 39'750);
  EXPECT_EQ(md.p50_ns, 10'250);
  EXPECT_EQ(md.p95_ns, 10'250);
  EXPECT_EQ(md.mean_ns, 9'937);
  const auto& lg = Bucket(*s, "lg_32_80us");
  EXPECT_EQ(lg.count, 1);
  EXPECT_EQ(lg.sum_ns, 40'000);
  EXPECT_EQ(Bucket(*s, "xl_>=80us").count, 0);
  EXPECT_EQ(s->total_sum_ns, 92'750);
  EXPECT_EQ(s->busy_union_ns, 92'750);
  EXPECT_DOUBLE_EQ(s->items_per_token, 11.0 / 3.0);
  EXPECT_DOUBLE_EQ(s->gpu_us_per_token, 92.75 / 3.0);
  EXPECT_DOUBLE_EQ(s->busy_us_per_token, 92.75 / 3.0);

  // Kernel families (the CUDA table, since the options carry the Metal default).
  const std::map<std::string, std::pair<int64_t, int64_t>> families = {
      // family: {kernels, gpu ns}
      {"attention", {3, 30'750}}, {"elementwise", {3, 4'500}}, {"gemm", {1, 9'000}},
      {"norm", {1, 2'500}},       {"softmax", {1, 40'000}},    {"triton_pointwise", {1, 3'000}},
      {"triton_reduction", {1, 3'000}}, {"memcpy", {1, 2'250}}, {"memset", {1, 750}},
  };
  ASSERT_EQ(s->families.size(), families.size());
  for (const auto& [family, expected] : families) {
    const auto& f = s->families.at(family);
    EXPECT_EQ(f.calls, expected.first) << family;
    EXPECT_EQ(f.items, expected.first) << family;
    EXPECT_EQ(f.gpu_sum_ns, expected.second) << family;
  }
  // Host time: 4 µs per cudaLaunchKernel; none for graph kernels; the copy calls.
  EXPECT_EQ(s->families.at("attention").host_sum_ns, 12'000);
  EXPECT_EQ(s->families.at("elementwise").host_sum_ns, 12'000);
  EXPECT_EQ(s->families.at("softmax").host_sum_ns, 0);
  EXPECT_EQ(s->families.at("memcpy").host_sum_ns, 6'000);
  EXPECT_EQ(s->families.at("memset").host_sum_ns, 3'000);
  EXPECT_EQ(s->items_with_call, 11);
  EXPECT_EQ(s->items_without_call, 0);
  EXPECT_EQ(s->items_of_unknown_call, 0);

  // Phases: flash inside "layer.<i>.attn" (normalised), the rest in "decode_step".
  ASSERT_EQ(s->phases.size(), 2u);
  const auto& attn = s->phases.at("layer.attn");
  EXPECT_EQ(attn.items, 3);
  EXPECT_EQ(attn.calls, 3);
  EXPECT_EQ(attn.groups, 3);
  EXPECT_EQ(attn.gpu_sum_ns, 30'750);
  EXPECT_EQ(attn.gpu_union_ns, 30'750);
  EXPECT_EQ(attn.host_sum_ns, 12'000);
  const auto& step = s->phases.at("decode_step");
  EXPECT_EQ(step.items, 8);
  EXPECT_EQ(step.calls, 3);
  EXPECT_EQ(step.gpu_sum_ns, 62'000);
  EXPECT_EQ(step.gpu_union_ns, 62'000);
  EXPECT_EQ(step.host_sum_ns, 12'000);
  EXPECT_EQ(s->phase_units, 11);
  EXPECT_EQ(s->labelled_units, 11);

  // Registry: short names per family.
  EXPECT_EQ(s->kernel_registry.at("attention"), std::vector<std::string>{"flash_fwd_splitkv_kernel"});
  EXPECT_EQ(s->kernel_registry.at("elementwise"), std::vector<std::string>{"vectorized_elementwise_kernel"});
  EXPECT_EQ(s->kernel_registry.at("gemm"),
            std::vector<std::string>{"cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8"});
  EXPECT_EQ(s->kernel_registry.at("norm"), std::vector<std::string>{"vectorized_layer_norm_kernel"});
  EXPECT_EQ(s->kernel_registry.at("softmax"), std::vector<std::string>{"softmax_warp_forward"});
  EXPECT_EQ(s->kernel_registry.count("memcpy"), 0u);
  EXPECT_EQ(s->registered_kernels, 7);
  EXPECT_EQ(perfgate::testing_support::SourceCount(*s, "shader_timeline_rows"), -1);  // Metal's count only
  EXPECT_EQ(perfgate::testing_support::SourceCount(*s, "gpu_intervals_union_ns"), -1);

  // Launches: 6 cudaLaunchKernel and one cudaGraphLaunch of 5 kernels.
  EXPECT_EQ(x.kernels, 11);
  EXPECT_EQ(x.kernel_launches, 6);
  EXPECT_EQ(x.graph_launches, 1);
  EXPECT_EQ(x.other_launches, 0);
  EXPECT_EQ(x.graph_kernels, 5);
  EXPECT_EQ(x.unlaunched_kernels, 0);
  EXPECT_EQ(x.launch_host_ns, 6 * 4'000 + 8'000);
  EXPECT_DOUBLE_EQ(x.launches_per_token, 7.0 / 3.0);
  EXPECT_DOUBLE_EQ(x.graph_launches_per_token, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(x.kernels_per_token, 11.0 / 3.0);
  EXPECT_EQ(x.memcpys, 1);
  EXPECT_EQ(x.memsets, 1);
  EXPECT_EQ(x.memcpy_ns, 2'250);
  EXPECT_EQ(x.memset_ns, 750);
  EXPECT_DOUBLE_EQ(x.memcpy_us_per_token, 0.75);
  EXPECT_DOUBLE_EQ(x.memset_us_per_token, 0.25);
  EXPECT_EQ(x.label_source, "user_annotation");
  EXPECT_EQ(x.label_occurrences, 3);
  EXPECT_EQ(s->launch_calls, 7);
  EXPECT_EQ(s->launch_host_ns, 32'000);
  ASSERT_EQ(x.per_kernel.size(), 7u);
  EXPECT_EQ(x.per_kernel.at(kFlash).count, 3);
  EXPECT_EQ(x.per_kernel.at(kFlash).gpu_sum_ns, 30'750);
  EXPECT_EQ(x.per_kernel.at(kFlash).family, "attention");
  EXPECT_EQ(x.per_kernel.at(kFlash).short_name, "flash_fwd_splitkv_kernel");

  EXPECT_EQ(s->diagnostics.Count("json.unmatched_correlation"), 2);
  EXPECT_EQ(s->diagnostics.Count("attr.other_process"), 1);
  EXPECT_EQ(s->diagnostics.Count("attr.outside_window"), 1);
  EXPECT_EQ(s->diagnostics.Count("json.missing_correlation"), 1);  // from the reader
  EXPECT_EQ(s->diagnostics.Count("attr.token_count_mismatch"), 0);
}

TEST(JsonTrial, WholeTraceAllProcessesWithAGivenTokenCount) {
  const model::WorkSet trace = Read(TraceA(), "a.json");
  AttributionOptions o;
  o.all_processes = true;
  o.process_prefix = "python";  // ignored with all_processes
  o.tokens = 3;
  attribution::WorkExtras x;
  auto s = attribution::AttributeWork(trace, o, &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tokens_source, "given");
  EXPECT_FALSE(s->tokens_in_trace.has_value());
  EXPECT_EQ(s->items, 15);
  EXPECT_EQ(s->excluded_other_process + s->excluded_no_owner + s->excluded_outside_window, 0);
  // 92,750 + the gemm's 100,000 + other_worker's 7,000 + the two 1,000 orphans.
  EXPECT_EQ(s->total_sum_ns, 201'750);
  EXPECT_EQ(Bucket(*s, "xl_>=80us").count, 1);
  EXPECT_EQ(s->items_without_call, 2);
  EXPECT_EQ(x.unlaunched_kernels, 2);
  EXPECT_EQ(s->items_with_call, 13);
  // Phases: the gemm's launch is in "prefill", other_worker's in its "decode_step".
  EXPECT_EQ(s->phases.at("prefill").items, 1);
  EXPECT_EQ(s->phases.at("decode_step").items, 9);
  EXPECT_EQ(s->phases.at("decode_step").calls, 4);
  EXPECT_EQ(s->phases.at("(unknown)").items, 2);
  EXPECT_EQ(s->phases.at("(unknown)").calls, 0);
  EXPECT_EQ(s->labelled_units, 13);
  EXPECT_EQ(s->families.at("gemm").calls, 2);
  EXPECT_EQ(s->families.at("other_orphan").calls, 2);
  EXPECT_EQ(s->families.at("other_other").calls, 1);
}

// Each duration fits (2^61 ns is the most a time may be), but five of them summed do
// not: the figures once wrapped to a negative GPU time that passed every budget.
TEST(JsonTrial, SummedDurationsThatOverflowAreAnErrorNamingTheKernel) {
  auto trace_of = [](int kernels) {
    std::string events;
    for (int i = 0; i < kernels; ++i) {
      events += std::string(i ? ",\n" : "") + R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(i) +
                R"(", "pid": 0, "tid": 7, "ts": 0, "dur": 2305843009213693.952})";
    }
    return Read("{\"traceEvents\": [" + events + "]}", "o.json");
  };
  AttributionOptions o;
  o.all_processes = true;
  o.tokens = 1;
  // Three fit: 3 * 2^61 < 2^63; the fourth does not.
  auto ok = attribution::AttributeWork(trace_of(3), o);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->total_sum_ns, 3 * (int64_t{1} << 61));
  auto s = attribution::AttributeWork(trace_of(5), o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "json.sum_overflow");
  EXPECT_EQ(s.status().location().path, "o.json");
  EXPECT_NE(s.status().message().find("kernel \"k3\""), std::string::npos) << s.status().message();
}

TEST(JsonTrial, TimeRangeAndSkipWindows) {
  const model::WorkSet trace = Read(TraceA(), "a.json");
  AttributionOptions o;
  o.process_prefix = "python";
  o.tokens = 3;
  o.window.mode = DecodeWindow::Mode::kTimeRange;
  o.window.start_ns = 300'000;
  o.window.end_ns = 800'000;
  auto s = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // The gemm (before) and the 40 µs graph kernel (ends at 830) fall outside.
  EXPECT_EQ(s->items, 10);
  EXPECT_EQ(s->excluded_outside_window, 2);
  EXPECT_EQ(s->window_start_ns, 300'000);
  EXPECT_EQ(s->window_end_ns, 800'000);
  EXPECT_EQ(s->total_sum_ns, 52'750);

  o.window.mode = DecodeWindow::Mode::kSkipSubmissions;
  o.window.skip = 1;
  s = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, 11);
  EXPECT_EQ(s->excluded_outside_window, 1);
  EXPECT_EQ(s->window_start_ns, 320'500);
  EXPECT_EQ(s->total_sum_ns, 92'750);
  EXPECT_EQ(s->families.at("memcpy").calls, 1);
  EXPECT_EQ(s->families.at("memset").calls, 1);

  // Token label without a label window: the instances around kept kernels.
  o.token_label = "layer.attn";
  o.tokens.reset();
  s = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tokens, 3);
  o.token_label = "prefill";  // its only kernel was skipped
  s = attribution::AttributeWork(trace, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            "a.json: error[attr.token_label]: token label 'prefill' does not name an annotation around the target's "
            "kernels in the decode window");
}

// Trace B: GPU annotations, copied onto two streams.
//  - engine (77): host "decode_step" [100, 150] (External id 1) and [200, 250] (2);
//    host "layer.1.mlp" [100.5, 103.5] around the first three launches;
//    host "sample" [255, 265] around the fifth launch.
//  - GPU "decode_step" ext 1 on stream 7 [109.999, 130.001] and its copy on stream
//    20 [109.999, 140.001]; ext 2 on stream 7 [209.999, 220.001]; GPU "layer.1.mlp"
//    ext 3 on stream 7 [114.999, 120.001].
//  - kernels: gemv 5 µs at 110 (stream 7), rms_norm 5 at 115 (7), nccl all-reduce 20
//    at 120 (20), rotary 10 at 210 (7), argmax 2 at 300 (7).
std::string TraceB() {
  gen::KinetoWriter w;
  w.ProcessName(77, "engine");
  w.Annotation("decode_step", false, 77, 77, 100'000, 50'000, 1);
  w.Annotation("layer.1.mlp", false, 77, 77, 100'500, 3'000, 3);
  w.Annotation("decode_step", false, 77, 77, 200'000, 50'000, 2);
  w.Annotation("sample", false, 77, 77, 255'000, 10'000, 4);
  const int64_t launch_ts[] = {101'000, 102'000, 103'000, 201'000, 260'000};
  for (int i = 0; i < 5; ++i) w.Runtime("cudaLaunchKernel", 77, 77, launch_ts[i], 500, i + 1);
  w.Kernel("void gemv2T_kernel_val<int, int, __nv_bfloat16, __nv_bfloat16, float, 128, 16, 4, 4, false, false>(float)",
           0, 7, 110'000, 5'000, 1);
  w.Kernel("void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, int)", 0, 7, 115'000, 5'000, 2);
  w.Kernel("ncclKernel_AllReduce_RING_LL_Sum_bfloat16(ncclWorkElem)", 0, 20, 120'000, 20'000, 3);
  w.Kernel("void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*)", 0, 7, 210'000, 10'000, 4);
  w.Kernel("void at::native::argmax_kernel<float>(float const*)", 0, 7, 300'000, 2'000, 5);
  w.Annotation("decode_step", true, 0, 7, 109'999, 20'002, 1);
  w.Annotation("decode_step", true, 0, 20, 109'999, 30'002, 1);
  w.Annotation("decode_step", true, 0, 7, 209'999, 10'002, 2);
  w.Annotation("layer.1.mlp", true, 0, 7, 114'999, 5'002, 3);
  return w.Finish();
}

TEST(JsonTrial, GpuAnnotationsWinAndCopiesOnStreamsCountOnce) {
  const model::WorkSet trace = Read(TraceB(), "b.json");
  AttributionOptions o = DecodeOptions();
  o.process_prefix = "engine";
  o.tokens = 3;  // disagrees with the trace's 2
  attribution::WorkExtras x;
  auto s = attribution::AttributeWork(trace, o, &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(x.label_source, "gpu_user_annotation");
  EXPECT_EQ(x.label_occurrences, 2);
  EXPECT_EQ(s->tokens, 2);
  EXPECT_EQ(s->diagnostics.Count("attr.token_count_mismatch"), 1);
  EXPECT_EQ(s->window_start_ns, 109'999);
  EXPECT_EQ(s->window_end_ns, 220'001);
  EXPECT_EQ(s->items, 4);  // argmax at 300 is outside
  EXPECT_EQ(s->total_sum_ns, 40'000);
  EXPECT_EQ(s->busy_union_ns, 40'000);
  // gemv's launch is inside the host "layer.1.mlp", but the GPU annotation wins.
  ASSERT_EQ(s->phases.size(), 2u);
  EXPECT_EQ(s->phases.at("decode_step").items, 3);
  EXPECT_EQ(s->phases.at("decode_step").gpu_sum_ns, 35'000);
  EXPECT_EQ(s->phases.at("decode_step").calls, 2);
  EXPECT_EQ(s->phases.at("decode_step").gpu_union_ns, 35'000);
  EXPECT_EQ(s->phases.at("layer.mlp").items, 1);
  EXPECT_EQ(s->phases.at("layer.mlp").calls, 1);
  EXPECT_EQ(s->families.at("gemm").gpu_sum_ns, 5'000);
  EXPECT_EQ(s->families.at("norm").gpu_sum_ns, 5'000);
  EXPECT_EQ(s->families.at("communication").gpu_sum_ns, 20'000);
  EXPECT_EQ(s->families.at("rope").gpu_sum_ns, 10'000);
  EXPECT_EQ(s->families.at("rope").host_sum_ns, 500);

  // Without a window: tokens are the instances holding kept kernels; argmax's phase
  // comes from the host annotation around its launch.
  o.window = DecodeWindow{};
  o.tokens.reset();
  s = attribution::AttributeWork(trace, o, &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tokens, 2);
  EXPECT_EQ(s->items, 5);
  EXPECT_EQ(s->phases.at("sample").items, 1);
  EXPECT_EQ(s->phases.at("sample").calls, 1);
  EXPECT_EQ(s->families.at("sampling").gpu_sum_ns, 2'000);
  EXPECT_EQ(x.label_source, "gpu_user_annotation");
  EXPECT_EQ(x.label_occurrences, 2);
}

TEST(JsonTrial, ErrorsShareTheMetalPathsCodes) {
  const model::WorkSet trace = Read(TraceA(), "a.json");
  AttributionOptions o = DecodeOptions();
  o.process_prefix = "llama";
  auto s = attribution::AttributeWork(trace, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            "a.json: error[attr.no_target_rows]: no kernel launched by a process named 'llama*' among 15 kernels "
            "(other processes: other_worker (5151) x1, python3 (4242) x12; without a launch call: 2; launched by an "
            "unnamed process: 0)");

  o = DecodeOptions();
  o.window.label = "nope";
  s = attribution::AttributeWork(trace, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            "a.json: error[attr.window_label]: window label 'nope' is not the name of any gpu_user_annotation or of a "
            "user_annotation of the target");

  o = DecodeOptions();
  o.window.mode = DecodeWindow::Mode::kWholeTrace;
  o.token_label.clear();
  o.all_processes = true;
  s = attribution::AttributeWork(trace, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.no_tokens");
  EXPECT_EQ(s.status().kind(), ErrorKind::kUsage);

  o.tokens = 1;
  o.seed_compat = true;
  s = attribution::AttributeWork(trace, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.seed_compat");
  EXPECT_EQ(s.status().kind(), ErrorKind::kUsage);

  const model::WorkSet no_kernels = Read(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 1}]})",
                                   "n.json");
  o.seed_compat = false;
  s = attribution::AttributeWork(no_kernels, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().ToString(),
            "n.json: error[attr.no_target_rows]: the trace has no kernel events (0 GPU work items in all)");

  // A launching process without process_name metadata.
  const model::WorkSet unnamed = Read(R"({"traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2, "dur": 1, "args": {"correlation": 1}}]})",
                                "u.json");
  o = DecodeOptions();
  o.window = DecodeWindow{};
  o.token_label.clear();
  o.tokens = 1;
  s = attribution::AttributeWork(unnamed, o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), "attr.no_target_rows");
  o.all_processes = true;
  s = attribution::AttributeWork(unnamed, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->items, 1);
}

TEST(JsonTrial, DuplicateCorrelationAcrossProcessesIsCounted) {
  const model::WorkSet trace = Read(R"({"traceEvents": [
{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
{"ph": "M", "name": "process_name", "pid": 2, "args": {"name": "python"}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 2, "tid": 2, "ts": 1, "dur": 1, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 2, "dur": 1, "args": {"correlation": 1}}]})",
                              "d.json");
  AttributionOptions o;
  o.process_prefix = "python";
  o.tokens = 1;
  auto s = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->diagnostics.Count("json.duplicate_correlation"), 1);
}

TEST(JsonTrial, KernelFamiliesAreDataDriven) {
  const std::vector<FamilyCase> cases = {
      {"ampere_sgemm_128x64_tn", "gemm"},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "gemm"},
      {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN", "gemm"},
      {"void gemv2T_kernel_val<int, int, float>(float)", "gemm"},
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(cutlass_80_tensorop_s1688gemm_64x64_"
       "32x6_tn_align4::Params)",
       "gemm"},
      {"void cublasLt::splitKreduce_kernel<32, 16, int, float>(cublasLt::cublasSplitKParams<float>)", "gemm"},
      {"void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128> >(flash::Flash_fwd_params)", "attention"},
      {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::half_t>::Params)",
       "attention"},
      {"void vllm::paged_attention_v2_kernel<unsigned short, 128>(float*)", "attention"},
      {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, float const*, int)", "softmax"},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float> >(at::native::ReduceOp<float>)",
       "reduction"},
      {"void at::native::index_elementwise_kernel<128, 4>(long, at::native::gpu_index_kernel)", "index"},
      {"void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<"
       "float> >(at::TensorIteratorBase&, at::native::BinaryFunctor<float> const&)::{lambda(int)#1}>(int, "
       "at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<float> >(at::TensorIteratorBase&, "
       "at::native::BinaryFunctor<float> const&)::{lambda(int)#1})",
       "elementwise"},
      {"void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float, float const*)",
       "norm"},
      {"void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16> >(c10::BFloat16*)",
       "activation"},
      {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 64, 64>(float*)", "copy"},
      {"fused_moe_kernel", "moe"},
      {"void vllm::moe::topkGatingSoftmax<4, 128>(float const*)", "moe"},
      {"void cub::CUB_200200_860_NS::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<float> >(int*)",
       "sampling"},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "communication"},
      {"triton_tem_fused_mm_0", "triton_gemm"},
      {"triton_per_fused__softmax_1", "triton_reduction"},
      {"triton_", "triton"},
      {"Memcpy DtoD (Device -> Device)", "memcpy"},
      {"Memset (Device)", "memset"},
      {"my_custom_kernel(int)", "other_my"},
      {"", "(unknown)"},
  };
  ExpectCudaFamilies(cases);

  EXPECT_EQ(attribution::CanonicalKernelName(kAdd), "vectorized_elementwise_kernel");
  EXPECT_EQ(attribution::CanonicalKernelName("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD");
  EXPECT_EQ(attribution::CanonicalKernelName(kGraphKernels[3]),
            "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8");
  EXPECT_EQ(attribution::CanonicalKernelName("  ampere_sgemm_128x64_tn  "), "ampere_sgemm_128x64_tn");

  // A user table replaces the default; plain prefixes behave as in KernelFamily.
  attribution::KernelFamilyTable mine;
  mine.strip_prefix = "";
  mine.rules = {{"ampere_", "cublas_ampere"}, {"*ELEMENTWISE", "pointwise"}};
  EXPECT_EQ(attribution::CudaKernelFamily(mine, "ampere_sgemm_128x64_tn"), "cublas_ampere");
  EXPECT_EQ(attribution::CudaKernelFamily(mine, kAdd), "pointwise");
  EXPECT_EQ(attribution::CudaKernelFamily(mine, "sm90_xmma_gemm_x"), "other_sm90");

  const model::WorkSet trace = Read(TraceA(), "a.json");
  AttributionOptions o = DecodeOptions();
  o.kernel_families = mine;
  auto s = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->families.at("pointwise").calls, 3);
  EXPECT_EQ(s->families.at("other_flash").calls, 3);
}

TEST(JsonTrial, SummarizesAGzipFileInOneCall) {
  const std::string path = ::testing::TempDir() + "/json_trial_a.pt.trace.json.gz";
  {
    std::ofstream out(path, std::ios::binary);
    out << gen::Gzip(TraceA());
  }
  attribution::WorkExtras x;
  auto s = SummarizeJsonTrialFile(path, DecodeOptions(), &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->path, path);
  EXPECT_EQ(s->items, 11);
  EXPECT_EQ(x.graph_launches, 1);
  auto missing = SummarizeJsonTrialFile(path + ".nope", DecodeOptions());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), "io.not_found");
}

// The extras travel in the summary, so a suite needs no second read of the trace.
TEST(JsonTrial, ExtrasSurviveIntoTheSummaryAndTheEngine) {
  const model::WorkSet trace = Read(TraceA(), "a.json");
  attribution::WorkExtras x;
  auto s = attribution::AttributeWork(trace, DecodeOptions(), &x);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const std::map<std::string, double> expected = {
      {"kernels", 11},
      {"memcpys", 1},
      {"memsets", 1},
      {"memcpy_ns", 2'250},
      {"memset_ns", 750},
      {"kernel_launches", 6},
      {"graph_launches", 1},
      {"other_launches", 0},
      {"graph_kernels", 5},
      {"unlaunched_kernels", 0},
      {"launch_host_ns", 6 * 4'000 + 8'000},
      {"launches_per_token", 7.0 / 3.0},
      {"graph_launches_per_token", 1.0 / 3.0},
      {"kernels_per_token", 11.0 / 3.0},
      {"memcpy_us_per_token", 0.75},
      {"memset_us_per_token", 0.25},
      {"label_occurrences", 3},
  };
  ASSERT_EQ(s->extras.size(), expected.size());
  for (const auto& [key, value] : expected) {
    ASSERT_EQ(s->extras.count(key), 1u) << key;
    EXPECT_DOUBLE_EQ(s->extras.at(key), value) << key;
  }
  EXPECT_DOUBLE_EQ(s->extras.at("launches_per_token"), x.launches_per_token);

  // Without an extras pointer (AttributeTrial's call) the summary has them all the same.
  auto plain = attribution::AttributeWork(trace, DecodeOptions());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->extras, s->extras);

  auto b = attribution::AttributeWork(Read(TraceB(), "b.json"), [] {
    AttributionOptions o = DecodeOptions();
    o.process_prefix = "engine";
    return o;
  }());
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  const attribution::EngineSummary e = attribution::SummarizeEngine("a", {*s, *s, *b}, DecodeOptions().buckets);
  ASSERT_EQ(e.extras.size(), expected.size());
  EXPECT_DOUBLE_EQ(e.extras.at("launches_per_token").median, 7.0 / 3.0);
  EXPECT_EQ(e.extras.at("kernel_launches").per_trial, (std::vector<double>{6, 6, 4}));
}

TEST(JsonTrial, KnownKernelFamiliesComeFromTheTableInForce) {
  const model::WorkSet trace = Read(TraceA(), "a.json");
  auto s = attribution::AttributeWork(trace, DecodeOptions());
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const std::set<std::string>& known = s->known_kernel_families;
  EXPECT_EQ(known.count("triton_pointwise"), 1u);  // in the CUDA table and met
  EXPECT_EQ(known.count("moe"), 1u);               // in the CUDA table, not met
  EXPECT_EQ(known.count("memcpy"), 1u);
  EXPECT_EQ(known.count("trition_pointwise"), 0u);  // a typo
  EXPECT_EQ(known.count("moe_q4_0_mv"), 0u);        // the Metal table is not in force
  for (const auto& [family, _] : s->kernel_registry) EXPECT_EQ(known.count(family), 1u) << family;
  for (const auto& [family, _] : s->families) EXPECT_EQ(known.count(family), 1u) << family;

  // A user's table replaces the CUDA one; families met by the fallback are known.
  AttributionOptions o = DecodeOptions();
  o.kernel_families.strip_prefix = "";
  o.kernel_families.rules = {{"*ELEMENTWISE", "pointwise"}};
  auto mine = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  EXPECT_EQ(mine->known_kernel_families.count("pointwise"), 1u);
  EXPECT_EQ(mine->known_kernel_families.count("other_flash"), 1u);
  EXPECT_EQ(mine->known_kernel_families.count("memset"), 1u);
  EXPECT_EQ(mine->known_kernel_families.count("triton_pointwise"), 0u);
  const auto e = attribution::SummarizeEngine("e", {*s, *mine}, o.buckets);
  EXPECT_EQ(e.known_kernel_families.count("pointwise"), 1u);
  EXPECT_EQ(e.known_kernel_families.count("triton_pointwise"), 1u);
}

TEST(JsonTrial, KernelsOfSeveralProcessesAreMixedOnlyWhenChosen) {
  const model::WorkSet trace = Read(TraceA(), "a.json");
  auto one = attribution::AttributeWork(trace, DecodeOptions());
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_FALSE(one->diagnostics.Has("attr.mixed_processes"));

  AttributionOptions o;
  o.all_processes = true;
  o.tokens = 3;
  auto all = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  // python3 launched 12 kept kernels, other_worker 1; the two orphans have no process.
  EXPECT_EQ(all->diagnostics.Count("attr.mixed_processes"), 1);
  const Diagnostics::Entry* e = all->diagnostics.Find("attr.mixed_processes");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->first_location.path, "a.json");
  EXPECT_EQ(e->first_detail, "kept work of 2 processes: python3 (4242) x12, other_worker (5151) x1");

  // No prefix, no id, no all_processes: the two processes are never summed.
  o.all_processes = false;
  auto no_choice = attribution::AttributeWork(trace, o);
  ASSERT_FALSE(no_choice.ok());
  EXPECT_EQ(no_choice.status().code(), "attr.several_processes");
  EXPECT_EQ(no_choice.status().kind(), ErrorKind::kUsage);
  EXPECT_NE(no_choice.status().message().find(
                "2 processes (other_worker (5151): 1 kernels, python3 (4242): 12 kernels); choose one with "
                "--process NAME|pid:N, or sum them with --all-processes"),
            std::string::npos)
      << no_choice.status().message();

  // A choice by id alone keeps that process's 1 kernel.
  o.process_id = kOther;
  auto by_id = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(by_id.ok()) << by_id.status().ToString();
  EXPECT_EQ(by_id->items, 1);
  EXPECT_EQ(by_id->excluded_other_process, 12);
}

// One process rule for every source: a prefix matches the name or its last path
// component; an id alone keeps an unnamed process; work without a launch call is
// owned by model::WorkItem::process where the source records it (nsys).
TEST(JsonTrial, OneProcessFilterForEverySource) {
  model::WorkSet trace = Read(TraceA(), "a.json");
  trace.process_names[kPid] = "/usr/bin/python3";
  AttributionOptions o = DecodeOptions();
  auto by_basename = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(by_basename.ok()) << by_basename.status().ToString();
  EXPECT_EQ(by_basename->items, 11);  // as in DecodeWindowFromHostAnnotations
  o.process_prefix = "/usr/bin/py";
  auto by_path = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(by_path.ok()) << by_path.status().ToString();
  EXPECT_EQ(by_path->items, 11);
  o.process_prefix = "bin/py";  // neither the whole name's start nor the last component's
  EXPECT_EQ(attribution::AttributeWork(trace, o).status().code(), "attr.no_target_rows");

  // An id alone keeps a process the trace does not name; a prefix cannot.
  trace.process_names.erase(kPid);
  AttributionOptions id_only;
  id_only.process_id = kPid;
  id_only.tokens = 3;
  auto unnamed = attribution::AttributeWork(trace, id_only);
  ASSERT_TRUE(unnamed.ok()) << unnamed.status().ToString();
  EXPECT_EQ(unnamed->items, 12);
  EXPECT_EQ(unnamed->excluded_unnamed_owner, 0);
  EXPECT_EQ(unnamed->excluded_no_owner, 2);  // the two orphans
  id_only.process_prefix = "python";
  auto named = attribution::AttributeWork(trace, id_only);
  EXPECT_EQ(named.status().code(), "attr.no_target_rows");

  // The orphans owned through model::WorkItem::process join the filter like launched work.
  for (model::WorkItem& w : trace.items) {
    if (w.name.rfind("orphan_", 0) == 0) w.process = kPid;
  }
  id_only.process_prefix.clear();
  auto owned = attribution::AttributeWork(trace, id_only);
  ASSERT_TRUE(owned.ok()) << owned.status().ToString();
  EXPECT_EQ(owned->items, 14);
  EXPECT_EQ(owned->excluded_no_owner, 0);
}

// The summaries feed the Metal path's medians and comparison unchanged.
TEST(JsonTrial, SummariesFeedSummarizeEngineAndCompare) {
  const model::WorkSet a = Read(TraceA(), "a.json");
  const model::WorkSet b = Read(TraceB(), "b.json");
  AttributionOptions oa = DecodeOptions();
  AttributionOptions ob = DecodeOptions();
  ob.process_prefix = "engine";
  std::vector<TrialSummary> engine, baseline;
  for (int i = 0; i < 3; ++i) {
    auto s = attribution::AttributeWork(a, oa);
    ASSERT_TRUE(s.ok());
    engine.push_back(*s);
    auto t = attribution::AttributeWork(b, ob);
    ASSERT_TRUE(t.ok());
    baseline.push_back(*t);
  }
  auto e = attribution::SummarizeEngine("a", engine, oa.buckets);
  auto base = attribution::SummarizeEngine("b", baseline, ob.buckets);
  EXPECT_DOUBLE_EQ(e.gpu_us_per_token.median, 92.75 / 3.0);
  EXPECT_DOUBLE_EQ(e.items_per_token.median, 11.0 / 3.0);
  EXPECT_DOUBLE_EQ(base.gpu_us_per_token.median, 20.0);
  EXPECT_DOUBLE_EQ(e.label_coverage, 1.0);
  auto c = attribution::Compare(e, base, oa.buckets);
  EXPECT_DOUBLE_EQ(c.total.delta, 92.75 / 3.0 - 20.0);
  ASSERT_TRUE(c.attack_target.has_value());
  EXPECT_EQ(*c.attack_target, "lg_32_80us");  // +13.3 µs/token of softmax
  EXPECT_FALSE(c.families.empty());
  EXPECT_EQ(c.families.front().name, "softmax");
}

}  // namespace
}  // namespace perfgate::json_trace

namespace perfgate::json_trace {
namespace {

// The first-match rule the matcher must keep, spelt the slow way: every rule in order.
std::string FirstMatchReference(const attribution::KernelFamilyTable& t, const std::string& name) {
  std::string body = name;
  if (!t.strip_prefix.empty() && body.rfind(t.strip_prefix, 0) == 0) body.erase(0, t.strip_prefix.size());
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& r : t.rules) {
    if (!r.prefix.empty() && r.prefix[0] == '*') {
      std::string text = r.prefix.substr(1);
      for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.find(text) != std::string::npos) return r.family;
    } else if (body.rfind(r.prefix, 0) == 0) {
      return r.family;
    }
  }
  return attribution::KernelFamily(t, name);
}

// Random tables of mixed prefix and contains rules (duplicates, nested prefixes, an
// empty prefix): the trie gives what the first match in table order gives.
// ROCm kernel names: rocBLAS/hipBLASLt (Tensile) GEMMs, Composable Kernel (ck:: and
// ck_tile, also mangled), rocPRIM, MIOpen, RCCL (which keeps NCCL's kernel names),
// Triton on ROCm, and the names the corpus's MI250/MI300X traces hold.
TEST(JsonTrial, RocmKernelNamesHaveTheirFamilies) {
  const std::vector<FamilyCase> cases = {
      {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_ISA90a", "gemm"},
      {"Cijk_Ailk_Bjlk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x192x64_MI16x16x1_SN_LDSB1_ISA942", "gemm"},
      {"Custom_Cijk_Alik_Bljk_HHS_BH_MT256x256x64_MI32x32x8x1_SN_1LDSB1", "gemm"},
      {"void ck::kernel_gemm_xdl_cshuffle_v3<ck::tensor_operation::device::DeviceGemm_Xdl_CShuffleV3<ck::half_t>, "
       "true, (ck::InMemoryDataOperationEnum)0, 1, (ck::TailNumber)1>(ck::tensor_operation::device::Argument)",
       "gemm"},
      {"void ck::kernel_batched_gemm_softmax_gemm_xdl_cshuffle_v1<ck::half_t, ck::half_t>(ck::half_t const*)",
       "attention"},
      {"void ck_tile::kentry<1, ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<ck_tile::half_t> > >("
       "ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<ck_tile::half_t> >::Kargs)",
       "attention"},
      {"void ck_tile::kentry<1, ck_tile::GemmKernel<ck_tile::GemmPipelineAgBgCrCompV3<ck_tile::half_t> > >("
       "ck_tile::GemmHostArgs)",
       "gemm"},
      {"_ZN7ck_tile6kentryILi1ENS_12Rmsnorm2dFwdINS_27Rmsnorm2dFwdPipelineOnePassINS_27Rmsnorm2dFwdPipelineProblemIDF16b"
       "DF16bfEEEEEEEEvNT0_5KargsE",
       "norm"},
      {"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi64ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_S4_S4_diiiiiiib", "norm"},
      {"_ZN7sgl_hip10activation18act_and_mul_kernelI14__hip_bfloat16TnPFT_RKS3_EXadL_Z4siluIS2_ES3_S5_EEEEvPS3_PS4_i",
       "activation"},
      {"void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, 128, ck_tile::ComposedAttention<0u, false> >("
       "__hip_bfloat16 const*)",
       "attention"},
      {"void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, 128>(__hip_bfloat16*, float const*)", "attention"},
      {"void (anonymous namespace)::store_kvcache<2048l, 4, false, long>((anonymous namespace)::StoreKVCacheParams)",
       "kv_cache"},
      {"void vllm::reshape_and_cache_flash_kernel<__hip_bfloat16>(__hip_bfloat16 const*)", "kv_cache"},
      {"void rocprim::ROCPRIM_400200_NS::detail::trampoline_kernel<rocprim::ROCPRIM_400200_NS::detail::"
       "wrapped_scan_config<rocprim::ROCPRIM_400200_NS::default_config, long>, (rocprim::detail::lookback_scan_state)0>"
       "(long*)",
       "reduction"},
      {"void rocprim::detail::trampoline_kernel<rocprim::detail::wrapped_radix_sort_onesweep_config<float> >(float*)",
       "sampling"},
      {"MIOpenBatchNormFwdTrainSpatial", "norm"},
      {"miopenSp3AsmConv_v21_1_3_gfx9_fp32_f2x3_stride1", "convolution"},
      {"naive_conv_fwd_nchw_float_double_float", "convolution"},
      {"MIOpenConvUni", "convolution"},
      {"void MIOpenPoolingForward<float>(float const*)", "pooling"},
      {"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", "communication"},
      {"rcclGenericKernel", "communication"},
      {"triton_poi_fused_constant_pad_nd_moe_forward_0", "triton_pointwise"},
      {"triton_red_fused__unsafe_view_add_mean_mul_pow_rsqrt_1", "triton_reduction"},
      {"_combined_routing_compute", "moe"},
      {"_sum_bitmatrix_rows", "moe"},
      {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu", "gemm"},
      {"kernel_unified_attention_3d", "attention"},
      {"attn_fwd", "attention"},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
       "TensorListMetadata<2> >(int)",
       "elementwise"},
      // CUDA names the corpus's A100/V100/B200 traces hold.
      {"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
       "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long, c10::BFloat16*)",
       "norm"},
      {"cudnn_infer_volta_scudnn_128x64_relu_medium_nn_v1", "convolution"},
      {"void cudnn::winograd::winogradForwardData4x4<float, float>(cudnn::winograd::WinogradDataParams<float, float>)",
       "convolution"},
      {"void cudnn::detail::dgrad_engine<float, 128, 6, 7, 3, 3, 5, false>(int, int)", "convolution"},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct)", "norm"},
      {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*)", "pooling"},
      {"void nchwToNhwcKernel<float, float, float, true, false, (cudnnKernelDataType_t)0>(int, int)", "copy"},
      {"bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_sm100f", "gemm"},
  };
  ExpectCudaFamilies(cases);

  // Short names: demangled (or, where the demangler refuses DF16b, read from the
  // mangled nested name), wrappers unwrapped, return types skipped.
  EXPECT_EQ(attribution::CanonicalKernelName(cases[7].name), "Rmsnorm2dFwd");
  EXPECT_EQ(attribution::CanonicalKernelName(cases[8].name), "add_rmsnorm_quant_kernel");
  EXPECT_EQ(attribution::CanonicalKernelName(cases[9].name), "act_and_mul_kernel");
  EXPECT_EQ(attribution::CanonicalKernelName(cases[5].name), "FmhaFwdKernel");
  EXPECT_EQ(attribution::CanonicalKernelName(cases[14].name), "wrapped_scan_config");
  EXPECT_EQ(attribution::CanonicalKernelName("_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(attribution::CanonicalKernelName(cases[31].name), "fused_add_rms_norm_kernel");
  EXPECT_EQ(attribution::CanonicalKernelName("_Znot_really_mangled"), "_Znot_really_mangled");
  EXPECT_EQ(attribution::CanonicalKernelName("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD");
}

// Launch and copy calls of the HIP runtime count as their CUDA twins do: the same
// trace written with either set of names gives the same figures.
std::string LaunchTwins(bool hip) {
  auto name = [hip](const char* cuda, const char* rocm) { return std::string(hip ? rocm : cuda); };
  gen::KinetoWriter w;
  w.ProcessName(kPid, "python3");
  int64_t t = 100 * kUs;
  int64_t corr = 1;
  auto launch = [&](const std::string& call, int kernels, bool copy, bool memset) {
    w.Runtime(call, kPid, kPid, t, 3 * kUs, corr);
    for (int k = 0; k < kernels; ++k) {
      const int64_t at = t + (10 + 5 * k) * kUs;
      if (copy) {
        w.Memcpy("Memcpy HtoD (Pinned -> Device)", 0, 7, at, 2 * kUs, corr);
      } else if (memset) {
        w.Memset("Memset (Device)", 0, 7, at, 1 * kUs, corr);
      } else {
        w.Kernel("k" + std::to_string(corr) + "_" + std::to_string(k), 0, 7, at, 4 * kUs, corr);
      }
    }
    t += 100 * kUs;
    ++corr;
  };
  launch(name("cudaLaunchKernel", "hipLaunchKernel"), 1, false, false);
  launch(name("cudaLaunchKernelExC", "hipExtLaunchKernel"), 1, false, false);
  launch(name("cuLaunchKernel", "hipModuleLaunchKernel"), 1, false, false);
  launch(name("cuLaunchKernelEx", "hipExtModuleLaunchKernel"), 1, false, false);
  launch(name("cudaLaunchCooperativeKernel", "hipLaunchCooperativeKernel"), 1, false, false);
  launch(name("cudaGraphLaunch", "hipGraphLaunch"), 3, false, false);
  launch(name("cudaMemcpyAsync", "hipMemcpyAsync"), 1, true, false);
  launch(name("cudaMemcpy", "hipMemcpyWithStream"), 1, true, false);
  launch(name("cudaMemcpy", "hipMemcpy"), 1, true, false);
  launch(name("cudaMemsetAsync", "hipMemsetAsync"), 1, false, true);
  launch(name("cudaMemset", "hipMemset"), 1, false, true);
  launch(name("cudaMemsetD32Async", "hipMemsetD32Async"), 1, false, true);
  return w.Finish();
}

TEST(JsonTrial, HipRuntimeNamesCountAsTheirCudaTwins) {
  AttributionOptions o;
  o.all_processes = true;
  o.tokens = 1;
  attribution::WorkExtras cuda_x;
  attribution::WorkExtras hip_x;
  auto cuda = attribution::AttributeWork(Read(LaunchTwins(false), "cuda.json"), o, &cuda_x);
  auto hip = attribution::AttributeWork(Read(LaunchTwins(true), "hip.json"), o, &hip_x);
  ASSERT_TRUE(cuda.ok() && hip.ok());
  // By hand: five one-kernel launches, one graph of three kernels, three memcpy
  // calls, three memset calls; every call 3 us.
  EXPECT_EQ(hip_x.kernels, 8);
  EXPECT_EQ(hip_x.kernel_launches, 5);
  EXPECT_EQ(hip_x.graph_launches, 1);
  EXPECT_EQ(hip_x.graph_kernels, 3);
  EXPECT_EQ(hip_x.other_launches, 0);
  EXPECT_EQ(hip_x.memcpys, 3);
  EXPECT_EQ(hip_x.memsets, 3);
  EXPECT_EQ(hip->families.at("memcpy").host_sum_ns, 9 * kUs);
  EXPECT_EQ(hip->families.at("memset").host_sum_ns, 9 * kUs);
  EXPECT_EQ(hip_x.launch_host_ns, 6 * 3 * kUs);
  // The one-kernel launches' host time goes to their kernels, the graph's does not.
  int64_t kernel_host_ns = 0;
  for (const auto& [family, f] : hip->families) {
    if (family != "memcpy" && family != "memset") kernel_host_ns += f.host_sum_ns;
  }
  EXPECT_EQ(kernel_host_ns, 5 * 3 * kUs);
  EXPECT_EQ(hip->extras, cuda->extras);
  EXPECT_EQ(hip->families.at("memcpy").host_sum_ns, cuda->families.at("memcpy").host_sum_ns);
  EXPECT_EQ(hip->families.at("memset").host_sum_ns, cuda->families.at("memset").host_sum_ns);
}

// Labels by prefix and by pattern, on trace A (three "decode_step" host ranges, each
// holding a "layer.<i>.attn" range): the same instances as the exact label.
TEST(JsonTrial, LabelsMatchByPrefixAndPattern) {
  const model::WorkSet trace = Read(TraceA(), "a.json");
  auto exact = attribution::AttributeWork(trace, DecodeOptions());
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  ASSERT_EQ(exact->tokens, 3);
  for (const attribution::LabelMatch& label :
       {attribution::LabelMatch::Prefix("decode_"), attribution::LabelMatch::Regex("decode_st[a-z]p")}) {
    SCOPED_TRACE(label.Spelling());
    AttributionOptions o = DecodeOptions();
    o.window = DecodeWindow::Label(label);
    o.token_label = label;
    auto s = attribution::AttributeWork(trace, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->tokens, 3);
    EXPECT_EQ(s->items, exact->items);
    EXPECT_EQ(s->total_sum_ns, exact->total_sum_ns);
    EXPECT_EQ(s->tokens_source, "label:" + label.Spelling());
  }
  // Prefixes and patterns see the name as written ("layer.0.attn"); the exact label
  // compares normalised names ("layer.attn").
  AttributionOptions o = DecodeOptions();
  for (const attribution::LabelMatch& label :
       {attribution::LabelMatch::Exact("layer.attn"), attribution::LabelMatch::Prefix("layer."),
        attribution::LabelMatch::Regex(R"(layer\.\d+\.attn)")}) {
    o.token_label = label;
    auto s = attribution::AttributeWork(trace, o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->tokens, 3) << label.Spelling();
  }
  o.token_label = attribution::LabelMatch::Prefix("layer.1");
  auto one = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->tokens, 1);
  // A pattern matches the whole name, never a part of it.
  o = DecodeOptions();
  o.window = DecodeWindow::Label(attribution::LabelMatch::Regex("decode"));
  auto part = attribution::AttributeWork(trace, o);
  ASSERT_FALSE(part.ok());
  EXPECT_EQ(part.status().ToString(),
            "a.json: error[attr.window_label]: window label 'regex:decode' is not the name of any "
            "gpu_user_annotation or of a user_annotation of the target");
  // A pattern built in code that std::regex refuses is a usage error, not a crash.
  o = DecodeOptions();
  o.token_label = attribution::LabelMatch::Regex("step[");
  auto bad = attribution::AttributeWork(trace, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().kind(), ErrorKind::kUsage);
  EXPECT_NE(bad.status().message().find("label regex 'step[' is not an ECMAScript regular expression"),
            std::string::npos)
      << bad.status().message();
}

// An annotation name over LabelMatcher::kMaxRegexNameBytes is never tested against a
// regex label: it does not match, and the summary counts it.
TEST(JsonTrial, RegexLabelsSkipOverlongNamesCounted) {
  model::WorkSet trace = Read(TraceA(), "a.json");
  model::Span huge = trace.host_spans.front();
  huge.name = "decode_step" + std::string(5000, 'x');
  trace.host_spans.push_back(huge);
  AttributionOptions o = DecodeOptions();
  o.window = DecodeWindow::Label(attribution::LabelMatch::Regex("decode_step.*"));
  o.token_label = o.window.label;
  auto s = attribution::AttributeWork(trace, o);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->tokens, 3);  // the three decode_step ranges of python3, not the long one
  EXPECT_EQ(s->diagnostics.Count("attr.label_too_long"), 1);
}

TEST(FamilyMatcher, TrieKeepsFirstMatchInTableOrder) {
  std::mt19937 rng(12);
  auto word = [&](size_t max_len) {
    std::string w(rng() % (max_len + 1), 'a');
    for (char& c : w) c = "abAB_"[rng() % 5];
    return w;
  };
  for (int round = 0; round < 200; ++round) {
    attribution::KernelFamilyTable t;
    t.strip_prefix = round % 2 == 0 ? "" : "a_";
    for (int i = 0, n = 1 + static_cast<int>(rng() % 12); i < n; ++i) {
      t.rules.push_back({(rng() % 3 == 0 ? "*" : "") + word(4), "f" + std::to_string(i)});
    }
    const attribution::detail::FamilyMatcher matcher(t);
    for (int k = 0; k < 50; ++k) {
      const std::string name = word(8);
      ASSERT_EQ(matcher.FamilyOfShortName(name), FirstMatchReference(t, name)) << "round " << round << ": " << name;
    }
  }
}

// 50,000 prefix rules and 50,000 names: trying every rule on every name took seconds
// (2.5e9 comparisons); the trie walks each name once.
TEST(FamilyMatcher, ManyRulesCostTheNameNotTheTable) {
  attribution::KernelFamilyTable t;
  t.strip_prefix = "";
  for (int i = 0; i < 50'000; ++i) t.rules.push_back({"k" + std::to_string(i) + "_", "f" + std::to_string(i)});
  const attribution::detail::FamilyMatcher matcher(t);
  int matched = 0;
  for (int i = 0; i < 50'000; ++i) {
    matched += matcher.FamilyOfShortName("k" + std::to_string(49'999 - i) + "_gemm") ==
               "f" + std::to_string(49'999 - i);
  }
  EXPECT_EQ(matched, 50'000);
  EXPECT_EQ(matcher.FamilyOfShortName("unmatched_gemm"), attribution::KernelFamily(t, "unmatched_gemm"));
}

}  // namespace
}  // namespace perfgate::json_trace
