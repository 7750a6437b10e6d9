// Trace-event JSON reader: files, gzip, sniffing and the public entry points. The
// SAX pass itself is in json_trace_sax.cc; the format is described in FORMAT.md.
#include "perfgate/json_trace/reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "json_trace_internal.h"
#include "text_input.h"

namespace perfgate::json_trace {

std::string_view GpuWorkKindName(GpuWorkKind kind) {
  switch (kind) {
    case GpuWorkKind::kKernel: return "kernel";
    case GpuWorkKind::kMemcpy: return "memcpy";
    case GpuWorkKind::kMemset: return "memset";
  }
  return "kernel";
}

StatusOr<GpuTrace> ReadTraceJsonBuffer(std::string_view bytes, std::string display_path, const ReadOptions& options) {
  GpuTrace trace;
  trace.path = std::move(display_path);
  size_t first = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (first < bytes.size() && (bytes[first] == ' ' || bytes[first] == '\t' || bytes[first] == '\n' ||
                                  bytes[first] == '\r')) {
    ++first;
  }
  if (first >= bytes.size()) {
    return Status::Error("json.empty_file", bytes.empty() ? "the file is empty" : "the file holds only whitespace",
                         {trace.path, 1, 1});
  }
  PERFGATE_RETURN_IF_ERROR(detail::ReadEvents(bytes, trace.path, options, &trace));
  return trace;
}

StatusOr<GpuTrace> ReadTraceJsonFile(const std::string& path, const ReadOptions& options) {
  auto bytes = ::perfgate::internal::ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  return ReadTraceJsonBuffer(*bytes, path, options);
}

// --- sniffing ------------------------------------------------------------------

namespace {

constexpr size_t kSniffBytes = 64 * 1024;

// Up to `limit` bytes of the file, inflated when gzip-compressed.
std::string ReadHead(const std::string& path, size_t limit) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (f == nullptr) return {};
  std::string in(limit, '\0');
  in.resize(std::fread(in.data(), 1, limit, f.get()));
  if (in.size() < 2 || static_cast<unsigned char>(in[0]) != 0x1f || static_cast<unsigned char>(in[1]) != 0x8b) {
    return in;
  }
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return {};
  zs.next_in = reinterpret_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[16384];
  while (out.size() < limit) {
    if (zs.avail_in == 0) {
      in.resize(limit);
      in.resize(std::fread(in.data(), 1, limit, f.get()));
      if (in.empty()) break;
      zs.next_in = reinterpret_cast<Bytef*>(in.data());
      zs.avail_in = static_cast<uInt>(in.size());
    }
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    const int rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // another gzip member follows
    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_in == 0)) {
      break;  // corrupt data, or no progress possible
    }
  }
  inflateEnd(&zs);
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace

bool LooksLikeTraceJsonBuffer(std::string_view head) {
  head = head.substr(0, kSniffBytes);
  size_t i = head.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) ++i;
  if (i >= head.size() || (head[i] != '{' && head[i] != '[')) return false;
  // A key: the quoted name followed by optional whitespace and ':'.
  for (std::string_view key : {std::string_view("\"traceEvents\""), std::string_view("\"ph\"")}) {
    size_t at = head.find(key, i);
    while (at != std::string_view::npos) {
      size_t j = at + key.size();
      while (j < head.size() && (head[j] == ' ' || head[j] == '\t' || head[j] == '\n' || head[j] == '\r')) ++j;
      if (j < head.size() && head[j] == ':') return true;
      at = head.find(key, at + 1);
    }
  }
  return false;
}

bool LooksLikeTraceJson(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  return LooksLikeTraceJsonBuffer(ReadHead(path, kSniffBytes));
}

}  // namespace perfgate::json_trace
