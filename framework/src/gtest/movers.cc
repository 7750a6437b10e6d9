// The movers section of a failing assertion or golden check: what changed, against
// what, ranked (diff/diff.h, report/diff_formats.h).
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "assertions_internal.h"
#include "perfgate/diff/diff.h"
#include "perfgate/gtest/perfgate_gtest.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/report/diff_formats.h"

namespace perfgate::testing {
namespace {

std::optional<size_t> g_top_movers;  // SetTopMovers; unset: PERFGATE_TOP_MOVERS

// The running suite, while a PerfSuiteFixture test runs: budgets are explained
// against its goldens or its baseline.
struct RunningSuite {
  const ::testing::TestInfo* test = nullptr;
  const SuiteData* data = nullptr;
  std::string golden_dir;
};
RunningSuite& Running() {
  static RunningSuite running;
  return running;
}
const RunningSuite* CurrentSuite() {
  const RunningSuite& r = Running();
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return r.data != nullptr && info != nullptr && r.test == info ? &r : nullptr;
}

// PERFGATE_TOP_MOVERS: a count, 0 to turn the section off.
struct TopCount {
  size_t n = kDefaultTopMovers;
  std::string error;  // a value that is no count
};
TopCount TopFromEnvironment() {
  if (g_top_movers) return {*g_top_movers, ""};
  const char* v = std::getenv("PERFGATE_TOP_MOVERS");
  if (v == nullptr || *v == '\0') return {};
  size_t n = 0;
  const std::string_view text(v);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return {kDefaultTopMovers, "PERFGATE_TOP_MOVERS='" + std::string(text) + "' is not a count (0 turns movers off); " +
                                   std::to_string(kDefaultTopMovers) + " shown\n"};
  }
  return {n, ""};
}

// The level a golden path's scope names, if it is one.
std::optional<diff::Level> LevelOfScope(const std::string& scope) {
  if (scope == "buckets") return diff::Level::kBucket;
  if (scope == "phases") return diff::Level::kPhase;
  if (scope == "families") return diff::Level::kFamily;
  if (scope == "kernels") return diff::Level::kKernel;
  return std::nullopt;
}

// What a failing figure is, for a headline: GPU µs per token, or a count per token of
// submissions or kernels. Anything else (per-call medians, busy time, counters,
// command buffers) adds up over no level's items: no headline.
std::optional<report::Explained> KindOf(const metrics::MetricId& id, const std::string& verdict_name) {
  if (id.quantity == "us_per_token" || id.quantity == "gpu_us_per_token") return report::Explained{verdict_name, 0, true, ""};
  if (id.quantity == "submissions_per_token" || id.quantity == "kernels_per_token") {
    constexpr std::string_view kPerToken = "_per_token";
    return report::Explained{verdict_name, 0, false, id.quantity.substr(0, id.quantity.size() - kPerToken.size())};
  }
  return std::nullopt;
}

// The figure a failure is about, as the diff measures it: its level item's Δ, or for
// totals the diff's total (time) or its per-token figure of the unit (counts). The diff
// compares as the verdict does (stats::CompareTrials: medians over trials), so the
// headline's Δ is the verdict table's.
std::optional<report::Explained> ExplainedFrom(const diff::Diff& d, const std::string& golden_path,
                                               const std::string& verdict_name) {
  auto id = metrics::MetricId::FromGoldenPath(golden_path);
  if (!id.ok()) return std::nullopt;
  std::optional<report::Explained> what = KindOf(*id, verdict_name);
  if (!what) return std::nullopt;
  if (id->scope.empty() || id->scope == "extras") {
    if (what->is_time) {
      what->delta = d.delta_total();
      return what;
    }
    for (const diff::FigureChange& f : d.figures) {
      if (f.name == id->quantity) {
        what->delta = f.delta();
        return what;
      }
    }
    return std::nullopt;
  }
  const std::optional<diff::Level> level = LevelOfScope(id->scope);
  const diff::LevelDiff* l = level ? d.Find(*level) : nullptr;
  if (l == nullptr || (!what->is_time && l->calls_word != what->calls_word)) return std::nullopt;
  for (const diff::Change& c : l->changes) {
    if (c.name == id->part) {
      what->delta = what->is_time ? c.delta_us() : c.delta_calls();
      return what;
    }
  }
  return std::nullopt;
}

std::string Section(const diff::Side& before, const diff::Side& after, const std::string& golden_path,
                    const std::string& verdict_name) {
  const TopCount top = TopFromEnvironment();
  if (top.n == 0) return top.error;
  const diff::Diff d = diff::Compute(before, after);
  return top.error + report::RenderMovers(d, ExplainedFrom(d, golden_path, verdict_name), top.n);
}

// "golden Hf2qGolden.json": a golden side's name in the movers.
std::string GoldenSideName(const std::string& path) {
  return "golden " + std::filesystem::path(path).filename().string();
}

// The golden of `engine` in the running suite's golden directory, for explaining a
// budget against the last accepted figures: the running test's own golden when its
// context names the engine, else the first by name whose context does.
std::optional<std::pair<std::string, golden::GoldenFile>> EngineGoldenIn(const std::string& dir,
                                                                          const std::string& engine,
                                                                          const std::string& test_golden) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string p = entry.path().string();
    if (entry.path().extension() == ".json" && p.find(".actual.json") == std::string::npos) paths.push_back(p);
  }
  std::sort(paths.begin(), paths.end());
  // The running test's own golden first (<test>.json, <test>.<engine>.json).
  const std::string stem = test_golden.substr(0, test_golden.size() - std::string(".json").size());
  for (const std::string& own : {stem + "." + engine + ".json", test_golden}) {
    auto it = std::find(paths.begin(), paths.end(), own);
    if (it != paths.end()) std::rotate(paths.begin(), it, it + 1);
  }
  for (const std::string& p : paths) {
    auto g = golden::ReadGolden(p);
    if (!g.ok()) continue;
    auto it = g->context.find("engine");
    if (it != g->context.end() && it->second == engine) return std::make_pair(p, std::move(g).value());
  }
  return std::nullopt;
}

