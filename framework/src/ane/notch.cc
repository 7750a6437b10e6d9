#include "perfgate/ane/notch.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/checked_math.h"
#include "perfgate/core/process.h"
#include "string_util.h"

namespace perfgate::ane {
namespace {

using ::perfgate::internal::CheckedMul;

Status ShapeError(std::string message) { return Status::Error("ane.bad_shape", std::move(message), {}, ErrorKind::kUsage); }

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}


std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// k = max(1, round(bytes / MiB)) as the seed computes it (Python's round: half to even).
int64_t NearestMiBMultiple(int64_t bytes) {
  double q = static_cast<double>(bytes) / static_cast<double>(kMiB);
  double k = std::nearbyint(q);  // default rounding mode: to nearest, ties to even
  return std::max<int64_t>(1, static_cast<int64_t>(k));
}

}  // namespace

// ---------------------------------------------------------------------------------
// Arithmetic.

StatusOr<int64_t> BytesPerCore(int64_t cin, int64_t cout, int cores, int element_bytes) {
  if (cin <= 0 || cout <= 0 || cores <= 0 || element_bytes <= 0 || cout % cores != 0) {
    return ShapeError("positive Cin and Cout divisible by core count required (Cin " + std::to_string(cin) +
                      ", Cout " + std::to_string(cout) + ", cores " + std::to_string(cores) + ")");
  }
  int64_t total = 0;
  if (!CheckedMul(cin, cout, &total) || !CheckedMul(total, element_bytes, &total) || total > kMaxShapeBytes) {
    return ShapeError("Cin " + std::to_string(cin) + " x Cout " + std::to_string(cout) + " x " +
                      std::to_string(element_bytes) + " bytes exceeds the " + std::to_string(kMaxShapeBytes) +
                      "-byte limit of a shape");
  }
  return (cout / cores) * cin * element_bytes;
}

StatusOr<int64_t> Fp16BytesPerCore(int64_t cin, int64_t cout, int cores) { return BytesPerCore(cin, cout, cores, 2); }

int64_t TotalFp16Bytes(int64_t cin, int64_t cout) {
  int64_t total = 0;
  // Shapes BytesPerCore accepted fit; others saturate rather than wrap.
  if (!CheckedMul(cin, cout, &total) || !CheckedMul(total, 2, &total)) return INT64_MAX;
  return total;
}

StatusOr<bool> OnPrefetchNotch(int64_t bytes_per_core) {
  if (bytes_per_core <= 0) return ShapeError("empty transfer (" + std::to_string(bytes_per_core) + " bytes)");
  return bytes_per_core == NearestMiBMultiple(bytes_per_core) * kMiB;
}

int64_t OffsetFromNearestMiB(int64_t bytes_per_core) {
  return bytes_per_core - NearestMiBMultiple(bytes_per_core) * kMiB;
}

double PayloadGbps(int64_t total_bytes, double median_us) {
  if (!(median_us > 0)) return 0;
  return (static_cast<double>(total_bytes) / 1e9) / (median_us / 1e6);
}

// ---------------------------------------------------------------------------------
// Classes.

const char* ToString(NotchClass c) {
  switch (c) {
    case NotchClass::kNoNotch: return "no_notch";
    case NotchClass::kMilder1MiBSlowdown: return "milder_1mib_slowdown";
    case NotchClass::kM3ClassNotch: return "m3_class_notch";
    case NotchClass::kHostDominatedInvalid: return "host_dominated_invalid";
  }
  return "no_notch";
}

StatusOr<NotchClass> ParseNotchClass(const std::string& name) {
  for (NotchClass c : {NotchClass::kNoNotch, NotchClass::kMilder1MiBSlowdown, NotchClass::kM3ClassNotch,
                       NotchClass::kHostDominatedInvalid}) {
    if (name == ToString(c)) return c;
  }
  return Status::Error("ane.bad_class",
                       "unknown notch class '" + name +
                           "' (expected no_notch, milder_1mib_slowdown, m3_class_notch or host_dominated_invalid)",
                       {}, ErrorKind::kUsage);
}

bool AtLeast(NotchClass actual, NotchClass floor) {
  if (actual == NotchClass::kHostDominatedInvalid || floor == NotchClass::kHostDominatedInvalid) return false;
  return static_cast<int>(actual) >= static_cast<int>(floor);
}

