#include "perfgate/metrics/catalogue.h"

#include "perfgate/core/names.h"
#include "string_util.h"

namespace perfgate::metrics {
namespace {

using attribution::EngineSummary;
using attribution::TrialMedian;
using golden::Direction;
using golden::FieldPolicy;

// "counters": an engine's own counter report (counters/); "kernels": one kernel of a
// per-kernel timing report (kernel_report/); "toks": one llama-bench test cell (toks/).
constexpr std::string_view kScopes[] = {"",       "buckets", "phases",  "families", "kernel_families",
                                        "extras", "counters", "kernels", "toks"};

// The singular word a scope's parts take in verdict and counter names.
std::string PartWord(const std::string& scope) {
  if (scope == "phases") return "phase";
  if (scope == "families") return "family";
  if (scope == "kernel_families") return "kernel_family";
  if (scope == "counters") return "counters";
  return "";
}

FieldPolicy CountPolicy() { return FieldPolicy::Exact(0.5); }
FieldPolicy TotalTimePolicy() { return FieldPolicy::Noisy(0.05, 20, Direction::kLowerIsBetter); }
FieldPolicy PartTimePolicy() { return FieldPolicy::Noisy(0.10, 20, Direction::kLowerIsBetter); }

// Which metrics a golden holds: the set goldens have always held, so files written
// before the catalogue keep matching field for field.
bool InGolden(const MetricId& id) {
  if (id.scope.empty()) return true;
  if (id.scope == "buckets") return id.quantity != "p50_us";
  if (id.scope == "phases") return id.quantity == "cbs_per_token" || id.quantity == "gpu_us_per_token";
  return id.scope == "kernel_families" || id.scope == "counters";
}

struct Builder {
  std::vector<Metric> out;
  void Add(std::string scope, std::string part, std::string quantity, const TrialMedian& m, FieldPolicy policy) {
    out.push_back(Metric{{std::move(scope), std::move(part), std::move(quantity)}, m, std::move(policy), false});
  }
};

// The quantities keep the names golden files have held since 0.1, whatever the
// source: "submissions_per_token" is items per token, a phase's "cbs_per_token" and a
// family's "encoders_per_token" its calls per token (attribution::LevelItem).
void AddTotals(const EngineSummary& e, Builder* b) {
  b->Add("", "", "submissions_per_token", e.items_per_token, CountPolicy());
  b->Add("", "", "gpu_us_per_token", e.gpu_us_per_token, TotalTimePolicy());
  b->Add("", "", "busy_us_per_token", e.busy_us_per_token, TotalTimePolicy());
}

void AddBuckets(const EngineSummary& e, Builder* b) {
  for (const auto& [name, m] : e.buckets) {
    b->Add("buckets", name, "submissions_per_token", m.items_per_token, CountPolicy());
    b->Add("buckets", name, "us_per_token", m.us_per_token, PartTimePolicy());
    b->Add("buckets", name, "p50_us", m.p50_us, PartTimePolicy());
  }
}

void AddPhases(const EngineSummary& e, Builder* b) {
  for (const auto& [phase, m] : e.phases) {
    b->Add("phases", phase, "cbs_per_token", m.calls_per_token, CountPolicy());
    b->Add("phases", phase, "gpu_us_per_token", m.gpu_us_per_token, PartTimePolicy());
    b->Add("phases", phase, "submissions_per_token", m.items_per_token, CountPolicy());
  }
}

void AddFamilies(const EngineSummary& e, Builder* b) {
  for (const auto& [family, m] : e.families) {
    b->Add("families", family, "gpu_us_per_token", m.gpu_us_per_token, PartTimePolicy());
    b->Add("families", family, "encoders_per_token", m.calls_per_token, CountPolicy());
  }
}

void AddKernelFamilies(const EngineSummary& e, Builder* b) {
  for (const auto& [family, names] : e.kernel_registry) {
    const double n = static_cast<double>(names.size());
    b->Add("kernel_families", family, "kernels", TrialMedian{n, {}}, FieldPolicy::Exact(0));
    b->out.back().is_integer = true;
  }
}

// A figure of extras that holds time (memcpy_ns, memset_us_per_token, ...); the
// others count things (launches, kernels, graph launches), exact like submissions.
bool IsTimeExtra(std::string_view key) {
  auto ends_with = [&](std::string_view suffix) {
    return key.size() >= suffix.size() && key.substr(key.size() - suffix.size()) == suffix;
  };
  return ends_with("_ns") || ends_with("_us_per_token");
}

// Figures only one source reports (launch counts of trace-event JSON).
void AddExtras(const EngineSummary& e, Builder* b) {
  for (const auto& [key, m] : e.extras) b->Add("extras", "", key, m, IsTimeExtra(key) ? PartTimePolicy() : CountPolicy());
}

// The rule for an engine counter's default policy: rates (`*_per_sec`, `*_ts`) are
// noisy, 5 %, higher is better; timings (`*_ms`, `*_us`, `*_ns`) are noisy, 5 %, lower
// is better; every other counter is a count, exact (abs 0).
FieldPolicy CounterPolicy(const std::string& key) {
  if (EndsWith(key, "_per_sec") || EndsWith(key, "_ts"))
    return FieldPolicy::Noisy(0.05, 0, Direction::kHigherIsBetter);
  if (EndsWith(key, "_ms") || EndsWith(key, "_us") || EndsWith(key, "_ns"))
    return FieldPolicy::Noisy(0.05, 0, Direction::kLowerIsBetter);
  return FieldPolicy::Exact(0);
}

// The engine's own counters: counts exact by default (abs 0), rates and timings noisy
// (CounterPolicy); whole where the report writes an integer.
void AddCounters(const EngineSummary& e, Builder* b) {
  for (const auto& [key, c] : e.counters) {
    b->Add("counters", "", key, c.value, CounterPolicy(key));
    b->out.back().is_integer = c.is_integer;
  }
}

}  // namespace

std::string MetricId::GoldenPath() const {
  if (scope.empty()) return quantity;
  // Kernel-family sizes have always been "kernel_families/<family>".
  if (scope == "kernel_families") return scope + "/" + part;
  if (part.empty()) return scope + "/" + quantity;
  return scope + "/" + part + "/" + quantity;
}

std::string MetricId::VerdictName(const std::string& engine) const {
  const std::string word = PartWord(scope);
  std::string name = engine + ".";
  if (!word.empty() && scope != "phases") name += word + ".";
  if (!part.empty()) name += part + ".";
  return name + quantity;
}

std::string MetricId::CounterName() const {
  const std::string word = PartWord(scope);
  std::string name = word.empty() ? "" : word + ".";
  if (!part.empty()) name += part + ".";
  return name + quantity;
}

StatusOr<MetricId> MetricId::FromGoldenPath(std::string_view path) {
  const std::string p(path);
  const size_t first = p.find('/');
  if (first == std::string::npos) return MetricId{"", "", p};
  const std::string scope = p.substr(0, first);
  std::vector<std::string> known;
  for (std::string_view s : kScopes) {
    if (!s.empty() && s == scope) {
      if (scope == "kernel_families") return MetricId{scope, p.substr(first + 1), "kernels"};
      const size_t last = p.rfind('/');
      if (last == first) return MetricId{scope, "", p.substr(first + 1)};
      return MetricId{scope, p.substr(first + 1, last - first - 1), p.substr(last + 1)};
    }
    if (!s.empty()) known.emplace_back(s);
  }
  return Status::Error("metric.unknown_scope", "unknown metric scope '" + scope + "' in '" + p + "' (scopes: " +
                                                   ListNames(known) + ", or none for engine totals)",
                       {}, ErrorKind::kUsage);
}

std::vector<Metric> MetricsOf(const EngineSummary& engine) {
  Builder b;
  AddTotals(engine, &b);
  AddBuckets(engine, &b);
  AddPhases(engine, &b);
  AddFamilies(engine, &b);
  AddKernelFamilies(engine, &b);
  AddExtras(engine, &b);
  AddCounters(engine, &b);
  return std::move(b.out);
}

StatusOr<Metric> FindMetric(const EngineSummary& engine, std::string_view golden_path) {
  auto id = MetricId::FromGoldenPath(golden_path);
  if (!id.ok()) return id.status();
  std::vector<std::string> same_scope;
  for (Metric& m : MetricsOf(engine)) {
    if (m.id == *id) return m;
    if (m.id.scope == id->scope) same_scope.push_back(m.id.GoldenPath());
  }
  return Status::Error("metric.unknown",
                       "engine '" + engine.name + "' has no metric '" + std::string(golden_path) + "' (" +
                           (id->scope.empty() ? "totals" : id->scope) + ": " + ListNames(same_scope) + ")",
                       {}, ErrorKind::kUsage);
}

namespace {

golden::GoldenFile Figures(const EngineSummary& engine, bool golden_only) {
  golden::GoldenFile g;
  for (const Metric& m : MetricsOf(engine)) {
    if (golden_only && !InGolden(m.id)) continue;
    golden::GoldenValue v;
    v.value = m.value.median;
    v.policy = m.policy;
    v.samples = m.value.per_trial;
    v.is_integer = m.is_integer;
    g.values[m.id.GoldenPath()] = std::move(v);
  }
  return g;
}

}  // namespace

golden::GoldenFile AllFigures(const EngineSummary& engine) { return Figures(engine, false); }

golden::GoldenFile EngineGolden(const EngineSummary& engine, std::map<std::string, std::string> context) {
  golden::GoldenFile g = Figures(engine, true);
  g.context = std::move(context);
  g.context["engine"] = engine.name;
  g.context["trials"] = std::to_string(engine.trials.size());
  for (const auto& [key, text] : engine.counter_text) g.context["counters." + key] = text;
  return g;
}

}  // namespace perfgate::metrics
