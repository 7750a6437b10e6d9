#include "perfgate/core/version.h"

#ifndef PERFGATE_VERSION_STRING
#error "PERFGATE_VERSION_STRING is defined by framework/CMakeLists.txt"
#endif

namespace perfgate {

std::string_view Version() { return PERFGATE_VERSION_STRING; }

// Filled in at build time by the packaging work of issue #13.
std::string_view BuildCommit() { return "unknown"; }

}  // namespace perfgate
