// Private: how every trace source settles a trial's token count.
#ifndef PERFGATE_SRC_ATTRIBUTION_TOKENS_H_
#define PERFGATE_SRC_ATTRIBUTION_TOKENS_H_

#include <optional>
#include <string>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"

namespace perfgate::attribution::internal {

// Sets s->tokens and s->tokens_source: the trace's count `in_trace` when a token label
// is configured (a configured count that disagrees is counted as
// attr.token_count_mismatch), else the configured count. Errors: attr.no_tokens when
// neither exists (a usage error).
Status ResolveTokens(std::optional<int64_t> in_trace, const AttributionOptions& options, const std::string& path,
                     TrialSummary* s);

}  // namespace perfgate::attribution::internal

#endif  // PERFGATE_SRC_ATTRIBUTION_TOKENS_H_
