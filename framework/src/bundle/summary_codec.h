// A TrialSummary as exact bytes, for the summary cache: every field but `counters`
// (the counter report beside the trace is read afresh each time).
#pragma once

#include <string>
#include <string_view>

#include "perfgate/attribution/summary.h"

namespace perfgate::bundle::internal {

std::string EncodeTrialSummary(const attribution::TrialSummary& summary);

// False when `bytes` is not exactly one encoded summary (cut off, or other data).
bool DecodeTrialSummary(std::string_view bytes, attribution::TrialSummary* summary);

}  // namespace perfgate::bundle::internal
