// tok/s ratio assertions (perfgate/gtest/toks_ratio.h).
#include "perfgate/gtest/toks_ratio.h"

#include "perfgate/gates/verdict.h"
#include "perfgate/document/render.h"

namespace perfgate::testing {
namespace {

::testing::AssertionResult Failed(const std::vector<toks::RatioVerdict>& verdicts) {
  std::vector<gates::MetricVerdict> rows;
  for (const toks::RatioVerdict& v : verdicts) rows.push_back(v.verdict);
  return ::testing::AssertionFailure() << "tok/s ratio below its floor\n"
                                       << document::Render(toks::RatioDocument(verdicts), "text").value()
                                       << gates::FormatVerdictTable(rows);
}

}  // namespace

::testing::AssertionResult ToksRatioAtLeast(const toks::BenchReport& engine, const toks::BenchReport& baseline,
                                            const std::string& test, double floor, double tolerance_pp) {
  auto v = toks::JudgeRatio(test, engine, baseline, test, floor, tolerance_pp);
  if (!v.ok()) return ::testing::AssertionFailure() << v.status().ToString();
  if (!v->pass) return Failed({*v});
  return ::testing::AssertionSuccess() << v->verdict.explanation;
}

::testing::AssertionResult ToksCellsPass(const std::vector<toks::RatioVerdict>& verdicts) {
  if (verdicts.empty()) return ::testing::AssertionFailure() << "no tok/s cells were judged";
  for (const toks::RatioVerdict& v : verdicts) {
    if (!v.pass) return Failed(verdicts);
  }
  return ::testing::AssertionSuccess();
}

}  // namespace perfgate::testing
