// Small JSON documents (goldens, kernel-family tables, ANE recordings) parsed into a
// DOM without the ways nlohmann's own parse goes wrong on hostile input: every error
// is a located Status instead of an exception, nesting is bounded before the DOM is
// built (so neither our recursion nor nlohmann's dump can overflow the stack), and a
// duplicate key is an error found in linear time instead of silently "last wins".
#ifndef PERFGATE_SRC_CORE_JSON_DOCUMENT_H_
#define PERFGATE_SRC_CORE_JSON_DOCUMENT_H_

#include <nlohmann/json.hpp>

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

#include "perfgate/core/status.h"

namespace perfgate::internal {

// A char iterator that publishes its position, so a SAX handler knows the byte offset
// of what it is told about (nlohmann's SAX interface has no positions).
struct TrackingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* p;
  const char** cursor;

  reference operator*() const { return *p; }
  TrackingIterator& operator++() {
    *cursor = ++p;
    return *this;
  }
  bool operator==(const TrackingIterator& o) const { return p == o.p; }
  bool operator!=(const TrackingIterator& o) const { return p != o.p; }
};

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

// LocateJsonPointer at `pointer`, else at its nearest ancestor written in `text` (a
// missing key is reported at the object that lacks it).
SourceLocation LocateJsonPointerOrAncestor(std::string_view text, const std::string& path, std::string pointer);

// ParseJsonDocument, and codes.bad_json unless the root is an object.
StatusOr<nlohmann::json> ParseJsonObject(std::string_view text, const std::string& path,
                                         const JsonDocumentCodes& codes);

// Reads the JSON object at `path` (ReadWholeFile, then ParseJsonDocument), keeping the
// text to locate later errors. Errors: those of both, and codes.bad_json, located at
// the root, for a document that is not an object.
struct JsonObjectFile {
  std::string text;
  nlohmann::json root;
};
StatusOr<JsonObjectFile> ReadJsonObjectFile(const std::string& path, const JsonDocumentCodes& codes);

// How many bytes flattening a document's nested objects into joined keys ("a.b.c") may
// produce: each leaf repeats its parents' names, so a 1 MB key over 200k leaves would
// otherwise make 200 GB of a 2 MB file. Allows kBytesPerInputByte per byte of the
// document, and kFloorBytes whatever its size.
class FlattenBudget {
 public:
  static constexpr size_t kBytesPerInputByte = 4;
  static constexpr size_t kFloorBytes = size_t{1} << 20;
  explicit FlattenBudget(size_t text_bytes);
  // Takes `bytes` from the budget; false, taking nothing, when they do not fit.
  bool Charge(size_t bytes);
  size_t limit() const { return limit_; }

 private:
  size_t limit_;
  size_t left_;
};

// "~" as "~0" and "/" as "~1" (RFC 6901).
std::string EscapeJsonPointerToken(std::string_view token);

}  // namespace perfgate::internal

#endif  // PERFGATE_SRC_CORE_JSON_DOCUMENT_H_
