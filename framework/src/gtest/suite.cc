#include "perfgate/gtest/suite.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>

#include "perfgate/xctrace/recorder.h"

namespace perfgate::testing {
namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// A key that tells configs apart for the cache.
std::string CacheKey(const SuiteConfig& c, const std::string& dir) {
  std::string key = c.suite + "|" + dir + "|" + c.baseline;
  for (const EngineSpec& e : c.engines) {
    const auto& o = e.options;
    key += "|" + e.name + ":" + o.process_prefix + ":" + std::to_string(o.all_processes) + ":" +
           std::to_string(o.seed_compat) + ":" + std::to_string(static_cast<int>(o.window.mode)) + ":" +
           o.window.label + ":" + std::to_string(o.window.start_ns) + ":" + std::to_string(o.window.end_ns) + ":" +
           std::to_string(o.window.skip) + ":" + std::to_string(o.tokens.value_or(-1)) + ":" + o.token_label;
  }
  return key;
}

SuiteLoad Load(const SuiteConfig& config, const std::string& dir) {
  SuiteLoad out;
  if (Env("PERFGATE_RECORD") == "1") {
    if (auto why = xctrace::WhyRecordingImpossible()) {
      out.error = Status::Error("suite.record_unavailable",
                                "PERFGATE_RECORD=1 asks to record, but " + *why + "; unset it to replay " + dir,
                                {}, ErrorKind::kEnvironment);
      return out;
    }
    std::vector<xctrace::EngineRecordSpec> specs;
    for (const EngineSpec& e : config.engines) {
      if (e.record_command.empty() || e.record_tokens <= 0) {
        out.error = Status::Error("suite.no_record_command",
                                  "PERFGATE_RECORD=1, but engine '" + e.name +
                                      "' has no record_command / record_tokens in the suite's config",
                                  {}, ErrorKind::kUsage);
        return out;
      }
      specs.push_back({e.name, e.record_command, e.record_tokens, e.options.process_prefix, {}});
    }
    xctrace::RecordOptions ro;
    ro.trials = config.record_trials;
    ro.cooldown_ms = config.record_cooldown_ms;
    ro.progress = &std::cerr;
    auto recorded = xctrace::RecordInterleaved(specs, ro, dir);
    if (!recorded.ok()) {
      out.error = recorded.status();
      return out;
    }
  }
  auto data = std::make_shared<SuiteData>();
  data->recordings_dir = dir;
  std::error_code ec;
  for (const EngineSpec& e : config.engines) {
    const std::string engine_dir = (fs::path(dir) / e.name).string();
    if (!fs::exists(engine_dir, ec)) {
      auto why = xctrace::WhyRecordingImpossible();
      if (!why) {
        out.error = Status::Error("suite.no_recording",
                                  "no recording of engine '" + e.name + "' at " + engine_dir +
                                      "; xctrace is available: record it with PERFGATE_RECORD=1",
                                  {}, ErrorKind::kEnvironment);
        return out;
      }
      out.unavailable = Unavailable{"no recording of engine '" + e.name + "' at " + engine_dir +
                                    ", and recording is impossible here (" + *why +
                                    "); set PERFGATE_RECORDINGS to a directory of recordings"};
      return out;
    }
    auto paths = attribution::ExpandTrialPaths(engine_dir);
    if (!paths.ok()) {
      out.error = paths.status();
      return out;
    }
    std::vector<attribution::TrialSummary> trials;
    for (const std::string& p : *paths) {
      auto summary = attribution::AttributeTrial(p, e.options);
      if (!summary.ok()) {
        out.error = summary.status();
        return out;
      }
      trials.push_back(std::move(summary).value());
    }
    data->trial_paths[e.name] = *paths;
    data->engines.emplace(e.name, attribution::SummarizeEngine(e.name, std::move(trials), e.options.buckets,
                                                               e.options.seed_compat));
  }
  if (!config.baseline.empty()) {
    auto base = data->engines.find(config.baseline);
    const EngineSpec* first = nullptr;
    for (const EngineSpec& e : config.engines) {
      if (e.name != config.baseline) {
        first = &e;
        break;
      }
    }
    if (base == data->engines.end() || first == nullptr) {
      out.error = Status::Error("suite.bad_config", "baseline '" + config.baseline +
                                                        "' must be one of the suite's engines, beside another engine");
      return out;
    }
    data->comparison = attribution::Compare(data->engines.at(first->name), base->second, config.buckets,
                                            first->options.seed_compat);
  }
  out.data = std::move(data);
  return out;
}

}  // namespace

const attribution::EngineSummary& SuiteData::engine(const std::string& name) const {
  auto it = engines.find(name);
  if (it == engines.end()) {
    static const attribution::EngineSummary kEmpty;
    return kEmpty;
  }
  return it->second;
}

std::string ResolveRecordingsDir(const SuiteConfig& config) {
  std::string env = Env("PERFGATE_RECORDINGS");
  return env.empty() ? config.recordings_dir : env;
}

SuiteLoad LoadSuite(const SuiteConfig& config) {
  static std::mutex mu;
  static std::map<std::string, SuiteLoad> cache;
  const std::string dir = ResolveRecordingsDir(config);
  const std::string key = CacheKey(config, dir);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  SuiteLoad loaded = Load(config, dir);
  cache.emplace(key, loaded);
  return loaded;
}

}  // namespace perfgate::testing
