#include "ane/report_json.h"

namespace perfgate::ane {
namespace internal {
namespace {

Json StringOrNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

// What the seed recorded about ANECompiler's options (host report `compiler`).
Json CompilerKnowledge() {
  Json c;
  c["has_1mib_kernel_dma_split_flag"] = false;
  c["serialized_split_related"] = Json::array({
      "--enable-global-channel-splitting",
      "--enable-forced-maximal-bonded-split=true",
      "--fspatial-split-in-x",
      "--fkernel-rewind=enabled",
      "--split-kernel-section=false",
      "--disable-cache-prefetch-mask=0",
      "--global-refinement-in-spatial-split=true",
      "--enable-segment-aware-kernel-section-split=true",
      "--enable-l2-batch-splitting=true",
      "--enable-kernel-split-for-multi-palette-lut=true",
  });
  c["dropped_dma_split_candidates"] = Json::array(
      {"SplitKernelDMA", "EnableKernelDMASplit", "MaxKernelDMASize", "AvoidOneMiBKernelDMA", "SplitCoeffBuffer"});
  c["not_one_mib_dma_split"] = Json::array({
      "SplitKernelSection",
      "SpatialSplit",
      "EnableSpatialSplitInX",
      "EnableKernelSplitForMultiPaletteLUT",
      "EnableSegmentAwareKernelSectionSplit",
      "EnableGlobalChannelSplitting",
      "EnableL2BatchSplitting",
      "EnableForcedMaximalBondedSplit",
      "DisableCachePrefetchMask",
  });
  c["note"] =
      "ANEC split flags cover spatial/batch/channel/section/LUT. Fabricated KernelDMA 1 MiB keys are dropped by "
      "ANECCreateCompilerOptionsCFString. Workaround is pad/split the GEMM so each cluster core is not k*1 MiB. "
      "Ultra dual-cluster needs the 32-core lattice; stock 16-core 4096x2048 is 0.5 MiB.";
  return c;
}

}  // namespace

Json ChipJson(const ChipInfo& chip) {
  Json c;
  c["hw_model"] = chip.hw_model;
  c["brand"] = chip.brand;
  c["platform"] = chip.platform;
  c["guessed_chip"] = chip.guessed_chip;
  c["guessed_ane_cores"] = chip.guessed_ane_cores;
  c["dual_cluster"] = chip.dual_cluster;
  c["label"] = chip.label;
  c["python"] = StringOrNull(chip.python);
  c["os"] = StringOrNull(chip.os);
  c["ane_subtype"] = StringOrNull(chip.ane_subtype);
  c["unknown_reason"] = StringOrNull(chip.unknown_reason);
  return c;
}

Json DensePointJson(const DensePoint& p) {
  Json j;
  j["cin"] = p.cin;
  j["cout"] = p.cout;
  j["cores"] = p.cores;
  j["bytes_per_core"] = p.bytes_per_core;
  j["mib_per_core"] = p.mib_per_core;
  j["on_prefetch_notch"] = p.on_prefetch_notch;
  j["total_fp16_bytes"] = p.total_fp16_bytes;
  if (p.mib_per_core_16) {
    j["mib_per_core_16"] = *p.mib_per_core_16;
    j["on_prefetch_notch_16"] = *p.on_prefetch_notch_16;
  }
  if (p.mib_per_core_32) {
    j["mib_per_core_32"] = *p.mib_per_core_32;
    j["on_prefetch_notch_32"] = *p.on_prefetch_notch_32;
  }
  j["mib_offset_bytes"] = p.mib_offset_bytes;
  j["mib_offset_lines"] = p.mib_offset_lines;
  return j;
}

Json MeasuredPointJson(const MeasuredPoint& p) {
  Json j = DensePointJson(p.dense);
  j["gbps_weight_payload"] = p.gbps_weight_payload;
  j["eval_us_samples"] = p.eval_us_samples;
  j["median_eval_us"] = p.median_eval_us;
  return j;
}

Json ThresholdsJson(const Thresholds& t) {
  Json j;
  j["m3_class_ratio"] = t.m3_class_ratio;
  j["milder_ratio"] = t.milder_ratio;
  j["host_dominated_us"] = t.host_dominated_us;
  j["borderline_margin"] = t.borderline_margin;
  j["borderline_us_fraction"] = t.borderline_us_fraction;
  return j;
}

Json HostReportJson(const HostReport& r) {
  Json j;
  j["article"] = kArticleUrl;
  j["chip"] = ChipJson(r.chip);
  j["cores"] = r.cores;
  j["cout"] = r.cout;
  Json points = Json::array();
  for (const auto& p : r.points) points.push_back(DensePointJson(p));
  j["points"] = points;
  Json lattice = Json::array();
  for (const auto& s : DualLattice()) {
    Json e;
    e["name"] = s.name;
    e["cores"] = s.cores;
    e["cout"] = s.cout;
    e["cins"] = s.cins;
    e["note"] = s.note;
    lattice.push_back(e);
  }
  j["dual_lattice"] = lattice;
  j["compiler"] = CompilerKnowledge();
  Json m5;
  m5["d2016_us"] = 353.8;
  m5["d2048_us"] = 785.5;
  m5["ratio"] = 2.22;
  m5["gbps"] = Json::array({46.7, 21.4});
  m5["class_name"] = "m3_class_notch";
  m5["cores"] = 16;
  m5["host"] = "kernel_dma_mib_host.m";
  j["reference_m5_evalus"] = m5;
  Json m3;
  m3["d2016_gbps"] = 44.5;
  m3["d2048_gbps"] = 16.93;
  m3["ratio"] = 2.63;
  m3["class_name"] = "m3_class_notch";
  m3["cores"] = 16;
  j["reference_m3_article"] = m3;
  Json ultra;
  ultra["note"] =
      "Mac15,14 2x16 ANE. Do not cite stock 4096x2048 (0.5 MiB/core). Hits: 8192x2048 ~1.61x (66 vs 42 GB/s); "
      "4096x8192 ~1.77x (89 vs 51 GB/s). Same byte-count with Cin=4096 missed. M5 Max (Mac17,6) flat on dual "
      "lattice.";
  j["reference_m3_ultra_20260911"] = ultra;
  if (r.preset) j["preset"] = ToString(*r.preset);
  return j;
}

void AddResultExtras(const NotchResult& r, Json* out) {
  Json& j = *out;
  j["borderline"] = r.classification.borderline;
  j["borderline_edge"] = StringOrNull(r.classification.borderline_edge);
  j["thresholds"] = ThresholdsJson(r.thresholds);
  j["on_off_rule"] = ToString(r.rule);
  j["on_cin"] = r.on().dense.cin;
  j["off_cin"] = r.off().dense.cin;
  j["timing_path"] = r.timing_path;
  if (r.overhead) {
    Json o;
    o["eval_us_samples"] = r.overhead->eval_us_samples;
    o["median_us"] = r.overhead->median_us;
    o["corrected_ratio"] = r.overhead->corrected_ratio ? Json(*r.overhead->corrected_ratio) : Json(nullptr);
    o["corrected_class_name"] =
        r.overhead->corrected ? Json(ToString(r.overhead->corrected->notch_class)) : Json(nullptr);
    o["corrected_borderline"] = r.overhead->corrected ? Json(r.overhead->corrected->borderline) : Json(nullptr);
    o["note"] = StringOrNull(r.overhead->note);
    j["dispatch_overhead"] = o;
  } else {
    j["dispatch_overhead"] = nullptr;
  }
}

// Strings come from the host (sysctl, uname) and the command line as well as from
// validated JSON: invalid UTF-8 is written as U+FFFD rather than thrown as type_error.
std::string Dump(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"; }

}  // namespace internal

using internal::Json;

std::string RenderHostReportJson(const HostReport& report) { return internal::Dump(internal::HostReportJson(report)); }

const char* ToString(RunStatus s) {
  switch (s) {
    case RunStatus::kPreparing: return "preparing";
    case RunStatus::kPassed: return "passed_kernel_dma_profile";
    case RunStatus::kStopped: return "stopped_no_retry";
  }
  return "preparing";
}

std::string RenderRunReportJson(const HostReport& host, RunStatus status, const NotchResult* result,
                                const std::string& error) {
  Json j = internal::HostReportJson(host);
  j["status"] = ToString(status);
  j["passed"] = status == RunStatus::kPassed && result != nullptr;
  j["metric"] = "native_eval_us";
  if (status == RunStatus::kPassed && result != nullptr) {
    Json points = Json::array();
    for (const auto& p : result->points) points.push_back(internal::MeasuredPointJson(p));
    j["points"] = points;  // replaces the host points in place, as the seed's dict update
    j["ratio_on_over_off"] = result->ratio_on_over_off;
    j["ratio_2048_over_2016"] = result->ratio_2048_over_2016 ? Json(*result->ratio_2048_over_2016) : Json(nullptr);
    const NotchClass c = result->classification.notch_class;
    j["class_name"] = ToString(c);
    j["m3_class_notch"] = c == NotchClass::kM3ClassNotch;
    j["milder_1mib_slowdown"] = c == NotchClass::kMilder1MiBSlowdown;
    internal::AddResultExtras(*result, &j);
  }
  if (status == RunStatus::kStopped) j["error"] = error;
  return internal::Dump(j);
}

std::string RenderResultJson(const NotchResult& r) {
  Json j;
  j["chip"] = internal::ChipJson(r.chip);
  j["cores"] = r.cores;
  j["cout"] = r.cout;
  Json points = Json::array();
  for (const auto& p : r.points) points.push_back(internal::MeasuredPointJson(p));
  j["points"] = points;
  j["ratio_on_over_off"] = r.ratio_on_over_off;
  j["ratio_2048_over_2016"] = r.ratio_2048_over_2016 ? Json(*r.ratio_2048_over_2016) : Json(nullptr);
  j["class_name"] = ToString(r.classification.notch_class);
  j["m3_class_notch"] = r.classification.notch_class == NotchClass::kM3ClassNotch;
  j["milder_1mib_slowdown"] = r.classification.notch_class == NotchClass::kMilder1MiBSlowdown;
  internal::AddResultExtras(r, &j);
  j["source_path"] = r.source_path;
  j["source_note"] = r.source_note.empty() ? Json(nullptr) : Json(r.source_note);
  return internal::Dump(j);
}

std::string RenderSummaryJson(const PresetSummary& summary) {
  Json j;
  j["preset"] = ToString(summary.preset);
  j["chip"] = internal::ChipJson(summary.chip);
  Json scans = Json::array();
  for (const auto& s : summary.scans) {
    Json e;
    e["name"] = s.scan.name;
    if (!s.result) {
      e["error"] = s.error;
      scans.push_back(e);
      continue;
    }
    e["note"] = s.scan.note;
    e["cores"] = s.cores;
    e["cout"] = s.scan.cout;
    e["cins"] = s.scan.cins;
    e["class_name"] = ToString(s.result->classification.notch_class);
    e["ratio_on_over_off"] = s.result->ratio_on_over_off;
    e["borderline"] = s.result->classification.borderline;
    Json points = Json::array();
    for (const auto& p : s.result->points) {
      Json q;
      q["cin"] = p.dense.cin;
      q["median_eval_us"] = p.median_eval_us;
      q["gbps_weight_payload"] = p.gbps_weight_payload;
      q["mib_per_core"] = p.dense.mib_per_core;
      q["on_prefetch_notch"] = p.dense.on_prefetch_notch;
      points.push_back(q);
    }
    e["points"] = points;
    scans.push_back(e);
  }
  j["scans"] = scans;
  return internal::Dump(j);
}

std::string RenderClassificationJson(const Classification& c, double on_us, double off_us, const Thresholds& t) {
  Json j;
  j["ratio"] = c.ratio;
  j["class_name"] = ToString(c.notch_class);
  j["borderline"] = c.borderline;
  j["borderline_edge"] = c.borderline_edge.empty() ? Json(nullptr) : Json(c.borderline_edge);
  j["on_us"] = on_us;
  j["off_us"] = off_us;
  j["thresholds"] = internal::ThresholdsJson(t);
  return internal::Dump(j);
}

}  // namespace perfgate::ane
