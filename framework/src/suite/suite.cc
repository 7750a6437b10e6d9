// Suite loading: record (when asked), discover and attribute every engine's trials,
// compare with the baseline. Fails closed: see suite/suite.h.
#include "perfgate/suite/suite.h"

#include <cerrno>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <set>

#include "perfgate/attribution/attribute.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/core/input_limits.h"
#include "perfgate/core/names.h"
#include "perfgate/cuda/recorder.h"
#include "perfgate/xctrace/recorder.h"
#include "text_input.h"

namespace perfgate::suite {
namespace {

namespace fs = std::filesystem;
using attribution::Bucket;

std::string EnvOr(const EnvLookup& env, const char* name) { return env(name).value_or(""); }

// PERFGATE_RECORDINGS when set, else the suite's registered directory.
std::string RecordingsDir(const SuiteConfig& config, const EnvLookup& env) {
  const std::string from_env = EnvOr(env, "PERFGATE_RECORDINGS");
  return from_env.empty() ? config.recordings_dir : from_env;
}

bool SameBuckets(const std::vector<Bucket>& a, const std::vector<Bucket>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].lo_ns != b[i].lo_ns || a[i].hi_ns != b[i].hi_ns || a[i].hint != b[i].hint) {
      return false;
    }
  }
  return true;
}

std::string BucketsKey(const std::vector<Bucket>& buckets) {
  std::string key;
  for (const Bucket& b : buckets) {
    key += b.name + "[" + std::to_string(b.lo_ns) + "," + std::to_string(b.hi_ns) + ")" + b.hint + ";";
  }
  return key;
}

// The buckets stated once: the suite's, or one engine's when only it departs from the
// defaults. Two different non-default sets are an error.
StatusOr<std::vector<Bucket>> SuiteBuckets(const SuiteConfig& c) {
  const std::vector<Bucket> defaults = attribution::DefaultBuckets();
  std::vector<Bucket> chosen = c.buckets;
  for (const EngineSpec& e : c.engines) {
    if (SameBuckets(e.options.buckets, defaults) || SameBuckets(e.options.buckets, chosen)) continue;
    if (!SameBuckets(chosen, defaults)) {
      return Status::Error("suite.bad_config",
                           "engine '" + e.name + "' states buckets that differ from the suite's; state them once, "
                           "in SuiteConfig::buckets",
                           {}, ErrorKind::kUsage);
    }
    chosen = e.options.buckets;
  }
  return chosen;
}

// The engines as loading attributes them: with the suite's buckets. (The default
// process filter is applied per trial, by its source.)
StatusOr<std::vector<EngineSpec>> ResolvedEngines(const SuiteConfig& c) {
  std::set<std::string> names;
  std::vector<std::string> quoted;
  for (const EngineSpec& e : c.engines) quoted.push_back("'" + e.name + "'");
  const std::string listed = ListNames(quoted, "");
  for (const EngineSpec& e : c.engines) {
    if (e.name.empty() || !names.insert(e.name).second) {
      return Status::Error("suite.bad_config",
                           "engine names must be non-empty and distinct (engines: " + listed + ")", {},
                           ErrorKind::kUsage);
    }
  }
  if (c.engines.empty()) return Status::Error("suite.bad_config", "the suite declares no engine", {}, ErrorKind::kUsage);
  auto buckets = SuiteBuckets(c);
  if (!buckets.ok()) return buckets.status();
  std::vector<EngineSpec> out = c.engines;
  for (EngineSpec& e : out) e.options.buckets = *buckets;
  return out;
}

// Why `backend` cannot record here, or nullopt.
std::optional<std::string> WhyRecordingImpossible(RecordBackend backend) {
  return backend == RecordBackend::kCuda ? cuda::WhyCudaRecordingImpossible() : xctrace::WhyRecordingImpossible();
}

std::string BackendName(RecordBackend backend) { return backend == RecordBackend::kCuda ? "cuda" : "xctrace"; }

