// The error every source gives for an option it cannot honour.
#ifndef PERFGATE_SRC_SOURCES_UNSUPPORTED_OPTION_H_
#define PERFGATE_SRC_SOURCES_UNSUPPORTED_OPTION_H_

#include <string>

#include "perfgate/core/status.h"

namespace perfgate::sources {

// Refused rather than ignored: a choice the reader cannot honour would change nothing
// and look as if it had.
inline Status Unsupported(const std::string& option, const char* applies_to, const char* source, const std::string& path) {
  return Status::Error("attr.unsupported_option",
                       option + " applies to " + applies_to + " trials, not to " + source, {path},
                       ErrorKind::kUsage);
}

}  // namespace perfgate::sources

#endif  // PERFGATE_SRC_SOURCES_UNSUPPORTED_OPTION_H_
