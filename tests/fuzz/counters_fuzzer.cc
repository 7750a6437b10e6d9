// Fuzzes the engine counter report parser (counters::ParseCounterHistory: `key: value`
// lines, `# ====` headers, histories) and what `perfgate history` reads of it.
#include <cstdint>
#include <string>

#include "perfgate/counters/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  auto history = perfgate::counters::ParseCounterHistory(input, "fuzz.txt");
  if (!history.ok()) {
    (void)history.status().ToString();
    return 0;
  }
  for (const perfgate::counters::CounterReport& r : history->reports) {
    for (const std::string& key : r.Keys()) (void)r.Find(key);
  }
  (void)perfgate::counters::ChooseCounters(*history, perfgate::counters::KnownKeys(*history));
  return 0;
}
