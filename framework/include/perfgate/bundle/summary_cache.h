// The summary cache: attributed trials kept on disk, so that a suite's tests, each run
// by ctest in a process of its own, read a recording once instead of once per test.
//
// An entry is keyed by everything its summary depends on: the trial's path and the
// identity of each of its files (device, inode, size, modification and change
// times), the whole attribution configuration (attribution::OptionsKey), the input
// limits in force and the identity of the running executable (so a rebuilt perfgate
// never reads an older build's entries). Change any of them and the entry is not
// found. Entries are written to a temporary file and renamed into place, so
// concurrent tests (ctest -j) only ever see whole entries; an entry that is damaged or
// was written for another key is a miss, recomputed and rewritten. Errors are never
// cached. perfgate_add_perf_suite points its tests at <build dir>/perfgate-cache
// (its CACHE_DIR argument; OFF for none).
#ifndef PERFGATE_BUNDLE_SUMMARY_CACHE_H_
#define PERFGATE_BUNDLE_SUMMARY_CACHE_H_

#include <string>

#include "perfgate/attribution/summary.h"
#include "perfgate/bundle/trials.h"
#include "perfgate/core/status.h"

namespace perfgate::bundle {

inline constexpr const char* kCacheDirEnv = "PERFGATE_CACHE_DIR";
inline constexpr const char* kCacheEnv = "PERFGATE_CACHE";

// The cache directory in force: PERFGATE_CACHE_DIR, or "" (no cache) when it is unset,
// empty or one of CMake's false constants in any case (OFF, 0, NO, FALSE, N, IGNORE,
// NOTFOUND, *-NOTFOUND), or when PERFGATE_CACHE is one (which turns off the
// directory perfgate_add_perf_suite gives its tests). An entry is read only from a
// regular file of at most 256 MiB: anything else is a miss.
std::string SummaryCacheDir();

// How CachedSummary found its result.
enum class CacheOutcome { kNoCache, kHit, kStored, kNotStored };

// The summary of `trial` under `options` (its source's summarize): from the cache
// directory `dir` when an entry matches, else computed and stored there. "" computes
// without a cache. A directory that cannot be written loses only speed: the summary is
// returned, and a warning says so on standard error once per process.
StatusOr<attribution::TrialSummary> CachedSummary(const std::string& dir, const Trial& trial,
                                                  const attribution::AttributionOptions& options,
                                                  CacheOutcome* outcome = nullptr);

}  // namespace perfgate::bundle

#endif  // PERFGATE_BUNDLE_SUMMARY_CACHE_H_
