#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include "assertions_internal.h"
#include "perfgate/core/environment.h"
#include "perfgate/core/names.h"
#include "perfgate/core/version.h"
#include "perfgate/gates/judge.h"
#include "perfgate/gtest/perfgate_gtest.h"
#include "perfgate/history/record.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/sources/source.h"
#include "perfgate/stats/summary.h"
#include "perfgate/xctrace/toc.h"

namespace perfgate::testing {
namespace internal {

using attribution::EngineSummary;
using attribution::TrialMedian;
using gates::MetricVerdict;

// gtest property keys must be XML attribute names: letters, digits, '.', '_', '-'.
std::string PropertyKey(const std::string& raw) {
  std::string key;
  for (char c : raw) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    key += ok ? c : '_';
  }
  return key;
}

std::string Fixed(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string RoundTrip(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(value);
}

void Record(const std::string& key, double value) {
  if (::testing::UnitTest::GetInstance()->current_test_info() == nullptr) return;
  ::testing::Test::RecordProperty(PropertyKey(key), RoundTrip(value));
}

std::optional<::testing::AssertionResult> RequireEngine(const EngineSummary& e) {
  if (!e.trials.empty()) return std::nullopt;
  return ::testing::AssertionFailure() << "engine '" << e.name
                                       << "' has no trials: not an engine of this suite, or its summary was never "
                                          "loaded (check the name given to engine())";
}

std::string Provenance(const EngineSummary& e) {
  std::string out = "\n  recordings of " + e.name + ":";
  for (const auto& t : e.trials) {
    out += "\n    " + t.path;
    if (t.counters) out += "  (engine counters: " + t.counters->location.path + ")";
  }
  return out;
}

::testing::AssertionResult Outcome(bool pass, const std::vector<MetricVerdict>& rows, const std::string& what,
                                   const std::string& provenance, const MoversText& movers) {
  for (const auto& r : rows) {
    Record(r.metric + ".current", r.current);
    Record(r.metric + "." + r.reference, r.baseline);
  }
  if (pass) return ::testing::AssertionSuccess() << what;
  std::string why;
  for (const auto& r : rows) why += "  " + r.explanation + "\n";
  return ::testing::AssertionFailure() << what << "\n" << gates::FormatVerdictTable(rows) << why
                                       << (movers ? movers() : "") << provenance;
}

::testing::AssertionResult Budget(const std::string& metric, const TrialMedian& current, double limit,
                                  const std::string& what, const std::string& provenance, const MoversText& movers) {
  const gates::LimitVerdict v =
      gates::JudgeLimit(metric, current.median, current.per_trial, limit,
                        gates::Policy::Exact(0, gates::Direction::kLowerIsBetter), {}, "budget");
  return Outcome(v.pass, {v.verdict}, what, provenance, movers);
}

}  // namespace internal

void RecordFigure(const std::string& key, double value) { internal::Record(key, value); }

namespace {

using attribution::EngineSummary;
using attribution::TrialMedian;
using gates::MetricVerdict;
using gates::Verdict;
using internal::Budget;
using internal::MoversAgainst;
using internal::MoversForBudget;
using internal::MoversText;
using internal::Fixed;
using internal::Outcome;
using internal::Provenance;
using internal::Record;
using internal::RequireEngine;

// The source's words for an engine's figures (kernels, annotation phases for
// trace-event JSON; submissions, command-buffer phases for Metal).
const sources::SourceWords& WordsFor(const EngineSummary& e) { return sources::WordsOf(e); }
std::string Str(std::string_view word) { return std::string(word); }
// A heading's words in running text: "Encoder families" -> "encoder families".
std::string Lower(std::string_view heading) {
  std::string s(heading);
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z') s[0] = static_cast<char>(s[0] - 'A' + 'a');
  return s;
}

// "submissions_per_token" / "kernels_per_token": the engine's unit count per token, as
// a verdict name.
std::string UnitsPerToken(const EngineSummary& e) { return Str(WordsFor(e).units) + "_per_token"; }

// The keys of a map by name, in its order.
template <typename Map>
std::vector<std::string> KeysOf(const Map& m) {
  std::vector<std::string> keys;
  for (const auto& [key, _] : m) keys.push_back(key);
  return keys;
}

const TrialMedian* PhaseMetric(const EngineSummary& e, const std::string& phase,
                               TrialMedian attribution::LevelMedians::*field) {
  auto it = e.phases.find(phase);
  return it == e.phases.end() ? nullptr : &(it->second.*field);
}

std::string KnownPhases(const EngineSummary& e) { return ListNames(KeysOf(e.phases)); }

// `unit` is the verdict name's quantity: "cbs_per_token", UnitsPerToken(e), ...
// `quantity` is the catalogue's (metrics::MetricsOf): the golden path's last part.
::testing::AssertionResult PhaseBudget(const EngineSummary& e, const std::string& phase, double budget,
                                       TrialMedian attribution::LevelMedians::*field, const std::string& unit,
                                       const std::string& quantity) {
  if (auto f = RequireEngine(e)) return *f;
  const sources::SourceWords& w = WordsFor(e);
  const TrialMedian* m = PhaseMetric(e, phase, field);
  if (m == nullptr) {
    return ::testing::AssertionFailure() << e.name << " has no " << w.phase << " '" << phase << "' ("
                                         << Lower(w.phases) << ": " << KnownPhases(e) << ")" << Provenance(e);
  }
  const std::string metric = e.name + "." + phase + "." + unit;
  return Budget(metric, *m, budget, e.name + " " + Str(w.phase) + " '" + phase + "' " + unit + " budget " + Fixed(budget),
                Provenance(e), [&] { return MoversForBudget(e, "phases/" + phase + "/" + quantity, metric); });
}

const attribution::BucketMedians* Bucket(const EngineSummary& e, const std::string& name) {
  for (const auto& [n, b] : e.buckets) {
    if (n == name) return &b;
  }
  return nullptr;
}

std::string KnownBuckets(const EngineSummary& e) { return ListNames(KeysOf(e.buckets)); }

// The families either engine has.
std::string KnownFamilies(const EngineSummary& e, const EngineSummary& b) {
  std::set<std::string> names;
  for (const auto& [f, _] : e.families) names.insert(f);
  for (const auto& [f, _] : b.families) names.insert(f);
  return ListNames({names.begin(), names.end()});
}

// Engine versus baseline plus the allowance, judged by the one judge: any median
// excess fails (REGRESSED), and the rank test over the trials says whether they could
// tell; an excess they cannot confirm still fails, since a gate fails closed. The
// table shows the real baseline, Δ against it and the allowance as the threshold.
::testing::AssertionResult DeltaWithin(const std::string& metric, const TrialMedian& engine,
                                       const TrialMedian& baseline, double allowance, const std::string& what,
                                       const std::string& provenance, const MoversText& movers) {
  const stats::Delta d = stats::CompareTrials(baseline.per_trial, engine.per_trial);
  std::vector<double> shifted = baseline.per_trial;
  for (double& v : shifted) v += allowance;
  gates::LimitVerdict judged =
      gates::JudgeLimit(metric, d.after, engine.per_trial, d.before + allowance,
                        gates::Policy::Noisy(0, 0, gates::Direction::kLowerIsBetter), shifted);
  MetricVerdict& v = judged.verdict;
  v.reference = "baseline";  // the column holds the baseline engine's median, not the limit
  v.baseline = d.before;
  v.delta = d.delta;
  v.delta_pct = d.delta_pct;
  v.threshold = allowance;
  return Outcome(judged.pass, {v}, what, provenance, movers);
}

}  // namespace

void PerfSuiteFixture::SetUp() {
  SuiteConfig config = Config();
  suite_ = config.suite;
  history_ = config.history;
  golden_dir_ = GoldenDir(config.golden_dir);
  golden_checked_.clear();
  SuiteLoad load = LoadSuite(config);
  if (!load.error.ok()) {
    FAIL() << "suite " << config.suite << ": " << load.error.ToString();
  }
  if (load.unavailable) {
    // The reason is the message's first line: CTest shows a skip's output nowhere else.
    std::cout << "perfgate: " << load.unavailable->reason << "\n";
    GTEST_SKIP() << load.unavailable->reason;
  }
  data_ = load.data;
  internal::SetRunningSuite(data_.get(), golden_dir_);
  ::testing::Test::RecordProperty("perfgate_recordings", data_->recordings_dir);
}

void PerfSuiteFixture::TearDown() {
  // PERFGATE_HISTORY wins over the suite's own setting, as PERFGATE_RECORDINGS does.
  const std::string location = history::HistoryLocation(ProcessEnv(history::kHistoryEnv).value_or(history_));
  if (!data_ || location.empty()) return;
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  history::Run run = history::NewRun(history::CurrentContext(suite_, test ? test->name() : ""));
  for (const auto& [name, meta] : data_->meta) history::AddMeta(&run, name, meta);
  for (const auto& [name, summary] : data_->engines) history::AddEngine(&run, name, summary);
  const Status appended = history::AppendToHistory(location, run);
  if (!appended.ok()) ADD_FAILURE() << "the results history: " << appended.ToString();
}

const attribution::EngineSummary& PerfSuiteFixture::engine(const std::string& name) const {
  auto found = data_->Find(name);
  if (!found.ok()) ADD_FAILURE() << found.status().message();
  return data_->engine(name);
}

const attribution::Comparison& PerfSuiteFixture::comparison() const {
  static const attribution::Comparison kNone;
  if (!data_->comparison) {
    ADD_FAILURE() << "this suite has no baseline, so there is no comparison";
    return kNone;
  }
  return *data_->comparison;
}

std::string GoldenDir(const std::string& default_dir) {
  const char* override_dir = std::getenv("PERFGATE_GOLDEN_DIR");
  return override_dir != nullptr && *override_dir ? override_dir : default_dir;
}

std::string CurrentTestGoldenPath(const std::string& default_dir) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return GoldenDir(default_dir) + "/" + (info != nullptr ? info->name() : "unknown") + ".json";
}

