// Fuzzes the golden-file parser (ParseGolden) and what a perf suite does next with a
// golden that parses: compare against it, render it canonically and read that back.
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "perfgate/golden/golden.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace perfgate;
  auto golden = golden::ParseGolden(fuzz::AsString(data, size), "fuzz-golden.json");
  if (!golden.ok()) {
    (void)golden.status().ToString();
    return 0;
  }
  std::map<std::string, double> actual = golden::ValuesOf(*golden);
  (void)golden::CompareToGolden(*golden, actual);
  for (auto& [name, value] : actual) value = value * 1.5 + 1.0;  // every value moved
  actual["fuzz/new_value"] = 1.0;
  golden::CompareOptions strict;
  strict.fail_on_new = true;
  (void)golden::CompareToGolden(*golden, actual, strict);
  (void)golden::ParseGolden(golden::RenderGolden(*golden), "fuzz-golden-rendered.json");
  return 0;
}
