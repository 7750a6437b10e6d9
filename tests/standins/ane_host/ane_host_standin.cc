// A stand-in for the native ANE tools, so the probe's command lines, DMA_JSON
// protocol, run-directory lifecycle and error paths run on Linux.
//
// As the model generator:  ane_host_standin --model-gen --cin N --cout N --out DIR
//   creates DIR/model.mlpackage/ and DIR/model.mlmodelc/standin.txt ("cin cout").
//   ANE_STANDIN_MODEL_FAIL=1: prints an error and exits 4 (coremltools missing).
//   ANE_STANDIN_MODEL_NOOUT=1: exits 0 without writing model.mlmodelc.
//   ANE_STANDIN_SNAPSHOT=PATH: first copies DIR/../report.json to PATH (once).
// As the eval host:        ane_host_standin MODEL.mlmodelc WARM TIMED
//   times nothing; it emulates an M3-class notch: a model exactly on k MiB per core
//   (ANE_STANDIN_CORES, default 16) streams at 16.93 GB/s, any other at 44.5 GB/s,
//   plus ANE_STANDIN_OVERHEAD_US per evaluation. A CxC model with C <= 256 is "tiny"
//   and takes ANE_STANDIN_TINY_US (default 40).
//   It checks its environment (ANE_IDENTITY=kernel_dma_mib_probe set, ANE_INMEM_HWX
//   and ANE_INPUT_SPLIT removed) and its argv; a violation exits 9.
//   ANE_STANDIN_MODE: normal (default), multi (several DMA_JSON lines, the last is
//   right), garbage (a DMA_JSON line that is not JSON), none (no DMA_JSON line),
//   empty (eval_us: []), hang (sleeps), crash (abort), exit (stderr + exit 5).
//   ANE_STANDIN_FAIL_CIN=N: the mode applies only to the model with Cin N (others
//   are normal).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

double EnvDouble(const char* name, double fallback) {
  std::string v = Env(name);
  return v.empty() ? fallback : std::atof(v.c_str());
}

int ModelGen(int argc, char** argv) {
  long long cin = 0, cout = 0;
  std::string out;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--cin") cin = std::atoll(argv[i + 1]);
    else if (k == "--cout") cout = std::atoll(argv[i + 1]);
    else if (k == "--out") out = argv[i + 1];
    else {
      std::cerr << "stand-in model-gen: unknown argument " << k << "\n";
      return 2;
    }
  }
  if (cin <= 0 || cout <= 0 || out.empty()) {
    std::cerr << "stand-in model-gen: need --cin N --cout N --out DIR\n";
    return 2;
  }
  if (Env("ANE_STANDIN_MODEL_FAIL") == "1") {
    std::cerr << "ModuleNotFoundError: No module named 'coremltools' (stand-in)\n";
    return 4;
  }
  // Lets a test see report.json while the run is in progress ("preparing").
  const std::string snapshot = Env("ANE_STANDIN_SNAPSHOT");
  if (!snapshot.empty() && !fs::exists(snapshot)) {
    std::error_code ec;
    fs::copy_file(fs::path(out).parent_path() / "report.json", snapshot, ec);
  }
  fs::create_directories(out + "/model.mlpackage");
  if (Env("ANE_STANDIN_MODEL_NOOUT") == "1") return 0;
  fs::create_directories(out + "/model.mlmodelc");
  std::ofstream(out + "/model.mlmodelc/standin.txt") << cin << " " << cout << "\n";
  std::cout << out << "/model.mlmodelc\n";
  return 0;
}

int EvalHost(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "stand-in host: usage: host MODEL.mlmodelc WARM TIMED (got " << argc - 1 << " arguments)\n";
    return 9;
  }
  if (Env("ANE_IDENTITY") != "kernel_dma_mib_probe" || std::getenv("ANE_INMEM_HWX") != nullptr ||
      std::getenv("ANE_INPUT_SPLIT") != nullptr) {
    std::cerr << "stand-in host: bad environment (ANE_IDENTITY='" << Env("ANE_IDENTITY")
              << "', ANE_INMEM_HWX " << (std::getenv("ANE_INMEM_HWX") ? "set" : "unset") << ", ANE_INPUT_SPLIT "
              << (std::getenv("ANE_INPUT_SPLIT") ? "set" : "unset") << ")\n";
    return 9;
  }
  const std::string mlc = argv[1];
  const int warm = std::atoi(argv[2]);
  const int timed = std::atoi(argv[3]);
  long long cin = 0, cout = 0;
  std::ifstream in(mlc + "/standin.txt");
  if (!(in >> cin >> cout)) {
    std::cerr << "stand-in host: cannot load " << mlc << "\n";
    return 6;
  }
  std::string mode = Env("ANE_STANDIN_MODE");
  const std::string fail_cin = Env("ANE_STANDIN_FAIL_CIN");
  if (!fail_cin.empty() && std::atoll(fail_cin.c_str()) != cin) mode = "normal";
  if (mode.empty()) mode = "normal";

  std::cout << "stand-in host: " << mlc << " warm " << warm << " timed " << timed << std::endl;
  if (mode == "hang") {
    std::cout << "stand-in host: hanging" << std::endl;
    while (true) ::sleep(1);
  }
  if (mode == "crash") std::abort();
  if (mode == "exit") {
    std::cerr << "stand-in host: _ANEClient loadModel failed (stand-in)\n";
    return 5;
  }
  if (mode == "none") return 0;
  if (mode == "garbage") {
    std::cout << "DMA_JSON {eval_us: [1, 2,\n";
    return 0;
  }
  if (mode == "empty") {
    std::cout << "DMA_JSON {\"eval_us\": []}\n";
    return 0;
  }
  const long long cores = static_cast<long long>(EnvDouble("ANE_STANDIN_CORES", 16));
  double us = 0;
  if (cin == cout && cin <= 256) {
    us = EnvDouble("ANE_STANDIN_TINY_US", 40);
  } else {
    const long long bpc = cout / cores * cin * 2;
    const bool on = bpc % (1 << 20) == 0;
    const double bytes = static_cast<double>(cin) * static_cast<double>(cout) * 2;
    us = bytes / ((on ? 16.93 : 44.5) * 1e3) + EnvDouble("ANE_STANDIN_OVERHEAD_US", 0);
  }
  if (mode == "multi") {
    std::cout << "DMA_JSON {\"eval_us\": [1.0, 1.0]}\n";
    std::cout << "ANE: noise between lines\n";
  }
  std::string samples;
  for (int i = 0; i < timed; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%.3f", i ? ", " : "", us * (1 + 0.001 * (i % 3)));
    samples += buf;
  }
  std::cout << "DMA_JSON {\"eval_us\": [" << samples
            << "], \"route\": \"stand-in evaluateWithModel\", \"ane_subtype\": \"h15\"}\n";
  std::cout << "stand-in host: done\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--model-gen") == 0) return ModelGen(argc, argv);
  return EvalHost(argc, argv);
}