std::string PerfSuiteFixture::GoldenPath() const { return CurrentTestGoldenPath(golden_dir_); }

::testing::AssertionResult SubmissionsPerTokenAtMost(const EngineSummary& e, double budget) {
  if (auto f = RequireEngine(e)) return *f;
  const std::string metric = e.name + "." + UnitsPerToken(e);
  return Budget(metric, e.items_per_token, budget,
                e.name + " " + Str(WordsFor(e).units) + "/token budget " + Fixed(budget), Provenance(e),
                [&] { return MoversForBudget(e, "submissions_per_token", metric); });
}

::testing::AssertionResult SubmissionsPerTokenExactly(const EngineSummary& e, double expected, double tolerance) {
  if (auto f = RequireEngine(e)) return *f;
  // Either way off is a finding (kBoth): the verdict of a failing check never reads
  // "improved".
  const gates::LimitVerdict v =
      gates::JudgeLimit(e.name + "." + UnitsPerToken(e), e.items_per_token.median,
                        e.items_per_token.per_trial, expected, gates::Policy::Exact(tolerance));
  return Outcome(v.pass, {v.verdict}, e.name + " " + Str(WordsFor(e).units) + "/token exactly " + Fixed(expected),
                 Provenance(e), [&] { return MoversForBudget(e, "submissions_per_token", v.verdict.metric); });
}