// The one backend the engines record with: one loop interleaves them.
StatusOr<RecordBackend> OneRecordBackend(const std::vector<EngineSpec>& engines) {
  for (const EngineSpec& e : engines) {
    if (e.record_backend != engines.front().record_backend) {
      return Status::Error("suite.bad_config",
                           "PERFGATE_RECORD=1, but engine '" + engines.front().name + "' records with " +
                               BackendName(engines.front().record_backend) + " and engine '" + e.name + "' with " +
                               BackendName(e.record_backend) +
                               "; one suite's engines are recorded together, with one backend",
                           {}, ErrorKind::kUsage);
    }
  }
  return engines.front().record_backend;
}

StatusOr<xctrace::RecordingResult> RecordWith(RecordBackend backend, const std::vector<xctrace::EngineRecordSpec>& specs,
                                              const xctrace::RecordOptions& options, const std::string& dir) {
  if (backend == RecordBackend::kXctrace) return xctrace::RecordInterleaved(specs, options, dir);
  return cuda::RecordInterleaved(specs, cuda::RecordOptions(options), dir);
}

Status RecordFirst(const SuiteConfig& config, const std::vector<EngineSpec>& engines, const std::string& dir) {
  auto backend = OneRecordBackend(engines);
  if (!backend.ok()) return backend.status();
  if (auto why = WhyRecordingImpossible(*backend)) {
    return Status::Error("suite.record_unavailable",
                         "PERFGATE_RECORD=1 asks to record, but " + *why + "; unset it to replay " + dir, {},
                         ErrorKind::kEnvironment);
  }
  std::vector<xctrace::EngineRecordSpec> specs;
  for (const EngineSpec& e : engines) {
    if (e.record_command.empty() || e.record_tokens <= 0) {
      return Status::Error("suite.no_record_command",
                           "PERFGATE_RECORD=1, but engine '" + e.name +
                               "' has no record_command / record_tokens in the suite's config",
                           {}, ErrorKind::kUsage);
    }
    const std::string prefix = e.options.process_prefix.empty() ? e.name : e.options.process_prefix;
    specs.push_back({e.name, e.record_command, e.record_tokens, prefix, {}});
  }
  xctrace::RecordOptions ro;
  ro.trials = config.record_trials;
  ro.cooldown_ms = config.record_cooldown_ms;
  ro.progress = &std::cerr;
  auto recorded = RecordWith(*backend, specs, ro, dir);
  return recorded.ok() ? Status() : recorded.status();
}

// Why an engine's recording is missing, and how to make one.
std::string MissingReason(const EngineSpec& e, const std::string& engine_dir) {
  std::string reason = "no recording of engine '" + e.name + "' at " + engine_dir;
  if (e.record_command.empty()) {
    return reason + "; the suite has no record command for it: put its trials there (trial-K/ directories of "
                    "Metal System Trace exports or of trace.json[.gz]), or point PERFGATE_RECORDINGS at recordings that have them";
  }
  auto why = WhyRecordingImpossible(e.record_backend);
  if (e.record_backend == RecordBackend::kCuda) {
    return reason + "; record it with PERFGATE_RECORD=1 on a machine with an NVIDIA GPU, its driver and perfgate's "
                    "CUPTI tracer (here: " +
           why.value_or("CUDA recording is available") + "), or point PERFGATE_RECORDINGS at recordings that have it";
  }
  return reason + "; record it with PERFGATE_RECORD=1 on a Mac with xctrace (here: " +
         why.value_or("xctrace is available") + "), or point PERFGATE_RECORDINGS at recordings that have it";
}

// Discovers and attributes one engine's trials into `data`.
Status LoadEngine(const EngineSpec& e, int min_trials, const std::string& engine_dir, SuiteData* data) {
  auto recording = bundle::DiscoverTrials(engine_dir);
  if (!recording.ok()) return recording.status();
  PERFGATE_RETURN_IF_ERROR(bundle::RequireTrials(engine_dir, *recording, e.min_trials > 0 ? e.min_trials : min_trials));
  auto summary = bundle::AttributeTrials(e.name, recording->trials, e.options);
  if (!summary.ok()) return summary.status();
  auto meta = bundle::ReadTrialMeta(recording->trials.front());
  if (!meta.ok()) return meta.status();
  data->meta[e.name] = std::move(meta).value();
  for (const bundle::Trial& t : recording->trials) data->trial_paths[e.name].push_back(t.path);
  data->engines.emplace(e.name, std::move(summary).value());
  return Status();
}

