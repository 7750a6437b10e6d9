#include "perfgate/core/status.h"

namespace perfgate {

Status Status::Error(std::string code, std::string message, SourceLocation location,
                     ErrorKind kind) {
  Status s;
  s.code_ = code.empty() ? "error" : std::move(code);
  s.message_ = std::move(message);
  s.location_ = std::move(location);
  s.kind_ = kind;
  return s;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string out;
  if (!location_.path.empty()) {
    out += location_.path;
    if (location_.line > 0) {
      out += ':' + std::to_string(location_.line);
      if (location_.column > 0) out += ':' + std::to_string(location_.column);
    }
    out += ": ";
  }
  out += "error[" + code_ + "]: " + message_;
  return out;
}

}  // namespace perfgate
