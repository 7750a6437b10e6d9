// What every reader of per-kernel reports does once its kernels are read.
#ifndef PERFGATE_SRC_KERNEL_REPORT_READ_COMMON_H_
#define PERFGATE_SRC_KERNEL_REPORT_READ_COMMON_H_

#include "perfgate/kernel_report/report.h"

namespace perfgate::kernel_report {

// Kernels that differ only in their specialisation are summed when two stacks are
// compared: kernel_report.merged_kernels, once per extra kernel.
void CountMergedKernels(KernelReport* report);

}  // namespace perfgate::kernel_report

#endif  // PERFGATE_SRC_KERNEL_REPORT_READ_COMMON_H_