Status Compare(const SuiteConfig& config, const std::vector<EngineSpec>& engines, SuiteData* data) {
  if (config.baseline.empty()) return Status();
  auto base = data->engines.find(config.baseline);
  const EngineSpec* first = nullptr;
  for (const EngineSpec& e : engines) {
    if (e.name != config.baseline) {
      first = &e;
      break;
    }
  }
  if (base == data->engines.end() || first == nullptr) {
    return Status::Error("suite.bad_config", "baseline '" + config.baseline +
                                                 "' must be one of the suite's engines (" + data->EngineNames() +
                                                 "), beside another engine",
                         {}, ErrorKind::kUsage);
  }
  data->comparison = attribution::Compare(data->engines.at(first->name), base->second, first->options.buckets,
                                          first->options.seed_compat);
  return Status();
}

SuiteLoad Failed(Status s) {
  SuiteLoad out;
  out.error = std::move(s);
  return out;
}

// A missing recording: a skip with its reason first, or under CI (unless a skip is
// allowed) a failure that names the path and how to record it.
SuiteLoad Missing(const SuiteConfig& config, const std::vector<std::string>& reasons, const EnvLookup& env) {
  std::string why;
  for (const std::string& r : reasons) why += (why.empty() ? "" : "; and ") + r;
  StatusOr<Unavailable> skip = MissingInput(config.suite, why, config.allow_skip, env);
  if (!skip.ok()) return Failed(skip.status());
  SuiteLoad out;
  out.unavailable = *std::move(skip);
  return out;
}

// Suites honour PERFGATE_MAX_INPUT_BYTES and PERFGATE_MAX_GZIP_RATIO as the CLI honours
// its options: a value that `env` sets becomes the process's limits, a bad one fails.
Status ApplyInputLimits(const EnvLookup& env) {
  auto limits = InputLimitsFromEnvironment(env);
  if (!limits.ok()) return limits.status();
  if (env(kMaxInputBytesEnv) || env(kMaxGzipRatioEnv)) SetInputLimits(*limits);
  return Status();
}

// Whether the engine's recording directory exists; an error where it cannot be
// examined (no access, a symbolic-link loop), which is no "missing recording".
StatusOr<bool> RecordingExists(const std::string& engine_dir) {
  std::error_code ec;
  static_cast<void>(fs::status(engine_dir, ec));
  if (!ec) return true;
  if (ec.value() == ENOENT || ec.value() == ENOTDIR) return false;
  return internal::PathError(engine_dir, ec.value(), "cannot examine the recording");
}

SuiteLoad Load(const SuiteConfig& config, const std::string& dir, const EnvLookup& env) {
  auto engines = ResolvedEngines(config);
  if (!engines.ok()) return Failed(engines.status());
  if (Status s = ApplyInputLimits(env); !s.ok()) return Failed(s);
  if (EnvOr(env, "PERFGATE_RECORD") == "1") {
    if (Status s = RecordFirst(config, *engines, dir); !s.ok()) return Failed(s);
  }
  auto data = std::make_shared<SuiteData>();
  data->recordings_dir = dir;
  std::vector<std::string> missing;
  for (const EngineSpec& e : *engines) {
    const std::string engine_dir = (fs::path(dir) / e.name).string();
    auto exists = RecordingExists(engine_dir);
    if (!exists.ok()) return Failed(exists.status());
    if (!*exists) {
      if (!e.record_command.empty() && !WhyRecordingImpossible(e.record_backend)) {
        return Failed(Status::Error("suite.no_recording",
                                    "no recording of engine '" + e.name + "' at " + engine_dir + "; " +
                                        (e.record_backend == RecordBackend::kCuda ? "CUDA recording" : "xctrace") +
                                        " is available: record it with PERFGATE_RECORD=1",
                                    {}, ErrorKind::kEnvironment));
      }
      missing.push_back(MissingReason(e, engine_dir));
      continue;
    }
    if (Status s = LoadEngine(e, config.min_trials, engine_dir, data.get()); !s.ok()) return Failed(s);
  }
  if (!missing.empty()) return Missing(config, missing, env);
  if (Status s = Compare(config, *engines, data.get()); !s.ok()) return Failed(s);
  SuiteLoad out;
  out.data = std::move(data);
  return out;
}

}  // namespace

