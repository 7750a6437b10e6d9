// The ANE KernelDMA 1 MiB notch: the arithmetic, the notch classes, the scan
// lattices and chip detection. Everything here runs on any host; the native timing
// path (macOS with an Apple Neural Engine) lives behind perfgate/ane/probe.h.
//
// The claim (E. Yoon, https://eiln.github.io/posts/ane-dma.html): on the M3 Neural
// Engine, weight streaming falls from ~45-60 GB/s to ~17-19 GB/s whenever the fp16
// weight bytes *per ANE core* are an exact multiple of 1 MiB. A probe times a 1x1
// convolution (Cout x Cin, fp16) just off and exactly on the notch and classifies the
// on/off ratio of the median evaluation times:
//
//   auto off = perfgate::ane::DenseHits(2016, 4096, 16);   // 1 MiB - 16 KiB per core
//   auto on = perfgate::ane::DenseHits(2048, 4096, 16);    // exactly 1 MiB per core
//   auto c = perfgate::ane::ClassifyPair(785.5, 353.8);    // 2.22x -> m3_class_notch
//
// Units: bytes are int64_t; evaluation times are microseconds (`_us`); bandwidths are
// GB/s of the whole weight payload (1e9 bytes per second). Nothing here throws: bad
// input is a Status with a code `ane.*`.
#ifndef PERFGATE_ANE_NOTCH_H_
#define PERFGATE_ANE_NOTCH_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/core/status.h"

namespace perfgate::ane {

inline constexpr int64_t kMiB = int64_t{1} << 20;
inline constexpr int64_t kLineBytes = 64;      // one KernelDMA line
inline constexpr int kStockCores = 16;         // one ANE cluster
inline constexpr int64_t kDefaultCout = 4096;  // the article's N
inline constexpr int64_t kDefaultCinOff = 2016;  // 1 MiB - 16 KiB per core at 16 cores
inline constexpr int64_t kDefaultCinOn = 2048;   // exactly 1 MiB per core at 16 cores
inline constexpr const char* kArticleUrl = "https://eiln.github.io/posts/ane-dma.html";

// ---------------------------------------------------------------------------------
// Arithmetic.

// Weight bytes one core streams: (cout / cores) * cin * element_bytes. Error
// `ane.bad_shape` unless cin, cout, cores and element_bytes are positive and cores
// divides cout, and the whole weight (cin * cout * element_bytes) is at most
// kMaxShapeBytes. element_bytes is 2 for fp16 (the seed's only case) and 1 for int8
// weights, which hit the notch at their streamed size too (M4 Pro, per the doc).
StatusOr<int64_t> BytesPerCore(int64_t cin, int64_t cout, int cores, int element_bytes);
// The seed's fp16_bytes_per_core: BytesPerCore(cin, cout, cores, 2).
StatusOr<int64_t> Fp16BytesPerCore(int64_t cin, int64_t cout, int cores = kStockCores);
// The largest weight a shape may have, 2^53 bytes: far beyond any ANE model, and
// small enough that the MiB arithmetic in doubles stays exact.
inline constexpr int64_t kMaxShapeBytes = int64_t{1} << 53;
// The whole fp16 weight: cin * cout * 2 (INT64_MAX where that overflows).
int64_t TotalFp16Bytes(int64_t cin, int64_t cout);

// The seed's exact-hit predicate: k = max(1, round(bytes / MiB)); true only when
// bytes == k MiB exactly. Error `ane.bad_shape` when bytes <= 0 (an empty transfer).
StatusOr<bool> OnPrefetchNotch(int64_t bytes_per_core);
// Signed distance from the nearest MiB multiple (the same k as OnPrefetchNotch), in
// bytes: 2016 x 4096 at 16 cores is -16384 (-256 lines). The reported slow zone is
// about +-256 lines (16 KiB) wide, wider than the exact predicate.
int64_t OffsetFromNearestMiB(int64_t bytes_per_core);

// Payload bandwidth: total bytes / 1e9 / (median_us / 1e6). 2048 x 4096 x 2 bytes in
// 785.5 us is 21.4 GB/s. Returns 0 when median_us <= 0.
double PayloadGbps(int64_t total_bytes, double median_us);

// ---------------------------------------------------------------------------------
// Notch classes.

// Ordered by strength: kNoNotch < kMilder1MiBSlowdown < kM3ClassNotch.
// kHostDominatedInvalid (the on-notch median is so long that host time dominates)
// stands outside the order and never satisfies "at least".
enum class NotchClass { kNoNotch, kMilder1MiBSlowdown, kM3ClassNotch, kHostDominatedInvalid };

// "no_notch", "milder_1mib_slowdown", "m3_class_notch", "host_dominated_invalid".
const char* ToString(NotchClass c);
// The inverse of ToString; `ane.bad_class` (ErrorKind::kUsage) for any other text.
StatusOr<NotchClass> ParseNotchClass(const std::string& name);
// True when `actual` is at least as strong as `floor` on the order above; false
// whenever either side is kHostDominatedInvalid.
bool AtLeast(NotchClass actual, NotchClass floor);

// The class edges. The defaults are the seed's; a suite may move them.
struct Thresholds {
  double m3_class_ratio = 2.0;      // ratio >= this: m3_class_notch
  double milder_ratio = 1.3;        // ratio >= this: milder_1mib_slowdown
  double host_dominated_us = 5000;  // on-notch median >= this: host_dominated_invalid
  // `borderline` when the ratio lies within this many ratio units of a ratio edge
  // (M4's published 1.97x sits 0.03 below the 2.0 edge) ...
  double borderline_margin = 0.05;
  // ... or the on-notch median within this fraction of host_dominated_us.
  double borderline_us_fraction = 0.05;

