// RepeatedIds: the repeated (pid, correlationId) pairs of a table, in the order the
// reader reports them (the second row of each), counted by hand from the rows below.
#include "sources/nsys/repeated_ids.h"

#include <gtest/gtest.h>

#include <vector>

namespace perfgate::nsys::detail {
namespace {

using Pair = RepeatedIds::Pair;

std::vector<Pair> RepeatsOf(const std::vector<Pair>& rows) {
  RepeatedIds ids;
  for (const Pair& p : rows) ids.Add(p.pid, p.id);
  return ids.Repeats();
}

TEST(RepeatedIds, IdsRisingPerProcessRepeatNothing) {
  // Two processes interleaved, each rising; the same id in both is no repeat.
  EXPECT_TRUE(RepeatsOf({{1, 1}, {2, 1}, {1, 2}, {2, 5}, {1, 9}, {2, 6}}).empty());
}

TEST(RepeatedIds, EachRepeatOnceInTheOrderOfItsSecondRow) {
  // Rows 0..6: (1,5) repeats at row 3, (1,3) at row 4 and again at row 5 (one repeat).
  const std::vector<Pair> repeats = RepeatsOf({{1, 5}, {1, 3}, {2, 5}, {1, 5}, {1, 3}, {1, 3}, {2, 7}});
  ASSERT_EQ(repeats.size(), 2u);
  EXPECT_EQ(repeats[0], (Pair{1, 5}));
  EXPECT_EQ(repeats[1], (Pair{1, 3}));
}

TEST(RepeatedIds, TheSameIdInTwoProcessesIsNoRepeatOutOfOrderEither) {
  EXPECT_TRUE(RepeatsOf({{1, 9}, {1, 2}, {2, 9}, {2, 2}, {3, -4}}).empty());
}

TEST(RepeatedIds, AnEqualNeighbourIsARepeat) {
  const std::vector<Pair> repeats = RepeatsOf({{4, 7}, {4, 7}});
  ASSERT_EQ(repeats.size(), 1u);
  EXPECT_EQ(repeats[0], (Pair{4, 7}));
}

}  // namespace
}  // namespace perfgate::nsys::detail
