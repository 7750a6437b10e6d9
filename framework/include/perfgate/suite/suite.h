// A perf suite's configuration and loading: its engines' recordings attributed once
// per program. No GoogleTest here: the gtest fixture and the benchmark bridge both
// build on it.
//
// Recordings live in `<recordings>/<engine>/trial-K/`; the directory comes from the
// environment variable PERFGATE_RECORDINGS when set (so a CI job that recorded fresh
// traces points the same suite at them), else from the suite's registration
// (perfgate_add_perf_suite(... RECORDINGS dir)).
//
// Loading fails closed. Every trial directory present is read or named in an error;
// an engine with fewer than min_trials trials fails. A missing recording fails when
// it could be recorded here, and under CI (the CI variable, see core/environment.h);
// elsewhere it is a skip whose reason is its first line. A deliberate skip under CI
// needs PERFGATE_ALLOW_SKIP=1 or SuiteConfig::allow_skip.
#ifndef PERFGATE_SUITE_SUITE_H_
#define PERFGATE_SUITE_SUITE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/core/environment.h"
#include "perfgate/core/status.h"

namespace perfgate::suite {

// What records an engine under PERFGATE_RECORD=1: xctrace (Metal System Traces, macOS)
// or perfgate's CUPTI tracer (perfgate/cuda/recorder.h).
enum class RecordBackend { kXctrace, kCuda };

// One engine of a suite: its name (also its recording subdirectory), how to attribute
// it, and how to record it (used only with PERFGATE_RECORD=1 where its backend can
// record). Without a process filter it gets the one default
// (sources::WithDefaultProcessFilter), as on the command line; options.buckets is
// taken from SuiteConfig::buckets.
struct EngineSpec {
  std::string name;
  attribution::AttributionOptions options;
  std::vector<std::string> record_command;  // argv; "{tokens}" is replaced by record_tokens
  int64_t record_tokens = 0;
  int min_trials = 0;  // 0: the suite's min_trials
  // The engines of one suite record with one backend (two are suite.bad_config).
  RecordBackend record_backend = RecordBackend::kXctrace;
};

struct SuiteConfig {
  std::string suite;               // e.g. "hf2q_decode"
  std::string recordings_dir;      // default; PERFGATE_RECORDINGS overrides
  std::string golden_dir;          // golden/<suite>
  std::vector<EngineSpec> engines;
  std::string baseline;            // an engine name, or "" for no comparison
  // The duration buckets of every engine and of the comparison, stated once. (An
  // engine's options.buckets may state them instead; two different sets are an error.)
  std::vector<attribution::Bucket> buckets = attribution::DefaultBuckets();
  int min_trials = 3;              // fewer trials of an engine fail the suite
  bool allow_skip = false;         // a missing recording may skip under CI too
  int record_trials = 5;           // trials per engine when recording (interleaved)
  int64_t record_cooldown_ms = 0;  // pause between recordings
  // A results history (an SQLite file or a postgresql:// URL) each test appends its
  // run to; PERFGATE_HISTORY overrides it, and OFF turns it off (docs/history.md).
  std::string history;
};

// What a suite's tests read: per-engine summaries and the comparison with the baseline.
struct SuiteData {
  std::string recordings_dir;  // the directory actually read
  std::map<std::string, attribution::EngineSummary> engines;
  std::map<std::string, std::vector<std::string>> trial_paths;
  // Per engine, the first trial's meta.json flattened (bundle::ReadTrialMeta).
  std::map<std::string, std::map<std::string, std::string>> meta;
  std::optional<attribution::Comparison> comparison;  // first non-baseline engine vs baseline

  // The engine named `name`; an unknown name is an error listing the suite's engines.
  StatusOr<const attribution::EngineSummary*> Find(const std::string& name) const;
  // The engine named `name`, or (unknown) an empty summary of that name, which every
  // perfgate assertion fails on.
  const attribution::EngineSummary& engine(const std::string& name) const;
  // "graphs, eager": the suite's engine names.
  std::string EngineNames() const;
};

// Why a suite cannot run here: no recording exists and recording is impossible.
struct Unavailable {
  std::string reason;
};

// The outcome of loading: data, a reason to skip, or an error (a failure, never a skip).
struct SuiteLoad {
  std::shared_ptr<const SuiteData> data;
  std::optional<Unavailable> unavailable;
  Status error;
};

// Loads and attributes the suite's recordings, once per program for equal configs
// (the whole configuration is the cache key). PERFGATE_RECORD=1 records every engine
// first, trials interleaved (engine, baseline, engine, ...) so drift hits both alike,
// through `perfgate record`'s pipeline with the engines' backend; where that backend
// cannot record (no xctrace; no NVIDIA driver, no GPU or no tracer) that is an error.
SuiteLoad LoadSuite(const SuiteConfig& config);
// The same with the environment given (tests).
SuiteLoad LoadSuite(const SuiteConfig& config, const EnvLookup& env);

// What a missing input of `suite` (a recording, a report file) becomes: a skip whose
// reason is `why`, or under CI, unless a skip is allowed (`allow_skip` or
// PERFGATE_ALLOW_SKIP=1), the error suite.no_recording. Suites that read files other
// than trial recordings use it to fail closed exactly as LoadSuite does.
StatusOr<Unavailable> MissingInput(const std::string& suite, const std::string& why, bool allow_skip,
                                   const EnvLookup& env = ProcessEnv);

// The recordings directory in force for `config` (PERFGATE_RECORDINGS or the default).
std::string ResolveRecordingsDir(const SuiteConfig& config);

// Every field of the configuration that changes what loading computes, as text: equal
// keys, equal results.
std::string ConfigKey(const SuiteConfig& config);

}  // namespace perfgate::suite

// The names suites were written against.
namespace perfgate::testing {
using suite::EngineSpec;
using suite::LoadSuite;
using suite::MissingInput;
using suite::ResolveRecordingsDir;
using suite::SuiteConfig;
using suite::SuiteData;
using suite::SuiteLoad;
using suite::Unavailable;
}  // namespace perfgate::testing

#endif  // PERFGATE_SUITE_SUITE_H_
