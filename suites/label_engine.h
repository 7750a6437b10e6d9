// The engine the trace-event and nsys suites share: tokens and decode window from one
// labelled range per token (record_function, StepTraceAnnotation, an NVTX range).
#ifndef PERFGATE_SUITES_LABEL_ENGINE_H_
#define PERFGATE_SUITES_LABEL_ENGINE_H_

#include <string>

#include "perfgate/gtest.h"

namespace perfgate_suites {

// An engine `name` counting one token per range named `label`, its decode window from
// the first such range to the last.
inline perfgate::testing::EngineSpec LabelEngine(const std::string& name, const std::string& label) {
  perfgate::testing::EngineSpec e;
  e.name = name;
  e.options.window = perfgate::attribution::DecodeWindow::Label(label);
  e.options.token_label = label;
  return e;
}

}  // namespace perfgate_suites

#endif  // PERFGATE_SUITES_LABEL_ENGINE_H_
