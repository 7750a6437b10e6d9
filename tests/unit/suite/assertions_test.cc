// Lookups by name fail the test, listing the names that exist: an unknown engine, a
// bucket or a family never passes a gate by comparing zeros.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "perfgate/gtest/perfgate_gtest.h"
#include "unit/suite/decode_suite.h"

namespace perfgate::testing {
namespace {

class Lookups : public PerfSuiteFixture {
 protected:
  SuiteConfig Config() const override { return suite::test::ReadmeSuite(); }

  // The failures that `engine(name)` reports, intercepted.
  std::vector<std::string> FailuresOfLookup(const std::string& name) {
    ::testing::TestPartResultArray results;
    {
      ::testing::ScopedFakeTestPartResultReporter reporter(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
      (void)engine(name);
    }
    std::vector<std::string> out;
    for (int i = 0; i < results.size(); ++i) out.push_back(results.GetTestPartResult(i).message());
    return out;
  }
};

// The case: engine("hf2qq") returned an empty summary and these passed.
TEST_F(Lookups, ATypoedEngineFailsTheLookupAndEveryAssertion) {
  const auto failures = FailuresOfLookup("hf2qq");
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("no engine 'hf2qq' in this suite (engines: hf2q, llama)"), std::string::npos)
      << failures[0];
  EXPECT_TRUE(FailuresOfLookup("hf2q").empty());

  const attribution::EngineSummary& typo = data().engine("hf2qq");
  const attribution::EngineSummary& llama = data().engine("llama");
  EXPECT_FALSE(SubmissionsPerTokenAtMost(typo, 46.5));
  EXPECT_FALSE(SubmissionsPerTokenExactly(typo, 0));
  EXPECT_FALSE(GpuTimeRatioAtMost(typo, llama, 1.15));
  EXPECT_FALSE(GpuTimeRatioAtMost(llama, typo, 1.15));
  EXPECT_FALSE(KernelFamilyAbsent(typo, "moe_mv"));
  EXPECT_FALSE(KernelFamilyPresent(typo, "moe_mv"));
  EXPECT_FALSE(BucketDeltaAtMostUs(typo, llama, "md_8_32us", 25));
  EXPECT_FALSE(BucketDeltaAtMostPercent(llama, typo, "md_8_32us", 25));
  EXPECT_FALSE(FamilyDeltaAtMostPercent(typo, llama, "compute", 5));
  EXPECT_FALSE(PhaseGpuUsPerTokenAtMost(typo, "layer.attn_moe_ffn", 1e9));
  const auto why = SubmissionsPerTokenAtMost(typo, 46.5);
  EXPECT_NE(std::string(why.message()).find("engine 'hf2qq' has no trials"), std::string::npos) << why.message();
}

TEST_F(Lookups, GoodNamesStillPass) {
  EXPECT_TRUE(SubmissionsPerTokenAtMost(engine("hf2q"), 46.5));
  EXPECT_TRUE(BucketDeltaAtMostUs(engine("hf2q"), engine("llama"), "md_8_32us", 25));
  EXPECT_TRUE(GpuTimeRatioAtMost(engine("hf2q"), engine("llama"), 1.15));
}

TEST_F(Lookups, AnUnknownBucketOrFamilyFailsListingTheKnownOnes) {
  const auto bucket = BucketDeltaAtMostUs(engine("hf2q"), engine("llama"), "md_8_23us", 25);
  EXPECT_FALSE(bucket);
  EXPECT_NE(std::string(bucket.message()).find("(buckets: xs_<2us, sm_2_8us, md_8_32us, lg_32_80us, xl_>=80us)"),
            std::string::npos)
      << bucket.message();
  const auto family = FamilyDeltaAtMostPercent(engine("hf2q"), engine("llama"), "compte", 5);
  EXPECT_FALSE(family);
  EXPECT_NE(std::string(family.message()).find("(encoder families: "), std::string::npos) << family.message();
  const auto phase = PhaseGpuUsPerTokenAtMost(engine("hf2q"), "layer.atn", 1e9);
  EXPECT_FALSE(phase);
  EXPECT_NE(std::string(phase.message()).find("layer.attn_moe_ffn"), std::string::npos) << phase.message();
}

TEST_F(Lookups, AnUnknownMetricFailsListingTheKnownOnes) {
  EXPECT_TRUE(MetricAtMost(engine("hf2q"), "buckets/md_8_32us/submissions_per_token", 1.5));
  EXPECT_FALSE(MetricAtMost(engine("hf2q"), "buckets/md_8_32us/submissions_per_token", 0.5));
  const auto typo = MetricAtMost(engine("hf2q"), "buckets/md_8_32us/submisions_per_token", 100);
  EXPECT_FALSE(typo);
  EXPECT_NE(std::string(typo.message()).find("buckets/md_8_32us/submissions_per_token"), std::string::npos)
      << typo.message();
}

}  // namespace
}  // namespace perfgate::testing

namespace perfgate::testing {
namespace {

// A typo'd family in an absence check used to pass: every unknown family is absent.
TEST_F(Lookups, AnUnknownKernelFamilyFailsEvenInAnAbsenceCheck) {
  EXPECT_TRUE(KernelFamilyAbsent(engine("llama"), "kv_cache") || KernelFamilyPresent(engine("llama"), "kv_cache"));
  const auto typo = KernelFamilyAbsent(engine("hf2q"), "moe_mvv");
  EXPECT_FALSE(typo);
  EXPECT_NE(std::string(typo.message()).find("unknown kernel family 'moe_mvv'"), std::string::npos) << typo.message();
  EXPECT_NE(std::string(typo.message()).find("moe_mv"), std::string::npos) << "lists the known families";
}

}  // namespace
}  // namespace perfgate::testing
