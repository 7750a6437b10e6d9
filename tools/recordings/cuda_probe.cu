// A small CUDA program for checking the CUPTI tracer on a GPU (issue 16's device runs):
//   cuda_probe reset N   N steps of 3 kernels (each step an NVTX range "step"), then
//                        cudaDeviceReset, then N more steps: the tracer must flush at the
//                        reset and keep all 6N kernels
//   cuda_probe crash N   N steps, then SIGSEGV: the tracer writes no trace, and
//                        `perfgate record --backend cuda` must leave the trial INCOMPLETE
// Build: nvcc -O2 -arch=sm_90 -o cuda_probe tools/recordings/cuda_probe.cu
#include <nvtx3/nvToolsExt.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void Scale(float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

static void Steps(int steps) {
  const int n = 1 << 20;
  float* x = nullptr;
  cudaMalloc(&x, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  for (int s = 0; s < steps; ++s) {
    nvtxRangePushA("step");
    for (int k = 0; k < 3; ++k) Scale<<<(n + 255) / 256, 256>>>(x, n, 1.0001f);
    nvtxRangePop();
  }
  cudaDeviceSynchronize();
  cudaFree(x);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cuda_probe reset|crash STEPS\n");
    return 2;
  }
  const int steps = std::atoi(argv[2]);
  Steps(steps);
  if (std::strcmp(argv[1], "crash") == 0) std::raise(SIGSEGV);
  cudaDeviceReset();
  Steps(steps);
  std::printf("%d kernels launched\n", 6 * steps);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
