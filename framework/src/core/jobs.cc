// The job count and the one parallel loop perfgate's readers share.
#include "perfgate/core/jobs.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace perfgate {
namespace {

constexpr int kMaxJobs = 1024;
std::atomic<int> g_jobs{0};
thread_local bool t_inside_parallel_for = false;

int AllCores() { return std::max(1u, std::thread::hardware_concurrency()); }

// A whole number from 1 to kMaxJobs, or 0.
int ParseJobs(const std::string& text) {
  if (text.empty() || text.size() > 4) return 0;
  int n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n >= 1 && n <= kMaxJobs ? n : 0;
}

}  // namespace

void SetJobs(int jobs) { g_jobs.store(std::clamp(jobs, 0, kMaxJobs)); }

StatusOr<int> ResolveJobs() {
  if (int set = g_jobs.load(); set > 0) return set;
  const char* env = std::getenv(kJobsEnv);
  if (env == nullptr || *env == '\0') return AllCores();
  if (int n = ParseJobs(env); n > 0) return n;
  return Status::Error("env.bad_jobs",
                       std::string(kJobsEnv) + " is '" + env + "': give a whole number of threads from 1 to " +
                           std::to_string(kMaxJobs) + ", or leave it unset for every core",
                       {}, ErrorKind::kUsage);
}

bool ParallelWorkersAvailable() {
  if (t_inside_parallel_for) return false;
  auto jobs = ResolveJobs();
  return jobs.ok() && *jobs > 1;
}

void ParallelFor(size_t count, const std::function<void(size_t)>& fn) {
  auto jobs = ResolveJobs();
  const size_t threads = std::min(count, static_cast<size_t>(jobs.ok() ? *jobs : 1));
  if (threads <= 1 || t_inside_parallel_for) {
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;
  auto work = [&] {
    t_inside_parallel_for = true;
    for (size_t i = next++; i < count; i = next++) {
      try {
        fn(i);
      } catch (...) {  // an exception leaving a thread would end the process
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
    t_inside_parallel_for = false;
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  for (size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {  // no more threads to be had: those there are do the work
      break;
    }
  }
  work();
  for (std::thread& h : helpers) h.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace perfgate
