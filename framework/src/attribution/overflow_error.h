// The one wording of attr.overflow, shared by the Metal summary and the attribution
// of kept work, so that every overflow of a trial's times reads the same.
#pragma once

#include <string>

#include "perfgate/core/status.h"

namespace perfgate::internal {

// A sum or difference of the trial's times (`what`) that does not fit in int64 ns.
inline Status OverflowError(const SourceLocation& at, const std::string& what) {
  return Status::Error("attr.overflow", what + " does not fit in a signed 64-bit integer of nanoseconds", at);
}

}  // namespace perfgate::internal