::testing::AssertionResult PhaseSubmissionsPerTokenAtMost(const EngineSummary& e, const std::string& phase,
                                                          double budget) {
  return PhaseBudget(e, phase, budget, &attribution::LevelMedians::items_per_token, UnitsPerToken(e),
                     "submissions_per_token");
}

::testing::AssertionResult PhaseCbsPerTokenAtMost(const EngineSummary& e, const std::string& phase, double budget) {
  return PhaseBudget(e, phase, budget, &attribution::LevelMedians::calls_per_token, "cbs_per_token", "cbs_per_token");
}

::testing::AssertionResult PhaseGpuUsPerTokenAtMost(const EngineSummary& e, const std::string& phase,
                                                    double budget_us) {
  return PhaseBudget(e, phase, budget_us, &attribution::LevelMedians::gpu_us_per_token, "gpu_us_per_token",
                     "gpu_us_per_token");
}

::testing::AssertionResult MetricAtMost(const EngineSummary& e, const std::string& metric, double limit) {
  if (auto f = RequireEngine(e)) return *f;
  auto m = metrics::FindMetric(e, metric);
  if (!m.ok()) return ::testing::AssertionFailure() << m.status().message() << Provenance(e);
  const std::string name = m->id.VerdictName(e.name);
  return Budget(name, m->value, limit, name + " at most " + Fixed(limit), Provenance(e),
                [&] { return MoversForBudget(e, metric, name); });
}

