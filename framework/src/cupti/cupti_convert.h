// Turns CUPTI activity records into the tracer's plain records (trace_records.h).
// Needs CUPTI's headers only, never its library or a GPU: the tests feed it records
// captured on a real GPU (record_dump.h) and records built by hand.
#ifndef PERFGATE_SRC_CUPTI_CUPTI_CONVERT_H_
#define PERFGATE_SRC_CUPTI_CUPTI_CONVERT_H_

#include <cupti_activity.h>

#include <cstdint>
#include <functional>
#include <string>

#include "cupti/trace_records.h"

namespace perfgate::cupti {

// The name of a runtime (driver false) or driver API callback id, as CUPTI gives it
// ("cudaLaunchKernel_v7000"); "" when unknown. The tracer passes cuptiGetCallbackName.
using ApiNamer = std::function<std::string(bool driver, uint32_t cbid)>;

// The activity kinds the tracer enables, in the order it enables them.
const CUpti_ActivityKind* TracedActivityKinds(size_t* count);

// The size of the record struct of `kind` in these headers (CUpti_ActivityKernel10,
// ...), or 0 for a kind the tracer does not keep.
size_t RecordSize(CUpti_ActivityKind kind);

// "cudaLaunchKernel" for "cudaLaunchKernel_v7000" and "cudaLaunchKernel_ptsz_v7000":
// the version suffix and the per-thread-stream suffix go, as Kineto's names have them.
std::string PlainApiName(const std::string& cupti_name);

// A demangled kernel name: abi::__cxa_demangle for "_Z..." names, the name itself
// otherwise (Triton's and most hand-written kernels are not mangled).
std::string DemangledKernelName(const char* name);

// Kineto's words for a copy: "Memcpy DtoH (Device -> Pinned)", "Memset (Device)".
std::string MemcpyName(uint8_t copy_kind, uint8_t src_kind, uint8_t dst_kind);
std::string MemsetName(uint16_t memory_kind);
std::string OverheadName(CUpti_ActivityOverheadKind kind);

// Appends one activity record to `capture`: kernels, copies, API calls, overhead and
// devices are kept; any other kind is counted in capture->other_records by its number.
void AppendActivity(const CUpti_Activity* record, const ApiNamer& namer, ProcessCapture* capture);

}  // namespace perfgate::cupti

#endif  // PERFGATE_SRC_CUPTI_CUPTI_CONVERT_H_
