// The xctrace export reader. FORMAT.md beside this file describes the format.
//
// Design: a hand-written scanner walks the document skeleton (<trace-query-result>,
// <node>, <schema>) and cuts the rows of each node into ~1 MiB chunks at `</row>`
// boundaries; pugixml parses each chunk in situ as a fragment. Only one chunk's DOM
// exists at a time, so memory stays proportional to the file: the bytes (which values
// point into), one 40-byte node per distinct value, and one 4-byte slot per cell.
#include "perfgate/xctrace/reader.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include <pugixml.hpp>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/hash_mix.h"
#include "perfgate/core/jobs.h"
#include "text_input.h"
#include "xml_chars.h"

namespace perfgate::xctrace {
namespace {

constexpr size_t kChunkBytes = 1 << 20;
constexpr int kMaxDepth = 64;
constexpr uint32_t kSentinelIndex = 0;
constexpr uint32_t kMissingIndex = 1;
constexpr uint32_t kNoTag = UINT32_MAX;
// How pugixml parses rows. parse_ws_pcdata_single keeps whitespace-only text that is
// an element's only content (`<narrative-text fmt=" "> </narrative-text>` is " "),
// while whitespace between elements (between rows, or indenting a pretty-printed
// row's cells) still makes no node. No parse_eol: text is kept byte for byte.
// parse_cdata keeps a CDATA section's text (without it pugixml drops it silently).
constexpr unsigned kRowParseOptions =
    pugi::parse_escapes | pugi::parse_fragment | pugi::parse_ws_pcdata_single | pugi::parse_cdata;

enum NodeFlags : uint8_t {
  kHasFmt = 1,
  kHasInteger = 2,
  kNegative = 4,
};

// How an integer engineering type's text is range-checked.
enum class IntKind : uint8_t { kNone, kSigned64, kUnsigned64, kUnsigned32, kUnsigned16, kUnsigned8, kSigned32 };

IntKind IntKindOf(std::string_view type) {
  static const std::unordered_map<std::string_view, IntKind> kKinds = {
      {"start-time", IntKind::kSigned64},   {"event-time", IntKind::kSigned64},
      {"sample-time", IntKind::kSigned64},  {"duration", IntKind::kSigned64},
      {"int64", IntKind::kSigned64},        {"int32", IntKind::kSigned32},
      {"pid", IntKind::kSigned64},          {"tid", IntKind::kUnsigned64},
      {"uint64", IntKind::kUnsigned64},     {"metal-command-buffer-id", IntKind::kUnsigned64},
      {"uint32", IntKind::kUnsigned32},     {"uint16", IntKind::kUnsigned16},
      {"uint8", IntKind::kUnsigned8},       {"metal-nesting-level", IntKind::kUnsigned32},
      {"gpu-frame-number", IntKind::kUnsigned64}, {"size-in-bytes", IntKind::kUnsigned64},
  };
  auto it = kKinds.find(type);
  return it == kKinds.end() ? IntKind::kNone : it->second;
}

struct ValueNode {
  uint32_t text_off = 0, text_len = 0;
  uint32_t fmt_off = 0, fmt_len = 0;
  uint32_t tag = kNoTag;
  uint32_t first_child = 0;
  uint32_t first_attr = 0;
  uint16_t child_count = 0;
  uint8_t attr_count = 0;
  uint8_t flags = 0;
  uint64_t integer = 0;
};
static_assert(sizeof(ValueNode) == 40, "ValueNode is the reader's per-value memory cost");

struct AttrSpan {
  uint32_t name_off, name_len, value_off, value_len;
};

struct TableData {
  std::string schema;
  std::string xpath;                // its first node's
  std::vector<std::string> aliases;  // other xpaths of schema-less nodes bound to it
  int run = 0;                       // the run its xpath names; 0: none
  size_t node_offset = 0;  // byte offset of its first <node>
  size_t node_count = 0;   // <node>s merged into it
  std::vector<Column> columns;
  std::vector<uint32_t> column_tags;  // interned engineering type per column
  std::unordered_map<std::string, size_t> column_index;
  std::vector<uint32_t> cells;        // row-major, columns.size() per row
  std::vector<uint32_t> row_offsets;  // byte offset of each <row
};

}  // namespace

struct Document::Impl {
  std::string path;
  std::string bytes;  // rewritten in situ by pugixml; values point into it
  size_t byte_size = 0;
  internal::LineIndex lines;
  std::vector<ValueNode> nodes;
  std::vector<uint32_t> children;
  std::vector<AttrSpan> attrs;
  std::deque<std::string> tag_names;
  std::unordered_map<std::string_view, uint32_t> tag_ids;
  std::vector<IntKind> tag_int_kinds;
  std::vector<TableData> tables;
  Diagnostics diagnostics;
  // Value::Find's answers by (value, tag): a value reached through many refs (a DAG)
  // is searched once per tag, not once per path to it. Guarded: Find is const. Its
  // bound is the document's: one entry per value visited per distinct tag Find is
  // asked for, about 40 bytes each (a 24-byte node, its allocation and a bucket), so
  // at most one ValueNode's size (40 bytes) per value and tag; it lives as long as the Document.
  mutable std::mutex find_mutex;
  mutable std::unordered_map<uint64_t, uint32_t> find_memo;

  std::string_view Str(uint32_t off, uint32_t len) const { return {bytes.data() + off, len}; }

