// ParallelFor, the one parallel loop of the readers: every call once, the nesting
// rule, and an exception from one call rethrown on the calling thread once every
// call has returned (it used to end the process from a helper thread).
#include "perfgate/core/jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace perfgate {
namespace {

class ParallelForTest : public ::testing::Test {
 protected:
  void TearDown() override { SetJobs(0); }
};

TEST_F(ParallelForTest, EveryCallRunsOnce) {
  SetJobs(4);
  std::vector<std::atomic<int>> runs(100);
  ParallelFor(runs.size(), [&](size_t i) { ++runs[i]; });
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << i;
}

TEST_F(ParallelForTest, OneJobRunsInOrderOnTheCallingThread) {
  SetJobs(1);
  EXPECT_FALSE(ParallelWorkersAvailable());
  std::vector<size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  ParallelFor(5, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST_F(ParallelForTest, InsideALoopNothingMoreRunsAtOnce) {
  SetJobs(4);
  EXPECT_TRUE(ParallelWorkersAvailable());
  std::atomic<int> inner_available{0}, inner_runs{0};
  ParallelFor(4, [&](size_t) {
    if (ParallelWorkersAvailable()) ++inner_available;
    const std::thread::id here = std::this_thread::get_id();
    ParallelFor(3, [&](size_t) {
      EXPECT_EQ(std::this_thread::get_id(), here);
      ++inner_runs;
    });
  });
  EXPECT_EQ(inner_available.load(), 0);
  EXPECT_EQ(inner_runs.load(), 12);
  EXPECT_TRUE(ParallelWorkersAvailable());  // the calling thread is outside again
}

TEST_F(ParallelForTest, AnExceptionIsRethrownAfterEveryOtherCall) {
  SetJobs(4);
  std::atomic<int> others{0};
  EXPECT_THROW(ParallelFor(64,
                           [&](size_t i) {
                             if (i == 3) throw std::runtime_error("call 3");
                             ++others;
                           }),
               std::runtime_error);
  EXPECT_EQ(others.load(), 63);
  EXPECT_TRUE(ParallelWorkersAvailable());
}

}  // namespace
}  // namespace perfgate
