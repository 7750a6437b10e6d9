// A `perfgate attribute --format json` report (schema_version 6, docs/cli.md) as one
// run: each engine's summary rebuilt from the report, then the run a gate would append
// (NewRun, AddEngine), so its figures and level tables are the catalogue's. Per-trial
// values come from the report where it keeps them (totals, buckets through each
// trial's counts and sums, phase and kernel times, kernel calls, counters); a figure
// whose trials it does not keep (a phase's calls per token) has its median only.
#include <algorithm>
#include <map>

#include "history/interchange_internal.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/history/record.h"

namespace perfgate::history::interchange {
namespace {

using nlohmann::json;

constexpr int kAttributeSchema = 6;

// Reads one engine of the report, every error located at its JSON pointer.
class EngineReader {
 public:
  EngineReader(const JsonFields& fields, const json& engine, std::string pointer)
      : f_(fields), e_(engine), at_(std::move(pointer)) {}

  StatusOr<attribution::EngineSummary> Read(const std::string& name) {
    attribution::EngineSummary e;
    e.name = name;
    PERFGATE_RETURN_IF_ERROR(ReadTrials(&e));
    PERFGATE_RETURN_IF_ERROR(ReadTotals(&e));
    PERFGATE_RETURN_IF_ERROR(ReadBuckets(&e));
    PERFGATE_ASSIGN_OR_RETURN(e.families, ReadLevel("families", false));
    PERFGATE_ASSIGN_OR_RETURN(e.phases, ReadLevel("phases", false));
    PERFGATE_ASSIGN_OR_RETURN(e.kernels, ReadLevel("kernels", true));
    PERFGATE_RETURN_IF_ERROR(ReadRegistry(&e));
    PERFGATE_RETURN_IF_ERROR(ReadCounters(&e));
    return e;
  }

 private:
  struct Trial {
    double tokens = 1;
    const json* buckets = nullptr;
    std::string pointer;
  };

  Status ReadTrials(attribution::EngineSummary* e) {
    PERFGATE_ASSIGN_OR_RETURN(const json* trials, f_.Array(e_, at_, "trials"));
    for (size_t i = 0; i < trials->size(); ++i) {
      const std::string at = JsonFields::Child(at_, "trials") + "/" + std::to_string(i);
      const json& t = (*trials)[i];
      if (!t.is_object()) return f_.Error(at, at + " is no object");
      Trial trial;
      trial.pointer = at;
      PERFGATE_ASSIGN_OR_RETURN(const double tokens, f_.Number(t, at, "tokens"));
      trial.tokens = std::max(tokens, 1.0);  // as attribution divides: a trial of no token counts one
      PERFGATE_ASSIGN_OR_RETURN(trial.buckets, f_.Object(t, at, "buckets"));
      PERFGATE_ASSIGN_OR_RETURN(const double items, f_.Number(t, at, "items_per_token"));
      PERFGATE_ASSIGN_OR_RETURN(const double busy, f_.Number(t, at, "busy_us_per_token"));
      e->items_per_token.per_trial.push_back(items);
      e->busy_us_per_token.per_trial.push_back(busy);
      trials_.push_back(trial);
    }
    e->trials.resize(trials_.size());
    return Status();
  }

  Status ReadTotals(attribution::EngineSummary* e) {
    PERFGATE_ASSIGN_OR_RETURN(e->items_per_token.median, f_.Number(e_, at_, "median_items_per_token"));
    PERFGATE_ASSIGN_OR_RETURN(e->gpu_us_per_token.median, f_.Number(e_, at_, "median_gpu_us_per_token"));
    PERFGATE_ASSIGN_OR_RETURN(e->gpu_us_per_token.per_trial, f_.Numbers(e_, at_, "gpu_us_per_token_per_trial"));
    PERFGATE_ASSIGN_OR_RETURN(e->busy_us_per_token.median, f_.Number(e_, at_, "median_busy_us_per_token"));
    return Status();
  }

  // A bucket's per-trial figures as attribution computes them: the trial's count and
  // summed ns over its tokens.
  Status ReadBuckets(attribution::EngineSummary* e) {
    const std::string at = JsonFields::Child(at_, "buckets");
    PERFGATE_ASSIGN_OR_RETURN(const json* buckets, f_.Object(e_, at_, "buckets"));
    for (const auto& [name, b] : buckets->items()) {
      const std::string bat = JsonFields::Child(at, name);
      if (!b.is_object()) return f_.Error(bat, bat + " is no object");
      attribution::BucketMedians m;
      PERFGATE_ASSIGN_OR_RETURN(m.items_per_token.median, f_.Number(b, bat, "median_items_per_token"));
      PERFGATE_ASSIGN_OR_RETURN(m.us_per_token.median, f_.Number(b, bat, "median_us_per_token"));
      PERFGATE_ASSIGN_OR_RETURN(m.p50_us.median, f_.Number(b, bat, "median_p50_us_per_item"));
      for (const Trial& t : trials_) {
        const std::string tat = JsonFields::Child(t.pointer, "buckets");
        PERFGATE_ASSIGN_OR_RETURN(const json* stats, f_.Object(*t.buckets, tat, name));
        const std::string sat = JsonFields::Child(tat, name);
        PERFGATE_ASSIGN_OR_RETURN(const double count, f_.Number(*stats, sat, "count"));
        PERFGATE_ASSIGN_OR_RETURN(const double sum_ns, f_.Number(*stats, sat, "sum_ns"));
        m.items_per_token.per_trial.push_back(count / t.tokens);
        m.us_per_token.per_trial.push_back(sum_ns / 1000.0 / t.tokens);
      }
      e->buckets.emplace_back(name, std::move(m));
    }
    return Status();
  }