  uint32_t InternTag(std::string_view name) {
    auto it = tag_ids.find(name);
    if (it != tag_ids.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(tag_names.size());
    tag_names.emplace_back(name);
    tag_ids.emplace(tag_names.back(), id);
    tag_int_kinds.push_back(IntKindOf(name));
    return id;
  }
};

namespace {

using Impl = Document::Impl;

const Impl& ImplOf(const void* doc) { return *static_cast<const Impl*>(doc); }

// Inline comparison of short NUL-terminated names: a libc strcmp call per element
// was a tenth of the decode time.
inline bool SameName(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

// pugixml defines even the null test of its handles out of line: `for (...; c; ...)`
// is a call into the library per node and per attribute, about 5 % of a decode, and
// the cost of that chain of tiny calls moved with code placement (a field added to
// ReadOptions alone made the decode 5 % slower). A handle is one pointer, null when
// empty (what internal_object() returns), so the row loops test it here.
template <typename Handle>
inline bool Present(const Handle& h) {
  static_assert(sizeof(Handle) == sizeof(void*) && std::is_trivially_copyable_v<Handle>,
                "a pugixml handle is one pointer");
  void* p;
  std::memcpy(&p, &h, sizeof p);
  return p != nullptr;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsNameEnd(char c) { return IsSpace(c) || c == '/' || c == '>' || c == '\0'; }
bool IsAllSpace(const char* s) {
  while (IsSpace(*s)) ++s;
  return *s == '\0';
}

// An attribute value read by the skeleton scanner, with the five predefined entities
// decoded (xpath="/trace-toc/run[@number=&quot;1&quot;]/…").
std::string DecodeAttribute(std::string_view raw) {
  if (raw.find('&') == std::string_view::npos) return std::string(raw);
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&quot;", '"'}, {"&apos;", '\''}, {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}};
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    bool decoded = false;
    for (const auto& [entity, c] : kEntities) {
      if (raw.substr(i, entity.size()) == entity) {
        out.push_back(c);
        i += entity.size() - 1;
        decoded = true;
        break;
      }
    }
    if (!decoded) out.push_back(raw[i]);
  }
  return out;
}

// The run a node's xpath names: `run[N]` as Instruments writes it
// (//trace-toc[1]/run[1]/data[1]/table[34]) or `run[@number="N"]` as a query does;
// 0 when it names none.
int RunOfXpath(std::string_view xpath) {
  for (size_t at = xpath.find("run["); at != std::string_view::npos; at = xpath.find("run[", at + 1)) {
    if (at > 0 && xpath[at - 1] != '/') continue;
    std::string_view rest = xpath.substr(at + 4);
    char quote = '\0';
    if (rest.substr(0, 8) == "@number=" && rest.size() > 8 && (rest[8] == '"' || rest[8] == '\'')) {
      quote = rest[8];
      rest.remove_prefix(9);
    }
    size_t digits = 0;
    while (digits < rest.size() && digits < 9 && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    if (digits == 0) continue;
    size_t close = digits;
    if (quote != '\0' && (close >= rest.size() || rest[close++] != quote)) continue;
    if (close >= rest.size() || rest[close] != ']') continue;
    return std::stoi(std::string(rest.substr(0, digits)));
  }
  return 0;
}

// "run 1", "runs 1 and 2", "runs 1, 2 and 3"; run 0 reads "a node whose xpath names
// no run".
std::string DescribeRuns(std::vector<int> runs) {
  std::sort(runs.begin(), runs.end());
  runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
  std::vector<std::string> parts;
  const bool unnamed = !runs.empty() && runs.front() == 0;
  if (unnamed) runs.erase(runs.begin());
  if (!runs.empty()) {
    std::string numbers;
    for (size_t i = 0; i < runs.size(); ++i) {
      numbers += (i == 0 ? "" : i + 1 == runs.size() ? " and " : ", ") + std::to_string(runs[i]);
    }
    parts.push_back((runs.size() == 1 ? "run " : "runs ") + numbers);
  }
  if (unnamed) parts.push_back("a node whose xpath names no run");
  if (parts.empty()) return "no table at all";
  return parts.size() == 1 ? parts[0] : parts[0] + " and " + parts[1];
}

// Empty when `b` repeats `a`'s schema (name, and every column's mnemonic, display name
// and engineering type, in order); otherwise what differs, `a` being "here".
std::string SchemaDifference(const TableData& a, const TableData& b) {
  if (a.schema != b.schema) return "schema '" + a.schema + "' here, '" + b.schema + "' there";
  if (a.columns.size() != b.columns.size()) {
    return std::to_string(a.columns.size()) + " columns here, " + std::to_string(b.columns.size()) + " there";
  }
  for (size_t i = 0; i < a.columns.size(); ++i) {
    const Column& x = a.columns[i];
    const Column& y = b.columns[i];
    if (x.mnemonic != y.mnemonic || x.name != y.name || x.engineering_type != y.engineering_type) {
      auto show = [](const Column& c) { return "'" + c.mnemonic + "' ('" + c.name + "', " + c.engineering_type + ")"; };
      return "column " + std::to_string(i + 1) + " is " + show(x) + " here, " + show(y) + " there";
    }
  }
  return {};
}

// Parses a decimal integer (optionally negative) with overflow detection.
bool ParseDecimal(std::string_view s, bool allow_negative, uint64_t* magnitude, bool* negative) {
  *negative = false;
  size_t i = 0;
  if (!s.empty() && s[0] == '-') {
    if (!allow_negative) return false;
    *negative = true;
    i = 1;
  } else if (!s.empty() && s[0] == '+') {
    i = 1;
  }
  if (i >= s.size()) return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    unsigned d = static_cast<unsigned char>(s[i]) - '0';
    if (d > 9) return false;
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *magnitude = v;
  return true;
}

// Decodes `text` under `kind`; returns false when it is not an integer in range.
bool DecodeInteger(std::string_view text, IntKind kind, uint64_t* bits, bool* negative) {
  uint64_t mag;
  bool signed_kind = kind == IntKind::kSigned64 || kind == IntKind::kSigned32;
  if (!ParseDecimal(text, signed_kind, &mag, negative)) return false;
  uint64_t max_pos = UINT64_MAX;
  switch (kind) {
    case IntKind::kSigned64: max_pos = INT64_MAX; break;
    case IntKind::kSigned32: max_pos = INT32_MAX; break;
    case IntKind::kUnsigned32: max_pos = UINT32_MAX; break;
    case IntKind::kUnsigned16: max_pos = UINT16_MAX; break;
    case IntKind::kUnsigned8: max_pos = UINT8_MAX; break;
    default: break;
  }
  if (*negative) {
    uint64_t max_neg = kind == IntKind::kSigned32 ? uint64_t{1} << 31 : uint64_t{1} << 63;
    if (mag > max_neg) return false;
    *bits = ~mag + 1;  // two's complement
    if (mag == 0) *negative = false;
  } else {
    if (mag > max_pos) return false;
    *bits = mag;
  }
  return true;
}

class ExportParser {
 public:
  ExportParser(Impl& doc, const ReadOptions& options)
      : doc_(doc), options_(options), strict_(options.mode == ReadMode::kStrict) {}

  Status Run();

 private:
  // --- error reporting -------------------------------------------------------
  Status Fatal(std::string_view code, size_t offset, std::string message) const {
    return Status::Error(std::string(code), std::move(message), Locate(offset));
  }
  SourceLocation Locate(size_t offset) const { return doc_.lines.Locate(doc_.path, offset); }
  // An anomaly: in strict mode it stops the read (returns false); in lenient mode it
  // is counted and reading goes on. Warnings never stop a read.
  bool Anomaly(std::string_view code, size_t offset, std::string message) {
    const DiagnosticDescriptor* d = FindDiagnostic(code);
    if (strict_ && d != nullptr && d->severity == Severity::kError) {
      if (error_.ok()) error_ = stop_for_pending_ref_ ? PendingRefError(pending_refs_.front())
                                                      : Fatal(code, offset, std::move(message));
      return false;
    }
    if (doc_.diagnostics.Has(code)) {
      doc_.diagnostics.Add(code);
    } else {
      doc_.diagnostics.Add(code, Locate(offset), std::move(message));
    }
    return true;
  }

  bool IsDefined(uint64_t id) const {
    return id < id_dense_.size() ? id_dense_[id].node != 0 : id_sparse_.count(id) > 0;
  }

  // --- skeleton scanning -----------------------------------------------------
  char* buf() { return doc_.bytes.data(); }
  size_t size() const { return doc_.bytes.size(); }
  bool StartsWith(size_t pos, std::string_view s) const {
    return pos + s.size() <= size() && std::memcmp(doc_.bytes.data() + pos, s.data(), s.size()) == 0;
  }
  // The first "</node>" in [from, to). Rows hold one only inside a comment or a CDATA
  // section (FindNodeEndOutsideMarkup steps over those), so this scans rows (a chunk
  // of them at a time): pairs of "/n" are rare in rows, which makes a 16-byte filter
  // fast.
  size_t FindNodeEnd(size_t from, size_t to) const {
#if defined(__SSE2__)
    const char* b = doc_.bytes.data();
    const __m128i slash = _mm_set1_epi8('/');
    const __m128i n = _mm_set1_epi8('n');
    size_t i = from + 1;  // i indexes the '/' of "</node>"
    while (i + 17 <= to) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
      __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 1));
      unsigned mask = static_cast<unsigned>(
          _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(x, slash), _mm_cmpeq_epi8(y, n))));
      while (mask != 0) {
        size_t at = i + static_cast<size_t>(__builtin_ctz(mask)) - 1;
        if (at + 7 <= to && std::memcmp(b + at, "</node>", 7) == 0) return at;
        mask &= mask - 1;
      }
      i += 16;
    }
    return Find(i - 1, to, "</node>");
#else
    return Find(from, to, "</node>");
