// Loading a perf suite's recordings and attributing them once per test program.
//
// A suite names its engines (each with its attribution options) and an optional
// baseline. Recordings live in `<recordings>/<engine>/trial-K/`; the directory comes
// from the environment variable PERFGATE_RECORDINGS when set (so a CI job that recorded
// fresh traces points the same suite at them), else from the suite's registration
// (perfgate_add_perf_suite(... RECORDINGS dir)).
#ifndef PERFGATE_GTEST_SUITE_H_
#define PERFGATE_GTEST_SUITE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "perfgate/attribution/attribute.h"
#include "perfgate/core/status.h"

namespace perfgate::testing {

// One engine of a suite: its name (also its recording subdirectory), how to attribute
// it, and how to record it (used only with PERFGATE_RECORD=1 where xctrace exists).
struct EngineSpec {
  std::string name;
  attribution::AttributionOptions options;
  std::vector<std::string> record_command;  // argv; "{tokens}" is replaced by record_tokens
  int64_t record_tokens = 0;
};

struct SuiteConfig {
  std::string suite;               // e.g. "hf2q_decode"
  std::string recordings_dir;      // default; PERFGATE_RECORDINGS overrides
  std::string golden_dir;          // golden/<suite>
  std::vector<EngineSpec> engines;
  std::string baseline;            // an engine name, or "" for no comparison
  std::vector<attribution::Bucket> buckets = attribution::DefaultBuckets();
  int record_trials = 5;          // trials per engine when recording (interleaved)
  int64_t record_cooldown_ms = 0;  // pause between recordings
};

// What a suite's tests read: per-engine summaries and the comparison with the baseline.
struct SuiteData {
  std::string recordings_dir;  // the directory actually read
  std::map<std::string, attribution::EngineSummary> engines;
  std::map<std::string, std::vector<std::string>> trial_paths;
  std::optional<attribution::Comparison> comparison;  // first non-baseline engine vs baseline
  const attribution::EngineSummary& engine(const std::string& name) const;
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

// Loads and attributes the suite's recordings, once per program for equal configs.
// PERFGATE_RECORD=1 records every engine first, trials interleaved (engine, baseline,
// engine, ...) so drift hits both alike, through `perfgate record`'s pipeline; where
// xctrace is missing that is an error, never a silent replay. Without it, a missing
// recording skips with the reason recording is impossible here.
SuiteLoad LoadSuite(const SuiteConfig& config);

// The recordings directory in force for `config` (PERFGATE_RECORDINGS or the default).
std::string ResolveRecordingsDir(const SuiteConfig& config);

}  // namespace perfgate::testing

#endif  // PERFGATE_GTEST_SUITE_H_
