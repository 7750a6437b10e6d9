// Everything a perf suite written with GoogleTest uses, and nothing of the readers:
//  * perfgate::testing::PerfSuiteFixture, the suite's configuration (SuiteConfig) and
//    its engines' summaries;
//  * the assertions, each PERFGATE_EXPECT_* with a PERFGATE_ASSERT_* twin that ends the
//    test on failure, on engine summaries, golden files, per-kernel timing reports and
//    llama-bench tok/s reports; a failure prints perfgate's own message (the verdict
//    table, its legend and what moved) and nothing before it;
//  * RecordFigure and the movers setting.
// The ANE notch fixture is perfgate/gtest/ane_fixture.h (macOS only).
#ifndef PERFGATE_GTEST_H_
#define PERFGATE_GTEST_H_

#include "perfgate/gtest/perfgate_gtest.h"

#endif  // PERFGATE_GTEST_H_