StatusOr<const attribution::EngineSummary*> SuiteData::Find(const std::string& name) const {
  auto it = engines.find(name);
  if (it == engines.end()) {
    return Status::Error("suite.unknown_engine",
                         "no engine '" + name + "' in this suite (engines: " + EngineNames() + ")", {},
                         ErrorKind::kUsage);
  }
  return &it->second;
}

const attribution::EngineSummary& SuiteData::engine(const std::string& name) const {
  auto it = engines.find(name);
  if (it != engines.end()) return it->second;
  // An empty summary of that name: every assertion fails on a summary without trials.
  static std::mutex mu;
  static std::map<std::string, attribution::EngineSummary> unknown;
  std::lock_guard<std::mutex> lock(mu);
  auto [slot, inserted] = unknown.try_emplace(name);
  if (inserted) slot->second.name = name;
  return slot->second;
}

std::string SuiteData::EngineNames() const {
  std::vector<std::string> names;
  for (const auto& [name, _] : engines) names.push_back(name);
  return ListNames(names);
}

StatusOr<Unavailable> MissingInput(const std::string& suite, const std::string& why, bool allow_skip,
                                   const EnvLookup& env) {
  const std::optional<std::string> ci = CiVariable(env);
  if (ci && !allow_skip && !EnvTruthy(env("PERFGATE_ALLOW_SKIP"))) {
    return Status::Error("suite.no_recording",
                         why + ". " + *ci + " is set, so a missing recording fails; set PERFGATE_ALLOW_SKIP=1 "
                         "(or SuiteConfig::allow_skip) to skip deliberately",
                         {}, ErrorKind::kEnvironment);
  }
  return Unavailable{"suite " + suite + " skipped: " + why};
}

std::string ResolveRecordingsDir(const SuiteConfig& config) { return RecordingsDir(config, ProcessEnv); }

std::string ConfigKey(const SuiteConfig& c) {
  std::string key = c.suite + "\n" + c.baseline + "\n" + BucketsKey(c.buckets) + "\n" + std::to_string(c.min_trials) +
                    "\n" + std::to_string(c.allow_skip) + "\n";
  for (const EngineSpec& e : c.engines) {
    key += e.name + "\n" + attribution::OptionsKey(e.options) + "\n" + std::to_string(e.min_trials) + "\n" +
           std::to_string(e.record_tokens) + ":" + BackendName(e.record_backend) + ":";
    for (const auto& a : e.record_command) key += a + "\x1f";
    key += "\n";
  }
  return key;
}

SuiteLoad LoadSuite(const SuiteConfig& config, const EnvLookup& env) {
  return Load(config, RecordingsDir(config, env), env);
}

SuiteLoad LoadSuite(const SuiteConfig& config) {
  static std::mutex mu;
  static std::map<std::string, SuiteLoad> cache;
  const std::string dir = ResolveRecordingsDir(config);
  // The environment that loading reads is part of the key too.
  const std::string key = ConfigKey(config) + dir + "\n" + EnvOr(ProcessEnv, "PERFGATE_RECORD") + "\n" +
                          EnvOr(ProcessEnv, "PERFGATE_ALLOW_SKIP") + "\n" + CiVariable().value_or("") + "\n" +
                          EnvOr(ProcessEnv, kMaxInputBytesEnv) + "\n" + EnvOr(ProcessEnv, kMaxGzipRatioEnv);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  SuiteLoad loaded = Load(config, dir, ProcessEnv);
  cache.emplace(key, loaded);
  return loaded;
}

}  // namespace perfgate::suite
