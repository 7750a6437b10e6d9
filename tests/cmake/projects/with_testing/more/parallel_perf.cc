#include <gtest/gtest.h>

TEST(ParallelSuite, KnowsItsName) { EXPECT_STREQ(PERFGATE_SUITE_NAME, "parallel_suite"); }
TEST(ParallelSuite, Second) { SUCCEED(); }