#endif
  }
  // As FindNodeEnd and Find, stepping over comments, CDATA sections and PIs.
  size_t FindNodeEndOutsideMarkup(size_t from, size_t to) const {
    for (;;) {
      const size_t at = FindNodeEnd(from, to);
      const auto* range = at == std::string::npos ? nullptr : perfgate::internal::OpaqueRangeAt(opaque_, at);
      if (range == nullptr) return at;
      from = range->second;
    }
  }
  size_t FindOutsideMarkup(size_t from, size_t to, std::string_view needle) const {
    for (;;) {
      const size_t at = Find(from, to, needle);
      const auto* range = at == std::string::npos ? nullptr : perfgate::internal::OpaqueRangeAt(opaque_, at);
      if (range == nullptr) return at;
      from = range->second;
    }
  }
  size_t Find(size_t from, size_t to, std::string_view needle) const {
    if (from >= to) return std::string::npos;
    const void* p = memmem(doc_.bytes.data() + from, to - from, needle.data(), needle.size());
    return p == nullptr ? std::string::npos
                        : static_cast<size_t>(static_cast<const char*>(p) - doc_.bytes.data());
  }
  // Skips whitespace, comments, processing instructions and DOCTYPE.
  Status SkipMisc(size_t* pos);
  std::string_view ReadName(size_t pos) const {
    size_t end = pos;
    while (end < size() && !IsNameEnd(doc_.bytes[end])) ++end;
    return std::string_view(doc_.bytes.data() + pos, end - pos);
  }
  struct OpenTag {
    std::string_view name;
    std::vector<std::pair<std::string_view, std::string_view>> attributes;
    bool self_closing = false;
    size_t end = 0;  // offset just past '>'
  };
  Status ReadOpenTag(size_t pos, OpenTag* tag);
  // Skips one whole element starting at `pos` (its '<'); sets *pos past its end.
  Status SkipElement(size_t* pos);

  Status ParseNode(size_t* pos, int node_ordinal);
  // Parses a <schema> into *t (schema and columns).
  Status ParseSchema(size_t start, size_t end, TableData* t);
  // Makes the table of the node being read current. With a schema (`t`, read at
  // `schema_offset`): the earlier table it continues, or a new one; false when strict
  // mode stops at an xctrace.schema_conflict. Without: the earlier table of its
  // xpath, else the previous node's; false when there is none to continue.
  bool BindSchemaNode(TableData t, size_t schema_offset);
  bool BindSchemalessNode(const std::string& xpath);
  // The earlier table that a node of this xpath (and, without an xpath, this schema)
  // continues, or null.
  TableData* ContinuedTable(const std::string& xpath, const std::string& schema);
  // Makes `next` the table rows go to; the table left gives back its vector slack
  // (a Document outlives its decode). Continuation nodes of one table keep it current,
  // so its vectors are not copied between them.
  void SwitchTable(TableData* next);
  // Applies ReadOptions::run once every node is read.
  Status SelectRun(size_t root_offset);
  // Parses the rows from *pos up to the node's "</node>" and sets *pos to that tag.
  Status ParseRows(size_t* pos);
  // ParseRows' steps: reserving after the first chunk, parsing one chunk into
  // document `slot` (0 or 1), its parse error, and reading its rows.
  void ReserveForTheRest(size_t start, size_t p, size_t rows_before, size_t nodes_before);
  pugi::xml_parse_result ParseChunk(int slot, size_t begin, size_t end);
  Status ChunkNotXml(size_t p, const pugi::xml_parse_result& r) const;
  bool ReadChunkRows(int slot, size_t p);
  pugi::xml_document& ChunkDocument(int slot) { return slot == 0 ? chunk_ : chunk_ahead_; }
  // The end of the next chunk of rows from `p`: just past a "</row>", or the offset
  // of "</node>" (then *last is set); npos when the file ends first.
  size_t NextChunkEnd(size_t p, bool* last) const;
  Status RowsCutOff(size_t rows_start);
  // True when a "</node>" follows p somewhere in the file.
  bool NodeIsClosedAfter(size_t p);
  bool ParseRow(pugi::xml_node row);
  bool InternCell(pugi::xml_node cell, size_t column, uint32_t* out);
  bool InternElement(pugi::xml_node element, uint32_t known_tag, int depth, uint32_t* out);
  Status CheckWholeBuffer();
  bool ResolveRef(pugi::xml_node element, uint32_t known_tag, const char* ref_text, bool has_other_content,
                  uint32_t* out);
  bool RegisterId(pugi::xml_node element, const char* id_text, uint32_t node_index, uint32_t tag);

  size_t OffsetOf(const char* p) const { return static_cast<size_t>(p - doc_.bytes.data()); }
  size_t ElementOffset(pugi::xml_node e) const { return OffsetOf(e.name()) - 1; }
  bool InBuffer(const char* p) const {
    return p >= doc_.bytes.data() && p < doc_.bytes.data() + doc_.bytes.size();
  }
  std::string RowContext() const {
    return "node " + std::to_string(node_ordinal_) + ", row " + std::to_string(row_in_node_);
  }

  Impl& doc_;
  const ReadOptions& options_;
  bool strict_;
  Status error_;
  // The tag sits beside the node index because checking a ref's tag through the node
  // table costs a cache miss per ref on large exports (a quarter of InternElement).
  struct IdEntry {
    uint32_t node = 0;  // 0: not defined (node 0 is never a value)
    uint32_t tag = kNoTag;
  };
  std::vector<IdEntry> id_dense_;
  std::optional<size_t> last_node_end_;  // the file's last "</node>" (npos: none), once looked for
  std::unordered_map<uint64_t, IdEntry, perfgate::internal::SeededHash> id_sparse_;
  std::vector<uint32_t> scratch_;
  // Per value (index as doc_.nodes): the height of its subtree, refs followed. Element
  // nesting alone does not bound it, as a ref repeats an earlier, already deep value.
  std::vector<uint8_t> value_height_;
  // Comments, CDATA sections and PIs: a "</row>" or "</node>" inside one is text.
  perfgate::internal::OpaqueRanges opaque_;
  struct PendingRef {
    uint64_t id;
    size_t offset;
    std::string where;
  };
  Status PendingRefError(const PendingRef& r) const;
  std::vector<PendingRef> pending_refs_;
  bool stop_for_pending_ref_ = false;
  pugi::xml_document chunk_;
  pugi::xml_document chunk_ahead_;  // the next chunk, parsed on another core
  TableData* table_ = nullptr;
  int node_ordinal_ = 0;
  size_t node_offset_ = 0;  // of the <node> being read
  size_t row_in_node_ = 0;
};

Status ExportParser::PendingRefError(const PendingRef& r) const {
  if (IsDefined(r.id)) {
    return Fatal("xctrace.forward_ref", r.offset, r.where + " refers to an id defined only later");
  }
  return Fatal("xctrace.dangling_ref", r.offset, r.where + " has no earlier id=\"" + std::to_string(r.id) + "\"");
}

namespace {

// Below this the checks' second thread costs more than it saves.
constexpr size_t kChecksOnTwoCores = size_t{4} << 20;

// fn(0) and fn(1): through ParallelFor (on two cores when a second is free) when
// `worth_a_thread`, else one after the other here.
void BothParts(bool worth_a_thread, const std::function<void(size_t)>& fn) {
  if (worth_a_thread) return ParallelFor(2, fn);
  fn(0);
  fn(1);
}

}  // namespace

// The checks over the whole buffer before anything is parsed: UTF-8 (with the line
// index), then the characters XML forbids outside comments and CDATA. They only read
// the buffer, so with a second core free the UTF-8 check runs beside the search for
// comments and CDATA, then each half of the buffer is searched for forbidden
// characters on a core of its own; a bad UTF-8 sequence is still reported first, and
// the first forbidden character of the buffer, as one pass finds them (perf: these
// checks were 15 % of a 200 MB export's decode, all on one core).
Status ExportParser::CheckWholeBuffer() {
  const std::string_view bytes = doc_.bytes;
  const bool large = bytes.size() >= kChecksOnTwoCores;
  size_t bad = std::string::npos;
  BothParts(large, [&](size_t part) {
    if (part == 0) {
      opaque_ = internal::FindOpaqueRanges(bytes);
    } else {
      doc_.lines = internal::LineIndex::BuildValidatingUtf8(bytes, &bad);
    }
  });
  const size_t half = large ? bytes.size() / 2 : bytes.size();
  std::optional<internal::ForbiddenChar> hits[2];
  BothParts(large, [&](size_t part) {
    hits[part] = part == 0 ? internal::FindForbiddenChar(bytes, opaque_, 0, half)
                           : internal::FindForbiddenChar(bytes, opaque_, half, bytes.size());
  });
  if (bad != std::string::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(bytes[bad]));
    return Fatal("xctrace.bad_utf8", bad, std::string("invalid UTF-8 sequence starting with byte ") + hex);
  }
  if (const auto& hit = hits[0] ? hits[0] : hits[1]) return Fatal("xctrace.bad_char", hit->offset, hit->message);
  return Status();
}

Status ExportParser::SkipMisc(size_t* pos) {
  size_t p = *pos;
  for (;;) {
    while (p < size() && IsSpace(doc_.bytes[p])) ++p;
    if (StartsWith(p, "<!--")) {
      size_t e = Find(p + 4, size(), "-->");
      if (e == std::string::npos) return Fatal("xctrace.truncated", p, "unterminated comment");
      p = e + 3;
    } else if (StartsWith(p, "<?")) {
      size_t e = Find(p + 2, size(), "?>");
      if (e == std::string::npos) return Fatal("xctrace.truncated", p, "unterminated processing instruction");
      p = e + 2;
    } else if (StartsWith(p, "<!DOCTYPE")) {
      size_t e = Find(p, size(), ">");
      if (e == std::string::npos) return Fatal("xctrace.truncated", p, "unterminated DOCTYPE");
      p = e + 1;
    } else {
      break;
    }
  }
  *pos = p;
  return Status();
}

