// Fuzzes the trace-event JSON reader (ReadTraceJsonBuffer) in strict and lenient mode,
// the sniffing `perfgate` does before it, and trace-event attribution after it.
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "perfgate/json_trace/reader.h"
#include "perfgate/attribution/work.h"

namespace {

using namespace perfgate;

void Attribute(const model::WorkSet& trace) {
  attribution::AttributionOptions options;
  options.tokens = 1;
  options.all_processes = true;
  (void)attribution::AttributeWork(trace, options);
  // A label window and a trace-counted token label take the annotation paths.
  options.window = attribution::DecodeWindow::Label("decode");
  options.token_label = "decode";
  attribution::WorkExtras extras;
  (void)attribution::AttributeWork(trace, options, &extras);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes = fuzz::AsString(data, size);
  (void)json_trace::LooksLikeTraceJsonBuffer(bytes);
  for (json_trace::ReadMode mode : {json_trace::ReadMode::kStrict, json_trace::ReadMode::kLenient}) {
    json_trace::ReadOptions options;
    options.mode = mode;
    auto trace = json_trace::ReadTraceJsonBuffer(bytes, "fuzz.json", options);
    if (!trace.ok()) {
      (void)trace.status().ToString();
      continue;
    }
    Attribute(*trace);
  }
  return 0;
}