Status Thresholds::Validate() const {
  auto finite = [](double v) { return std::isfinite(v); };
  if (!finite(m3_class_ratio) || !finite(milder_ratio) || !finite(host_dominated_us) || !finite(borderline_margin) ||
      !finite(borderline_us_fraction) || !(milder_ratio > 0) || milder_ratio > m3_class_ratio ||
      !(host_dominated_us > 0) || borderline_margin < 0 || borderline_us_fraction < 0) {
    return Status::Error("ane.bad_thresholds",
                         "thresholds need 0 < milder (" + Num(milder_ratio) + ") <= m3_class (" +
                             Num(m3_class_ratio) + "), host_dominated_us > 0 (" + Num(host_dominated_us) +
                             ") and finite non-negative margins",
                         {}, ErrorKind::kUsage);
  }
  return Status();
}

NotchClass ClassifyRatio(double ratio, std::optional<double> median_on_us, const Thresholds& t) {
  if (median_on_us && *median_on_us >= t.host_dominated_us) return NotchClass::kHostDominatedInvalid;
  if (!std::isfinite(ratio)) return NotchClass::kNoNotch;
  if (ratio >= t.m3_class_ratio) return NotchClass::kM3ClassNotch;
  if (ratio >= t.milder_ratio) return NotchClass::kMilder1MiBSlowdown;
  return NotchClass::kNoNotch;
}

Classification Classify(double ratio, std::optional<double> median_on_us, const Thresholds& t) {
  Classification c;
  c.ratio = ratio;
  c.median_on_us = median_on_us;
  c.notch_class = ClassifyRatio(ratio, median_on_us, t);
  // The host-dominated edge (µs), which matters for every class.
  if (median_on_us) {
    double d = *median_on_us - t.host_dominated_us;
    if (std::fabs(d) <= t.borderline_us_fraction * t.host_dominated_us) {
      c.borderline = true;
      c.borderline_edge = std::string("host_dominated_invalid at ") + Num(t.host_dominated_us) + " us (on-notch " +
                          Num(*median_on_us) + " us is " + Num(std::fabs(d)) + (d < 0 ? " below)" : " above)");
      return c;
    }
  }
  if (c.notch_class == NotchClass::kHostDominatedInvalid || !std::isfinite(ratio)) return c;
  // The nearer ratio edge.
  struct Edge {
    NotchClass cls;
    double at;
  };
  const Edge edges[] = {{NotchClass::kM3ClassNotch, t.m3_class_ratio}, {NotchClass::kMilder1MiBSlowdown, t.milder_ratio}};
  const Edge* nearest = nullptr;
  for (const Edge& e : edges) {
    if (nearest == nullptr || std::fabs(ratio - e.at) < std::fabs(ratio - nearest->at)) nearest = &e;
  }
  double d = ratio - nearest->at;
  // A small slack so that a ratio printed as exactly "margin away" counts.
  if (std::fabs(d) <= t.borderline_margin + 1e-12) {
    c.borderline = true;
    c.borderline_edge = std::string(ToString(nearest->cls)) + " at " + Num(nearest->at) + " (ratio " + Num(ratio) +
                        " is " + Num(std::fabs(d)) + (d < 0 ? " below)" : d > 0 ? " above)" : " on it)");
  }
  return c;
}

StatusOr<Classification> ClassifyPair(double on_us, double off_us, const Thresholds& t) {
  if (!std::isfinite(on_us) || !std::isfinite(off_us) || !(on_us > 0) || !(off_us > 0)) {
    return Status::Error("ane.bad_timing",
                         "on and off medians must be positive and finite (on " + Num(on_us) + " us, off " +
                             Num(off_us) + " us)");
  }
  PERFGATE_RETURN_IF_ERROR(t.Validate());
  return Classify(on_us / off_us, on_us, t);
}

// ---------------------------------------------------------------------------------
// Points and lattices.

StatusOr<DensePoint> DenseHits(int64_t cin, int64_t cout, int cores) {
  PERFGATE_ASSIGN_OR_RETURN(int64_t bpc, Fp16BytesPerCore(cin, cout, cores));
  DensePoint p;
  p.cin = cin;
  p.cout = cout;
  p.cores = cores;
  p.bytes_per_core = bpc;
  p.mib_per_core = static_cast<double>(bpc) / static_cast<double>(kMiB);
  p.on_prefetch_notch = *OnPrefetchNotch(bpc);
  p.total_fp16_bytes = TotalFp16Bytes(cin, cout);
  if (cout % 16 == 0) {
    int64_t b16 = *Fp16BytesPerCore(cin, cout, 16);
    p.mib_per_core_16 = static_cast<double>(b16) / static_cast<double>(kMiB);
    p.on_prefetch_notch_16 = *OnPrefetchNotch(b16);
  }
  if (cout % 32 == 0) {
    int64_t b32 = *Fp16BytesPerCore(cin, cout, 32);
    p.mib_per_core_32 = static_cast<double>(b32) / static_cast<double>(kMiB);
    p.on_prefetch_notch_32 = *OnPrefetchNotch(b32);
  }
  p.mib_offset_bytes = OffsetFromNearestMiB(bpc);
  p.mib_offset_lines = static_cast<double>(p.mib_offset_bytes) / static_cast<double>(kLineBytes);
  return p;
}

