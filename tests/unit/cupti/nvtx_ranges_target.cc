// The program the tracer-injection tests run with NVTX_INJECTION64_PATH pointing at
// libperfgate_cupti.so: NVTX ranges of every kind NVTX offers, on two threads, and one
// range left open. With `--cuda-init TRACER` it also calls the tracer's
// InitializeInjection as the CUDA driver would (there is no driver here); with
// `--fork` it forks after its ranges, and the child records one range of its own and
// exits through exit() (so the exit hook runs there too).
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
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
  nvtxRangeId_t handed_over = nvtxRangeStartA("handed_over");  // ended by the worker
  std::thread worker([handed_over] {
    nvtxRangePushA("worker_step");
    nvtxRangePop();
    nvtxRangeEnd(handed_over);
  });
  worker.join();
  nvtxRangeEnd(id);
  nvtxMarkA("done");
  nvtxRangePop();  // a pop without a push: counted
  nvtxRangePushA("left_open");
  if (argc == 2 && std::strcmp(argv[1], "--fork") == 0) {
    const pid_t child = fork();
    if (child == 0) {
      nvtxRangePushA("child_step");
      nvtxRangePop();
      std::exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("child %d exited %d\n", static_cast<int>(child), WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  return 0;
}
