// The one interface to the ANE notch probe's native timing path, and its replay.
//
// A native run (macOS with an Apple Neural Engine only) generates a 1x1 fp16 conv
// model per Cin with coremltools (framework/src/ane/model_gen.py), compiles it to
// `.mlmodelc`, builds the Objective-C eval host (framework/src/ane/eval_host.m) with
// clang, runs `<host> <model.mlmodelc> <warm> <timed>` and reads the last stdout line
// `DMA_JSON {"eval_us":[...]}`. Every step is a subprocess with a timeout; a timeout
// kills the step's whole process group. Results land in a fresh run directory:
//
//   <out>/report.json    status "preparing" -> "passed_kernel_dma_profile" (points,
//                        ratio, class) or "stopped_no_retry" (with "error"); the file
//                        is rewritten atomically at every stage
//   <out>/d<cin>/        model.mlpackage and model.mlmodelc per point
//   <out>/summary.json   for a preset scan (one subdirectory per lattice scan)
//
// kSupported is false off macOS: there, RunNative/RunPreset refuse with
// ErrorKind::kEnvironment unless the toolchain names stand-ins for the model
// generator and the eval host (how the tests exercise the lifecycle on Linux).
// Replay() reads a recorded report.json or a small eval-samples JSON and gives the
// same NotchResult anywhere.
//
// NOTE: the native tools (eval_host.m, anec_options_probe.m, model_gen.py) have never
// run on a Mac; only their command lines, protocol and lifecycle are tested, on Linux.
#ifndef PERFGATE_ANE_PROBE_H_
#define PERFGATE_ANE_PROBE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "perfgate/ane/notch.h"
#include "perfgate/core/status.h"

namespace perfgate::ane {

#ifdef __APPLE__
inline constexpr bool kSupported = true;  // compiled for macOS; NativeUnavailableReason() says the rest
#else
inline constexpr bool kSupported = false;
#endif

// Why a native run cannot happen on this machine: not macOS, not arm64, or no
// AppleNeuralEngine framework. Empty when it can.
std::string NativeUnavailableReason();

// ---------------------------------------------------------------------------------
// The eval-host line protocol.

// The environment of the eval host: ANE_IDENTITY is set, these two are removed.
inline constexpr const char* kAneIdentity = "kernel_dma_mib_probe";
inline constexpr const char* kRemovedEnv[] = {"ANE_INMEM_HWX", "ANE_INPUT_SPLIT"};
inline constexpr const char* kDmaJsonPrefix = "DMA_JSON ";

// What one eval-host run reported.
struct HostEval {
  std::vector<double> eval_us;  // per-evaluation microseconds
  std::string route;        // optional "route": the evaluate call used, e.g. "evaluateWithModel"
  std::string ane_subtype;  // optional "ane_subtype", e.g. "h16"
  std::optional<int> ane_cores;  // optional "ane_cores"
};

// Parses the eval host's stdout: the LAST line starting with "DMA_JSON " carries a
// JSON object whose "eval_us" is a non-empty array of positive numbers. Errors
// (ErrorKind::kEnvironment, the host misbehaved): `ane.no_dma_json` (no such line),
// `ane.bad_dma_json` (not JSON, no eval_us, an empty or non-numeric array), with the
// offending line.
StatusOr<HostEval> ParseDmaJson(const std::string& stdout_text);

// argv of one timing run: {host, mlmodelc, warm, timed}.
std::vector<std::string> EvalHostCommand(const std::string& host, const std::string& mlmodelc, int warm, int timed);

// ---------------------------------------------------------------------------------
// The native toolchain.

struct NativeToolchain {
  // A prebuilt eval host; empty: build eval_host_source with `compiler` into the run
  // directory (as the seed does), or use $PERFGATE_ANE_EVAL_HOST when set.
  std::string eval_host;
  // Where eval_host.m, anec_options_probe.m and model_gen.py live; empty: the
  // framework's source directory (or $PERFGATE_ANE_SOURCE_DIR).
  std::string source_dir;
  // The model generator's argv prefix; the probe appends
  // `--cin N --cout N --out DIR` and expects DIR/model.mlmodelc afterwards. Empty:
  // {$PERFGATE_PYTHON or "python3", <source_dir>/model_gen.py}.
  std::vector<std::string> model_generator;
  std::string compiler = "clang";
  double build_timeout_s = 30;   // clang (the seed's 30 s)
  double model_timeout_s = 600;  // coremltools conversion and compilation
  double host_timeout_s = 120;   // one eval-host run (the seed's 120 s)
  // The machine-wide lock that keeps two probes off the ANE at once (acquired within
  // 1 s, or the run stops with `ane.busy`). Empty path: $TMPDIR/perfgate-ane.lock.
  bool use_lock = true;
  std::string lock_path;