Status ExportParser::ReadOpenTag(size_t pos, OpenTag* tag) {
  // pos is at '<'.
  tag->attributes.clear();
  tag->self_closing = false;
  tag->name = ReadName(pos + 1);
  if (tag->name.empty()) return Fatal("xctrace.not_xml", pos, "expected an element name after '<'");
  size_t p = pos + 1 + tag->name.size();
  for (;;) {
    while (p < size() && IsSpace(doc_.bytes[p])) ++p;
    if (p >= size()) return Fatal("xctrace.truncated", pos, "the file ends inside <" + std::string(tag->name) + ">");
    char c = doc_.bytes[p];
    if (c == '>') { tag->end = p + 1; return Status(); }
    if (c == '/') {
      if (p + 1 < size() && doc_.bytes[p + 1] == '>') {
        tag->self_closing = true;
        tag->end = p + 2;
        return Status();
      }
      return Fatal("xctrace.not_xml", p, "expected '>' after '/'");
    }
    size_t name_start = p;
    while (p < size() && doc_.bytes[p] != '=' && !IsSpace(doc_.bytes[p]) && doc_.bytes[p] != '>') ++p;
    std::string_view name(doc_.bytes.data() + name_start, p - name_start);
    while (p < size() && IsSpace(doc_.bytes[p])) ++p;
    if (p >= size() || doc_.bytes[p] != '=') return Fatal("xctrace.not_xml", p, "expected '=' after attribute name");
    ++p;
    while (p < size() && IsSpace(doc_.bytes[p])) ++p;
    if (p >= size() || (doc_.bytes[p] != '"' && doc_.bytes[p] != '\'')) {
      return Fatal("xctrace.not_xml", p, "expected a quoted attribute value");
    }
    char quote = doc_.bytes[p++];
    size_t value_start = p;
    while (p < size() && doc_.bytes[p] != quote) ++p;
    if (p >= size()) return Fatal("xctrace.truncated", value_start, "unterminated attribute value");
    tag->attributes.emplace_back(name, std::string_view(doc_.bytes.data() + value_start, p - value_start));
    ++p;
  }
}

Status ExportParser::SkipElement(size_t* pos) {
  int depth = 0;
  size_t p = *pos;
  do {
    size_t lt = Find(p, size(), "<");
    if (lt == std::string::npos) return Fatal("xctrace.truncated", *pos, "the file ends inside an element");
    if (StartsWith(lt, "<!--") || StartsWith(lt, "<?")) {
      PERFGATE_RETURN_IF_ERROR(SkipMisc(&lt));
      p = lt;
      continue;
    }
    if (StartsWith(lt, "</")) {
      size_t gt = Find(lt, size(), ">");
      if (gt == std::string::npos) return Fatal("xctrace.truncated", lt, "unterminated end tag");
      --depth;
      p = gt + 1;
      continue;
    }
    OpenTag tag;
    PERFGATE_RETURN_IF_ERROR(ReadOpenTag(lt, &tag));
    if (!tag.self_closing) ++depth;
    p = tag.end;
  } while (depth > 0);
  *pos = p;
  return Status();
}

Status ExportParser::Run() {
  if (doc_.bytes.empty()) return Status::Error("xctrace.empty_file", "the file is empty", {doc_.path, 1, 1});
  if (doc_.bytes.size() > UINT32_MAX) {
    return Status::Error("xctrace.too_large", "the file is over 4 GiB", {doc_.path});
  }
  if (options_.run < 0) {
    return Status::Error("xctrace.run_not_found",
                         "run " + std::to_string(options_.run) + " asked for: runs are numbered from 1",
                         {doc_.path});
  }
  PERFGATE_RETURN_IF_ERROR(CheckWholeBuffer());
  doc_.nodes.reserve(1024);
  doc_.nodes.emplace_back();  // kSentinelIndex
  doc_.nodes.emplace_back();  // kMissingIndex
  value_height_.assign(2, 0);

  size_t pos = StartsWith(0, "\xEF\xBB\xBF") ? 3 : 0;
  PERFGATE_RETURN_IF_ERROR(SkipMisc(&pos));
  if (pos >= size()) return Fatal("xctrace.not_xml", pos, "no root element");
  if (doc_.bytes[pos] != '<') return Fatal("xctrace.not_xml", pos, "expected '<' at the start of the document");
  const size_t root_offset = pos;
  OpenTag root;
  PERFGATE_RETURN_IF_ERROR(ReadOpenTag(pos, &root));
  if (root.name == "trace-toc") {
    return Fatal("xctrace.unexpected_root", pos,
                 "this is a table of contents (xctrace export --toc); read it with `perfgate toc`");
  }
  if (root.name != "trace-query-result") {
    return Fatal("xctrace.unexpected_root", pos,
                 "root element is <" + std::string(root.name) + ">, expected <trace-query-result>");
  }
  pos = root.end;
  int nodes_seen = 0;
  if (!root.self_closing) {
    for (;;) {
      PERFGATE_RETURN_IF_ERROR(SkipMisc(&pos));
      if (pos >= size()) return Fatal("xctrace.truncated", pos, "the file ends before </trace-query-result>");
      if (doc_.bytes[pos] != '<') return Fatal("xctrace.not_xml", pos, "text directly inside <trace-query-result>");
      if (StartsWith(pos, "</")) {
        if (ReadName(pos + 2) != "trace-query-result") {
          return Fatal("xctrace.not_xml", pos, "end tag </" + std::string(ReadName(pos + 2)) +
                                                   "> does not match <trace-query-result>");
        }
        size_t gt = Find(pos, size(), ">");
        if (gt == std::string::npos) return Fatal("xctrace.truncated", pos, "unterminated end tag");
        pos = gt + 1;
        break;
      }
      if (ReadName(pos + 1) == "node") {
        PERFGATE_RETURN_IF_ERROR(ParseNode(&pos, ++nodes_seen));
        if (!error_.ok()) return error_;
      } else {
        size_t at = pos;
        if (!Anomaly("xctrace.unknown_element", at,
                     "<" + std::string(ReadName(pos + 1)) + "> inside <trace-query-result>; expected <node>")) {
          return error_;
        }
        PERFGATE_RETURN_IF_ERROR(SkipElement(&pos));
      }
    }
  }
  PERFGATE_RETURN_IF_ERROR(SkipMisc(&pos));
  if (pos < size()) return Fatal("xctrace.not_xml", pos, "content after the root element");
  if (strict_ && !pending_refs_.empty()) return PendingRefError(pending_refs_.front());
  for (const PendingRef& r : pending_refs_) {
    if (IsDefined(r.id)) {
      Anomaly("xctrace.forward_ref", r.offset, r.where + " refers to an id defined only later");
    } else {
      Anomaly("xctrace.dangling_ref", r.offset, r.where + " has no earlier id=\"" + std::to_string(r.id) + "\"");
    }
  }
  if (nodes_seen == 0) {
    std::string what = options_.expected_schema.empty()
                           ? std::string("the export holds no <node>: the query matched no table")
                           : "the export holds no <node>: no table of schema '" + options_.expected_schema +
                                 "' was exported";
    if (!Anomaly("xctrace.empty_export", root_offset, what)) return error_;
  }
  SwitchTable(nullptr);
  return SelectRun(root_offset);
}

Status ExportParser::SelectRun(size_t root_offset) {
  std::vector<TableData>& tables = doc_.tables;
  auto asked = [&](const TableData& t) {
    return options_.expected_schema.empty() || t.schema == options_.expected_schema;
  };
  auto runs_of = [&](const std::string& schema) {
    std::vector<int> runs;
    for (const TableData& t : tables) {
      if (schema.empty() ? asked(t) : t.schema == schema) runs.push_back(t.run);
    }
    return runs;
  };
  if (options_.run == 0) {
    // Two tables of one schema from different runs: report the first node of the
    // later run.
    for (size_t i = 0; i < tables.size(); ++i) {
      if (!asked(tables[i])) continue;
      for (size_t j = 0; j < i; ++j) {
        if (tables[j].schema != tables[i].schema || tables[j].run == tables[i].run) continue;
        return Fatal("xctrace.multiple_runs", tables[i].node_offset,
                     "schema '" + tables[i].schema + "' is exported from " +
                         DescribeRuns(runs_of(tables[i].schema)) +
                         "; pick one with the reader's run option (perfgate: --run N)");
      }
    }
    return Status();
  }
  const std::vector<int> present = runs_of("");
  size_t first_asked = root_offset;
  for (const TableData& t : tables) {
    if (asked(t)) {
      first_asked = t.node_offset;
      break;
    }
  }
  tables.erase(std::remove_if(tables.begin(), tables.end(),
                              [&](const TableData& t) { return t.run != options_.run; }),
               tables.end());
  if (std::none_of(tables.begin(), tables.end(), asked)) {
    const std::string what = options_.expected_schema.empty()
                                 ? std::string("table")
                                 : "table of schema '" + options_.expected_schema + "'";
    return Fatal("xctrace.run_not_found", first_asked,
                 "no " + what + " of run " + std::to_string(options_.run) + ": the export holds " +
                     DescribeRuns(present));
  }
  return Status();
}