// The movers of `engine` against a golden file (`golden`, read from `path`): both
// sides as golden figures (metrics::EngineGolden for the engine), so that they are
// measured alike; the engine's own summary gives the words.
std::string GoldenSection(const attribution::EngineSummary& engine, const golden::GoldenFile& golden,
                          const std::string& path, const std::string& golden_path, const std::string& verdict_name) {
  const diff::Side now = diff::SideOf(engine);
  diff::Side before = diff::SideOf(golden, GoldenSideName(path), now);
  before.paths = {path};
  const diff::Side after = diff::SideOf(metrics::EngineGolden(engine), engine.name, now);
  return Section(before, after, golden_path, verdict_name);
}

// The failing field a golden mismatch is explained by: the first in µs per token,
// else the first.
std::string ExplainedField(const golden::CompareResult& compared) {
  std::string first;
  for (const golden::FieldResult& f : compared.fields) {
    if (f.ok) continue;
    if (f.name.find("us_per_token") != std::string::npos) return f.name;
    if (first.empty()) first = f.name;
  }
  return first.empty() ? "gpu_us_per_token" : first;
}

}  // namespace

void SetTopMovers(std::optional<size_t> n) { g_top_movers = n; }

namespace internal {

void SetRunningSuite(const SuiteData* data, const std::string& golden_dir) {
  Running() = {::testing::UnitTest::GetInstance()->current_test_info(), data, golden_dir};
}

std::string MoversAgainst(const attribution::EngineSummary& engine, const attribution::EngineSummary& reference,
                          const std::string& golden_path, const std::string& verdict_name) {
  return Section(diff::SideOf(reference), diff::SideOf(engine), golden_path, verdict_name);
}

std::string MoversOfReports(const kernel_report::KernelReport& engine, const kernel_report::KernelReport& baseline,
                            const std::string& golden_path, const std::string& verdict_name) {
  return Section(diff::SideOf(baseline), diff::SideOf(engine), golden_path, verdict_name);
}

std::string MoversForBudget(const attribution::EngineSummary& engine, const std::string& golden_path,
                            const std::string& verdict_name) {
  const RunningSuite* suite = CurrentSuite();
  if (suite == nullptr) return "";
  if (auto golden = EngineGoldenIn(suite->golden_dir, engine.name, CurrentTestGoldenPath(suite->golden_dir))) {
    return GoldenSection(engine, golden->second, golden->first, golden_path, verdict_name);
  }
  if (!suite->data->comparison) return "";
  const std::string& baseline = suite->data->comparison->baseline;
  std::string other = baseline;
  if (baseline == engine.name) {
    for (const auto& [name, _] : suite->data->engines) {
      if (name != engine.name) {
        other = name;
        break;
      }
    }
  }
  if (other == engine.name) return "";
  return MoversAgainst(engine, suite->data->engine(other), golden_path, verdict_name);
}

std::string MoversAgainstGolden(const attribution::EngineSummary& engine, const std::string& golden_path_of_file,
                                const golden::CompareResult& compared) {
  auto golden = golden::ReadGolden(golden_path_of_file);
  if (!golden.ok()) return "";
  const std::string field = ExplainedField(compared);
  return GoldenSection(engine, *golden, golden_path_of_file, field, field);
}

}  // namespace internal
}  // namespace perfgate::testing