  // True when both the model generator and the eval host are given explicitly (the
  // stand-ins of the Linux tests); such a toolchain runs on any host.
  bool IsStandIn() const { return !eval_host.empty() && !model_generator.empty(); }
};

struct NativeOptions {
  std::vector<int64_t> cins = {kDefaultCinOff, kDefaultCinOn};
  int64_t cout = kDefaultCout;
  int cores = 0;  // 0: the chip's guessed_ane_cores
  int warm = 3;
  int timed = 12;
  // Beyond the seed: time every point `rounds` times, alternating forward and
  // reverse order (on/off interleaved), pooling the samples. 1 = the seed.
  int rounds = 1;
  // Beyond the seed: also time a tiny Cin = Cout = overhead_channels model in the
  // same run and report the dispatch-overhead-corrected ratio. 0 = off.
  int64_t overhead_channels = 0;
  AnalyzeOptions analyze;
  NativeToolchain toolchain;
  std::ostream* log = nullptr;  // console markers DMA_NOTCH_*; nullptr: silent
};

// The run directory's lifecycle, as the seed's run_native:
//  1. `out` must not exist (`ane.out_exists`, kUsage; nothing is touched), then it is
//     created with its parents;
//  2. report.json = the host report + status "preparing", passed false, metric
//     "native_eval_us";
//  3. the lock, the eval host, then per Cin: DMA_NOTCH_COMPILE, model, timing,
//     DMA_NOTCH_TIME;
//  4. report.json = status "passed_kernel_dma_profile" with points, ratio and class,
//     and DMA_NOTCH_RESULT; or, on any error after step 1, status "stopped_no_retry"
//     with error "<code>: <message>", and the error is returned.
// Off macOS, a toolchain that is not a stand-in fails first with `ane.unsupported`
// (kEnvironment), before anything is created.
StatusOr<NotchResult> RunNative(const std::string& out, const NativeOptions& options, const ChipInfo& chip);

// One scan of a preset run.
struct ScanOutcome {
  LatticeScan scan;
  int cores = 0;
  std::optional<NotchResult> result;
  std::string error;  // "<code>: <message>" when the scan stopped
};
struct PresetSummary {
  Preset preset = Preset::kStock;
  ChipInfo chip;
  std::vector<ScanOutcome> scans;
};

// The seed's run_preset: refuses an existing `out`, builds the eval host once, runs
// each scan of ScansFor(preset) in <out>/<scan name> (cores: options.cores when
// non-zero, else the scan's), records a failing scan's error and goes on, then
// writes <out>/summary.json and prints DMA_NOTCH_SUMMARY. Returns an error only when
// nothing could start (existing directory, unsupported host, eval-host build).
StatusOr<PresetSummary> RunPreset(const std::string& out, Preset preset, const NativeOptions& options,
                                  const ChipInfo& chip);

// ---------------------------------------------------------------------------------
// Rendering (JSON, 2-space indent, trailing newline).

enum class RunStatus { kPreparing, kPassed, kStopped };
// "preparing" | "passed_kernel_dma_profile" | "stopped_no_retry"
const char* ToString(RunStatus s);

// A run directory's report.json: the host report's keys, then status, passed,
// metric; with `result` (kPassed) the measured points replace the host points and
// ratio_on_over_off, ratio_2048_over_2016, class_name, m3_class_notch,
// milder_1mib_slowdown follow, then perfgate's additions (borderline,
// borderline_edge, thresholds, on_off_rule, on_cin, off_cin, timing_path,
// dispatch_overhead); with kStopped, `error`.
std::string RenderRunReportJson(const HostReport& host, RunStatus status, const NotchResult* result,
                                const std::string& error);
// The measured result alone (replay, the CLI's `replay`): the chip, cores, cout,
// points, ratios, class, borderline, thresholds, timing path and source.
std::string RenderResultJson(const NotchResult& result);
// summary.json: preset, chip, scans [{name, note, cores, cout, cins, class_name,
// ratio_on_over_off, points [{cin, median_eval_us, gbps_weight_payload,
// mib_per_core, on_prefetch_notch}]} or {name, error}].
std::string RenderSummaryJson(const PresetSummary& summary);
// The classify subcommand's object: ratio, class_name, borderline, borderline_edge,
// on_us, off_us, thresholds.
std::string RenderClassificationJson(const Classification& c, double on_us, double off_us, const Thresholds& t);

// ---------------------------------------------------------------------------------
// Replay.

struct ReplayOptions {
  Thresholds thresholds;
  // The on/off rule; unset: the recording's own (`on_off_rule`), else kPredicate.
  std::optional<OnOffRule> rule;
};

// Reads a recorded evaluation and analyses it as a native run would:
//  - a run directory's report.json (metric "native_eval_us", status
//    "passed_kernel_dma_profile"), or a run directory containing one;
//  - an eval-samples file:
//      {"kind": "perfgate.ane_eval_samples", "schema_version": 1,
//       "chip": {"guessed_chip": "Apple M5", "hw_model": "...", "brand": "...",
//                "ane_cores": 16, "ane_subtype": "h16", "os": "..."},
//       "cores": 16, "cout": 4096, "timing_path": "...", "source": "...",
//       "points": [{"cin": 2016, "eval_us": [353.8]},
//                  {"cin": 2048, "cout": 4096, "eval_us": [785.5]}],
//       "overhead_us": [...]}                      (cout per point optional)
// The result's timing_path is "replay: <recorded path>" and source_path the file.
// Errors: `ane.replay_unreadable` (kInput), `ane.replay_bad_json` (with
// line:column), `ane.replay_bad_schema` (with the JSON pointer), `ane.replay_not_passed`
// (a report.json whose run stopped), and Analyze's.
StatusOr<NotchResult> Replay(const std::string& path, const ReplayOptions& options = {});

// ---------------------------------------------------------------------------------
// ANEC options probe (macOS only): do ANECompiler options know a KernelDMA split?

struct AnecProbeResult {
  // "probed", "probe_failed", "probe_build_failed", "skipped_no_probe_source", and
  // perfgate's "skipped_unsupported" (not macOS; the reason in stderr_tail).
  std::string status;
  std::optional<int> returncode;
  std::string serialized;  // tail of the probe's output
  std::optional<bool> fabricated_keys_dropped;
  std::optional<bool> has_1mib_kernel_dma_split_flag;
  std::string path;    // the missing source (skipped_no_probe_source)
  std::string stderr_tail;  // the build error (probe_build_failed) or the reason (skipped_unsupported)
};

// The 15 option keys written to flags.json, in the seed's order, as JSON text.
std::string AnecFlagsJson();
// True when serialized options mention a KernelDMA split ("split-kernel-dma",
// "kernel-dma-split", "max-kernel-dma", "one-mib"; any case).
bool MentionsKernelDmaSplit(const std::string& serialized);
// Writes <out>/flags.json, builds <out>/anec_options_probe from the source with the
// toolchain's compiler (30 s), runs it on flags.json (30 s) and judges the output.
// Off macOS with the default compiler it writes flags.json and reports
// skipped_unsupported.
AnecProbeResult ProbeAnec(const std::string& out, const NativeToolchain& toolchain);
std::string RenderAnecProbeJson(const AnecProbeResult& r);

}  // namespace perfgate::ane

#endif  // PERFGATE_ANE_PROBE_H_