const std::vector<LatticeScan>& DualLattice() {
  // Dual-cluster Ultra: 2x16 cores. Per-core bytes use 32 cores if Cout is striped
  // across both clusters; the stock 16-core pair is then 0.5 MiB per core.
  static const std::vector<LatticeScan> kLattice = {
      {"16c_stock_1mib", 16, 4096, {2016, 2048}, "single-cluster article pair; Ultra off-lattice (0.5 MiB/core)"},
      {"32c_1mib_cin2048", 32, 8192, {2016, 2048}, "32-core 1 MiB; Ultra milder_1mib_slowdown ~1.61x"},
      {"32c_1mib_cin4096", 32, 4096, {4032, 4096}, "same 1 MiB/32-core via Cin=4096; Ultra miss"},
      {"32c_2mib_cin8192", 32, 4096, {8128, 8192}, "32-core 2 MiB; Ultra milder_1mib_slowdown ~1.77x"},
      {"32c_2mib_cin4096", 32, 8192, {4032, 4096}, "same 2 MiB/32-core via Cin=4096; Ultra miss"},
  };
  return kLattice;
}

const LatticeScan& StockScan() { return DualLattice().front(); }

const char* ToString(Preset p) {
  switch (p) {
    case Preset::kStock: return "stock";
    case Preset::kDual: return "dual";
    case Preset::kAuto: return "auto";
  }
  return "auto";
}

StatusOr<Preset> ParsePreset(const std::string& name) {
  for (Preset p : {Preset::kStock, Preset::kDual, Preset::kAuto}) {
    if (name == ToString(p)) return p;
  }
  return Status::Error("ane.bad_preset", "unknown preset '" + name + "' (expected stock, dual or auto)", {},
                       ErrorKind::kUsage);
}

Preset ResolvePreset(Preset requested, const ChipInfo& chip, const std::string& label) {
  if (requested != Preset::kAuto) return requested;
  const std::string l = Lower(label);
  if (chip.dual_cluster || l == "m3u" || l == "m1u" || l == "m2u" || l == "ultra") return Preset::kDual;
  return Preset::kStock;
}

std::vector<LatticeScan> ScansFor(Preset resolved) {
  if (resolved == Preset::kDual) return DualLattice();
  return {StockScan()};
}

// ---------------------------------------------------------------------------------
// Chip detection.

std::string GuessChip(const std::string& hw_model, const std::string& brand) {
  const std::string brand_l = Lower(brand);
  const std::string text = brand_l + " " + Lower(hw_model);
  for (const char* name : {"m5", "m4", "m3", "m2", "m1"}) {
    if (text.find(name) == std::string::npos) continue;
    std::string extra;
    for (const char* suffix : {"ultra", "max", "pro"}) {
      if (brand_l.find(suffix) != std::string::npos) {
        std::string title = suffix;
        title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
        extra = " " + title;
        break;
      }
    }
    std::string upper = name;
    upper[0] = 'M';
    return "Apple " + upper + extra;
  }
  if (StartsWith(hw_model, "Mac17")) return "Apple M5-class (hw.model)";
  if (StartsWith(hw_model, "Mac16")) return "Apple M4-class (hw.model)";
  if (StartsWith(hw_model, "Mac15")) return "Apple M3-class (hw.model)";
  if (StartsWith(hw_model, "Mac14")) return "Apple M2-class (hw.model)";
  if (StartsWith(hw_model, "Mac13") || StartsWith(hw_model, "MacBookPro18")) return "Apple M1-class (hw.model)";
  return "unknown";
}

int GuessAneCores(const std::string& chip_name) {
  return Lower(chip_name).find("ultra") != std::string::npos ? 32 : 16;
}

