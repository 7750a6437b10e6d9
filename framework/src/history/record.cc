// Building a gate's run and appending it to the history.
#include "perfgate/history/record.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <iostream>

#include "perfgate/core/process.h"
#include "perfgate/core/version.h"
#include "perfgate/history/store.h"
#include "perfgate/metrics/catalogue.h"

namespace perfgate::history {
namespace {

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// The first of `names` that is set and not empty.
std::optional<std::string> FirstSet(const EnvLookup& env, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    auto value = env(name);
    if (value && !value->empty()) return value;
  }
  return std::nullopt;
}

// git's answer in the working directory, "" outside a repository or without git.
std::string AskGit(std::vector<std::string> args) {
  ProcessOptions options;
  options.argv = {"git"};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.timeout_ms = 10000;
  auto result = RunProcess(options);
  if (!result.ok() || !result->ok()) return "";
  std::string out = result->stdout_text;
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string HostName() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "";
}

Worse WorseOf(gates::Direction better) {
  switch (better) {
    case gates::Direction::kLowerIsBetter: return Worse::kUp;
    case gates::Direction::kHigherIsBetter: return Worse::kDown;
    case gates::Direction::kBoth: return Worse::kBoth;
  }
  return Worse::kBoth;
}

void AddLevel(const std::string& engine, const char* level,
              const std::map<std::string, attribution::LevelMedians>& items, std::vector<LevelRow>* out) {
  for (const auto& [name, m] : items) {
    out->push_back({engine, level, name, m.calls_per_token.median, m.gpu_us_per_token.median});
  }
}

}  // namespace

std::string HistoryLocation(const std::string& explicit_location, const EnvLookup& env) {
  std::string location = explicit_location;
  if (location.empty()) location = env(kHistoryEnv).value_or("");
  return Upper(location) == "OFF" ? "" : location;
}

RunContext CurrentContext(const std::string& suite, const std::string& test, const EnvLookup& env) {
  RunContext c;
  c.time = UtcNow();
  c.suite = suite;
  c.test = test;
  // The CI services' own names: GitHub Actions, GitLab CI, Buildkite, Jenkins.
  c.commit = FirstSet(env, {"PERFGATE_COMMIT", "GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT"})
                 .value_or("");
  if (c.commit.empty()) c.commit = AskGit({"rev-parse", "HEAD"});
  c.branch = FirstSet(env, {"PERFGATE_BRANCH", "GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME",
                            "BUILDKITE_BRANCH", "GIT_BRANCH"})
                 .value_or("");
  if (c.branch.empty()) c.branch = AskGit({"rev-parse", "--abbrev-ref", "HEAD"});
  c.machine = FirstSet(env, {"PERFGATE_MACHINE"}).value_or(HostName());
  c.perfgate_version = std::string(Version());
  return c;
}

std::vector<Figure> FiguresOf(const std::string& engine, const golden::GoldenFile& golden) {
  std::vector<Figure> out;
  out.reserve(golden.values.size());
  for (const auto& [name, value] : golden.values) {
    out.push_back({engine, name, value.value, value.samples, WorseOf(value.policy.dir)});
  }
  return out;
}

std::vector<LevelRow> LevelsOf(const attribution::EngineSummary& engine) {
  std::vector<LevelRow> out;
  for (const auto& [name, bucket] : engine.buckets) {
    out.push_back({engine.name, "buckets", name, bucket.items_per_token.median, bucket.us_per_token.median});
  }
  AddLevel(engine.name, "families", engine.families, &out);
  AddLevel(engine.name, "phases", engine.phases, &out);
  AddLevel(engine.name, "kernels", engine.kernels, &out);
  return out;
}

Run NewRun(RunContext context) {
  Run run;
  run.key = NewRunKey();
  run.context = std::move(context);
  return run;
}

void AddMeta(Run* run, const std::string& engine, const std::map<std::string, std::string>& meta,
             const EnvLookup& env) {
  for (const auto& [key, value] : meta) run->context.meta[engine + "." + key] = value;
  if (!run->context.device.empty()) return;
  run->context.device = FirstSet(env, {"PERFGATE_DEVICE"}).value_or("");
  for (const char* key : {"gpu.name", "device", "gpu", "chip"}) {
    const auto found = meta.find(key);
    if (run->context.device.empty() && found != meta.end()) run->context.device = found->second;
  }
}

void AddEngine(Run* run, const std::string& name, const attribution::EngineSummary& engine) {
  for (Figure& f : FiguresOf(name, metrics::EngineGolden(engine))) run->figures.push_back(std::move(f));
  for (LevelRow& row : LevelsOf(engine)) {
    row.engine = name;
    run->levels.push_back(std::move(row));
  }
}

Status AppendToHistory(const std::string& location, const Run& run, const EnvLookup& env) {
  Status s;
  auto store = OpenStore(location);
  if (store.ok()) {
    auto id = (*store)->Append(run);
    if (id.ok()) {
      std::cerr << "history: appended run " << *id << " (" << run.figures.size() << " figures) to "
                << (*store)->Location() << "\n";
      return Status();
    }
    s = id.status();
  } else {
    s = store.status();
  }
  if (CiVariable(env)) return s;
  std::cerr << "warning: the run was not recorded in the history: " << s.ToString() << "\n";
  return Status();
}

}  // namespace perfgate::history
