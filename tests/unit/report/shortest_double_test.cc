// util::ShortestDouble: the JSON report's number text. Shortest round-trip digits
// (std::to_chars) in nlohmann::json's layout, so the report reads as before except
// that no double loses bits.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "report/report_util.h"
#include "unit/report/report_test_data.h"

namespace perfgate::report {
namespace {

using nlohmann::json;
using testdata::Bits;

TEST(ShortestDouble, KnownValues) {
  EXPECT_EQ(util::ShortestDouble(1.015625), "1.015625");
  EXPECT_EQ(util::ShortestDouble(16.4279375), "16.4279375");
  EXPECT_EQ(util::ShortestDouble(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(util::ShortestDouble(1e-7), "1e-07");
  EXPECT_EQ(util::ShortestDouble(3711.0), "3711.0");  // stays a floating-point number
  EXPECT_EQ(util::ShortestDouble(0.0), "0.0");
  EXPECT_EQ(util::ShortestDouble(-0.0), "-0.0");
  EXPECT_EQ(util::ShortestDouble(-2.5), "-2.5");
  EXPECT_EQ(util::ShortestDouble(0.0001), "0.0001");
  EXPECT_EQ(util::ShortestDouble(0.00001), "1e-05");
  EXPECT_EQ(util::ShortestDouble(9735.6 - 8937.5), "798.1000000000004");
  EXPECT_EQ(util::ShortestDouble(1e14), "100000000000000.0");
  EXPECT_EQ(util::ShortestDouble(123456789012345.6), "123456789012345.6");
  EXPECT_EQ(util::ShortestDouble(1e15), "1e+15");
  EXPECT_EQ(util::ShortestDouble(-1.25e16), "-1.25e+16");
  EXPECT_EQ(util::ShortestDouble(1.5e300), "1.5e+300");
  EXPECT_EQ(util::ShortestDouble(5e-324), "5e-324");
  EXPECT_EQ(util::ShortestDouble(DBL_MAX), "1.7976931348623157e+308");
  EXPECT_EQ(util::ShortestDouble(std::nan("")), "null");
  EXPECT_EQ(util::ShortestDouble(-std::numeric_limits<double>::infinity()), "null");
  // nlohmann's Grisu2 writes 139.07903933806261: it round-trips, one digit too long.
  EXPECT_EQ(util::ShortestDouble(139.0790393380626), "139.0790393380626");
}

// Random bit patterns and report-like values: the text reads back as the identical
// double, has std::to_chars' shortest digits and parses as a JSON float. It is
// nlohmann's text except where Grisu2 writes more digits, or as many with another last
// digit (both read back; to_chars picks the one nearest the exact value).
TEST(ShortestDouble, RoundTripsShortestInNlohmannsLayout) {
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> us(0, 20000);
  int same_as_nlohmann = 0, shorter_than_nlohmann = 0, same_length_other_digits = 0;
  for (int i = 0; i < 300000; ++i) {
    double v;
    if (i % 3 == 0) {
      const uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);
      if (!std::isfinite(v)) continue;
    } else if (i % 3 == 1) {
      v = us(rng);
    } else {
      v = std::floor(us(rng) * 1000) / static_cast<double>(1 + rng() % 100);
    }
    const std::string s = util::ShortestDouble(v);
    ASSERT_EQ(Bits(std::strtod(s.c_str(), nullptr)), Bits(v)) << s;
    ASSERT_EQ(testdata::SignificantDigits(s), testdata::ShortestDigits(v)) << s;
    const json parsed = json::parse(s);
    ASSERT_TRUE(parsed.is_number_float()) << s;
    ASSERT_EQ(Bits(parsed.get<double>()), Bits(v)) << s;
    const std::string theirs = json(v).dump();
    const size_t ours_n = testdata::SignificantDigits(s).size();
    const size_t theirs_n = testdata::SignificantDigits(theirs).size();
    if (s == theirs) {
      ++same_as_nlohmann;
    } else if (ours_n < theirs_n) {
      ++shorter_than_nlohmann;
    } else {
      ASSERT_EQ(ours_n, theirs_n) << s << " " << theirs;  // never longer than nlohmann's
      ++same_length_other_digits;
    }
    ASSERT_EQ(Bits(std::strtod(theirs.c_str(), nullptr)), Bits(v)) << theirs;
  }
  EXPECT_GT(same_as_nlohmann, 290000);
  EXPECT_GT(shorter_than_nlohmann, 0);
  std::printf("same as nlohmann %d, shorter %d, as long, last digit nearer %d\n",
              same_as_nlohmann, shorter_than_nlohmann, same_length_other_digits);
}

}  // namespace
}  // namespace perfgate::report
