// How many threads perfgate's readers use: one setting for the CLI and suites alike.
//
// `perfgate attribute --jobs N` and the suites (PERFGATE_JOBS=N in their environment)
// decide it; the default is every core. The trials of an engine are attributed in
// parallel, and a Metal trial's tables are decoded in parallel when the trial is
// attributed alone. Results never depend on it: each work item is computed alone and
// the results are put together in input order.
#ifndef PERFGATE_CORE_JOBS_H_
#define PERFGATE_CORE_JOBS_H_

#include <cstddef>
#include <functional>

#include "perfgate/core/status.h"

namespace perfgate {

inline constexpr const char* kJobsEnv = "PERFGATE_JOBS";

// Sets the process's job count (the CLI's --jobs); 0 returns to the default.
void SetJobs(int jobs);

// The job count in force: SetJobs' value, else PERFGATE_JOBS, else every core (at
// least 1). Errors: env.bad_jobs when PERFGATE_JOBS is not a whole number from 1 to 1024.
StatusOr<int> ResolveJobs();

// Runs fn(0) .. fn(count - 1) on up to ResolveJobs() threads (1 when it fails; the
// caller reports that error; fewer when no more threads can be started) and returns
// when every call has. Called from inside another ParallelFor's fn it runs in order
// on the calling thread: the outer level already keeps every core busy. An exception
// from fn (out of memory) is rethrown once every call has returned; when several
// calls throw, one of their exceptions is.
void ParallelFor(size_t count, const std::function<void(size_t)>& fn);

// True when a second thread may work beside this one: the job count is above 1 and
// the caller is not inside a ParallelFor (whose threads already keep every core busy).
bool ParallelWorkersAvailable();

}  // namespace perfgate

#endif  // PERFGATE_CORE_JOBS_H_