namespace {

// A bucket's delta gate with the allowance given absolutely (µs) or as a percentage.
::testing::AssertionResult BucketDelta(const EngineSummary& engine, const EngineSummary& baseline,
                                       const std::string& bucket, double limit, bool percent) {
  if (auto f = RequireEngine(engine)) return *f;
  if (auto f = RequireEngine(baseline)) return *f;
  const auto* e = Bucket(engine, bucket);
  const auto* b = Bucket(baseline, bucket);
  if (e == nullptr || b == nullptr) {
    const EngineSummary& lacking = e == nullptr ? engine : baseline;
    return ::testing::AssertionFailure() << "no bucket '" << bucket << "' in " << lacking.name
                                         << " (buckets: " << KnownBuckets(lacking) << ")";
  }
  const double allowance = percent ? std::fabs(b->us_per_token.median) * limit / 100.0 : limit;
  const std::string metric = engine.name + "." + bucket + ".us_per_token";
  return DeltaWithin(metric, e->us_per_token, b->us_per_token, allowance,
                     engine.name + " vs " + baseline.name + " bucket " + bucket + ": delta at most " + Fixed(limit) +
                         (percent ? " %" : " us/token"),
                     Provenance(engine) + Provenance(baseline),
                     [&] { return MoversAgainst(engine, baseline, "buckets/" + bucket + "/us_per_token", metric); });
}

}  // namespace

::testing::AssertionResult BucketDeltaAtMostUs(const EngineSummary& engine, const EngineSummary& baseline,
                                               const std::string& bucket, double max_delta_us) {
  return BucketDelta(engine, baseline, bucket, max_delta_us, false);
}

::testing::AssertionResult BucketDeltaAtMostPercent(const EngineSummary& engine, const EngineSummary& baseline,
                                                    const std::string& bucket, double max_delta_pct) {
  return BucketDelta(engine, baseline, bucket, max_delta_pct, true);
}

