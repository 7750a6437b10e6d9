// GoogleTest assertions on per-kernel timing reports (seam: filled by the issue-15 work).
#ifndef PERFGATE_GTEST_KERNEL_REPORT_H_
#define PERFGATE_GTEST_KERNEL_REPORT_H_

#endif  // PERFGATE_GTEST_KERNEL_REPORT_H_