  // `ane.bad_thresholds` (kUsage) unless 0 < milder_ratio <= m3_class_ratio,
  // host_dominated_us > 0 and both margins are >= 0 and finite.
  Status Validate() const;
};

// A classified ratio.
struct Classification {
  double ratio = 0;  // on-notch median / off-notch median
  std::optional<double> median_on_us;
  NotchClass notch_class = NotchClass::kNoNotch;
  bool borderline = false;
  // Which edge made it borderline, e.g. "m3_class_notch at 2 (ratio 1.97 is 0.03
  // below)"; empty when not borderline.
  std::string borderline_edge;
};

// The seed's classify_ratio: on-notch median >= host_dominated_us ->
// host_dominated_invalid; ratio >= m3_class_ratio -> m3_class_notch; >= milder_ratio
// -> milder_1mib_slowdown; else no_notch. A non-finite ratio is no_notch.
NotchClass ClassifyRatio(double ratio, std::optional<double> median_on_us, const Thresholds& t = {});
// ClassifyRatio plus the borderline flag.
Classification Classify(double ratio, std::optional<double> median_on_us, const Thresholds& t = {});
// Classify(on_us / off_us, on_us). `ane.bad_timing` (kInput) unless both are
// positive and finite.
StatusOr<Classification> ClassifyPair(double on_us, double off_us, const Thresholds& t = {});

// ---------------------------------------------------------------------------------
// Points and lattices.

// The seed's dense_hits row for one shape.
struct DensePoint {
  int64_t cin = 0;
  int64_t cout = 0;
  int cores = kStockCores;
  int64_t bytes_per_core = 0;
  double mib_per_core = 0;
  bool on_prefetch_notch = false;
  int64_t total_fp16_bytes = 0;
  // The 16- and 32-core views, present when 16 (32) divides cout.
  std::optional<double> mib_per_core_16;
  std::optional<bool> on_prefetch_notch_16;
  std::optional<double> mib_per_core_32;
  std::optional<bool> on_prefetch_notch_32;
  // Beyond the seed: OffsetFromNearestMiB(bytes_per_core), in bytes and 64-B lines.
  int64_t mib_offset_bytes = 0;
  double mib_offset_lines = 0;
};

// The row for cin x cout at `cores`; errors as Fp16BytesPerCore.
StatusOr<DensePoint> DenseHits(int64_t cin, int64_t cout, int cores = kStockCores);

// One scan of a lattice: an off-notch and an on-notch Cin at one Cout.
struct LatticeScan {
  std::string name;
  int cores = kStockCores;
  int64_t cout = kDefaultCout;
  std::vector<int64_t> cins;
  std::string note;
};

// The seed's five scans for dual-cluster (Ultra) chips, in order; the first,
// 16c_stock_1mib, is also the stock scan.
const std::vector<LatticeScan>& DualLattice();
const LatticeScan& StockScan();

enum class Preset { kStock, kDual, kAuto };
const char* ToString(Preset p);  // "stock" | "dual" | "auto"
// `ane.bad_preset` (kUsage) for anything but stock, dual or auto.
StatusOr<Preset> ParsePreset(const std::string& name);

// ---------------------------------------------------------------------------------
// Chip detection.

// What is known about the machine. The first eight fields are the seed's `chip`
// keys (`python` is the interpreter the model generator would run, empty when there
// is none); the rest are perfgate's additions.
struct ChipInfo {
  std::string hw_model;      // sysctl hw.model, "" when unavailable
  std::string brand;         // sysctl machdep.cpu.brand_string, "" when unavailable
  std::string platform;      // e.g. "macOS-15.3-arm64", "Linux-6.1.0-18-amd64-x86_64"
  std::string guessed_chip;  // "Apple M3 Ultra", "Apple M4-class (hw.model)", "unknown"
  int guessed_ane_cores = kStockCores;
  bool dual_cluster = false;  // guessed_ane_cores >= 32
  std::string label;          // the --label, else guessed_chip
  std::string python;         // e.g. "3.11.2"
  std::string os;             // "macOS 15.3 (24D60)", "Linux 6.1.0-18-amd64 (Debian GNU/Linux 12)"
  std::string ane_subtype;    // _ANEDeviceInfo.aneSubType ("h16"), when a native host reported it
  std::string unknown_reason; // why guessed_chip is "unknown"; empty otherwise
};

// The seed's guess_chip: the first of m5, m4, m3, m2, m1 found in
// "<lower brand> <lower hw_model>" gives "Apple M<n>" plus " Ultra", " Max" or " Pro"
// when the brand names one (checked in that order); else the hw.model family (Mac17
// M5-class, Mac16 M4-class, Mac15 M3-class, Mac14 M2-class, Mac13 or MacBookPro18
// M1-class, each "Apple M<n>-class (hw.model)"); else "unknown".
std::string GuessChip(const std::string& hw_model, const std::string& brand);
// 32 when the name contains "ultra" (any case), else 16.
int GuessAneCores(const std::string& chip_name);

// The raw facts DetectChip reads, so tests can feed canned sysctl output.
struct HostFacts {
  std::string brand;     // sysctl -n machdep.cpu.brand_string ("" on failure)
  std::string hw_model;  // sysctl -n hw.model ("" on failure)
  std::string platform;
  std::string os;
  std::string python;
};

// Builds ChipInfo from facts: the seed's guesses, label (default guessed_chip), and
// for "unknown" a reason naming what was (not) found and the OS.
ChipInfo ChipFromFacts(const HostFacts& facts, const std::string& label = "");

// Gathers this machine's facts: sysctl (5 s timeout each, "" on any failure),
// uname, sw_vers on macOS or /etc/os-release elsewhere, and python3's version.
HostFacts GatherHostFacts();
// ChipFromFacts(GatherHostFacts(), label).
ChipInfo DetectChip(const std::string& label = "");

// The preset `auto` resolves to: dual when the chip is dual-cluster or the label is
// m3u, m1u, m2u or ultra (any case); else stock. stock and dual resolve to themselves.
Preset ResolvePreset(Preset requested, const ChipInfo& chip, const std::string& label);
// The scans a resolved preset runs: stock -> {StockScan()}, dual -> DualLattice().
std::vector<LatticeScan> ScansFor(Preset resolved);

// ---------------------------------------------------------------------------------
// The host-only report (the seed's --host-only JSON).

struct HostReport {
  ChipInfo chip;
  int cores = kStockCores;
  int64_t cout = kDefaultCout;
  std::vector<DensePoint> points;
  std::optional<Preset> preset;  // added by the CLI
};

// Points for each Cin at cout and `cores` (0: the chip's guessed_ane_cores). Errors
// as DenseHits, and `ane.bad_shape` when cins is empty.
StatusOr<HostReport> BuildHostReport(const std::vector<int64_t>& cins, int64_t cout, const ChipInfo& chip,
                                     int cores = 0);

// The seed's keys, in the seed's order: article, chip, cores, cout, points,
// dual_lattice, compiler, reference_m5_evalus, reference_m3_article,
// reference_m3_ultra_20260911, then preset when set. 2-space indent, trailing newline.
std::string RenderHostReportJson(const HostReport& report);

// ---------------------------------------------------------------------------------
// Measured results.

// Which point is "on" and which is "off".
enum class OnOffRule {
  // Default: the one point that is exactly on the notch at the run's core count is
  // "on"; "off" is the off-notch point nearest to it in bytes per core. Anything but
  // exactly one on-notch point is `ane.bad_scan` (kUsage).
  kPredicate,
  // The seed's rule: the first point is "off" and the last is "on", whatever the
  // predicate says (`--cins 2048,2016` inverts the ratio).
  kPositional,
};
const char* ToString(OnOffRule r);  // "predicate" | "positional"

// A point's evaluation samples, as timed or replayed.
struct PointSamples {
  int64_t cin = 0;
  int64_t cout = 0;
  std::vector<double> eval_us;
};

// A point with its measurements.
struct MeasuredPoint {
  DensePoint dense;
  std::vector<double> eval_us_samples;
  double median_eval_us = 0;
  double gbps_weight_payload = 0;
};

// The dispatch-overhead correction: a tiny model timed in the same run, subtracted
// from both medians. (t_on + h) / (t_off + h) understates the DMA-time ratio.
struct OverheadCorrection {
  std::vector<double> eval_us_samples;
  double median_us = 0;
  std::optional<double> corrected_ratio;  // (on - h) / (off - h); absent when off <= h
  std::optional<Classification> corrected;
  std::string note;  // why the corrected ratio is absent, if it is
};

// The ane-dma identity of a measured result: where it was measured and how.
struct NotchResult {
  ChipInfo chip;
  int cores = kStockCores;
  int64_t cout = kDefaultCout;
  std::vector<MeasuredPoint> points;
  OnOffRule rule = OnOffRule::kPredicate;
  int on_index = -1;
  int off_index = -1;
  double ratio_on_over_off = 0;
  std::optional<double> ratio_2048_over_2016;  // when Cins 2016 and 2048 are both present
  Thresholds thresholds;
  Classification classification;  // of the raw ratio
  std::optional<OverheadCorrection> overhead;
  std::string timing_path;  // "native: _ANEClient evaluateWithModel (eval_host.m)", "replay: ..."
  std::string source_path;  // the run directory or the replayed file
  std::string source_note;  // e.g. "reconstructed from published medians"

  const MeasuredPoint& on() const { return points.at(static_cast<size_t>(on_index)); }
  const MeasuredPoint& off() const { return points.at(static_cast<size_t>(off_index)); }
};

struct AnalyzeOptions {
  Thresholds thresholds;
  OnOffRule rule = OnOffRule::kPredicate;
  std::vector<double> overhead_us;  // tiny-model samples; empty: no correction
};

// Medians, GB/s, on/off choice, ratio and classes from per-point samples measured
// at `cores`. Errors: `ane.bad_shape` (a shape error, naming the point),
// `ane.bad_timing` (a point without samples, or a non-positive or non-finite sample),
// `ane.bad_scan` (fewer than two points; the predicate rule's conditions),
// `ane.bad_thresholds`.
StatusOr<NotchResult> Analyze(const ChipInfo& chip, int cores, std::vector<PointSamples> points,
                              const AnalyzeOptions& options = {});

// Median of a non-empty sample (mean of the middle two for an even count).
double Median(std::vector<double> values);

}  // namespace perfgate::ane

#endif  // PERFGATE_ANE_NOTCH_H_
