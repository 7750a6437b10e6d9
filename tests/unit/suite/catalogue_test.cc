// The metric catalogue: one identity per figure, from which every spelling derives.
#include <gtest/gtest.h>

#include <set>

#include "perfgate/golden/golden.h"
#include "perfgate/metrics/catalogue.h"
#include "perfgate/suite/suite.h"

namespace perfgate::metrics {
namespace {

TEST(MetricId, EverySpellingDerivesFromOneIdentity) {
  const MetricId bucket{"buckets", "md_8_32us", "us_per_token"};
  EXPECT_EQ(bucket.GoldenPath(), "buckets/md_8_32us/us_per_token");
  EXPECT_EQ(bucket.VerdictName("hf2q"), "hf2q.md_8_32us.us_per_token");  // as failure tables always read
  EXPECT_EQ(bucket.CounterName(), "md_8_32us.us_per_token");             // as benchmark counters always were
  EXPECT_EQ(bucket.JsonKey(), "buckets/md_8_32us/us_per_token");
  const MetricId total{"", "", "gpu_us_per_token"};
  EXPECT_EQ(total.GoldenPath(), "gpu_us_per_token");
  EXPECT_EQ(total.VerdictName("hf2q"), "hf2q.gpu_us_per_token");
  EXPECT_EQ(total.CounterName(), "gpu_us_per_token");
  const MetricId family{"families", "gemm", "gpu_us_per_token"};
  EXPECT_EQ(family.VerdictName("graphs"), "graphs.family.gemm.gpu_us_per_token");
  EXPECT_EQ(family.CounterName(), "family.gemm.gpu_us_per_token");
  const MetricId phase{"phases", "layer.attn_moe_ffn", "cbs_per_token"};
  EXPECT_EQ(phase.VerdictName("hf2q"), "hf2q.layer.attn_moe_ffn.cbs_per_token");
  EXPECT_EQ(phase.CounterName(), "phase.layer.attn_moe_ffn.cbs_per_token");
}

TEST(MetricId, GoldenPathsParseBack) {
  for (const MetricId& id : {MetricId{"buckets", "xl_>=80us", "us_per_token"}, MetricId{"", "", "busy_us_per_token"},
                             MetricId{"phases", "layer.moe_router", "gpu_us_per_token"},
                             MetricId{"kernel_families", "moe_mv", "kernels"}}) {
    auto back = MetricId::FromGoldenPath(id.GoldenPath());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == id) << id.GoldenPath();
  }
  auto bad = MetricId::FromGoldenPath("bucket/md_8_32us/us_per_token");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("scopes: buckets, phases"), std::string::npos) << bad.status().message();
}

class CatalogueOnRecording : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    suite::SuiteConfig c;
    c.suite = "catalogue_test";
    c.recordings_dir = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/recordings/decode_q4_0";
    suite::EngineSpec hf2q;
    hf2q.name = "hf2q";
    hf2q.options.window = attribution::DecodeWindow{attribution::DecodeWindow::Mode::kLabel,
                                                    "output_head.fused_norm_lm_argmax"};
    hf2q.options.token_label = "output_head.fused_norm_lm_argmax";
    c.engines = {hf2q};
    load_ = new suite::SuiteLoad(suite::LoadSuite(c, [](const std::string&) { return std::nullopt; }));
  }
  static void TearDownTestSuite() { delete load_; }
  const attribution::EngineSummary& Hf2q() { return load_->data->engines.at("hf2q"); }
  static suite::SuiteLoad* load_;
};
suite::SuiteLoad* CatalogueOnRecording::load_ = nullptr;

// Goldens written before the catalogue keep matching field for field: the committed
// golden of this recording has exactly the metrics EngineGolden builds.
TEST_F(CatalogueOnRecording, EngineGoldenHoldsTheFieldsOfTheCommittedGolden) {
  ASSERT_TRUE(load_->error.ok()) << load_->error.ToString();
  auto committed = golden::ReadGolden(std::string(PERFGATE_SOURCE_DIR) + "/golden/hf2q_decode/Hf2qGolden.json");
  ASSERT_TRUE(committed.ok()) << committed.status().ToString();
  std::set<std::string> want, got;
  for (const auto& [k, _] : committed->values) want.insert(k);
  for (const auto& [k, _] : EngineGolden(Hf2q()).values) got.insert(k);
  EXPECT_EQ(got, want);
}

TEST_F(CatalogueOnRecording, FindMetricFailsOnAnUnknownNameListingTheKnownOnes) {
  ASSERT_TRUE(load_->error.ok()) << load_->error.ToString();
  auto m = FindMetric(Hf2q(), "buckets/md_8_32us/us_per_token");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->value.per_trial.size(), 3u);
  auto typo = FindMetric(Hf2q(), "buckets/md_8_23us/us_per_token");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), "metric.unknown");
  EXPECT_NE(typo.status().message().find("buckets/md_8_32us/us_per_token"), std::string::npos)
      << typo.status().message();
}

}  // namespace
}  // namespace perfgate::metrics