::testing::AssertionResult FamilyDeltaAtMostPercent(const EngineSummary& engine, const EngineSummary& baseline,
                                                    const std::string& family, double max_delta_pct) {
  if (auto f = RequireEngine(engine)) return *f;
  if (auto f = RequireEngine(baseline)) return *f;
  auto get = [&](const EngineSummary& e) {
    auto it = e.families.find(family);
    return it != e.families.end() ? it->second.gpu_us_per_token
                                     : TrialMedian{0, std::vector<double>(e.trials.size(), 0.0)};
  };
  if (!engine.families.count(family) && !baseline.families.count(family)) {
    const sources::SourceWords& w = WordsFor(engine);
    return ::testing::AssertionFailure() << "no " << w.family << " '" << family << "' in " << engine.name << " or "
                                         << baseline.name << " (" << Lower(w.families) << ": "
                                         << KnownFamilies(engine, baseline) << ")" << Provenance(engine);
  }
  const TrialMedian e = get(engine), b = get(baseline);
  const std::string metric = engine.name + ".family." + family + ".gpu_us_per_token";
  return DeltaWithin(metric, e, b, std::fabs(b.median) * max_delta_pct / 100.0,
                     engine.name + " vs " + baseline.name + " " + Str(WordsFor(engine).family) + " " + family +
                         ": delta at most " + Fixed(max_delta_pct) + " %",
                     Provenance(engine) + Provenance(baseline),
                     [&] { return MoversAgainst(engine, baseline, "families/" + family + "/gpu_us_per_token", metric); });
}

::testing::AssertionResult GpuTimeRatioAtMost(const EngineSummary& engine, const EngineSummary& baseline,
                                              double max_ratio) {
  if (auto f = RequireEngine(engine)) return *f;
  if (auto f = RequireEngine(baseline)) return *f;
  const double b = baseline.gpu_us_per_token.median;
  if (b <= 0) {
    return ::testing::AssertionFailure() << baseline.name << " has no GPU time, so no ratio" << Provenance(baseline);
  }
  // Same-run ratio: scaling the baseline trials by the limit turns the ratio gate
  // into a delta gate the rank test can judge.
  TrialMedian scaled = baseline.gpu_us_per_token;
  for (double& v : scaled.per_trial) v *= max_ratio;
  const double ratio = engine.gpu_us_per_token.median / b;
  Record(engine.name + ".gpu_time_ratio", ratio);
  auto r = DeltaWithin(engine.name + ".gpu_us_per_token", engine.gpu_us_per_token, scaled, 0,
                       engine.name + "/" + baseline.name + " GPU time ratio " + Fixed(ratio) + " at most " +
                           Fixed(max_ratio),
                       Provenance(engine) + Provenance(baseline), [&] {
                         return MoversAgainst(engine, baseline, "gpu_us_per_token", engine.name + ".gpu_us_per_token");
                       });
  return r;
}

::testing::AssertionResult NoRegression(const std::string& metric, const std::vector<double>& baseline,
                                        const std::vector<double>& current, const gates::Policy& policy) {
  MetricVerdict v = gates::Judge(metric, baseline, current, policy);
  bool pass = v.verdict == Verdict::kSame || v.verdict == Verdict::kImproved;
  return Outcome(pass, {v}, metric + ": " + v.explanation, "");
}

golden::GoldenFile GoldenOf(const EngineSummary& e, std::map<std::string, std::string> context) {
  return metrics::EngineGolden(e, std::move(context));
}

namespace {

// Under CI every check leaves `<test>.actual.json`, pass or fail, for upload as an
// artifact; elsewhere only a mismatch or a missing golden does.
golden::CheckOptions CheckOptionsFor(std::string_view phase_word, std::string_view family_word) {
  golden::CheckOptions options;
  options.phase_word = std::string(phase_word);
  options.family_word = std::string(family_word);
  options.always_write_actual = CiVariable().has_value();
  return options;
}

// A mismatch's report leads with the movers (after its first line), then the fields.
::testing::AssertionResult CheckAgainstGolden(const std::string& golden_path, const golden::GoldenFile& actual,
                                              const std::string& accept_command,
                                              const golden::CheckOptions& options,
                                              const std::function<std::string(const golden::CompareResult&)>& movers =
                                                  nullptr) {
  auto mode = golden::UpdateModeFromEnv();
  if (!mode.ok()) return ::testing::AssertionFailure() << mode.status().ToString();
  golden::CheckOutcome out = golden::CheckGolden(golden_path, actual, *mode, accept_command, options);
  for (const auto& f : out.compare.fields) {
    if (!std::isnan(f.actual)) Record("golden." + f.name, f.actual);
  }
  switch (out.status) {
    case golden::CheckStatus::kPass:
      return ::testing::AssertionSuccess() << "matches " << golden_path;
    case golden::CheckStatus::kUpdated:
      std::cout << "perfgate: updated golden " << golden_path << " (PERFGATE_UPDATE_GOLDEN=" << golden::ToString(*mode)
                << ")\n";
      return ::testing::AssertionSuccess() << "updated " << golden_path;
    case golden::CheckStatus::kError:
      return ::testing::AssertionFailure() << out.error.ToString();
    case golden::CheckStatus::kMismatch:
      if (movers) {
        const size_t first_line = out.report.find('\n') + 1;
        return ::testing::AssertionFailure() << out.report.substr(0, first_line) << movers(out.compare)
                                             << out.report.substr(first_line);
      }
      return ::testing::AssertionFailure() << out.report;
    default:
      return ::testing::AssertionFailure() << out.report;
  }
}

}  // namespace

