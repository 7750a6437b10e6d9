// Record conversion (framework/src/cupti/cupti_convert.h) and raw record dumps
// (record_dump.h), without a GPU: records built by hand, and the records the tracer
// captured on an H200 (fixtures/cupti/h200_eager_tiny.records.gz, with the trace the
// tracer wrote from those same records there: h200_eager_tiny.trace.json.gz).
#include "cupti/record_dump.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "core/text_input.h"
#include "cupti/cupti_convert.h"
#include "cupti/kineto_writer.h"
#include "perfgate/json_trace/reader.h"

namespace perfgate::cupti {
namespace {

const std::string kFixtures = std::string(PERFGATE_SOURCE_DIR) + "/fixtures/cupti/";

// ReadWholeFile inflates a gzip file, as every perfgate input.
std::string Inflated(const std::string& path) {
  auto bytes = internal::ReadWholeFile(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : "";
}

ProcessCapture ReplayedH200() {
  ProcessCapture c;
  std::string error;
  EXPECT_TRUE(ReplayDumpBytes(Inflated(kFixtures + "h200_eager_tiny.records.gz"), &c, &error)) << error;
  return c;
}

std::string Written(const ProcessCapture& c, const WriteOptions& options = {}) {
  std::ostringstream out;
  EXPECT_TRUE(WriteKinetoTrace(c, out, options));
  return out.str();
}

TEST(RecordDump, TheH200RecordsReplayIntoWhatTheTracerCountedThere) {
  const ProcessCapture c = ReplayedH200();
  // The counts of the trace the tracer wrote on the H200 (its perfgate_tracer.records,
  // and a Python count of its events by category: 307 kernel, 20 gpu_memcpy, 4
  // gpu_memset, 61 overhead; 3501 runtime and 4024 driver records).
  EXPECT_EQ(c.kernels.size(), 307u);
  EXPECT_EQ(c.copies.size(), 24u);
  EXPECT_EQ(c.overheads.size(), 61u);
  size_t driver = 0;
  for (const ApiRecord& a : c.api_calls) driver += a.driver;
  EXPECT_EQ(c.api_calls.size() - driver, 3501u);
  EXPECT_EQ(driver, 4024u);
  ASSERT_EQ(c.devices.size(), 1u);
  EXPECT_EQ(c.devices[0].name, "NVIDIA H200");
  EXPECT_EQ(c.devices[0].compute_major, 9u);
  EXPECT_EQ(c.devices[0].multiprocessors, 132u);
  EXPECT_TRUE(c.other_records.empty());
}

TEST(RecordDump, TheReplayWritesTheTraceTheTracerWroteOnTheH200) {
  // That trace was written before per-launch queries were summarized: every call.
  WriteOptions every_call;
  every_call.all_api_calls = true;
  auto replayed = json_trace::ReadTraceJsonBuffer(Written(ReplayedH200(), every_call), "replayed.json");
  auto there = json_trace::ReadTraceJsonFile(kFixtures + "h200_eager_tiny.trace.json.gz");
  ASSERT_TRUE(replayed.ok()) << replayed.status().ToString();
  ASSERT_TRUE(there.ok()) << there.status().ToString();
  ASSERT_EQ(replayed->items.size(), there->items.size());
  for (size_t i = 0; i < there->items.size(); ++i) {
    const auto& a = replayed->items[i];
    const auto& b = there->items[i];
    ASSERT_EQ(a.name, b.name) << i;
    ASSERT_EQ(a.start_ns, b.start_ns) << i;
    ASSERT_EQ(a.end_ns, b.end_ns) << i;
    ASSERT_EQ(a.stream, b.stream) << i;
    ASSERT_EQ(a.correlation, b.correlation) << i;
  }
  ASSERT_EQ(replayed->host_calls.size(), there->host_calls.size());
  for (size_t i = 0; i < there->host_calls.size(); ++i) {
    ASSERT_EQ(replayed->host_calls[i].name, there->host_calls[i].name) << i;
    ASSERT_EQ(replayed->host_calls[i].start_ns, there->host_calls[i].start_ns) << i;
    ASSERT_EQ(replayed->host_calls[i].correlation, there->host_calls[i].correlation) << i;
  }
}

TEST(RecordDump, GraphReplaysArriveKernelByKernel) {
  // A torch.compile CUDA-graph decode (1 layer, 2 tokens): 9 cudaGraphLaunch calls
  // replaying 25 kernels each (225 kernels with a graph id; Python count of
  // h200_graphs_tiny.trace.json.gz), each kernel carrying its launch's correlation.
  ProcessCapture c;
  std::string error;
  ASSERT_TRUE(ReplayDumpBytes(Inflated(kFixtures + "h200_graphs_tiny.records.gz"), &c, &error)) << error;
  std::map<uint32_t, std::string> launches;
  for (const ApiRecord& a : c.api_calls) launches[a.correlation] = a.name;
  size_t graph_kernels = 0;
  std::set<uint32_t> replays;
  for (const KernelRecord& k : c.kernels) {
    if (k.graph_id == 0) continue;
    ++graph_kernels;
    replays.insert(k.correlation);
    EXPECT_EQ(launches[k.correlation], "cudaGraphLaunch") << k.name;
    EXPECT_NE(k.graph_node_id, 0u);
  }
  EXPECT_EQ(graph_kernels, 225u);
  EXPECT_EQ(replays.size(), 9u);
  // Written by the tracer there with the current writer: the replay writes it again.
  auto replayed = json_trace::ReadTraceJsonBuffer(Written(c), "replayed.json");
  auto there = json_trace::ReadTraceJsonFile(kFixtures + "h200_graphs_tiny.trace.json.gz");
  ASSERT_TRUE(replayed.ok() && there.ok());
  EXPECT_EQ(replayed->items.size(), there->items.size());
  EXPECT_EQ(replayed->host_calls.size(), there->host_calls.size());
  // Every kind of event but the NVTX ranges, which come from NVTX, not from CUPTI's records.
  EXPECT_EQ(there->event_kinds.at("X/user_annotation"), 3);
  there->event_kinds.erase("X/user_annotation");
  EXPECT_EQ(replayed->event_kinds, there->event_kinds);
}

TEST(RecordDump, KernelNamesArriveDemangledAndLaunchesByTheirPlainName) {
  const ProcessCapture c = ReplayedH200();
  size_t launches = 0;
  for (const ApiRecord& a : c.api_calls) {
    ASSERT_EQ(a.name.find("_v"), std::string::npos) << a.name;  // no cudaLaunchKernel_v7000
    launches += a.name == "cudaLaunchKernel";
  }
  EXPECT_GT(launches, 200u);
  for (const KernelRecord& k : c.kernels) ASSERT_NE(k.name.rfind("_Z", 0), 0u) << k.name;
}

TEST(RecordDump, DamagedDumpsAreErrorsWithTheirOffset) {
  ProcessCapture c;
  std::string error;
  EXPECT_FALSE(ReplayDumpBytes("not a dump", &c, &error));
  EXPECT_NE(error.find("PGCUPTI1"), std::string::npos) << error;
  std::string whole = Inflated(kFixtures + "h200_eager_tiny.records.gz");
  error.clear();
  EXPECT_FALSE(ReplayDumpBytes(whole.substr(0, whole.size() - 3), &c, &error));
  EXPECT_NE(error.find("offset "), std::string::npos) << error;
  // A kernel record of another size: a dump of other CUPTI headers.
  std::string wrong = "PGCUPTI1\n";
  const uint32_t words[] = {1, static_cast<uint32_t>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 8};
  wrong.append(reinterpret_cast<const char*>(words), sizeof words);
  wrong.append(8, '\0');
  wrong.append(4, '\0');
  error.clear();
  EXPECT_FALSE(ReplayDumpBytes(wrong, &c, &error));
  EXPECT_NE(error.find("is 8 bytes, expected"), std::string::npos) << error;
}

TEST(AppendActivity, AHandMadeGraphKernelRecordKeepsEveryField) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof k);
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 3500;
  k.deviceId = 1;
  k.contextId = 2;
  k.streamId = 13;
  k.correlationId = 77;
  k.gridX = 132, k.gridY = 1, k.gridZ = 1;
  k.blockX = 128, k.blockY = 1, k.blockZ = 1;
  k.registersPerThread = 96;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 4096;
  k.graphId = 5;
  k.graphNodeId = 9;
  k.name = "_ZN7cutlass6KernelI4GemmEEvNT_6ParamsE";
  ProcessCapture c;
  AppendActivity(reinterpret_cast<const CUpti_Activity*>(&k), {}, &c);
  ASSERT_EQ(c.kernels.size(), 1u);
  const KernelRecord& r = c.kernels[0];
  EXPECT_EQ(r.name, "void cutlass::Kernel<Gemm>(Gemm::Params)");
  EXPECT_EQ(r.end_ns - r.start_ns, 2500u);
  EXPECT_EQ(r.device, 1u);
  EXPECT_EQ(r.stream, 13u);
  EXPECT_EQ(r.correlation, 77u);
  EXPECT_EQ(r.grid[0], 132);
  EXPECT_EQ(r.shared_memory, 5120);
  EXPECT_EQ(r.graph_id, 5u);
  EXPECT_EQ(r.graph_node_id, 9u);
}

TEST(AppendActivity, ApiNamesCopiesAndUnknownKinds) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof a);
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 211;
  a.threadId = 99;
  ProcessCapture c;
  const ApiNamer namer = [](bool driver, uint32_t cbid) {
    return !driver && cbid == 211 ? std::string("cudaLaunchKernel_ptsz_v7000") : std::string();
  };
  AppendActivity(reinterpret_cast<const CUpti_Activity*>(&a), namer, &c);
  a.cbid = 9999;
  AppendActivity(reinterpret_cast<const CUpti_Activity*>(&a), namer, &c);
  ASSERT_EQ(c.api_calls.size(), 2u);
  EXPECT_EQ(c.api_calls[0].name, "cudaLaunchKernel");
  EXPECT_EQ(c.api_calls[0].cupti_name, "cudaLaunchKernel_ptsz_v7000");
  EXPECT_EQ(c.api_calls[0].tid, 99u);
  EXPECT_EQ(c.api_calls[1].name, "cuda_runtime_cbid_9999");  // unnamed, never dropped

  CUpti_ActivityMemcpy6 m;
  std::memset(&m, 0, sizeof m);
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.bytes = 4096;
  AppendActivity(reinterpret_cast<const CUpti_Activity*>(&m), {}, &c);
  ASSERT_EQ(c.copies.size(), 1u);
  EXPECT_EQ(c.copies[0].name, "Memcpy DtoH (Device -> Pinned)");  // Kineto's words
  EXPECT_EQ(c.copies[0].bytes, 4096u);

  CUpti_Activity other;
  other.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  AppendActivity(&other, {}, &c);
  EXPECT_EQ(c.other_records.at(std::to_string(static_cast<int>(CUPTI_ACTIVITY_KIND_CONTEXT))), 1u);
}

TEST(PlainApiName, DropsTheVersionAndPerThreadSuffixes) {
  EXPECT_EQ(PlainApiName("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(PlainApiName("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(PlainApiName("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(PlainApiName("cuMemAlloc_v2"), "cuMemAlloc");
  EXPECT_EQ(PlainApiName("cudaGraphLaunch_v10000"), "cudaGraphLaunch");
}

TEST(MemsetName, UsesKinetosWords) {
  EXPECT_EQ(MemsetName(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE), "Memset (Device)");
  EXPECT_EQ(OverheadName(CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH), "CUPTI Buffer Flush");
}

}  // namespace
}  // namespace perfgate::cupti
