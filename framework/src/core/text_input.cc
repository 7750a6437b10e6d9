#include "text_input.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace perfgate::internal {

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return Status::Error(errno == ENOENT ? "io.not_found" : "io.read_failed",
                         std::string("cannot open: ") + std::strerror(errno), {path});
  }
  std::string out;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    if (size > 0) out.reserve(static_cast<size_t>(size));
    std::fseek(f, 0, SEEK_SET);
  }
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::Error("io.read_failed", "read error", {path});
  return out;
}

size_t FindInvalidUtf8(std::string_view bytes) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    // ASCII fast path, eight bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      if (w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    unsigned char c = s[i];
    if (c < 0x80) { ++i; continue; }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return i;
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) {
      return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

LineIndex::LineIndex(std::string_view bytes) {
  const bool wide = bytes.size() > UINT32_MAX;
  auto push = [&](size_t off) {
    if (wide) line_starts_wide_.push_back(off);
    else line_starts_.push_back(static_cast<uint32_t>(off));
  };
  push(0);
  const char* base = bytes.data();
  const char* p = base;
  const char* end = base + bytes.size();
  while (p < end) {
    const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
    if (nl == nullptr) break;
    p = static_cast<const char*>(nl) + 1;
    push(static_cast<size_t>(p - base));
  }
}

SourceLocation LineIndex::Locate(const std::string& path, size_t offset) const {
  SourceLocation loc{path, 0, 0};
  if (!line_starts_wide_.empty()) {
    auto it = std::upper_bound(line_starts_wide_.begin(), line_starts_wide_.end(), offset);
    loc.line = static_cast<int>(it - line_starts_wide_.begin());
    loc.column = static_cast<int>(offset - *(it - 1)) + 1;
  } else if (!line_starts_.empty()) {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(),
                               static_cast<uint32_t>(std::min<size_t>(offset, UINT32_MAX)));
    loc.line = static_cast<int>(it - line_starts_.begin());
    loc.column = static_cast<int>(offset - *(it - 1)) + 1;
  }
  return loc;
}

}  // namespace perfgate::internal
