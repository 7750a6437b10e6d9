// Where the direct children of one container of a valid JSON text start, in one pass:
// LocateJsonPointer parses the document again per call, so locating every test of a
// report (or cell of a policy) that way would be quadratic in the file's size. Readers
// locate their records with it (toks/ reports and policies).
#ifndef PERFGATE_SRC_CORE_JSON_MEMBER_OFFSETS_H_
#define PERFGATE_SRC_CORE_JSON_MEMBER_OFFSETS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::internal {

struct MemberOffset {
  size_t offset = 0;    // an array element's first byte, or an object member's key quote
  std::string raw_key;  // the key as written, quotes included; "" for array elements
};

// The children of the root (`member` empty) or of the root object's member `member`
// (matched as written, without escapes), in file order. `text` must be valid JSON.
std::vector<MemberOffset> MemberOffsets(std::string_view text, std::string_view member);

}  // namespace perfgate::internal

#endif  // PERFGATE_SRC_CORE_JSON_MEMBER_OFFSETS_H_
