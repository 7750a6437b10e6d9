#include "kineto_gen.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace perfgate::json_trace::gen {

std::string Micros(int64_t ns) {
  char buf[48];
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t m = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  std::snprintf(buf, sizeof buf, "%s%llu.%03llu", sign, static_cast<unsigned long long>(m / 1000),
                static_cast<unsigned long long>(m % 1000));
  return buf;
}

namespace {

std::string S(int64_t v) { return std::to_string(v); }

}  // namespace

KinetoWriter::KinetoWriter() {
  out_ =
      "\n  {\n    \"schemaVersion\": 1,\n    \"deviceProperties\": [\n      {\n      \"id\": 0, \"name\": "
      "\"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85045379072,\n      \"computeMajor\": 9, \"computeMinor\": 0,\n"
      "      \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, "
      "\"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n      \"sharedMemPerBlock\": 49152, "
      "\"sharedMemPerMultiprocessor\": 233472,\n      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n    }\n"
      "    ],\n    \"cupti_version\": 22,\n    \"cuda_runtime_version\": 12040,\n    \"cuda_driver_version\": 12040,\n"
      "    \"trace_id\": \"7F3D5C0A8E1B4F2C9A6D0E1F2A3B4C5D\",\n  \"displayTimeUnit\": \"ms\",\n"
      "  \"baseTimeNanoseconds\": 1727000000000000000,\n  \"traceEvents\": [";
}

void KinetoWriter::Begin() {
  out_ += first_ ? "\n" : ",\n";
  first_ = false;
}

void KinetoWriter::ProcessName(int64_t pid, const std::string& name) {
  Begin();
  out_ += "  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": " + S(pid) +
          ", \"tid\": 0,\n    \"args\": {\n      \"name\": \"" + name + "\"\n    }\n  }";
}

void KinetoWriter::ThreadName(int64_t pid, int64_t tid, const std::string& name) {
  Begin();
  out_ += "  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": " + S(pid) +
          ", \"tid\": " + S(tid) + ",\n    \"args\": {\n      \"name\": \"" + name + "\"\n    }\n  }";
}

void KinetoWriter::SortIndex(int64_t pid, int64_t index) {
  Begin();
  out_ += "  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": " + S(pid) +
          ", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": " + S(index) + "\n    }\n  }";
}

void KinetoWriter::Kernel(const std::string& name, int64_t device, int64_t stream, int64_t ts_ns, int64_t dur_ns,
                          std::optional<int64_t> correlation, int64_t external_id) {
  Begin();
  out_ += "  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name + "\", \"pid\": " + S(device) +
          ", \"tid\": " + S(stream) + ",\n    \"ts\": " + Micros(ts_ns) + ", \"dur\": " + Micros(dur_ns) +
          ",\n    \"args\": {\n      \"External id\": " + S(external_id) +
          ",\n      \"queued\": 0, \"device\": " + S(device) + ", \"context\": 1,\n      \"stream\": " + S(stream);
  if (correlation) out_ += ", \"correlation\": " + S(*correlation);
  out_ +=
      ",\n      \"registers per thread\": 32,\n      \"shared memory\": 0,\n      \"blocks per SM\": 0.015625,\n"
      "      \"warps per SM\": 0.0625,\n      \"grid\": [132, 1, 1],\n      \"block\": [128, 1, 1],\n"
      "      \"est. achieved occupancy %\": 1\n    }\n  }";
}