Status ExportParser::ParseNode(size_t* pos, int node_ordinal) {
  const size_t node_offset = *pos;
  node_ordinal_ = node_ordinal;
  node_offset_ = node_offset;
  row_in_node_ = 0;
  OpenTag tag;
  PERFGATE_RETURN_IF_ERROR(ReadOpenTag(*pos, &tag));
  std::string xpath;
  for (const auto& [name, value] : tag.attributes) {
    if (name == "xpath") xpath = DecodeAttribute(value);
  }
  size_t p = tag.end;
  bool has_schema = false;
  bool bound = false;  // the node's rows have a table to go to
  if (!tag.self_closing) {
    for (;;) {
      PERFGATE_RETURN_IF_ERROR(SkipMisc(&p));
      if (p >= size()) return Fatal("xctrace.truncated", p, "the file ends before </node>");
      if (StartsWith(p, "</")) {
        if (ReadName(p + 2) != "node") {
          return Fatal("xctrace.not_xml", p,
                       "end tag </" + std::string(ReadName(p + 2)) + "> does not match <node>");
        }
        size_t gt = Find(p, size(), ">");
        if (gt == std::string::npos) return Fatal("xctrace.truncated", p, "unterminated end tag");
        p = gt + 1;
        break;
      }
      if (!has_schema && StartsWith(p, "<schema") && IsNameEnd(doc_.bytes[p + 7])) {
        size_t end;
        OpenTag schema_tag;
        PERFGATE_RETURN_IF_ERROR(ReadOpenTag(p, &schema_tag));
        if (schema_tag.self_closing) {
          end = schema_tag.end;
        } else {
          size_t close = FindOutsideMarkup(p, size(), "</schema>");
          if (close == std::string::npos) return Fatal("xctrace.truncated", p, "the file ends inside <schema>");
          end = close + 9;
        }
        TableData t;
        t.xpath = xpath;
        t.run = RunOfXpath(xpath);
        t.node_offset = node_offset;
        PERFGATE_RETURN_IF_ERROR(ParseSchema(p, end, &t));
        if (!error_.ok()) return error_;
        if (!BindSchemaNode(std::move(t), p)) return error_;
        has_schema = bound = true;
        p = end;
        continue;
      }
      // Everything else up to </node> is rows (and anything odd among them).
      if (!bound && !BindSchemalessNode(xpath)) {
        const size_t node_end = FindNodeEndOutsideMarkup(p, size());
        if (node_end == std::string::npos) return RowsCutOff(p);
        if (!Anomaly("xctrace.missing_schema", node_offset,
                     "<node> " + std::to_string(node_ordinal) +
                         " has rows but no <schema>, and no earlier node has one; its rows are skipped")) {
          return error_;
        }
        p = node_end;
        continue;
      }
      bound = true;
      PERFGATE_RETURN_IF_ERROR(ParseRows(&p));
      if (!error_.ok()) return error_;
    }
  }
  *pos = p;
  return Status();
}

TableData* ExportParser::ContinuedTable(const std::string& xpath, const std::string& schema) {
  auto continues = [&](const TableData& t) {
    if (xpath.empty()) return t.xpath.empty() && t.schema == schema;
    return t.xpath == xpath || std::find(t.aliases.begin(), t.aliases.end(), xpath) != t.aliases.end();
  };
  // The current table first: after a (lenient) schema conflict, two tables share an
  // xpath, and the later one is being continued.
  if (table_ != nullptr && continues(*table_)) return table_;
  for (TableData& t : doc_.tables) {
    if (continues(t)) return &t;
  }
  return nullptr;
}

bool ExportParser::BindSchemaNode(TableData t, size_t schema_offset) {
  if (TableData* earlier = ContinuedTable(t.xpath, t.schema)) {
    const std::string difference = SchemaDifference(t, *earlier);
    if (difference.empty()) {
      SwitchTable(earlier);
      ++earlier->node_count;
      return true;
    }
    const std::string table = earlier->xpath.empty() ? "schema '" + earlier->schema + "'" : "'" + earlier->xpath + "'";
    const SourceLocation first = Locate(earlier->node_offset);
    if (!Anomaly("xctrace.schema_conflict", schema_offset,
                 "<node> " + std::to_string(node_ordinal_) + " repeats the schema of table " + table +
                     " (first node at " + std::to_string(first.line) + ":" + std::to_string(first.column) +
                     ") with a difference: " + difference + "; its rows form a table of their own")) {
      return false;
    }
  }
  SwitchTable(nullptr);
  t.node_count = 1;
  doc_.tables.push_back(std::move(t));
  table_ = &doc_.tables.back();
  return true;
}

bool ExportParser::BindSchemalessNode(const std::string& xpath) {
  TableData* t = xpath.empty() ? nullptr : ContinuedTable(xpath, {});
  if (t == nullptr) {
    // The previous node's table, even under another xpath: a trimmed real export
    // (swift-mlx-profiler's test) follows table[109]'s node with a schema-less
    // table[110] one. Later nodes of that xpath continue the same table.
    t = table_;
    if (t == nullptr) return false;
    const int run = RunOfXpath(xpath);
    if (!xpath.empty() && run != t->run) {
      // Another run's rows under the schema carried forward: a table of that run, so
      // that runs are never merged.
      TableData other;
      other.schema = t->schema;
      other.columns = t->columns;
      other.column_tags = t->column_tags;
      other.column_index = t->column_index;
      other.xpath = xpath;
      other.run = run;
      other.node_offset = node_offset_;
      other.node_count = 1;
      SwitchTable(nullptr);
      doc_.tables.push_back(std::move(other));
      table_ = &doc_.tables.back();
      return true;
    }
    if (!xpath.empty() && xpath != t->xpath) t->aliases.push_back(xpath);
  }
  SwitchTable(t);
  ++t->node_count;
  return true;
}

void ExportParser::SwitchTable(TableData* next) {
  if (table_ != nullptr && table_ != next) {
    // The first chunk's density is only an estimate: a vector that outgrew it doubled,
    // and a document of several tables reserved this one for the rest of the file.
    // The copy comes after the doubling that set the decode's peak.
    auto trim = [](auto& v) {
      if (v.capacity() > v.size() + v.size() / 4) v.shrink_to_fit();
    };
    trim(table_->row_offsets);
    trim(table_->cells);
  }
  table_ = next;
}

Status ExportParser::ParseSchema(size_t start, size_t end, TableData* out) {
  pugi::xml_parse_result r = chunk_.load_buffer_inplace(buf() + start, end - start,
                                                        pugi::parse_default | pugi::parse_fragment,
                                                        pugi::encoding_utf8);
  if (!r) return Fatal("xctrace.not_xml", start + r.offset, std::string("in <schema>: ") + r.description());
  pugi::xml_node schema = chunk_.child("schema");
  TableData& t = *out;
  t.schema = schema.attribute("name").value();
  if (!options_.expected_schema.empty() && t.schema != options_.expected_schema) {
    if (!Anomaly("xctrace.schema_mismatch", start,
                 "<schema name=\"" + t.schema + "\">, expected '" + options_.expected_schema + "'")) {
      return error_;
    }
  }
  for (pugi::xml_node col : schema.children()) {
    if (col.type() != pugi::node_element) continue;
    if (std::strcmp(col.name(), "col") != 0) {
      if (!Anomaly("xctrace.unknown_element", ElementOffset(col),
                   "<" + std::string(col.name()) + "> inside <schema>; expected <col>")) {
        return error_;
      }
      continue;
    }
    Column c{col.child_value("mnemonic"), col.child_value("name"), col.child_value("engineering-type")};
    if (c.mnemonic.empty() || c.engineering_type.empty()) {
      if (!Anomaly("xctrace.bad_column", ElementOffset(col),
                   "<col> " + std::to_string(t.columns.size() + 1) + " of schema '" + t.schema +
                       "' lacks <mnemonic> or <engineering-type>")) {
        return error_;
      }
    }
    if (!t.column_index.emplace(c.mnemonic, t.columns.size()).second) {
      Anomaly("xctrace.duplicate_column", ElementOffset(col),
              "schema '" + t.schema + "' has two columns named '" + c.mnemonic + "'");
    }
    t.column_tags.push_back(doc_.InternTag(c.engineering_type));
    t.columns.push_back(std::move(c));
  }
  return Status();
}