ChipInfo ChipFromFacts(const HostFacts& facts, const std::string& label) {
  ChipInfo c;
  c.hw_model = facts.hw_model;
  c.brand = facts.brand;
  c.platform = facts.platform;
  c.guessed_chip = GuessChip(facts.hw_model, facts.brand);
  c.guessed_ane_cores = GuessAneCores(c.guessed_chip);
  c.dual_cluster = c.guessed_ane_cores >= 32;
  c.label = label.empty() ? c.guessed_chip : label;
  c.python = facts.python;
  c.os = facts.os;
  if (c.guessed_chip == "unknown") {
    const std::string where = facts.os.empty() ? facts.platform : facts.os;
    if (facts.brand.empty() && facts.hw_model.empty()) {
      c.unknown_reason = "sysctl machdep.cpu.brand_string and hw.model gave nothing: this host (" +
                         (where.empty() ? std::string("unknown OS") : where) +
                         ") is not macOS on Apple silicon, so it has no Apple Neural Engine";
    } else {
      c.unknown_reason = "brand '" + facts.brand + "' and hw.model '" + facts.hw_model +
                         "' name no Apple silicon chip (M1-M5 or a Mac13-Mac17 model family)";
    }
  }
  return c;
}

namespace {

// The trimmed stdout of a short command; "" when it cannot run or fails.
std::string RunForLine(std::vector<std::string> argv, int64_t timeout_ms) {
  ProcessOptions spec;
  spec.argv = std::move(argv);
  spec.timeout_ms = timeout_ms;
  spec.kill_grace_ms = 500;
  auto r = RunProcess(spec);
  return r.ok() && r->ok() ? std::string(TrimSpace(r->stdout_text)) : "";
}

#ifndef __APPLE__
std::string OsRelease() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (StartsWith(line, "PRETTY_NAME=")) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
      return v;
    }
  }
  return "";
}
#endif

}  // namespace

HostFacts GatherHostFacts() {
  HostFacts f;
  f.brand = RunForLine({"sysctl", "-n", "machdep.cpu.brand_string"}, 5000);
  f.hw_model = RunForLine({"sysctl", "-n", "hw.model"}, 5000);
  struct utsname u {};
  std::string sysname, release, machine;
  if (::uname(&u) == 0) {
    sysname = u.sysname;
    release = u.release;
    machine = u.machine;
  }
#ifdef __APPLE__
  (void)sysname;
  std::string product = RunForLine({"sw_vers", "-productVersion"}, 5000);
  std::string build = RunForLine({"sw_vers", "-buildVersion"}, 5000);
  f.platform = "macOS-" + (product.empty() ? release : product) + "-" + machine;
  f.os = "macOS " + (product.empty() ? "(unknown version)" : product) + (build.empty() ? "" : " (" + build + ")");
#else
  f.platform = sysname + "-" + release + "-" + machine;
  std::string pretty = OsRelease();
  f.os = sysname + " " + release + (pretty.empty() ? "" : " (" + pretty + ")");
#endif
  const char* py = std::getenv("PERFGATE_PYTHON");
  f.python = RunForLine({py != nullptr && *py ? py : "python3", "-c", "import sys; print(sys.version.split()[0])"}, 5000);
  return f;
}

ChipInfo DetectChip(const std::string& label) { return ChipFromFacts(GatherHostFacts(), label); }

// ---------------------------------------------------------------------------------
// Host report.

StatusOr<HostReport> BuildHostReport(const std::vector<int64_t>& cins, int64_t cout, const ChipInfo& chip,
                                     int cores) {
  if (cins.empty()) return ShapeError("at least one Cin is required");
  HostReport r;
  r.chip = chip;
  r.cores = cores > 0 ? cores : chip.guessed_ane_cores;
  r.cout = cout;
  for (int64_t cin : cins) {
    PERFGATE_ASSIGN_OR_RETURN(DensePoint p, DenseHits(cin, cout, r.cores));
    r.points.push_back(p);
  }
  return r;
}

// ---------------------------------------------------------------------------------
// Measured results.

const char* ToString(OnOffRule r) { return r == OnOffRule::kPositional ? "positional" : "predicate"; }

double Median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

namespace {

Status ScanError(std::string message) { return Status::Error("ane.bad_scan", std::move(message), {}, ErrorKind::kUsage); }

Status CheckSamples(const std::vector<double>& samples, const std::string& what) {
  if (samples.empty()) return Status::Error("ane.bad_timing", what + " has no evaluation samples");
  for (double v : samples) {
    if (!std::isfinite(v) || !(v > 0)) {
      return Status::Error("ane.bad_timing", what + " has a non-positive or non-finite sample (" + Num(v) + " us)");
    }
  }
  return Status();
}

}  // namespace

