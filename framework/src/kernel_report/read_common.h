// What every reader of per-kernel reports does once its kernels are read.
#ifndef PERFGATE_SRC_KERNEL_REPORT_READ_COMMON_H_
#define PERFGATE_SRC_KERNEL_REPORT_READ_COMMON_H_

#include <string>

#include "perfgate/kernel_report/report.h"

namespace perfgate::kernel_report {

// A JSON report from its text (ReadKernelReport reads the file, then this); the
// errors of ReadKernelReport.
StatusOr<KernelReport> ParseKernelReportJson(const std::string& path, const std::string& text,
                                             const attribution::KernelFamilyTable& families);

// Kernels that differ only in their specialisation are summed when two stacks are
// compared: kernel_report.merged_kernels, once per extra kernel.
void CountMergedKernels(KernelReport* report);

}  // namespace perfgate::kernel_report

#endif  // PERFGATE_SRC_KERNEL_REPORT_READ_COMMON_H_