Status ExportParser::RowsCutOff(size_t rows_start) {
  // Point at the row that was cut: the last <row> in the file.
  size_t cut = size();
  for (size_t q = size(); q > rows_start;) {
    --q;
    if (StartsWith(q, "<row")) {
      cut = q;
      break;
    }
  }
  return Fatal("xctrace.truncated", cut, "the file ends before </node> (this row is cut off)");
}

size_t ExportParser::NextChunkEnd(size_t p, bool* last) const {
  // The node's end is looked for one chunk at a time, just before pugixml reads that
  // chunk, rather than in a pass of its own over the whole node: the bytes are then
  // read from memory once.
  const size_t nominal = std::min(p + kChunkBytes, size());
  size_t node_end = FindNodeEndOutsideMarkup(p, nominal);
  size_t row_end = std::string::npos;
  if (node_end == std::string::npos) {
    // Rows end at the first "</row>" past the nominal size, unless "</node>" comes first
    // (the two cannot overlap, so one wholly before the "</row>" is the node's end).
    // A nominal end inside a comment or CDATA section moves past it.
    size_t from = nominal;
    if (const auto* range = perfgate::internal::OpaqueRangeAt(opaque_, from)) from = range->second;
    row_end = FindOutsideMarkup(from, size(), "</row>");
    node_end = FindNodeEndOutsideMarkup(std::max(p, nominal >= 6 ? nominal - 6 : 0),
                                        row_end == std::string::npos ? size() : row_end);
  }
  *last = node_end != std::string::npos;
  if (*last) return node_end;
  return row_end == std::string::npos ? std::string::npos : row_end + 6;
}

bool ExportParser::NodeIsClosedAfter(size_t p) {
  // Rows contain "</node>" only inside comments and CDATA (stepped over), so the node
  // that starts before p is closed exactly when some "</node>" follows p, that is
  // when the file's last one does. Looked for
  // from the end, that one sits a few bytes before it in any complete export.
  // Computed at the first node's rows, before pugixml has rewritten any of them.
  if (!last_node_end_) {
    size_t at = std::string_view(doc_.bytes).rfind("</node>");
    while (at != std::string_view::npos) {
      const auto* range = perfgate::internal::OpaqueRangeAt(opaque_, at);
      if (range == nullptr) break;
      at = range->first == 0 ? std::string_view::npos
                             : std::string_view(doc_.bytes).rfind("</node>", range->first - 1);
    }
    last_node_end_ = at;
  }
  return *last_node_end_ != std::string_view::npos && *last_node_end_ >= p;
}

void ExportParser::ReserveForTheRest(size_t start, size_t p, size_t rows_before, size_t nodes_before) {
  // After the first chunk, reserve for the rest of the file at the density seen so
  // far (the node's end is not known yet; exports hold one node nearly always), so
  // that vectors rarely double and no extra pass counts the bytes. The slack is
  // given back when the table is left.
  const double scale = 1.05 * static_cast<double>(size() - start) / static_cast<double>(p - start);
  auto grow = [scale](auto& v, size_t before) {
    v.reserve(before + static_cast<size_t>(static_cast<double>(v.size() - before) * scale) + 16);
  };
  grow(table_->row_offsets, rows_before);
  grow(table_->cells, rows_before * table_->columns.size());
  grow(doc_.nodes, nodes_before);
}

pugi::xml_parse_result ExportParser::ParseChunk(int slot, size_t begin, size_t end) {
  return ChunkDocument(slot).load_buffer_inplace(buf() + begin, end - begin, kRowParseOptions, pugi::encoding_utf8);
}

Status ExportParser::ChunkNotXml(size_t p, const pugi::xml_parse_result& r) const {
  // pugixml points a mismatched end tag at its name; point at its '<' instead.
  size_t at = p + static_cast<size_t>(r.offset);
  // (In situ, the text before it may already have overwritten the '<' with a NUL.)
  if (r.status == pugi::status_end_element_mismatch && at >= p + 2 && doc_.bytes[at - 1] == '/' &&
      (doc_.bytes[at - 2] == '<' || doc_.bytes[at - 2] == '\0')) {
    at -= 2;
  }
  return Fatal("xctrace.not_xml", at,
               std::string(r.description()) + " (in the rows of <node> " + std::to_string(node_ordinal_) + ")");
}

bool ExportParser::ReadChunkRows(int slot, size_t p) {
  for (pugi::xml_node n = ChunkDocument(slot).first_child(); Present(n); n = n.next_sibling()) {
    if (n.type() == pugi::node_element) {
      const char* name = n.name();
      if (name[0] == 'r' && name[1] == 'o' && name[2] == 'w' && name[3] == '\0') {
        ++row_in_node_;
        if (!ParseRow(n)) return false;
        continue;
      }
      if (!Anomaly("xctrace.unknown_element", ElementOffset(n),
                   "<" + std::string(n.name()) + "> among the rows of <node> " + std::to_string(node_ordinal_) +
                       "; expected <row>")) {
        return false;
      }
    } else if ((n.type() == pugi::node_pcdata && !IsAllSpace(n.value())) || n.type() == pugi::node_cdata) {
      if (!Anomaly("xctrace.unknown_element", InBuffer(n.value()) ? OffsetOf(n.value()) : p,
                   "text among the rows of <node> " + std::to_string(node_ordinal_))) {
        return false;
      }
    }
  }
  return true;
}

Status ExportParser::ParseRows(size_t* pos) {
  const size_t start = *pos;
  // A cut-off file is reported as such before any of its rows, whatever its size.
  if (!NodeIsClosedAfter(start)) return RowsCutOff(start);
  const size_t rows_before = table_->row_offsets.size();
  const size_t nodes_before = doc_.nodes.size();
  // While this thread reads a chunk's rows (interning ids in document order), another
  // core parses the next chunk: chunks are disjoint byte ranges parsed in situ into
  // two documents used in turn. Errors keep the serial order: a chunk's parse result
  // is looked at only once the chunk before it is read.
  const bool ahead = ParallelWorkersAvailable();
  size_t p = start;
  bool last = false;
  size_t end = NextChunkEnd(p, &last);
  if (end == std::string::npos) return RowsCutOff(start);
  int slot = 0;
  pugi::xml_parse_result parsed;
  if (end > p) parsed = ParseChunk(slot, p, end);
  for (bool reserved = false; end > p;) {
    if (!reserved && !last && p > start) {
      reserved = true;
      ReserveForTheRest(start, p, rows_before, nodes_before);
    }
    bool next_last = false;
    const size_t next_end = last ? end : NextChunkEnd(end, &next_last);
    std::future<pugi::xml_parse_result> next;
    if (ahead && !last && next_end != std::string::npos && next_end > end) {
      next = std::async(std::launch::async, [this, slot, from = end, next_end] {
        return ParseChunk(1 - slot, from, next_end);
      });
    }
    if (!parsed || !ReadChunkRows(slot, p)) {
      if (next.valid()) next.wait();
      return !parsed ? ChunkNotXml(p, parsed) : error_;
    }
    p = end;
    if (last) break;
    if (next_end == std::string::npos) return RowsCutOff(start);
    end = next_end;
    last = next_last;
    slot = 1 - slot;
    if (end > p) parsed = next.valid() ? next.get() : ParseChunk(slot, p, end);
  }
  // The slack of the reservation is given back when the table is left (SwitchTable).
  *pos = p;
  return Status();
}

bool ExportParser::ParseRow(pugi::xml_node row) {
  TableData& t = *table_;
  const size_t row_offset = ElementOffset(row);
  const size_t ncols = t.columns.size();
  size_t col = 0;
  for (pugi::xml_node c = row.first_child(); Present(c); c = c.next_sibling()) {
    if (c.type() != pugi::node_element) {
      if (c.type() == pugi::node_pcdata && !IsAllSpace(c.value()) &&
          !Anomaly("xctrace.unknown_element", InBuffer(c.value()) ? OffsetOf(c.value()) : row_offset,
                   "text inside <row> (" + RowContext() + ")")) {
        return false;
      }
      continue;
    }
    if (col < ncols) {
      uint32_t idx;
      if (!InternCell(c, col, &idx)) return false;
      t.cells.push_back(idx);
    }
    ++col;
  }
  if (col != ncols) {
    if (!Anomaly("xctrace.arity_mismatch", row_offset,
                 "row has " + std::to_string(col) + " cells but schema '" + t.schema + "' has " +
                     std::to_string(ncols) + " columns (" + RowContext() + ")")) {
      return false;
    }
    for (; col < ncols; ++col) t.cells.push_back(kMissingIndex);
  }
  t.row_offsets.push_back(static_cast<uint32_t>(row_offset));
  return true;
}

