#include <gtest/gtest.h>

#include <cstring>

TEST(DecodeSuite, KnowsItsName) { EXPECT_STREQ(PERFGATE_SUITE_NAME, "decode_suite"); }
TEST(DecodeSuite, HasGoldenDir) { EXPECT_GT(std::strlen(PERFGATE_GOLDEN_DIR), 0u); }