// A gpu_memcpy or gpu_memset event: the two differ only in category and payload.
void KinetoWriter::MemoryOp(const char* cat, const char* payload, const std::string& name, int64_t device,
                            int64_t stream, int64_t ts_ns, int64_t dur_ns, int64_t correlation) {
  Begin();
  out_ += std::string("  {\n    \"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
          "\", \"pid\": " + S(device) + ", \"tid\": " + S(stream) + ",\n    \"ts\": " + Micros(ts_ns) +
          ", \"dur\": " + Micros(dur_ns) + ",\n    \"args\": {\n      \"External id\": 0,\n      \"device\": " +
          S(device) + ", \"context\": 1,\n      \"stream\": " + S(stream) + ", \"correlation\": " +
          S(correlation) + ",\n      " + payload + "\n    }\n  }";
}

void KinetoWriter::Memcpy(const std::string& name, int64_t device, int64_t stream, int64_t ts_ns, int64_t dur_ns,
                          int64_t correlation) {
  MemoryOp("gpu_memcpy", "\"bytes\": 4, \"memory bandwidth (GB/s)\": 0.0016", name, device, stream, ts_ns, dur_ns,
           correlation);
}

void KinetoWriter::Memset(const std::string& name, int64_t device, int64_t stream, int64_t ts_ns, int64_t dur_ns,
                          int64_t correlation) {
  MemoryOp("gpu_memset", "\"bytes\": 512, \"memory bandwidth (GB/s)\": 0.5", name, device, stream, ts_ns, dur_ns,
           correlation);
}

void KinetoWriter::Runtime(const std::string& name, int64_t pid, int64_t tid, int64_t ts_ns, int64_t dur_ns,
                           int64_t correlation, int64_t external_id) {
  Begin();
  out_ += "  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"" + name + "\", \"pid\": " + S(pid) +
          ", \"tid\": " + S(tid) + ",\n    \"ts\": " + Micros(ts_ns) + ", \"dur\": " + Micros(dur_ns) +
          ",\n    \"args\": {\n      \"External id\": " + S(external_id) +
          ",\n      \"cbid\": 211, \"correlation\": " + S(correlation) + "\n    }\n  }";
}

void KinetoWriter::Annotation(const std::string& name, bool gpu, int64_t pid, int64_t tid, int64_t ts_ns,
                              int64_t dur_ns, int64_t external_id) {
  Begin();
  out_ += std::string("  {\n    \"ph\": \"X\", \"cat\": \"") + (gpu ? "gpu_user_annotation" : "user_annotation") +
          "\", \"name\": \"" + name + "\", \"pid\": " + S(pid) + ", \"tid\": " + S(tid) +
          ",\n    \"ts\": " + Micros(ts_ns) + ", \"dur\": " + Micros(dur_ns) +
          ",\n    \"args\": {\n      \"External id\": " + S(external_id);
  if (!gpu) out_ += ",\"Record function id\": 0, \"Ev Idx\": " + S(external_id);
  if (gpu) out_ += ",\n      \"device\": " + S(pid) + ", \"stream\": " + S(tid);
  out_ += "\n    }\n  }";
}

void KinetoWriter::CpuOp(const std::string& name, int64_t pid, int64_t tid, int64_t ts_ns, int64_t dur_ns,
                         int64_t external_id) {
  Begin();
  out_ += "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" + name + "\", \"pid\": " + S(pid) +
          ", \"tid\": " + S(tid) + ",\n    \"ts\": " + Micros(ts_ns) + ", \"dur\": " + Micros(dur_ns) +
          ",\n    \"args\": {\n      \"External id\": " + S(external_id) +
          ",\"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\", \"1\"], \"Input type\": [\"c10::BFloat16\", "
          "\"c10::BFloat16\", \"Scalar\"], \"Input Strides\": [[4096, 1], [4096, 1], []], \"Input Dims\": [[1, 4096], "
          "[1, 4096], []], \"Ev Idx\": " +
          S(external_id) + "\n    }\n  }";
}

void KinetoWriter::PythonFunction(const std::string& name, int64_t pid, int64_t tid, int64_t ts_ns, int64_t dur_ns) {
  Begin();
  out_ += "  {\n    \"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"" + name + "\", \"pid\": " + S(pid) +
          ", \"tid\": " + S(tid) + ",\n    \"ts\": " + Micros(ts_ns) + ", \"dur\": " + Micros(dur_ns) +
          ",\n    \"args\": {\n      \"Python parent id\": 12, \"Python id\": 13, \"Ev Idx\": 14\n    }\n  }";
}

void KinetoWriter::Flow(int64_t id, int64_t pid, int64_t tid, int64_t ts_ns, int64_t device, int64_t stream,
                        int64_t gpu_ts_ns) {
  Begin();
  out_ += "  {\n    \"ph\": \"s\", \"id\": " + S(id) + ", \"pid\": " + S(pid) + ", \"tid\": " + S(tid) +
          ", \"ts\": " + Micros(ts_ns) + ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }";
  Begin();
  out_ += "  {\n    \"ph\": \"f\", \"id\": " + S(id) + ", \"pid\": " + S(device) + ", \"tid\": " + S(stream) +
          ", \"ts\": " + Micros(gpu_ts_ns) + ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }";
}

