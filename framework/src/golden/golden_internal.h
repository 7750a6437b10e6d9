// Private helpers shared by the golden store's files: number rounding and
// formatting, and JSON pointer escaping.
#ifndef PERFGATE_SRC_GOLDEN_GOLDEN_INTERNAL_H_
#define PERFGATE_SRC_GOLDEN_GOLDEN_INTERNAL_H_

#include <map>
#include <string>

#include "core/text_input.h"
#include "perfgate/golden/golden.h"

namespace perfgate::golden::internal {

// ReadGolden that also hands back the file's text (for line lookups).
StatusOr<GoldenFile> ReadGoldenWithText(const std::string& path, std::string* text);

// The 1-based line of each value's entry ("    \"<name>\": {") in canonical golden
// text; names not found (hand-formatted files) are absent.
std::map<std::string, int> ValueLines(const std::string& text);

using ::perfgate::internal::RoundSignificant;

// True when `v` is a whole number that a double holds exactly (|v| <= 2^53).
bool IsWholeNumber(double v);

// A number for messages: whole numbers without a fraction ("7780"), others with up
// to 6 significant digits ("9735.6", "0.00125"); "nan" / "inf" for the rest.
std::string FormatNumber(double v);

// RFC 6901 escaping of one reference token: '~' → "~0", '/' → "~1".
std::string EscapePointerToken(const std::string& token);

}  // namespace perfgate::golden::internal

#endif  // PERFGATE_SRC_GOLDEN_GOLDEN_INTERNAL_H_
