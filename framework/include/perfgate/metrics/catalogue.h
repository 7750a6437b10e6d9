// The metric catalogue: every figure of an engine summary, with one identity.
//
// A metric is (scope, part, quantity): ("", "", "gpu_us_per_token") is the engine's
// total, ("buckets", "md_8_32us", "us_per_token") one bucket's time. Its verdict name
// (failure tables), golden path (golden files), Google Benchmark counter name and
// JSON key all derive from that identity, and its default golden policy lives here,
// so the gtest layer, the CLI and the benchmark bridge spell and judge it alike.
#ifndef PERFGATE_METRICS_CATALOGUE_H_
#define PERFGATE_METRICS_CATALOGUE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/attribution/summary.h"
#include "perfgate/core/status.h"
#include "perfgate/golden/golden.h"

namespace perfgate::metrics {

// A figure's identity. Scopes: "" (engine totals), "buckets", "phases", "families",
// "kernel_families", "extras" (figures one source reports, e.g. launches), "counters"
// (the engine's own counter report), "kernels" (one kernel of a per-kernel timing
// report), "toks" (one llama-bench test cell).
struct MetricId {
  std::string scope;
  std::string part;  // bucket, phase or family name; "" for totals and extras
  std::string quantity;

  // "gpu_us_per_token", "buckets/md_8_32us/us_per_token": the key under golden "values".
  std::string GoldenPath() const;
  // "hf2q.md_8_32us.us_per_token", "hf2q.family.gemm.gpu_us_per_token".
  std::string VerdictName(const std::string& engine) const;
  // "md_8_32us.us_per_token", "phase.layer.attn.gpu_us_per_token": a user counter.
  std::string CounterName() const;
  // The key in machine-readable output: the golden path.
  std::string JsonKey() const { return GoldenPath(); }
  // Parses a golden path back; an unknown scope is an error listing the scopes.
  static StatusOr<MetricId> FromGoldenPath(std::string_view path);

  bool operator==(const MetricId& o) const {
    return scope == o.scope && part == o.part && quantity == o.quantity;
  }
};

// One figure of one engine: its median over trials with the per-trial values, and the
// policy a golden records for it by default.
struct Metric {
  MetricId id;
  attribution::TrialMedian value;
  golden::FieldPolicy policy;
  bool is_integer = false;  // a count that is whole by nature (kernels in a family)
};

// Every figure of the engine, in a stable order: totals, buckets, phases, families,
// kernel families, extras, counters (the engine's own, exact by default). Defaults: counts per token exact within 0.5; total GPU
// µs/token noisy (5 %, floor 20 µs); per bucket, phase and family µs/token noisy (10 %,
// floor 20 µs); kernel-family sizes exact.
std::vector<Metric> MetricsOf(const attribution::EngineSummary& engine);

// The metric at `golden_path` (e.g. "buckets/md_8_32us/us_per_token"); an unknown name
// is an error (metric.unknown) listing the engine's metrics of that scope.
StatusOr<Metric> FindMetric(const attribution::EngineSummary& engine, std::string_view golden_path);

// Every metric of the engine (MetricsOf) as golden values with their policies and
// samples, without EngineGolden's choice of what a golden keeps: what a bisect judges.
golden::GoldenFile AllFigures(const attribution::EngineSummary& engine);
// The engine's golden: every metric with its default policy and samples, and
// `context` (recorded, never compared) with the engine's name and trial count, and
// the text values of its counter reports as "counters.<key>" (counters.model).
golden::GoldenFile EngineGolden(const attribution::EngineSummary& engine,
                                std::map<std::string, std::string> context = {});

}  // namespace perfgate::metrics

#endif  // PERFGATE_METRICS_CATALOGUE_H_
