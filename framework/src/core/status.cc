#include "perfgate/core/status.h"

#include <cstdio>

#include "text_input.h"

namespace perfgate {
namespace {

// Whether a path prints as is: printable UTF-8 that holds nothing a reader of
// `path:line:col` could mistake for a separator, a quote or an escape.
bool PrintsBare(const std::string& path) {
  for (unsigned char c : path) {
    if (c < 0x20 || c == 0x7f || c == ':' || c == '"' || c == '\\') return false;
  }
  return internal::FindInvalidUtf8(path) == std::string::npos;
}

void AppendEscaped(unsigned char c, std::string* out) {
  switch (c) {
    case '"': *out += "\\\""; return;
    case '\\': *out += "\\\\"; return;
    case '\n': *out += "\\n"; return;
    case '\t': *out += "\\t"; return;
    case '\r': *out += "\\r"; return;
    default: break;
  }
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  *out += buf;
}

}  // namespace

std::string FormatPath(const std::string& path) {
  if (PrintsBare(path)) return path;
  std::string out = "\"";
  size_t i = 0;
  while (i < path.size()) {
    // The longest valid UTF-8 run from i is copied as is.
    const size_t bad = internal::FindInvalidUtf8(std::string_view(path).substr(i));
    const size_t run_end = bad == std::string::npos ? path.size() : i + bad;
    for (; i < run_end; ++i) {
      const unsigned char c = static_cast<unsigned char>(path[i]);
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') AppendEscaped(c, &out);
      else out += path[i];
    }
    if (i < path.size()) AppendEscaped(static_cast<unsigned char>(path[i++]), &out);
  }
  return out + "\"";
}

std::string FormatMessage(const std::string& message) {
  std::string out;
  out.reserve(message.size());
  size_t i = 0;
  while (i < message.size()) {
    // Quotes and backslashes stay as they are: a message is not quoted, and only a
    // line break, a terminal escape or a bad byte could forge or hide a line.
    const size_t bad = internal::FindInvalidUtf8(std::string_view(message).substr(i));
    const size_t run_end = bad == std::string::npos ? message.size() : i + bad;
    for (; i < run_end; ++i) {
      const unsigned char c = static_cast<unsigned char>(message[i]);
      if (c < 0x20 || c == 0x7f) AppendEscaped(c, &out);
      else out += message[i];
    }
    if (i < message.size()) AppendEscaped(static_cast<unsigned char>(message[i++]), &out);
  }
  return out;
}

std::string FormatLocation(const SourceLocation& location) {
  std::string out = FormatPath(location.path);
  if (location.line > 0) {
    out += ':' + std::to_string(location.line);
    if (location.column > 0) out += ':' + std::to_string(location.column);
  }
  return out;
}

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
  if (!location_.path.empty()) out += FormatLocation(location_) + ": ";
  out += "error[" + code_ + "]: " + FormatMessage(message_);
  return out;
}

}  // namespace perfgate
