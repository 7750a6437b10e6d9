// What a CUDA or HIP host call launches, by its name: the knowledge the trace-event
// JSON and Nsight Systems importers share when they fill model::HostCall::kind.
#ifndef PERFGATE_SRC_SOURCES_CUDA_LAUNCH_KIND_H_
#define PERFGATE_SRC_SOURCES_CUDA_LAUNCH_KIND_H_

#include <string_view>

#include "perfgate/model/work.h"

namespace perfgate::sources {

// The same for CUDA's runtime and driver and for HIP: cudaGraphLaunch, cuGraphLaunch,
// hipGraphLaunch launch graphs; cudaLaunchKernel(ExC), cuLaunchKernel(Ex),
// cudaLaunchCooperativeKernel and hipLaunchKernel, hipExtLaunchKernel,
// hipModuleLaunchKernel, hipExtModuleLaunchKernel, hipLaunchCooperativeKernel launch
// one kernel; the rest (cudaMemcpyAsync, hipMemcpyWithStream, hipMemsetAsync, ...)
// are other calls.
inline model::HostCallKind CudaHostCallKind(std::string_view name) {
  auto contains = [name](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (contains("GraphLaunch")) return model::HostCallKind::kGraphLaunch;
  if (contains("LaunchKernel") || contains("LaunchCooperativeKernel")) return model::HostCallKind::kKernelLaunch;
  return model::HostCallKind::kOther;
}

}  // namespace perfgate::sources

#endif  // PERFGATE_SRC_SOURCES_CUDA_LAUNCH_KIND_H_
