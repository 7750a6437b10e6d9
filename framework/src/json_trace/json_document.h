// Small JSON documents (goldens, kernel-family tables, ANE recordings) parsed into a
// DOM without the ways nlohmann's own parse goes wrong on hostile input: every error
// is a located Status instead of an exception, nesting is bounded before the DOM is
// built (so neither our recursion nor nlohmann's dump can overflow the stack), and a
// duplicate key is an error found in linear time instead of silently "last wins".
#ifndef PERFGATE_SRC_JSON_TRACE_JSON_DOCUMENT_H_
#define PERFGATE_SRC_JSON_TRACE_JSON_DOCUMENT_H_

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "perfgate/core/status.h"

namespace perfgate::internal {

// The codes a reader reports its document's errors under.
struct JsonDocumentCodes {
  std::string bad_json;  // not JSON, truncated, invalid UTF-8, a number out of range (1e999), a duplicate key
  std::string too_deep;  // objects and arrays nested deeper than max_depth
};

// The deepest nesting a document may have; the root object is depth 1.
inline constexpr int kDefaultJsonMaxDepth = 64;

// Parses `text` (errors located in `path` with line:col).
StatusOr<nlohmann::json> ParseJsonDocument(std::string_view text, const std::string& path,
                                           const JsonDocumentCodes& codes, int max_depth = kDefaultJsonMaxDepth);

// Where the value at RFC 6901 `pointer` is written in `text`: its key for an object
// member, its first byte for an array element or the root. Only `path` when the
// pointer names nothing. For locating schema errors; it parses again, so call it on
// the error path only.
SourceLocation LocateJsonPointer(std::string_view text, const std::string& path, const std::string& pointer);

// "~" as "~0" and "/" as "~1" (RFC 6901).
std::string EscapeJsonPointerToken(std::string_view token);

}  // namespace perfgate::internal

#endif  // PERFGATE_SRC_JSON_TRACE_JSON_DOCUMENT_H_
