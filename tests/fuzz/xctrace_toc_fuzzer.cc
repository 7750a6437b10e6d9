// Fuzzes the xctrace TOC reader (ReadTocBuffer) and what `perfgate toc` does next:
// the JSON rendering and the table lookups the recorder makes.
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "perfgate/xctrace/toc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace perfgate;
  auto toc = xctrace::ReadTocBuffer(fuzz::AsString(data, size), "fuzz-toc.xml");
  if (!toc.ok()) {
    (void)toc.status().ToString();
    return 0;
  }
  (void)xctrace::TocToJson(*toc);
  for (const xctrace::TocRun& run : toc->runs) {
    for (const xctrace::TocTable& table : run.tables) {
      (void)xctrace::FindAttribute(table, "target-pid");
    }
    (void)xctrace::FindTables(run, "metal-gpu-execution-points");
    (void)xctrace::FindTable(run, "metal-gpu-intervals");
  }
  return 0;
}
