// The program the tracer-injection tests run with NVTX_INJECTION64_PATH pointing at
// libperfgate_cupti.so: NVTX ranges of every kind NVTX offers, on two threads, and one
// range left open. With `--cuda-init TRACER` it also calls the tracer's
// InitializeInjection as the CUDA driver would (there is no driver here).
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstring>
#include <thread>

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--cuda-init") == 0) {
    void* tracer = dlopen(argv[2], RTLD_NOW);
    auto init = tracer != nullptr ? reinterpret_cast<int (*)()>(dlsym(tracer, "InitializeInjection")) : nullptr;
    std::printf("InitializeInjection: %d\n", init != nullptr ? init() : -1);
  }
  nvtxNameOsThreadA(0, "ignored");
  nvtxRangePushA("prefill");
  nvtxRangePop();
  for (int step = 0; step < 3; ++step) {
    nvtxRangePushA("decode_step");
    nvtxRangePushA("attention");
    nvtxRangePop();
    nvtxRangePop();
  }
  nvtxDomainHandle_t domain = nvtxDomainCreateA("engine");
  nvtxStringHandle_t name = nvtxDomainRegisterStringA(domain, "registered_range");
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attributes.message.registered = name;
  nvtxDomainRangePushEx(domain, &attributes);
  nvtxDomainRangePop(domain);
  nvtxRangeId_t id = nvtxRangeStartA("spanning");
  std::thread worker([] {
    nvtxRangePushA("worker_step");
    nvtxRangePop();
  });
  worker.join();
  nvtxRangeEnd(id);
  nvtxMarkA("done");
  nvtxRangePop();  // a pop without a push: counted
  nvtxRangePushA("left_open");
  return 0;
}
