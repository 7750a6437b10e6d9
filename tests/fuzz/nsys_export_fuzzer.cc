// Fuzzes the Nsight Systems export reader (nsys::ReadNsysFile) on mutated SQLite
// files: the input is written to a file of its own and read as an export, so damaged
// pages, schemas and rows reach SQLite and the reader as they would from disk.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "perfgate/nsys/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/perfgate-fuzz-nsys-" + std::to_string(::getpid()) + ".sqlite";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  const bool whole = std::fwrite(data, 1, size, f) == size;
  std::fclose(f);
  if (!whole) return 0;
  auto e = perfgate::nsys::ReadNsysFile(path);
  if (!e.ok()) {
    (void)e.status().ToString();
    return 0;
  }
  (void)perfgate::nsys::LooksLikeNsysExport(path);
  return 0;
}