bool ExportParser::InternCell(pugi::xml_node cell, size_t column, uint32_t* out) {
  const char* name = cell.name();
  if (name[0] == 's' && SameName(name, "sentinel")) {
    *out = kSentinelIndex;
    return true;
  }
  uint32_t expected = table_->column_tags[column];
  const std::string& expected_name = doc_.tag_names[expected];
  if (!SameName(name, expected_name.c_str())) {
    if (!Anomaly("xctrace.type_mismatch", ElementOffset(cell),
                 "<" + std::string(name) + "> in column '" + table_->columns[column].mnemonic +
                     "' of engineering type '" + expected_name + "' (" + RowContext() + ")")) {
      return false;
    }
    expected = kNoTag;
  }
  return InternElement(cell, expected, 0, out);
}

bool ExportParser::ResolveRef(pugi::xml_node element, uint32_t known_tag, const char* ref_text,
                              bool has_other_content, uint32_t* out) {
  *out = kMissingIndex;
  uint64_t id;
  bool negative;
  if (!ParseDecimal(ref_text, false, &id, &negative)) {
    return Anomaly("xctrace.bad_id", ElementOffset(element),
                   std::string("ref=\"") + ref_text + "\" is not a decimal integer");
  }
  IdEntry entry;
  if (id < id_dense_.size()) {
    entry = id_dense_[id];
  } else if (auto it = id_sparse_.find(id); it != id_sparse_.end()) {
    entry = it->second;
  }
  auto where = [&] {
    return "<" + std::string(element.name()) + " ref=\"" + ref_text + "\"/> (" + RowContext() + ")";
  };
  if (entry.node == 0) {
    // Forward or dangling is only known once the rest is read: classified in Run().
    pending_refs_.push_back({id, ElementOffset(element), where()});
    if (strict_) {
      stop_for_pending_ref_ = true;
      return true;  // keep reading so that a later definition can be recognised
    }
    return true;
  }
  // A cell's element name already matched known_tag, and tags are interned by name.
  const bool same_tag = known_tag != kNoTag ? entry.tag == known_tag
                                            : SameName(doc_.tag_names[entry.tag].c_str(), element.name());
  if (!same_tag) {
    return Anomaly("xctrace.ref_tag_mismatch", ElementOffset(element),
                   where() + " points at a <" + doc_.tag_names[entry.tag] + ">");
  }
  if (has_other_content || Present(element.first_child())) {
    Anomaly("xctrace.ref_with_content", ElementOffset(element),
            where() + " also carries content, which is ignored");
  }
  *out = entry.node;
  return true;
}

bool ExportParser::RegisterId(pugi::xml_node element, const char* id_text, uint32_t node_index,
                              uint32_t tag) {
  uint64_t id;
  bool negative;
  if (!ParseDecimal(id_text, false, &id, &negative)) {
    return Anomaly("xctrace.bad_id", ElementOffset(element),
                   std::string("id=\"") + id_text + "\" is not a decimal integer");
  }
  IdEntry* slot;
  // Real ids are dense (one counter for the document), so a vector indexes them; a
  // wildly large id goes to a map rather than growing the vector.
  if (id < id_dense_.size() || id < (uint64_t{1} << 16) || id < 4 * doc_.nodes.size()) {
    if (id >= id_dense_.size()) id_dense_.resize(std::max<size_t>(id + 1, id_dense_.size() * 2));
    slot = &id_dense_[id];
  } else {
    slot = &id_sparse_[id];
  }
  if (slot->node != 0) {
    return Anomaly("xctrace.duplicate_id", ElementOffset(element),
                   "id=\"" + std::string(id_text) + "\" on <" + element.name() +
                       "> is already defined (by a <" + doc_.tag_names[slot->tag] + ">)");
  }
  *slot = IdEntry{node_index, tag};
  return true;
}

bool ExportParser::InternElement(pugi::xml_node element, uint32_t known_tag, int depth, uint32_t* out) {
  if (depth > kMaxDepth) {
    if (error_.ok()) {
      error_ = Fatal("xctrace.too_deep", ElementOffset(element), "elements nest deeper than 64 levels");
    }
    return false;
  }
  const char* id_text = nullptr;
  const char* ref_text = nullptr;
  pugi::xml_attribute fmt;
  int extra_attrs = 0;
  for (pugi::xml_attribute a = element.first_attribute(); Present(a); a = a.next_attribute()) {
    const char* n = a.name();
    if (SameName(n, "id")) id_text = a.value();
    else if (SameName(n, "ref")) ref_text = a.value();
    else if (SameName(n, "fmt")) fmt = a;
    else ++extra_attrs;
  }
  if (ref_text != nullptr) {
    if (id_text == nullptr) return ResolveRef(element, known_tag, ref_text, Present(fmt) || extra_attrs > 0, out);
    if (!Anomaly("xctrace.id_and_ref", ElementOffset(element),
                 "<" + std::string(element.name()) + "> carries both id and ref; the id is kept")) {
      return false;
    }
  }

  ValueNode node;
  node.tag = known_tag != kNoTag ? known_tag : doc_.InternTag(element.name());
  if (Present(fmt)) {
    node.flags |= kHasFmt;
    const char* v = fmt.value();
    node.fmt_len = static_cast<uint32_t>(std::strlen(v));
    if (node.fmt_len > 0) node.fmt_off = static_cast<uint32_t>(OffsetOf(v));
  }
  const size_t scratch_base = scratch_.size();
  bool have_text = false;
  int height = 0;
  for (pugi::xml_node c = element.first_child(); Present(c); c = c.next_sibling()) {
    pugi::xml_node_type type = c.type();
    if (type == pugi::node_element) {
      uint32_t child;
      if (!InternElement(c, kNoTag, depth + 1, &child)) return false;
      scratch_.push_back(child);
      height = std::max(height, value_height_[child] + 1);
    } else if (type == pugi::node_pcdata || type == pugi::node_cdata) {
      if (have_text) {
        // Text split by a comment, a CDATA section or a child: values point into the
        // file, so the pieces cannot be joined, and keeping one would drop the rest.
        if (!Anomaly("xctrace.split_text", InBuffer(c.value()) ? OffsetOf(c.value()) : ElementOffset(element),
                     "<" + std::string(element.name()) + "> holds text in several pieces (" + RowContext() +
                         ")")) {
          return false;
        }
        continue;
      }
      const char* v = c.value();
      node.text_len = static_cast<uint32_t>(std::strlen(v));
      if (node.text_len > 0) node.text_off = static_cast<uint32_t>(OffsetOf(v));
      have_text = true;
    }
  }
  if (height > kMaxDepth) {
    if (error_.ok()) {
      error_ = Fatal("xctrace.too_deep", ElementOffset(element),
                     "<" + std::string(element.name()) + "> nests values deeper than 64 levels through refs (" +
                         RowContext() + ")");
    }
    return false;
  }
  const size_t nchildren = scratch_.size() - scratch_base;
  if (nchildren > UINT16_MAX || extra_attrs > UINT8_MAX) {
    if (error_.ok()) {
      error_ = Fatal("xctrace.too_wide", ElementOffset(element),
                     "<" + std::string(element.name()) + "> has more than 65,535 children or 255 attributes");
    }
    return false;
  }
  node.first_child = static_cast<uint32_t>(doc_.children.size());
  node.child_count = static_cast<uint16_t>(nchildren);
  doc_.children.insert(doc_.children.end(), scratch_.begin() + scratch_base, scratch_.end());
  scratch_.resize(scratch_base);
  if (extra_attrs > 0) {
    node.first_attr = static_cast<uint32_t>(doc_.attrs.size());
    node.attr_count = static_cast<uint8_t>(extra_attrs);
    for (pugi::xml_attribute a = element.first_attribute(); Present(a); a = a.next_attribute()) {
      const char* n = a.name();
      if (SameName(n, "id") || SameName(n, "ref") || SameName(n, "fmt")) continue;
      const char* v = a.value();
      uint32_t vlen = static_cast<uint32_t>(std::strlen(v));
      doc_.attrs.push_back({static_cast<uint32_t>(OffsetOf(n)), static_cast<uint32_t>(std::strlen(n)),
                            vlen > 0 ? static_cast<uint32_t>(OffsetOf(v)) : 0, vlen});
    }
  }
  IntKind kind = doc_.tag_int_kinds[node.tag];
  if (kind != IntKind::kNone && node.text_len > 0) {
    bool negative;
    if (DecodeInteger(doc_.Str(node.text_off, node.text_len), kind, &node.integer, &negative)) {
      node.flags |= kHasInteger;
      if (negative) node.flags |= kNegative;
    } else if (!Anomaly("xctrace.bad_integer", ElementOffset(element),
                        "<" + std::string(element.name()) + "> text '" +
                            std::string(doc_.Str(node.text_off, std::min<uint32_t>(node.text_len, 40))) +
                            "' is not an integer in range for its type (" + RowContext() + ")")) {
      return false;
    }
  }
  const uint32_t index = static_cast<uint32_t>(doc_.nodes.size());
  doc_.nodes.push_back(node);
  value_height_.push_back(static_cast<uint8_t>(height));
  if (id_text != nullptr && !RegisterId(element, id_text, index, node.tag)) return false;
  *out = index;
  return true;
}

}  // namespace

