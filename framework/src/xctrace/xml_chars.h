// Checks that XML 1.0 forbids before pugixml sees the bytes, for both xctrace readers.
//
// pugixml decodes `&#0;` into a NUL byte and keeps raw control bytes, and the readers
// measure strings with strlen, so either would cut a value short without a word. XML
// 1.0 (§2.2 Char) allows only #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
// [#x10000-#x10FFFF], as raw bytes and as character references alike.
//
// Comments, CDATA sections, processing instructions and DOCTYPE are "opaque": `&#0;`
// inside them is literal text, and a `</row>` or `</node>` inside them is no end tag.
// OpaqueRanges lists them so that the export reader's chunker can step over them.
#ifndef PERFGATE_SRC_XCTRACE_XML_CHARS_H_
#define PERFGATE_SRC_XCTRACE_XML_CHARS_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfgate::internal {

// [begin, end) of each comment, CDATA section, PI and DOCTYPE, in order. `end` is the
// file's size for an unterminated one (the parser reports it).
using OpaqueRanges = std::vector<std::pair<size_t, size_t>>;

inline size_t FindIn(std::string_view s, size_t from, std::string_view needle) {
  if (from >= s.size()) return std::string_view::npos;
  const void* p = memmem(s.data() + from, s.size() - from, needle.data(), needle.size());
  return p == nullptr ? std::string_view::npos : static_cast<size_t>(static_cast<const char*>(p) - s.data());
}

// The next "<!" or "<?" at or after `from`, or npos. Sixteen bytes at a time: `<` is
// on every element, so a search for it alone (memmem's first byte) stops too often.
inline size_t FindMarkupOpen(std::string_view s, size_t from) {
  size_t i = from;
#if defined(__SSE2__)
  const __m128i lt = _mm_set1_epi8('<');
  const __m128i bang = _mm_set1_epi8('!');
  const __m128i question = _mm_set1_epi8('?');
  for (; i + 17 <= s.size(); i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i + 1));
    const __m128i next = _mm_or_si128(_mm_cmpeq_epi8(y, bang), _mm_cmpeq_epi8(y, question));
    const int mask = _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, lt), next));
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i + 1 < s.size(); ++i) {
    if (s[i] == '<' && (s[i + 1] == '!' || s[i + 1] == '?')) return i;
  }
  return std::string_view::npos;
}

// One pass over the markup that can hide text: `<!` and `<?` are rare in exports, and
// `<` cannot appear unescaped in text or attribute values.
inline OpaqueRanges FindOpaqueRanges(std::string_view s) {
  OpaqueRanges out;
  constexpr size_t npos = std::string_view::npos;
  for (size_t at = FindMarkupOpen(s, 0); at != npos;) {
    std::string_view terminator = "?>";
    if (s.compare(at, 4, "<!--") == 0) terminator = "-->";
    else if (s.compare(at, 9, "<![CDATA[") == 0) terminator = "]]>";
    else if (s[at + 1] == '!') terminator = ">";
    const size_t close = FindIn(s, at + 2, terminator);
    const size_t end = close == npos ? s.size() : close + terminator.size();
    out.emplace_back(at, end);
    at = FindMarkupOpen(s, end);
  }
  return out;
}

// The range holding `offset`, or null.
inline const std::pair<size_t, size_t>* OpaqueRangeAt(const OpaqueRanges& ranges, size_t offset) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), offset,
                             [](size_t o, const std::pair<size_t, size_t>& r) { return o < r.first; });
  if (it == ranges.begin()) return nullptr;
  --it;
  return offset < it->second ? &*it : nullptr;
}

inline bool IsXmlChar(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
         (c >= 0x10000 && c <= 0x10FFFF);
}

struct ForbiddenChar {
  size_t offset;
  std::string message;
};

