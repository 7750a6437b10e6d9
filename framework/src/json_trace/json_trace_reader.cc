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

// Decides, a chunk at a time, whether bytes are trace-event JSON: the first byte
// after whitespace and a BOM is '{' or '[', and a key (a string followed by ':')
// "traceEvents" or "ph" appears. Strings are skipped with their escapes, so a value
// such as "ph" or "\"ph\": 1" inside a string is no key. Stops at the first such key,
// so a trace costs little however large; a JSON file without one is read to its end
// (the sniff must not miss a key that a long first value pushes far in).
class TraceJsonSniffer {
 public:
  enum class Verdict { kUndecided, kYes, kNo };

  Verdict Feed(std::string_view chunk) {
    for (char c : chunk) {
      if (verdict_ != Verdict::kUndecided) break;
      Step(c);
    }
    return verdict_;
  }
  bool Decided() const { return verdict_ != Verdict::kUndecided; }
  bool Yes() const { return verdict_ == Verdict::kYes; }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

  void Step(char c) {
    if (!started_) return Start(c);
    if (in_string_) return InString(c);
    if (string_ended_) {
      if (IsSpace(c)) return;
      string_ended_ = false;
      if (c == ':' && !token_overflow_ && (token_ == "traceEvents" || token_ == "ph")) {
        verdict_ = Verdict::kYes;
        return;
      }
    }
    if (c == '"') {
      in_string_ = true;
      token_.clear();
      token_overflow_ = false;
    }
  }
  void Start(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (bom_seen_ < 3 && bom_seen_ == bom_offset_ && u == kBom[bom_seen_]) {
      ++bom_seen_;
      ++bom_offset_;
      return;
    }
    if (bom_seen_ > 0 && bom_seen_ < 3) {  // a broken BOM
      verdict_ = Verdict::kNo;
      return;
    }
    ++bom_offset_;
    if (IsSpace(c)) return;
    started_ = true;
    if (c != '{' && c != '[') verdict_ = Verdict::kNo;
  }
  void InString(char c) {
    if (escaped_) {
      escaped_ = false;
      token_overflow_ = true;  // an escaped key is not spelt as the ones sought
      return;
    }
    if (c == '\\') {
      escaped_ = true;
      return;
    }
    if (c == '"') {
      in_string_ = false;
      string_ended_ = true;
      return;
    }
    if (token_.size() < 16) token_ += c;
    else token_overflow_ = true;
  }

  static constexpr unsigned char kBom[3] = {0xEF, 0xBB, 0xBF};
  Verdict verdict_ = Verdict::kUndecided;
  bool started_ = false;
  int bom_seen_ = 0;
  int bom_offset_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  bool string_ended_ = false;
  std::string token_;
  bool token_overflow_ = false;
};

constexpr size_t kChunkBytes = 1 << 16;
// The most the sniff inflates and scans without finding a key: a gzip bomb of
// whitespace after '{' must not keep it busy for minutes. Far beyond where any
// writer puts "traceEvents".
constexpr uint64_t kMaxSniffBytes = uint64_t{4} << 30;

// Feeds the file (inflated when gzip-compressed) to the sniffer until it decides.
bool SniffFile(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (f == nullptr) return false;
  TraceJsonSniffer sniffer;
  std::string in(kChunkBytes, '\0');
  in.resize(std::fread(in.data(), 1, kChunkBytes, f.get()));
  const bool gzip = in.size() >= 2 && static_cast<unsigned char>(in[0]) == 0x1f &&
                    static_cast<unsigned char>(in[1]) == 0x8b;
  if (!gzip) {
    uint64_t scanned = 0;
    while (!in.empty() && !sniffer.Decided() && scanned < kMaxSniffBytes) {
      sniffer.Feed(in);
      scanned += in.size();
      in.resize(kChunkBytes);
      in.resize(std::fread(in.data(), 1, kChunkBytes, f.get()));
    }
    return sniffer.Yes();
  }
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return false;
  zs.next_in = reinterpret_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out(kChunkBytes, '\0');
  uint64_t scanned = 0;
  while (!sniffer.Decided() && scanned < kMaxSniffBytes) {
    if (zs.avail_in == 0) {
      in.resize(kChunkBytes);
      in.resize(std::fread(in.data(), 1, kChunkBytes, f.get()));
      if (in.empty()) break;
      zs.next_in = reinterpret_cast<Bytef*>(in.data());
      zs.avail_in = static_cast<uInt>(in.size());
    }
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    sniffer.Feed(std::string_view(out.data(), out.size() - zs.avail_out));
    scanned += out.size() - zs.avail_out;
    if (rc == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);  // another gzip member follows
    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_in == 0)) {
      break;  // corrupt data, or no progress possible
    }
  }
  inflateEnd(&zs);
  return sniffer.Yes();
}

}  // namespace

bool LooksLikeTraceJsonBuffer(std::string_view bytes) {
  TraceJsonSniffer sniffer;
  sniffer.Feed(bytes);
  return sniffer.Yes();
}

bool LooksLikeTraceJson(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  return SniffFile(path);
}

}  // namespace perfgate::json_trace