// --- Value ---------------------------------------------------------------------

bool Value::is_sentinel() const { return index_ == kSentinelIndex; }
bool Value::is_missing() const { return index_ == kMissingIndex; }

std::string_view Value::tag() const {
  if (is_null()) return {};
  return ImplOf(doc_).tag_names[ImplOf(doc_).nodes[index_].tag];
}
std::string_view Value::text() const {
  const ValueNode& n = ImplOf(doc_).nodes[index_];
  return ImplOf(doc_).Str(n.text_off, n.text_len);
}
std::string_view Value::fmt() const {
  const ValueNode& n = ImplOf(doc_).nodes[index_];
  return ImplOf(doc_).Str(n.fmt_off, n.fmt_len);
}
bool Value::has_fmt() const { return (ImplOf(doc_).nodes[index_].flags & kHasFmt) != 0; }
bool Value::is_integer_type() const {
  const ValueNode& n = ImplOf(doc_).nodes[index_];
  return !is_null() && ImplOf(doc_).tag_int_kinds[n.tag] != IntKind::kNone;
}
std::optional<int64_t> Value::AsInt64() const {
  const ValueNode& n = ImplOf(doc_).nodes[index_];
  if (!(n.flags & kHasInteger)) return std::nullopt;
  if (!(n.flags & kNegative) && n.integer > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(n.integer);
}
std::optional<uint64_t> Value::AsUint64() const {
  const ValueNode& n = ImplOf(doc_).nodes[index_];
  if (!(n.flags & kHasInteger) || (n.flags & kNegative)) return std::nullopt;
  return n.integer;
}
size_t Value::child_count() const { return ImplOf(doc_).nodes[index_].child_count; }
Value Value::child(size_t index) const {
  const ValueNode& n = ImplOf(doc_).nodes[index_];
  if (index >= n.child_count) return Value(doc_, kMissingIndex);
  return Value(doc_, ImplOf(doc_).children[n.first_child + index]);
}
namespace {

// The first descendant of `root` tagged `tag` in depth-first pre-order, or
// kMissingIndex. Iterative, and memoised per (value, tag): a value shared by many
// parents (refs make the document a DAG) is searched once, so a search costs at most
// one visit per distinct value however the refs fan out.
uint32_t FindDescendant(const Impl& d, uint32_t root, uint32_t tag) {
  auto key = [tag](uint32_t node) { return (static_cast<uint64_t>(node) << 32) | tag; };
  std::lock_guard<std::mutex> lock(d.find_mutex);
  if (auto it = d.find_memo.find(key(root)); it != d.find_memo.end()) return it->second;
  struct Frame {
    uint32_t node;
    uint32_t next_child;
  };
  std::vector<Frame> stack{{root, 0}};
  uint32_t found = kMissingIndex;
  while (!stack.empty() && found == kMissingIndex) {
    Frame& f = stack.back();
    const ValueNode& n = d.nodes[f.node];
    if (f.next_child == n.child_count) {
      d.find_memo.emplace(key(f.node), kMissingIndex);
      stack.pop_back();
      continue;
    }
    const uint32_t child = d.children[n.first_child + f.next_child++];
    if (child <= kMissingIndex) continue;
    if (d.nodes[child].tag == tag) {
      found = child;
    } else if (auto it = d.find_memo.find(key(child)); it != d.find_memo.end()) {
      found = it->second;
    } else {
      stack.push_back({child, 0});
    }
  }
  for (const Frame& f : stack) d.find_memo[key(f.node)] = found;
  return found;
}

}  // namespace

Value Value::Find(std::string_view tag) const {
  if (is_null()) return Value(doc_, kMissingIndex);
  const Impl& d = ImplOf(doc_);
  auto it = d.tag_ids.find(tag);
  if (it == d.tag_ids.end()) return Value(doc_, kMissingIndex);  // no value has this tag
  return Value(doc_, FindDescendant(d, index_, it->second));
}
size_t Value::attribute_count() const { return ImplOf(doc_).nodes[index_].attr_count; }
std::pair<std::string_view, std::string_view> Value::attribute(size_t index) const {
  const Impl& d = ImplOf(doc_);
  const ValueNode& n = d.nodes[index_];
  if (index >= n.attr_count) return {};
  const AttrSpan& a = d.attrs[n.first_attr + index];
  return {d.Str(a.name_off, a.name_len), d.Str(a.value_off, a.value_len)};
}

// --- Table ---------------------------------------------------------------------

namespace {
const TableData& DataOf(const void* doc, size_t index) { return ImplOf(doc).tables[index]; }
}  // namespace

const std::string& Table::schema() const { return DataOf(doc_, index_).schema; }
const std::vector<Column>& Table::columns() const { return DataOf(doc_, index_).columns; }
std::optional<size_t> Table::ColumnIndex(std::string_view mnemonic) const {
  const auto& idx = DataOf(doc_, index_).column_index;
  auto it = idx.find(std::string(mnemonic));
  if (it == idx.end()) return std::nullopt;
  return it->second;
}
size_t Table::row_count() const { return DataOf(doc_, index_).row_offsets.size(); }
Value Table::cell(size_t row, size_t column) const {
  const TableData& t = DataOf(doc_, index_);
  if (column >= t.columns.size() || row >= t.row_offsets.size()) return Value(doc_, kMissingIndex);
  return Value(doc_, t.cells[row * t.columns.size() + column]);
}
size_t Table::RowOffset(size_t row) const { return DataOf(doc_, index_).row_offsets.at(row); }
SourceLocation Table::RowLocation(size_t row) const {
  const Impl& d = ImplOf(doc_);
  return d.lines.Locate(d.path, RowOffset(row));
}
const std::string& Table::node_xpath() const { return DataOf(doc_, index_).xpath; }
int Table::run() const { return DataOf(doc_, index_).run; }
size_t Table::node_count() const { return DataOf(doc_, index_).node_count; }

// --- Document ------------------------------------------------------------------

Document::Document(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;
Document::~Document() = default;

const std::string& Document::path() const { return impl_->path; }
size_t Document::byte_size() const { return impl_->byte_size; }
size_t Document::table_count() const { return impl_->tables.size(); }
Table Document::table(size_t index) const { return Table(impl_.get(), index); }
std::optional<Table> Document::FindTable(std::string_view schema) const {
  for (size_t i = 0; i < impl_->tables.size(); ++i) {
    if (impl_->tables[i].schema == schema) return Table(impl_.get(), i);
  }
  return std::nullopt;
}
const Diagnostics& Document::diagnostics() const { return impl_->diagnostics; }
SourceLocation Document::Locate(size_t offset) const { return impl_->lines.Locate(impl_->path, offset); }

StatusOr<Document> ReadExportBuffer(std::string bytes, std::string display_path, const ReadOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->path = std::move(display_path);
  impl->bytes = std::move(bytes);
  impl->byte_size = impl->bytes.size();
  ExportParser parser(*impl, options);
  Status s = parser.Run();
  if (!s.ok()) return s;
  return Document(std::move(impl));
}

StatusOr<Document> ReadExportFile(const std::string& path, const ReadOptions& options) {
  auto bytes = internal::ReadWholeFile(path);
  if (!bytes.ok()) return bytes.status();
  return ReadExportBuffer(std::move(bytes).value(), path, options);
}

bool IsIntegerEngineeringType(std::string_view engineering_type) {
  return IntKindOf(engineering_type) != IntKind::kNone;
}

}  // namespace perfgate::xctrace
