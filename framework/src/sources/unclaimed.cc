// Why no source claims a file: the error a user needs instead of one source's parse
// error on another format.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>

#include "perfgate/nsys/reader.h"
#include "perfgate/sources/source.h"
#include "sources/trace_json/json_trace_internal.h"
#include "string_util.h"
#include "text_input.h"

namespace perfgate::sources {
namespace {

namespace fs = std::filesystem;

// The first 4 KiB of the file, inflated when gzip-compressed: enough to see past a BOM
// and the whitespace any writer puts first. The rest of a gzip file is inflated without
// being kept (memory stays one chunk), so a gzip bomb or a corrupt stream is still
// named as such, as reading the whole file once named it.
StatusOr<std::string> ReadPrefix(const std::string& path) {
  constexpr size_t kPrefixBytes = 4096;
  std::string prefix;
  bool gzip = false;
  const json_trace::detail::StreamEnd end = json_trace::detail::StreamFilePrefix(
      path, UINT64_MAX,
      [&](std::string_view chunk) {
        prefix.append(chunk.substr(0, kPrefixBytes - std::min(prefix.size(), kPrefixBytes)));
        return gzip || prefix.size() < kPrefixBytes;  // a plain file's size was checked already
      },
      &gzip);
  using json_trace::detail::StreamEnd;
  if (end == StreamEnd::kPastLimit) {
    return Status::Error("io.gzip_bomb",
                         "the file inflates past the input limits (raise them with --max-input-bytes or "
                         "--max-gzip-ratio)",
                         {path});
  }
  if (end == StreamEnd::kBrokenGzip) return Status::Error("io.bad_gzip", "corrupt or truncated gzip data", {path});
  return prefix;
}

// The first byte of `text` after a UTF-8 byte-order mark and whitespace, or 0.
char FirstSignificantByte(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  const size_t at = text.find_first_not_of(" \t\r\n");
  return at == std::string_view::npos ? '\0' : text[at];
}

}  // namespace

Status ExplainUnclaimed(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Status();  // a trial directory: its loader names what is missing
  const std::string name = fs::path(path).filename().string();
  const bool named_json = EndsWith(name, ".json") || EndsWith(name, ".json.gz");
  PERFGATE_RETURN_IF_ERROR(internal::CheckReadableFile(path));
  // An SQLite file that is no nsys export, or a file named like one that is no SQLite
  // database (an .nsys-rep report not yet exported): the nsys reader says why.
  const bool named_nsys = EndsWith(name, ".sqlite") || EndsWith(name, ".nsys-rep") || EndsWith(name, ".qdrep");
  if (auto e = nsys::ReadNsysFile(path); !e.ok() && (named_nsys || e.status().code() != "nsys.not_sqlite")) {
    return e.status();
  }
  auto prefix = ReadPrefix(path);
  if (!prefix.ok()) return prefix.status();
  const char first = FirstSignificantByte(*prefix);
  if (!named_json && first != '{' && first != '[') return Status();
  const std::string why = named_json ? "its name says JSON" : std::string("it starts with '") + first + "'";
  return Status::Error("source.unknown_format",
                       why + ", but no trace source reads it: trace-event JSON is an object with a \"traceEvents\" "
                       "array or an array of events, each with \"ph\" and \"ts\" (Chrome trace-event / Kineto); "
                       "Metal exports are XML",
                       {path});
}

}  // namespace perfgate::sources