  // Families and phases keep their GPU time per trial; kernels their calls too (a
  // kernel's calls are its items: the times it ran).
  StatusOr<std::map<std::string, attribution::LevelMedians>> ReadLevel(const std::string& level, bool kernels) {
    const std::string at = JsonFields::Child(at_, level);
    PERFGATE_ASSIGN_OR_RETURN(const json* items, f_.Object(e_, at_, level));
    std::map<std::string, attribution::LevelMedians> out;
    for (const auto& [name, item] : items->items()) {
      const std::string iat = JsonFields::Child(at, name);
      if (!item.is_object()) return f_.Error(iat, iat + " is no object");
      attribution::LevelMedians& m = out[name];
      PERFGATE_ASSIGN_OR_RETURN(m.calls_per_token.median, f_.Number(item, iat, "median_calls_per_token"));
      PERFGATE_ASSIGN_OR_RETURN(m.gpu_us_per_token.median, f_.Number(item, iat, "median_gpu_us_per_token"));
      PERFGATE_ASSIGN_OR_RETURN(m.gpu_us_per_token.per_trial, f_.Numbers(item, iat, "gpu_us_per_token_per_trial"));
      if (kernels) {
        PERFGATE_ASSIGN_OR_RETURN(m.calls_per_token.per_trial, f_.Numbers(item, iat, "calls_per_token_per_trial"));
        m.items_per_token = m.calls_per_token;
      } else {
        PERFGATE_ASSIGN_OR_RETURN(m.items_per_token.median, f_.Number(item, iat, "median_items_per_token"));
      }
    }
    return out;
  }

  Status ReadRegistry(attribution::EngineSummary* e) {
    const std::string at = JsonFields::Child(at_, "kernel_registry");
    PERFGATE_ASSIGN_OR_RETURN(const json* registry, f_.Object(e_, at_, "kernel_registry"));
    for (const auto& [family, names] : registry->items()) {
      const std::string fat = JsonFields::Child(at, family);
      if (!names.is_array()) return f_.Error(fat, fat + " is no array");
      std::vector<std::string>& list = e->kernel_registry[family];
      for (const json& n : names) {
        if (!n.is_string()) return f_.Error(fat, fat + " holds a name that is no string");
        list.push_back(n.get<std::string>());
      }
    }
    return Status();
  }

  Status ReadCounters(attribution::EngineSummary* e) {
    const std::string at = JsonFields::Child(at_, "counters");
    PERFGATE_ASSIGN_OR_RETURN(const json* counters, f_.Object(e_, at_, "counters"));
    for (const auto& [key, c] : counters->items()) {
      const std::string cat = JsonFields::Child(at, key);
      if (!c.is_object()) return f_.Error(cat, cat + " is no object");
      attribution::CounterMedian& m = e->counters[key];
      PERFGATE_ASSIGN_OR_RETURN(m.value.median, f_.Number(c, cat, "median"));
      PERFGATE_ASSIGN_OR_RETURN(m.value.per_trial, f_.Numbers(c, cat, "per_trial"));
      auto integer = c.find("is_integer");
      m.is_integer = integer != c.end() && integer->is_boolean() && integer->get<bool>();
    }
    PERFGATE_ASSIGN_OR_RETURN(const json* text, f_.Object(e_, at_, "counter_text"));
    for (const auto& [key, value] : text->items()) {
      if (value.is_string()) e->counter_text[key] = value.get<std::string>();
    }
    return Status();
  }

  const JsonFields& f_;
  const json& e_;
  std::string at_;
  std::vector<Trial> trials_;
};

}  // namespace

StatusOr<std::vector<Run>> AttributeReportRuns(const json& root, const JsonFields& fields, RunContext base,
                                               std::string_view text) {
  PERFGATE_ASSIGN_OR_RETURN(const double schema, fields.Number(root, "", "schema_version"));
  if (schema != kAttributeSchema) {
    return fields.Error("/schema_version", "an attribute report of schema_version " + std::to_string(int(schema)) +
                                               "; this perfgate imports " + std::to_string(kAttributeSchema) +
                                               " (tests/figures/report_schema.py rewrites a schema 5 report)");
  }
  PERFGATE_ASSIGN_OR_RETURN(const json* engines, fields.Object(root, "", "engines"));
  std::map<std::string, attribution::EngineSummary> summaries;
  for (const auto& [name, engine] : engines->items()) {
    const std::string at = JsonFields::Child("/engines", name);
    if (!engine.is_object()) return fields.Error(at, at + " is no object");
    PERFGATE_ASSIGN_OR_RETURN(summaries[name], EngineReader(fields, engine, at).Read(name));
  }
  if (summaries.empty()) return fields.Error("/engines", "the report holds no engine");
  auto perfgate = root.find("perfgate");
  if (perfgate != root.end() && perfgate->is_object()) {
    base.perfgate_version = JsonFields::Text(*perfgate, "version");
    base.meta["perfgate.commit"] = JsonFields::Text(*perfgate, "commit");
  }
  base.meta["source"] = JsonFields::Text(root, "source");
  Run run = NewRun(std::move(base));
  for (const auto& [name, summary] : summaries) AddEngine(&run, name, summary);
  run.key = ImportRunKey(ImportKind::kAttributeReport, run.context, "", text, 0);
  return std::vector<Run>{std::move(run)};
}

}  // namespace perfgate::history::interchange
