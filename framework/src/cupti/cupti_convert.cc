// CUPTI activity records into plain records: see cupti_convert.h.
#include "cupti/cupti_convert.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

namespace perfgate::cupti {
namespace {

constexpr CUpti_ActivityKind kTracedKinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,  CUPTI_ACTIVITY_KIND_RUNTIME,           CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_OVERHEAD};

const char* MemcpyKindWord(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "Unknown";
  }
}

const char* MemoryKindWord(uint16_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "Array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "Managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "Device Static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "Managed Static";
    default: return "Unknown";
  }
}

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Records are read by copying them into their struct: CUPTI packs them, and a copy
// never reads an unaligned field in place.
template <typename T>
T Copy(const CUpti_Activity* record) {
  T out;
  std::memcpy(&out, record, sizeof out);
  return out;
}

void AppendKernel(const CUpti_Activity* record, ProcessCapture* c) {
  const auto k = Copy<CUpti_ActivityKernel10>(record);
  KernelRecord r;
  r.name = DemangledKernelName(k.name);
  r.start_ns = k.start;
  r.end_ns = k.end;
  r.device = k.deviceId;
  r.context = k.contextId;
  r.stream = k.streamId;
  r.correlation = k.correlationId;
  r.grid[0] = k.gridX, r.grid[1] = k.gridY, r.grid[2] = k.gridZ;
  r.block[0] = k.blockX, r.block[1] = k.blockY, r.block[2] = k.blockZ;
  r.registers_per_thread = k.registersPerThread;
  r.shared_memory = int64_t{k.staticSharedMemory} + k.dynamicSharedMemory;
  r.graph_id = k.graphId;
  r.graph_node_id = k.graphNodeId;
  c->kernels.push_back(std::move(r));
}

// The fields memcpy and memset records share.
template <typename T>
CopyRecord CopyOf(const T& m, bool memset, std::string name) {
  CopyRecord r;
  r.memset = memset;
  r.name = std::move(name);
  r.start_ns = m.start;
  r.end_ns = m.end;
  r.device = m.deviceId;
  r.context = m.contextId;
  r.stream = m.streamId;
  r.correlation = m.correlationId;
  r.bytes = m.bytes;
  r.graph_id = m.graphId;
  return r;
}

void AppendMemcpy(const CUpti_Activity* record, ProcessCapture* c) {
  const auto m = Copy<CUpti_ActivityMemcpy6>(record);
  c->copies.push_back(CopyOf(m, false, MemcpyName(m.copyKind, m.srcKind, m.dstKind)));
}

void AppendMemset(const CUpti_Activity* record, ProcessCapture* c) {
  const auto m = Copy<CUpti_ActivityMemset4>(record);
  c->copies.push_back(CopyOf(m, true, MemsetName(m.memoryKind)));
}

void AppendApi(const CUpti_Activity* record, const ApiNamer& namer, ProcessCapture* c) {
  const auto a = Copy<CUpti_ActivityAPI>(record);
  ApiRecord r;
  r.driver = a.kind == CUPTI_ACTIVITY_KIND_DRIVER;
  const std::string cupti_name = namer ? namer(r.driver, a.cbid) : "";
  r.name = cupti_name.empty() ? (r.driver ? "cuda_driver_cbid_" : "cuda_runtime_cbid_") + std::to_string(a.cbid)
                              : PlainApiName(cupti_name);
  if (r.name != cupti_name) r.cupti_name = cupti_name;
  r.cbid = a.cbid;
  r.start_ns = a.start;
  r.end_ns = a.end;
  r.pid = a.processId;
  r.tid = a.threadId;
  r.correlation = a.correlationId;
  r.return_value = a.returnValue;
  c->api_calls.push_back(std::move(r));
}

void AppendOverhead(const CUpti_Activity* record, ProcessCapture* c) {
  const auto o = Copy<CUpti_ActivityOverhead3>(record);
  OverheadRecord r;
  r.name = OverheadName(o.overheadKind);
  r.start_ns = o.start;
  r.end_ns = o.end;
  r.on_device = o.objectKind == CUPTI_ACTIVITY_OBJECT_DEVICE;
  if (r.on_device) {
    r.pid = o.objectId.dcs.deviceId;
    r.tid = o.objectId.dcs.streamId;
  } else {
    r.pid = o.objectId.pt.processId;
    r.tid = o.objectId.pt.threadId;
  }
  c->overheads.push_back(std::move(r));
}

void AppendDevice(const CUpti_Activity* record, ProcessCapture* c) {
  const auto d = Copy<CUpti_ActivityDevice5>(record);
  DeviceRecord r;
  r.id = d.id;
  r.name = d.name != nullptr ? d.name : "";
  r.compute_major = d.computeCapabilityMajor;
  r.compute_minor = d.computeCapabilityMinor;
  r.multiprocessors = d.numMultiprocessors;
  r.global_memory_bytes = d.globalMemorySize;
  r.memory_bandwidth_kbps = d.globalMemoryBandwidth;
  r.core_clock_khz = d.coreClockRate;
  r.l2_cache_bytes = d.l2CacheSize;
  r.max_threads_per_block = d.maxThreadsPerBlock;
  r.warp_size = d.numThreadsPerWarp;
  c->devices.push_back(std::move(r));
}

}  // namespace

const CUpti_ActivityKind* TracedActivityKinds(size_t* count) {
  *count = sizeof kTracedKinds / sizeof kTracedKinds[0];
  return kTracedKinds;
}

size_t RecordSize(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
    default: return 0;
  }
}

std::string PlainApiName(const std::string& cupti_name) {
  std::string name = cupti_name;
  const size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() &&
      name.find_first_not_of("0123456789", v + 2) == std::string::npos) {
    name.erase(v);
  }
  for (const char* suffix : {"_ptsz", "_ptds"}) {
    if (EndsWith(name, suffix)) name.erase(name.size() - std::strlen(suffix));
  }
  return name;
}

std::string DemangledKernelName(const char* name) {
  if (name == nullptr) return "";
  if (std::strncmp(name, "_Z", 2) != 0) return name;
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && demangled != nullptr ? demangled : name;
  std::free(demangled);
  return out;
}

std::string MemcpyName(uint8_t copy_kind, uint8_t src_kind, uint8_t dst_kind) {
  return std::string("Memcpy ") + MemcpyKindWord(copy_kind) + " (" + MemoryKindWord(src_kind) + " -> " +
         MemoryKindWord(dst_kind) + ")";
}

std::string MemsetName(uint16_t memory_kind) { return std::string("Memset (") + MemoryKindWord(memory_kind) + ")"; }

std::string OverheadName(CUpti_ActivityOverheadKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "Driver Compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "CUPTI Buffer Flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "CUPTI Instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "CUPTI Resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "Runtime Triggered Module Loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING: return "Lazy Function Loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL: return "Command Buffer Full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "Activity Buffer Request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT: return "UVM Activity Init";
    default: return "Unknown Overhead " + std::to_string(static_cast<long long>(kind));
  }
}

void AppendActivity(const CUpti_Activity* record, const ApiNamer& namer, ProcessCapture* capture) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return AppendKernel(record, capture);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return AppendMemcpy(record, capture);
    case CUPTI_ACTIVITY_KIND_MEMSET: return AppendMemset(record, capture);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: return AppendApi(record, namer, capture);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return AppendOverhead(record, capture);
    case CUPTI_ACTIVITY_KIND_DEVICE: return AppendDevice(record, capture);
    default: ++capture->other_records[std::to_string(static_cast<int>(record->kind))];
  }
}

}  // namespace perfgate::cupti
