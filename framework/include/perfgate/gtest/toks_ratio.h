// GoogleTest assertions on tok/s ratio floors against llama-bench (seam: filled by the issue-15 work).
#ifndef PERFGATE_GTEST_TOKS_RATIO_H_
#define PERFGATE_GTEST_TOKS_RATIO_H_

#endif  // PERFGATE_GTEST_TOKS_RATIO_H_
