// What both store back ends share: the text forms of a run's samples and meta.json,
// and the check of a run before it is written.
#ifndef PERFGATE_SRC_HISTORY_CODEC_H_
#define PERFGATE_SRC_HISTORY_CODEC_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/history/run.h"

namespace perfgate::history {

// A JSON array of every sample's shortest round-trip text ("[14.02,14.03]"): read
// back, the doubles are identical.
std::string EncodeSamples(const std::vector<double>& samples);
// The samples of EncodeSamples' text; history.bad_store for text that is no JSON
// array of finite numbers.
StatusOr<std::vector<double>> DecodeSamples(std::string_view text);

// A JSON object of the flattened meta.json; and back (history.bad_store).
std::string EncodeMeta(const std::map<std::string, std::string>& meta);
StatusOr<std::map<std::string, std::string>> DecodeMeta(std::string_view text);

// history.bad_run for a run a store cannot hold: no key, a figure without engine or
// metric, a non-finite median or sample, one engine's metric twice, a level row twice
// or with a non-finite figure.
Status ValidateRun(const Run& run);

}  // namespace perfgate::history

#endif  // PERFGATE_SRC_HISTORY_CODEC_H_