::testing::AssertionResult MatchesGolden(const std::string& golden_path, const golden::GoldenFile& actual,
                                         const std::string& accept_command) {
  return CheckAgainstGolden(golden_path, actual, accept_command, CheckOptionsFor("phase", "family"));
}

// --no-tests=error: pasted in a directory that is not the suite's build tree, ctest
// would find no test and exit 0, so the golden would read as accepted while unchanged.
std::string GoldenAcceptCommand(const std::string& test_name) {
  return "PERFGATE_UPDATE_GOLDEN=all ctest --no-tests=error -R '" + test_name + "'";
}

namespace {

// The engine a golden file was written for (its context), or "" when unreadable.
std::string GoldenEngine(const std::string& path) {
  auto g = golden::ReadGolden(path);
  if (!g.ok()) return "";
  auto it = g->context.find("engine");
  return it == g->context.end() ? "" : it->second;
}

// Where the figures were recorded, for the golden's context (never compared): the
// trial's meta.json for every source, and for Metal trials the xctrace TOC.
void AddRecordingContext(const SuiteData& data, const EngineSummary& e, std::map<std::string, std::string>* context) {
  auto& c = *context;
  if (auto toc = xctrace::ReadTocFile(e.trials.front().path + "/toc.xml"); toc.ok() && !toc->runs.empty()) {
    const auto& run = toc->runs.front();
    c["recording_device"] = run.device.model.empty() ? run.device.name : run.device.model;
    c["recording_os"] = run.device.os_version;
    c["instruments_version"] = run.instruments_version;
    c["template"] = run.template_name;
  }
  auto meta = data.meta.find(e.name);
  if (meta == data.meta.end()) return;
  // Figures of one trial (its number, times, speed, counts) are no context.
  static const std::set<std::string> kPerTrial = {"trial", "trials", "seed", "trial_seed", "decode_wall_ms",
                                                  "tokens_per_s", "start_time", "end_time", "environment.date_utc"};
  for (const auto& [key, value] : meta->second) {
    if (kPerTrial.count(key) || key.rfind("expected.", 0) == 0 || key.rfind("launch_counts.", 0) == 0) continue;
    c["meta." + key] = value;
  }
  for (const char* key : {"environment.gpu", "chip", "host"}) {
    auto it = meta->second.find(key);
    if (it != meta->second.end() && !c.count("recording_device")) c["recording_device"] = it->second;
  }
}

}  // namespace

std::string PerfSuiteFixture::GoldenPathFor(const std::string& engine_name) const {
  const std::string legacy = GoldenPath();
  std::error_code ec;
  // <test>.json belongs to the engine its context names, or, while it does not exist,
  // to the first engine the test checks: goldens written before engines had files of
  // their own keep loading.
  const bool legacy_exists = std::filesystem::exists(legacy, ec);
  if (legacy_exists ? GoldenEngine(legacy) == engine_name : golden_checked_.empty()) return legacy;
  return legacy.substr(0, legacy.size() - std::string(".json").size()) + "." + engine_name + ".json";
}

