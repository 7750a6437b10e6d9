// Trace-event JSON reader: files, gzip, sniffing and the public entry points. The
// SAX pass itself is in json_trace_sax.cc; the format is described in FORMAT.md.
#include "perfgate/json_trace/reader.h"

#include <zlib.h>

#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>

#include "perfgate/core/input_limits.h"

#include "json_trace_internal.h"
#include "mapped_file.h"
#include "text_input.h"

namespace perfgate::json_trace {

namespace {

// `padding`: bytes readable past the end of `bytes` (detail::ReadEvents).
StatusOr<model::WorkSet> ReadPaddedBuffer(std::string_view bytes, std::string display_path, const ReadOptions& options,
                                    size_t padding) {
  model::WorkSet trace;
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
  PERFGATE_RETURN_IF_ERROR(detail::ReadEvents(bytes, trace.path, options, &trace, padding));
  return trace;
}

}  // namespace

StatusOr<model::WorkSet> ReadTraceJsonBuffer(std::string_view bytes, std::string display_path, const ReadOptions& options) {
  return ReadPaddedBuffer(bytes, std::move(display_path), options, 0);
}

// A plain trace is parsed where the page cache holds it (mapped: no copy, no fresh
// memory); a gzip one, or one on a file system that cannot map files, is read whole.
StatusOr<model::WorkSet> ReadTraceJsonFile(const std::string& path, const ReadOptions& options) {
  auto mapped = ::perfgate::internal::MapRegularFile(path);
  if (!mapped.ok() && mapped.status().code() != "io.cannot_map") return mapped.status();
  if (mapped.ok()) {
    if (!::perfgate::internal::IsGzip(mapped->bytes())) {
      return ReadPaddedBuffer(mapped->bytes(), path, options, mapped->padding());
    }
  }
  auto bytes = ::perfgate::internal::ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  return ReadPaddedBuffer(*bytes, path, options, bytes->capacity() - bytes->size());
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

bool SniffFile(const std::string& path) {
  TraceJsonSniffer sniffer;
  detail::StreamFilePrefix(path, UINT64_MAX, [&](std::string_view chunk) {
    sniffer.Feed(chunk);
    return !sniffer.Decided();
  });
  return sniffer.Yes();  // undecided within the cap: not trace JSON
}

bool StartsWithGzipMagic(int fd) {
  char magic[2] = {0, 0};
  return ::pread(fd, magic, 2, 0) == 2 && ::perfgate::internal::IsGzip(std::string_view(magic, 2));
}

}  // namespace

namespace detail {

uint64_t ReadableBytes(uint64_t size, bool gzip) {
  auto limits = CurrentInputLimits();
  const InputLimits applied = limits.ok() ? *limits : InputLimits{};
  return gzip ? applied.MaxInflatedBytes(size) : applied.max_input_bytes;
}

StreamEnd StreamFilePrefix(const std::string& path, uint64_t max_bytes,
                           const std::function<bool(std::string_view)>& sink, bool* gzip) {
  uint64_t size = 0;
  StatusOr<int> opened = ::perfgate::internal::OpenRegularFile(path, UINT64_MAX, &size);
  if (!opened.ok()) return StreamEnd::kNotARegularFile;
  ::perfgate::internal::ScopedFd fd(*opened);
  const bool compressed = StartsWithGzipMagic(fd.get());
  if (gzip != nullptr) *gzip = compressed;
  const uint64_t cap = ReadableBytes(size, compressed);
  const uint64_t most = max_bytes < cap ? max_bytes : cap + 1;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> gz(gzdopen(fd.get(), "rb"), &gzclose);
  if (gz == nullptr) return StreamEnd::kNotARegularFile;
  fd.release();
  constexpr size_t kChunkBytes = 1 << 16;
  gzbuffer(gz.get(), kChunkBytes);
  std::string chunk(kChunkBytes, '\0');
  uint64_t fed = 0;
  while (fed < most) {
    const uint64_t want = std::min<uint64_t>(kChunkBytes, most - fed);
    const int got = gzread(gz.get(), chunk.data(), static_cast<unsigned>(want));
    if (got <= 0) {
      int err = Z_OK;
      gzerror(gz.get(), &err);  // a stream cut off reads as an end with Z_BUF_ERROR set
      return got < 0 || (err != Z_OK && err != Z_STREAM_END) ? StreamEnd::kBrokenGzip : StreamEnd::kEnded;
    }
    fed += static_cast<uint64_t>(got);
    if (!sink(std::string_view(chunk.data(), static_cast<size_t>(got)))) return StreamEnd::kSinkStopped;
  }
  return fed > cap ? StreamEnd::kPastLimit : StreamEnd::kSinkStopped;
}

}  // namespace detail

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

StatusOr<attribution::TrialSummary> SummarizeJsonTrialFile(const std::string& path,
                                                           const attribution::AttributionOptions& options,
                                                           attribution::WorkExtras* extras, const ReadOptions& read_options) {
  auto trace = ReadTraceJsonFile(path, read_options);
  if (!trace.ok()) return trace.status();
  return attribution::AttributeWork(*trace, options, extras);
}

}  // namespace perfgate::json_trace