// The code point of the reference `&#...;` at `at`; nullopt when it is malformed (the
// XML parser reports that). Reads every digit, as pugixml does (it decodes any length,
// so `&#` + twenty zeros + `;` is NUL to it); values past U+10FFFF saturate to 0x110000.
inline std::optional<uint32_t> CharRefValue(std::string_view s, size_t at, size_t* end) {
  size_t i = at + 2;
  const bool hex = i < s.size() && s[i] == 'x';
  if (hex) ++i;
  uint64_t v = 0;
  size_t digits = 0;
  for (; i < s.size() && s[i] != ';'; ++i, ++digits) {
    const char c = s[i];
    int d = c >= '0' && c <= '9' ? c - '0' : -1;
    if (hex && d < 0 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) d = (c | 0x20) - 'a' + 10;
    if (d < 0) return std::nullopt;
    v = std::min<uint64_t>(v * (hex ? 16 : 10) + static_cast<uint64_t>(d), 0x110000u);
  }
  *end = i;
  if (digits == 0 || i >= s.size() || s[i] != ';') return std::nullopt;
  return static_cast<uint32_t>(v);
}

// The first character XML 1.0 forbids, raw or referenced, outside opaque ranges for
// references (raw control bytes are forbidden everywhere); nullopt when there is none.
// Only characters starting in [begin, end) are looked at, though one may run past
// `end`; `opaque` covers the whole of `s`. So the first hit of [0, m) and, failing
// it, that of [m, size) is the first of the whole: a reference or a sequence cut by m
// starts, and is judged, before it.
inline std::optional<ForbiddenChar> FindForbiddenChar(std::string_view s, const OpaqueRanges& opaque,
                                                      size_t begin = 0, size_t end = std::string_view::npos) {
  const size_t limit = std::min(end, s.size());
  for (size_t i = begin; i < limit; ++i) {
#if defined(__SSE2__)
    // Sixteen bytes at a time past the common case: no '&', no byte below 0x20 other
    // than the whitespace ones and no 0xEF (the lead byte of U+FFFE/U+FFFF, rare in text).
    while (i + 16 <= limit) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
      __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1F)), x);
      low = _mm_andnot_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')), low);
      low = _mm_andnot_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\t')), low);
      low = _mm_andnot_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')), low);
      __m128i hit = _mm_or_si128(low, _mm_cmpeq_epi8(x, _mm_set1_epi8('&')));
      hit = _mm_or_si128(hit, _mm_cmpeq_epi8(x, _mm_set1_epi8(static_cast<char>(0xEF))));
      const int mask = _mm_movemask_epi8(hit);
      if (mask != 0) {
        i += static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        break;
      }
      i += 16;
    }
    if (i >= limit) break;
#endif
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0xEF && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
        (static_cast<unsigned char>(s[i + 2]) & 0xFE) == 0xBE) {
      return ForbiddenChar{i, std::string("raw U+") + (s[i + 2] == '\xBE' ? "FFFE" : "FFFF") +
                                  " (a noncharacter), which XML 1.0 forbids"};
    }
    if (c >= 0x20 && c != '&') continue;
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", c);
      return ForbiddenChar{i, std::string("raw control byte ") + hex + ", which XML 1.0 forbids"};
    }
    if (c != '&' || i + 1 >= s.size() || s[i + 1] != '#') continue;
    if (const auto* range = OpaqueRangeAt(opaque, i)) {
      i = range->second - 1;
      continue;
    }
    size_t end = i;
    const std::optional<uint32_t> v = CharRefValue(s, i, &end);
    if (v && !IsXmlChar(*v)) {
      return ForbiddenChar{i, "character reference '" + std::string(s.substr(i, end + 1 - i)) +
                                  "' names a character XML 1.0 forbids (NUL, a control character, a surrogate, "
                                  "U+FFFE/U+FFFF or beyond U+10FFFF)"};
    }
  }
  return std::nullopt;
}

}  // namespace perfgate::internal

#endif  // PERFGATE_SRC_XCTRACE_XML_CHARS_H_