::testing::AssertionResult PerfSuiteFixture::MatchesGolden(const std::string& engine_name) const {
  const EngineSummary& e = engine(engine_name);
  if (auto f = RequireEngine(e)) return *f;
  if (golden_checked_.count(engine_name)) {
    return ::testing::AssertionFailure() << "engine '" << engine_name << "' was already checked against "
                                         << golden_checked_.at(engine_name) << " in this test";
  }
  const std::string path = GoldenPathFor(engine_name);
  golden_checked_[engine_name] = path;
  std::map<std::string, std::string> context;
  context["perfgate_version"] = std::string(Version());
  context["recordings"] = std::filesystem::path(data_->recordings_dir).filename().string();
  AddRecordingContext(*data_, e, &context);
  for (const char* var : {"PERFGATE_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v) {
      context["commit"] = v;
      break;
    }
  }
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string filter = info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "";
  const sources::SourceWords& w = WordsFor(e);
  return CheckAgainstGolden(path, GoldenOf(e, std::move(context)), GoldenAcceptCommand(filter),
                            CheckOptionsFor(w.phase, w.family),
                            [&](const golden::CompareResult& compared) {
                              return internal::MoversAgainstGolden(e, path, compared);
                            });
}

namespace {

// A family no kernel-family rule of the engine names (a typo) fails, listing the known.
std::optional<::testing::AssertionResult> RequireKnownFamily(const EngineSummary& e, const std::string& family) {
  if (e.known_kernel_families.empty() || e.known_kernel_families.count(family)) return std::nullopt;
  return ::testing::AssertionFailure() << "unknown kernel family '" << family << "': no kernel-family rule of "
                                       << e.name << " names it (families: "
                                       << ListNames({e.known_kernel_families.begin(), e.known_kernel_families.end()})
                                       << ")" << Provenance(e);
}

// A kernel-registry failure's movers: what changed against the engine's golden or
// the suite's baseline (internal::MoversForBudget), without a headline.
std::string FamilyMovers(const EngineSummary& e, const std::string& family) {
  return MoversForBudget(e, "kernel_families/" + family, e.name + ".kernel_family." + family);
}

}  // namespace

::testing::AssertionResult KernelFamilyPresent(const EngineSummary& e, const std::string& family) {
  if (auto f = RequireEngine(e)) return *f;
  if (auto f = RequireKnownFamily(e, family)) return *f;
  auto it = e.kernel_registry.find(family);
  if (it != e.kernel_registry.end() && !it->second.empty()) {
    return ::testing::AssertionSuccess() << family << " present in " << e.name;
  }
  return ::testing::AssertionFailure() << "kernel family '" << family << "' is absent from " << e.name << "'s "
                                       << WordsFor(e).registry << " (kernel families: "
                                       << ListNames(KeysOf(e.kernel_registry)) << ")\n"
                                       << FamilyMovers(e, family) << Provenance(e);
}

::testing::AssertionResult KernelFamilyAbsent(const EngineSummary& e, const std::string& family) {
  if (auto f = RequireEngine(e)) return *f;
  // Absent is only meaningful for a family the rules could name: a typo is absent too.
  if (auto f = RequireKnownFamily(e, family)) return *f;
  auto it = e.kernel_registry.find(family);
  if (it == e.kernel_registry.end() || it->second.empty()) {
    return ::testing::AssertionSuccess() << family << " absent from " << e.name;
  }
  return ::testing::AssertionFailure() << "kernel family '" << family << "' is present in " << e.name << ": "
                                       << ListNames({it->second.begin(), it->second.end()}, "") << "\n"
                                       << FamilyMovers(e, family) << Provenance(e);
}

}  // namespace perfgate::testing
