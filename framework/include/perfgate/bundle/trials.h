// Recording bundles: finding the trials of an engine and what was recorded with them.
//
// A recording is a directory of trials (`trial-K/` directories of xctrace exports or
// holding `trace.json[.gz]`, or trace-event JSON files), in natural order (digit runs
// by value). Every entry that looks like a trial is read or named in an error: a
// trial directory that lost its required file, an empty `trial-4/`, an incomplete
// recording, or trials of two formats in one recording all stop discovery. Files that
// are no trial (a README, logs) are listed, never silently skipped. Each path is
// sniffed once, through the source list.
#ifndef PERFGATE_BUNDLE_TRIALS_H_
#define PERFGATE_BUNDLE_TRIALS_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/sources/source.h"

namespace perfgate::bundle {

// One trial: the path its source reads, and the source that recognised it.
struct Trial {
  std::string path;                          // trial directory or file
  const sources::TraceSource* source = nullptr;
  std::string meta_path;                     // its meta.json, or "" when none was written
  // The engine's counter report for the trial (counters.txt in the trial directory, or
  // a path option), or "" when none: read beside the trace, whatever the source.
  std::string counters_path;
};

// What a --trace PATH or a suite's engine directory holds.
struct Recording {
  std::vector<Trial> trials;         // natural order
  // Entries that are no trial (README.md, *.log, ...), and a trial's own .trace bundle
  // beside its exports (read as one trial, the exports are read, not the bundle).
  std::vector<std::string> ignored;
};

// Finds the trials at `path`: a trial (directory or file) gives itself; a recording
// directory gives each trial in it. Errors: io.not_found, bundle.bad_trial (a
// directory that is no trial of any source), bundle.unknown_file (a trace-like file no
// source reads), bundle.mixed_sources, record.incomplete_bundle, attr.no_trials.
StatusOr<Recording> DiscoverTrials(const std::string& path);

// Requires at least `min_trials` trials: bundle.too_few_trials otherwise, naming them.
Status RequireTrials(const std::string& path, const Recording& recording, int min_trials);

// Requires every trial to come from one source (submissions and kernels share no
// median): bundle.mixed_sources otherwise, naming a trial of each, at `path`.
Status RequireOneSource(const std::string& path, const std::vector<Trial>& trials);

// Attributes each trial of one engine through its source, with the source's default
// process filter where `options` names none (sources::WithDefaultProcessFilter), and
// takes the medians, with the medians of the trials' counter reports
// (attribution::MedianCounters and its errors; counters.history_in_trial for a
// counters.txt holding several reports). `on_trial`, when given, sees each trial's summary as it is made.
using TrialObserver = std::function<void(const Trial&, const attribution::TrialSummary&)>;
StatusOr<attribution::EngineSummary> AttributeTrials(const std::string& engine, const std::vector<Trial>& trials,
                                                     const attribution::AttributionOptions& options,
                                                     const TrialObserver& on_trial = {});

// The recording's own account of a trial (meta.json beside the trial's files, written
// by `perfgate record` and the recording scripts), flattened to "a.b" keys with each
// scalar's JSON text (strings unquoted). Empty when the trial has no meta.json; a
// meta.json that is not a JSON object is an error (bundle.bad_meta).
StatusOr<std::map<std::string, std::string>> ReadTrialMeta(const Trial& trial);

}  // namespace perfgate::bundle

#endif  // PERFGATE_BUNDLE_TRIALS_H_