void KinetoWriter::Raw(const std::string& event_json) {
  Begin();
  out_ += event_json;
}

std::string KinetoWriter::Finish() {
  Begin();
  out_ += "  {\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", "
          "\"ts\": 0.000\n  }\n  ],\n  \"traceName\": \"/tmp/trace.pt.trace.json\"\n}";
  return std::move(out_);
}

namespace {

// Kernels of one transformer layer: name, duration range in ns.
struct KernelShape {
  const char* name;
  int64_t min_ns;
  int64_t spread_ns;
};
constexpr KernelShape kLayer[] = {
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
     "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
     2'000, 1'500},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
     "5x_cublas",
     18'000, 6'000},
    {"void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t, "
     "Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, true, false, false, "
     "false>(Flash_fwd_params)",
     25'000, 10'000},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
     1'200, 800},
    {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>("
     "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8::Params)",
     40'000, 20'000},
    {"triton_poi_fused_mul_silu_0", 3'000, 2'000},
};
constexpr const char* kOps[] = {"aten::layer_norm", "aten::linear", "aten::_flash_attention_forward", "aten::add",
                                "aten::linear", "aten::silu"};

}  // namespace

std::string DecodeTrace(const DecodeTraceSpec& spec) {
  KinetoWriter w;
  const int64_t pid = 4242, tid = 4242, device = 0, stream = 7;
  w.ProcessName(pid, "python3");
  w.ThreadName(pid, tid, "thread 4242 (python3)");
  w.ProcessName(device, "GPU 0");
  w.ThreadName(device, stream, "stream 7");
  w.SortIndex(device, 5000000);
  uint64_t state = spec.seed * 0x9E3779B97F4A7C15ULL + 1;
  auto next = [&]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int64_t cpu = 1'000'000'000;  // ns
  int64_t gpu = cpu + 50'000;
  int64_t correlation = 1;
  int64_t external = 1;
  for (int64_t token = 0; token < spec.tokens; ++token) {
    const int64_t step_start = cpu;
    const int64_t step_external = external++;
    const int64_t gpu_step_start = std::max(gpu, cpu + 20'000);
    gpu = gpu_step_start;
    int64_t graph_correlation = 0;
    if (spec.cuda_graphs) {
      graph_correlation = correlation++;
      w.Runtime("cudaGraphLaunch", pid, tid, cpu + 1'000, 9'000, graph_correlation, step_external);
      w.Flow(graph_correlation, pid, tid, cpu + 1'000, device, stream, gpu);
    }
    w.PythonFunction("torch/nn/modules/module.py(1736): _call_impl", pid, tid, cpu, 1);
    for (int64_t layer = 0; layer < spec.layers; ++layer) {
      for (size_t k = 0; k < sizeof kLayer / sizeof kLayer[0]; ++k) {
        const int64_t op_external = external++;
        const int64_t dur = kLayer[k].min_ns + static_cast<int64_t>(next() % static_cast<uint64_t>(kLayer[k].spread_ns));
        if (!spec.cuda_graphs) {
          const int64_t c = correlation++;
          w.CpuOp(kOps[k], pid, tid, cpu, 9'000, op_external);
          w.Runtime("cudaLaunchKernel", pid, tid, cpu + 2'000, 5'000, c, op_external);
          w.Flow(c, pid, tid, cpu + 2'000, device, stream, gpu);
          w.Kernel(kLayer[k].name, device, stream, gpu, dur, c, op_external);
          cpu += 10'000;
        } else {
          w.Kernel(kLayer[k].name, device, stream, gpu, dur, graph_correlation, step_external);
        }
        gpu += dur + 1'000;
      }
    }
    if (spec.cuda_graphs) cpu += 12'000;
    w.Annotation("decode_step", false, pid, tid, step_start, cpu - step_start, step_external);
    if (spec.gpu_annotations) {
      w.Annotation("decode_step", true, device, stream, gpu_step_start - 1, gpu - gpu_step_start + 2, step_external);
    }
    cpu += 30'000;
  }
  return w.Finish();
}

std::string Gzip(const std::string& bytes) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, static_cast<uLong>(bytes.size())), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs.avail_in = static_cast<uInt>(bytes.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

}  // namespace perfgate::json_trace::gen