StatusOr<NotchResult> Analyze(const ChipInfo& chip, int cores, std::vector<PointSamples> points,
                              const AnalyzeOptions& options) {
  PERFGATE_RETURN_IF_ERROR(options.thresholds.Validate());
  if (points.size() < 2) return ScanError("a notch scan needs at least two points (one off, one on the notch)");
  NotchResult r;
  r.chip = chip;
  r.cores = cores > 0 ? cores : chip.guessed_ane_cores;
  r.rule = options.rule;
  r.thresholds = options.thresholds;
  for (PointSamples& ps : points) {
    PERFGATE_ASSIGN_OR_RETURN(DensePoint d, DenseHits(ps.cin, ps.cout, r.cores));
    PERFGATE_RETURN_IF_ERROR(CheckSamples(ps.eval_us, "point Cin " + std::to_string(ps.cin) + " x Cout " +
                                                          std::to_string(ps.cout)));
    MeasuredPoint m;
    m.dense = d;
    m.eval_us_samples = std::move(ps.eval_us);
    m.median_eval_us = Median(m.eval_us_samples);
    m.gbps_weight_payload = PayloadGbps(d.total_fp16_bytes, m.median_eval_us);
    r.points.push_back(std::move(m));
  }
  if (options.rule == OnOffRule::kPositional) {
    r.off_index = 0;
    r.on_index = static_cast<int>(r.points.size()) - 1;
  } else {
    std::vector<int> on;
    for (size_t i = 0; i < r.points.size(); ++i) {
      if (r.points[i].dense.on_prefetch_notch) on.push_back(static_cast<int>(i));
    }
    if (on.size() != 1) {
      std::string list;
      for (const auto& p : r.points) {
        list += (list.empty() ? "" : ", ") + std::to_string(p.dense.cin) + "x" + std::to_string(p.dense.cout) + " " +
                Num(p.dense.mib_per_core) + " MiB/core";
      }
      return ScanError("exactly one point must be on the notch at " + std::to_string(r.cores) + " cores, found " +
                       std::to_string(on.size()) + " (" + list +
                       "); pick the shapes, or use the seed's positional rule (first off, last on)");
    }
    r.on_index = on.front();
    const int64_t on_bytes = r.points[static_cast<size_t>(r.on_index)].dense.bytes_per_core;
    for (size_t i = 0; i < r.points.size(); ++i) {
      if (static_cast<int>(i) == r.on_index) continue;
      if (r.off_index < 0) {
        r.off_index = static_cast<int>(i);
        continue;
      }
      const int64_t best = std::llabs(r.points[static_cast<size_t>(r.off_index)].dense.bytes_per_core - on_bytes);
      const int64_t here = std::llabs(r.points[i].dense.bytes_per_core - on_bytes);
      if (here < best) r.off_index = static_cast<int>(i);
    }
  }
  const MeasuredPoint& on = r.on();
  const MeasuredPoint& off = r.off();
  r.cout = on.dense.cout;
  r.ratio_on_over_off = on.median_eval_us / off.median_eval_us;
  bool has2016 = false, has2048 = false;
  for (const auto& p : r.points) {
    has2016 = has2016 || p.dense.cin == 2016;
    has2048 = has2048 || p.dense.cin == 2048;
  }
  if (has2016 && has2048) r.ratio_2048_over_2016 = r.ratio_on_over_off;
  r.classification = Classify(r.ratio_on_over_off, on.median_eval_us, options.thresholds);
  if (!options.overhead_us.empty()) {
    PERFGATE_RETURN_IF_ERROR(CheckSamples(options.overhead_us, "the dispatch-overhead model"));
    OverheadCorrection oc;
    oc.eval_us_samples = options.overhead_us;
    oc.median_us = Median(options.overhead_us);
    const double on_net = on.median_eval_us - oc.median_us;
    const double off_net = off.median_eval_us - oc.median_us;
    if (off_net > 0 && on_net > 0) {
      oc.corrected_ratio = on_net / off_net;
      oc.corrected = Classify(*oc.corrected_ratio, on.median_eval_us, options.thresholds);
    } else {
      oc.note = "the tiny model's median (" + Num(oc.median_us) + " us) is not below both medians (off " +
                Num(off.median_eval_us) + " us, on " + Num(on.median_eval_us) + " us): no corrected ratio";
    }
    r.overhead = std::move(oc);
  }
  return r;
}

}  // namespace perfgate::ane
