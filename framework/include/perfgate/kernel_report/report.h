// Per-kernel timing reports: the JSON that llama.cpp's phase0 timing build and hf2q's
// candle backend write (`kernels[]` of name, calls_per_token_median,
// us_per_token_median, us_per_call_median, us_per_call_p95; candle adds total_calls,
// total_ns, mean_ns, samples_recorded), with the run's metadata beside them.
//
// Such a report holds medians, not per-trial samples: every comparison of it is a
// threshold check of one median against another (gates::JudgeLimit), never a rank test.
#ifndef PERFGATE_KERNEL_REPORT_REPORT_H_
#define PERFGATE_KERNEL_REPORT_REPORT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"

namespace perfgate::kernel_report {

// A number as the file writes it: its double, and whether its text was an integer.
struct Number {
  double value = 0;
  bool is_integer = false;
};

// One kernel of a report.
struct Kernel {
  std::string name;     // as the report writes it ("kernel_mul_mv_q4_0_f32_nsg=2")
  std::string matched;  // MatchName(name): the name two stacks are matched by
  std::string family;   // the family of `matched` under the report's family table
  // Every numeric field of the kernel, by its key (the four required ones, candle's
  // totals and any numeric field perfgate does not know).
  std::map<std::string, Number> figures;

  // A figure by key; NaN when the kernel lacks it (the reader requires the four
  // kRequiredFigures), so a hand-built kernel fails every limit instead of passing.
  double figure(const std::string& key) const;
  double calls_per_token() const { return figure("calls_per_token_median"); }
  double us_per_token() const { return figure("us_per_token_median"); }
};

struct KernelReport {
  std::string path;
  std::string name;  // the engine's name: `stack` unless the caller renames it
  // Every top-level field other than `kernels`, as text: strings as they are, numbers
  // and booleans as their JSON text, nested objects flattened to "outer/inner", arrays
  // as compact JSON. It goes to the golden context, never compared.
  std::map<std::string, std::string> metadata;
  // Top-level numbers (wall_clock_tok_per_sec_median, n_tokens, ...), also in metadata.
  std::map<std::string, Number> numbers;
  std::vector<Kernel> kernels;  // in file order
  Diagnostics diagnostics;      // kernel_report.unknown_field, .merged_kernels, .dropped_samples
};

// The names the required kernel fields have.
inline constexpr std::string_view kRequiredFigures[] = {"calls_per_token_median", "us_per_token_median",
                                                        "us_per_call_median", "us_per_call_p95"};

// The seed's kernel-family table (attribution::DefaultKernelFamilies) followed by rules
// for the names only these reports hold: candle's "<no_pipeline_set>" (dispatches
// timed with no pipeline bound) -> no_pipeline, its MLX GEMMs gemm_* -> dense_gemm, its
// attention sdpa_* and steel_attention* -> sdpa, softmax and soft_max -> softmax.
attribution::KernelFamilyTable DefaultReportFamilies();

// The name with its specialisation suffixes dropped: everything from the first
// '_'-separated part holding '=' ("kernel_mul_mv_q4_0_f32_nsg=2" ->
// "kernel_mul_mv_q4_0_f32", "kernel_flash_attn_ext_vec_reduce_dv=256_nwg=32" ->
// "kernel_flash_attn_ext_vec_reduce"). A name without '=', or whose first part holds one, is
// its own.
std::string MatchName(std::string_view name);

// Reads a report. Errors, located at line:col: io.* (unreadable), kernel_report.not_json
// (not JSON or not an object, a duplicate key, a number out of range),
// kernel_report.too_deep, kernel_report.no_kernels (no `kernels` array, or an empty
// one), kernel_report.bad_kernel (an entry that is not an object, lacks its name or a
// required figure, or holds a non-number where a number goes),
// kernel_report.duplicate_kernel (a name given twice), kernel_report.bad_value (a
// negative or non-finite figure). A field perfgate does not know is kept (numbers as
// figures, the rest as metadata) and counted as kernel_report.unknown_field.
StatusOr<KernelReport> ReadKernelReport(const std::string& path,
                                        const attribution::KernelFamilyTable& families = DefaultReportFamilies());

// How a report is read.
struct ReadOptions {
  // The kernel-family rules; none: the default of the report's kind
  // (DefaultReportFamilies for JSON, attribution::CudaKernelFamilies for nsys stats,
  // whose names are CUDA's, matched as attribution::CudaKernelFamily does).
  std::optional<attribution::KernelFamilyTable> families;
  // The tokens the run decoded. An `nsys stats` report holds totals: its per-token
  // figures are those totals over this count, and without it they are per run
  // (kernel_report.per_run). A JSON report holds its own per-token figures, so a count
  // given for one is an error (kernel_report.tokens_given).
  std::optional<int64_t> tokens;
};

// Reads a JSON report as above, or the text of `nsys stats` (--report
// cuda_gpu_kern_sum, and cuda_api_sum, cuda_gpu_mem_time_sum, nvtx_sum; its column
// table or --format csv; a console capture of several reports reads its kernel
// summary). A stats report's kernels carry total_calls, total_ns, and those of
// mean_ns, median_ns, min_ns, max_ns, stddev_ns the report holds; calls_per_token_median
// and us_per_token_median from the totals; us_per_call_median from the median when
// there is one; never us_per_call_p95 (kernel_report.statistics says which are there).
// Its errors are nsys_stats.* (src/kernel_report/FORMAT-nsys-stats.md).
StatusOr<KernelReport> ReadKernelReport(const std::string& path, const ReadOptions& options);

// Whether the file reads as a per-kernel report: JSON whose start has a "kernels" key
// and no "traceEvents", or text holding an `nsys stats` table.
bool LooksLikeKernelReport(const std::string& path);

}  // namespace perfgate::kernel_report

#endif  // PERFGATE_KERNEL_REPORT_REPORT_H_
