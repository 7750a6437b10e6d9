// Cells, display formatting and the interning ExportWriter.
#include "xctrace_gen/xctrace_gen.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <iterator>

namespace perfgate::gen {
namespace {

// Appends the decimal digits of `value`; std::to_string would allocate per call, and
// the writer formats millions of ids.
void AppendUint(uint64_t value, std::string* out) {
  char buf[20];
  char* p = buf + sizeof(buf);
  do {
    *--p = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  out->append(p, static_cast<size_t>(buf + sizeof(buf) - p));
}

void AppendInt(int64_t value, std::string* out) {
  if (value < 0) {
    out->push_back('-');
    // Negating through unsigned keeps INT64_MIN defined.
    AppendUint(~static_cast<uint64_t>(value) + 1, out);
  } else {
    AppendUint(static_cast<uint64_t>(value), out);
  }
}

std::string UintString(uint64_t value) {
  std::string s;
  AppendUint(value, &s);
  return s;
}

std::string IntString(int64_t value) {
  std::string s;
  AppendInt(value, &s);
  return s;
}

void AppendPadded(uint64_t value, int width, std::string* out) {
  std::string digits = UintString(value);
  if (static_cast<int>(digits.size()) < width) out->append(width - digits.size(), '0');
  out->append(digits);
}

// Characters that need an entity in text or attribute values.
struct EscapeTable {
  bool special[256] = {};
  constexpr EscapeTable() {
    special[static_cast<unsigned char>('&')] = true;
    special[static_cast<unsigned char>('<')] = true;
    special[static_cast<unsigned char>('>')] = true;
    special[static_cast<unsigned char>('"')] = true;
    special[static_cast<unsigned char>('\'')] = true;
  }
};
constexpr EscapeTable kEscape;

void AppendEscaped(std::string_view text, std::string* out) {
  size_t run_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (!kEscape.special[c]) continue;
    out->append(text.data() + run_start, i - run_start);
    switch (c) {
      case '&': out->append("&amp;"); break;
      case '<': out->append("&lt;"); break;
      case '>': out->append("&gt;"); break;
      case '"': out->append("&quot;"); break;
      default: out->append("&apos;"); break;
    }
    run_start = i + 1;
  }
  out->append(text.data() + run_start, text.size() - run_start);
}

// The canonical encoding that decides whether two values are identical: every field
// length-prefixed, children recursively, so no two different cells share a key.
// LEB128: a prefix code, so lengths stay unambiguous, and one byte for short values.
void AppendCount(size_t count, std::string* key) {
  uint64_t n = count;
  while (n >= 0x80) {
    key->push_back(static_cast<char>((n & 0x7F) | 0x80));
    n >>= 7;
  }
  key->push_back(static_cast<char>(n));
}

void AppendField(std::string_view s, std::string* key) {
  AppendCount(s.size(), key);
  key->append(s.data(), s.size());
}

void AppendKey(const Cell& cell, std::string* key) {
  if (cell.sentinel) {
    key->push_back('S');
    return;
  }
  key->push_back(cell.has_fmt ? 'F' : 'N');
  key->push_back(cell.interned ? 'I' : 'U');
  AppendField(cell.tag, key);
  AppendField(cell.has_fmt ? std::string_view(cell.fmt) : std::string_view(), key);
  AppendField(cell.text, key);
  AppendCount(cell.attrs.size(), key);
  for (const auto& [name, value] : cell.attrs) {
    AppendField(name, key);
    AppendField(value, key);
  }
  AppendCount(cell.children.size(), key);
  for (const Cell& child : cell.children) AppendKey(child, key);
}

}  // namespace

// ---------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------

std::string FormatStartTime(int64_t ns) {
  std::string out;
  uint64_t magnitude = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out.push_back('-');
    magnitude = ~magnitude + 1;
  }
  // Real exports truncate to the microsecond: 333337625 ns shows as 00:00.333.337.
  const uint64_t us = magnitude / 1000;
  const uint64_t seconds = us / 1000000;
  AppendPadded(seconds / 60, 2, &out);
  out.push_back(':');
  AppendPadded(seconds % 60, 2, &out);
  out.push_back('.');
  AppendPadded(us / 1000 % 1000, 3, &out);
  out.push_back('.');
  AppendPadded(us % 1000, 3, &out);
  return out;
}

std::string FormatDuration(int64_t ns) {
  std::string out;
  uint64_t magnitude = static_cast<uint64_t>(ns);
  if (ns < 0) {
    out.push_back('-');
    magnitude = ~magnitude + 1;
  }
  if (magnitude < 1000) {
    AppendUint(magnitude, &out);
    out.append(" ns");
    return out;
  }
  static constexpr struct {
    uint64_t ns_per_unit;
    const char* suffix;
  } kUnits[] = {{1000, " \xC2\xB5s"}, {1000000, " ms"}, {1000000000, " s"}};
  size_t unit = magnitude < 1000000 ? 0 : magnitude < 1000000000 ? 1 : 2;
  uint64_t hundredths = 0;
  for (;; ++unit) {
    const uint64_t per = kUnits[unit].ns_per_unit;
    // Half up, in integers: 338375 ns is 338.38 µs as in real exports. The split
    // avoids overflowing magnitude * 100 for huge values.
    hundredths = magnitude / per * 100 + (magnitude % per * 100 + per / 2) / per;
    if (hundredths < 100000 || unit == 2) break;  // 999.996 µs reads 1.00 ms
  }
  AppendUint(hundredths / 100, &out);
  out.push_back('.');
  AppendPadded(hundredths % 100, 2, &out);
  out.append(kUnits[unit].suffix);
  return out;
}

std::string FormatHex(uint64_t value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char buf[16];
  char* p = buf + sizeof(buf);
  do {
    *--p = kDigits[value & 0xF];
    value >>= 4;
  } while (value != 0);
  std::string out = "0x";
  out.append(p, static_cast<size_t>(buf + sizeof(buf) - p));
  return out;
}

std::string FormatGrouped(uint64_t value, Locale locale) {
  const std::string digits = UintString(value);
  const char separator = locale == Locale::kDeDe ? '.' : ',';
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(separator);
    out.push_back(digits[i]);
  }
  return out;
}

std::string EscapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendEscaped(text, &out);
  return out;
}

// ---------------------------------------------------------------------------------
// Cell factories
// ---------------------------------------------------------------------------------

Cell Cell::Sentinel() {
  Cell cell;
  cell.tag = "sentinel";
  cell.sentinel = true;
  return cell;
}

Cell Leaf(std::string tag, std::string text, std::string fmt) {
  Cell cell;
  cell.tag = std::move(tag);
  cell.text = std::move(text);
  cell.fmt = std::move(fmt);
  cell.has_fmt = true;
  return cell;
}

Cell LeafWithoutFmt(std::string tag, std::string text) {
  Cell cell;
  cell.tag = std::move(tag);
  cell.text = std::move(text);
  return cell;
}

Cell TextLeaf(std::string tag, std::string text) {
  std::string fmt = text;
  return Leaf(std::move(tag), std::move(text), std::move(fmt));
}

Cell Composite(std::string tag, std::string fmt, std::vector<Cell> children) {
  Cell cell;
  cell.tag = std::move(tag);
  cell.fmt = std::move(fmt);
  cell.has_fmt = true;
  cell.children = std::move(children);
  return cell;
}

Cell StartTime(int64_t ns) { return TimeCell("start-time", ns); }

Cell TimeCell(std::string tag, int64_t ns) {
  return Leaf(std::move(tag), IntString(ns), FormatStartTime(ns));
}

Cell Duration(int64_t ns) { return Leaf("duration", IntString(ns), FormatDuration(ns)); }

Cell CommandBufferId(uint64_t id) {
  return Leaf("metal-command-buffer-id", UintString(id), FormatHex(id));
}

Cell Uint64(uint64_t value, Locale locale) {
  return Leaf("uint64", UintString(value), FormatGrouped(value, locale));
}

Cell Uint32(uint32_t value) { return TextLeaf("uint32", UintString(value)); }

Cell Pid(int64_t pid) { return TextLeaf("pid", IntString(pid)); }

Cell Tid(uint64_t tid) { return Leaf("tid", UintString(tid), FormatHex(tid)); }

Cell String(std::string text) { return TextLeaf("string", std::move(text)); }

Cell MetalObjectLabel(std::string text) { return TextLeaf("metal-object-label", std::move(text)); }

Cell NarrativeText(std::string text) { return TextLeaf("narrative-text", std::move(text)); }

Cell MetalDeviceName(std::string text) { return TextLeaf("metal-device-name", std::move(text)); }

Cell NestingLevel(uint32_t depth) { return TextLeaf("metal-nesting-level", UintString(depth)); }

Cell WorkloadPriority(uint64_t priority) {
  return Leaf("metal-workload-priority", UintString(priority), FormatHex(priority));
}

Cell ConnectionUuid(uint64_t uuid) { return TextLeaf("connection-uuid64", UintString(uuid)); }

Cell RenderBufferDepth(uint32_t depth) {
  return TextLeaf("render-buffer-depth", UintString(depth));
}

Cell GpuFrameNumber(uint64_t frame) {
  return Leaf("gpu-frame-number", UintString(frame), "Frame " + UintString(frame));
}

Cell SizeInBytes(uint64_t bytes) {
  if (bytes < 1024) return Leaf("size-in-bytes", UintString(bytes), UintString(bytes) + " B");
  static constexpr const char* kUnits[] = {" KiB", " MiB", " GiB", " TiB", " PiB", " EiB"};
  size_t unit = 0;
  uint64_t scale = 1024;
  while (unit + 1 < std::size(kUnits) && bytes / scale >= 1024) {
    scale *= 1024;
    ++unit;
  }
  const uint64_t hundredths = bytes / scale * 100 + (bytes % scale * 100 + scale / 2) / scale;
  std::string fmt = UintString(hundredths / 100) + ".";
  AppendPadded(hundredths % 100, 2, &fmt);
  fmt += kUnits[unit];
  return Leaf("size-in-bytes", UintString(bytes), std::move(fmt));
}

Cell Process(std::string name, int64_t pid, bool with_device_session) {
  std::vector<Cell> children;
  children.push_back(Pid(pid));
  if (with_device_session) children.push_back(TextLeaf("device-session", "TODO"));
  std::string fmt = std::move(name) + " (" + IntString(pid) + ")";
  return Composite("process", std::move(fmt), std::move(children));
}

Cell Process(const ProcessInfo& process) { return Process(process.name, process.pid); }

Cell Thread(std::string name, uint64_t tid, const ProcessInfo& process) {
  std::string fmt = std::move(name) + " (" + FormatHex(tid) + ") (" + process.name +
                    ", pid: " + IntString(process.pid) + ")";
  std::vector<Cell> children;
  children.push_back(Tid(tid));
  children.push_back(Process(process));
  return Composite("thread", std::move(fmt), std::move(children));
}

Cell Thread(const ThreadInfo& thread) { return Thread(thread.name, thread.tid, thread.process); }

Cell FormattedLabel(std::string fmt, std::vector<Cell> children) {
  return Composite("formatted-label", std::move(fmt), std::move(children));
}

Cell Narrative(std::string fmt, std::vector<Cell> children) {
  return Composite("narrative", std::move(fmt), std::move(children));
}

// ---------------------------------------------------------------------------------
// ExportWriter
// ---------------------------------------------------------------------------------

// Open addressing over a byte arena: one allocation per growth instead of one per
// value, which matters at millions of distinct values per document.
class ExportWriter::InternTable {
 public:
  InternTable() : slots_(1 << 12) {}

  // The id of an identical key inserted earlier, or 0 after inserting `key` as `id`.
  uint64_t FindOrInsert(std::string_view key, uint64_t id) {
    if ((used_ + 1) * 10 > slots_.size() * 7) Grow();
    const uint64_t hash = std::hash<std::string_view>()(key);
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id == 0) {
        slot = Slot{hash, arena_.size(), id, static_cast<uint32_t>(key.size())};
        arena_.append(key.data(), key.size());
        ++used_;
        return 0;
      }
      if (slot.hash == hash && slot.length == key.size() &&
          std::memcmp(arena_.data() + slot.offset, key.data(), key.size()) == 0) {
        return slot.id;
      }
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint64_t offset = 0;
    uint64_t id = 0;  // 0: empty (ids start at 1)
    uint32_t length = 0;
  };

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : old) {
      if (slot.id == 0) continue;
      size_t i = slot.hash & mask;
      while (slots_[i].id != 0) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::string arena_;
};

ExportWriter::ExportWriter(WriteOptions options)
    : options_(options), interned_(std::make_unique<InternTable>()) {
  out_ = "<?xml version=\"1.0\"?>\n<trace-query-result>\n";
}

ExportWriter::~ExportWriter() = default;

void ExportWriter::Reserve(size_t bytes) { out_.reserve(bytes); }

void ExportWriter::BeginNode(int toc_index, const Schema* schema, int run) {
  if (in_node_ || finished_) return;
  if (nodes_closed_ > 0) out_.push_back('\n');
  if (options_.pretty) out_.append("    ");
  out_.append("<node xpath='//trace-toc[1]/run[");
  AppendInt(run, &out_);
  out_.append("]/data[1]/table[");
  AppendInt(toc_index, &out_);
  out_.append("]'>");
  if (schema != nullptr) {
    out_.append("<schema name=\"");
    AppendEscaped(schema->name, &out_);
    out_.push_back('"');
    if (schema->has_documentation) {
      out_.append(" documentation=\"");
      AppendEscaped(schema->documentation, &out_);
      out_.push_back('"');
    }
    out_.push_back('>');
    for (const Column& column : schema->columns) {
      out_.append("<col><mnemonic>");
      AppendEscaped(column.mnemonic, &out_);
      out_.append("</mnemonic><name>");
      AppendEscaped(column.name, &out_);
      out_.append("</name><engineering-type>");
      AppendEscaped(column.engineering_type, &out_);
      out_.append("</engineering-type></col>");
    }
    out_.append("</schema>");
  }
  in_node_ = true;
  rows_in_node_ = 0;
}

void ExportWriter::WriteRow(const Cell* cells, size_t count) {
  if (!in_node_) return;
  if (rows_in_node_ == 0) {
    if (!options_.first_row_on_schema_line) {
      out_.push_back('\n');
      if (options_.pretty) out_.append("        ");
    }
  } else if (options_.pretty) {
    out_.append("        ");
  }
  out_.append("<row>");
  for (size_t i = 0; i < count; ++i) WriteCell(cells[i]);
  out_.append("</row>\n");
  ++rows_in_node_;
  ++rows_written_;
}

void ExportWriter::WriteCell(const Cell& cell) {
  if (cell.sentinel) {
    out_.append("<sentinel/>");
    return;
  }
  out_.push_back('<');
  out_.append(cell.tag);
  if (options_.intern && cell.interned) {
    // The key is built before the children are written, and the id taken before
    // theirs, which gives the pre-order numbering of real exports.
    key_.clear();
    AppendKey(cell, &key_);
    const uint64_t earlier = interned_->FindOrInsert(key_, next_id_);
    if (earlier != 0) {
      out_.append(" ref=\"");
      AppendUint(earlier, &out_);
      out_.append("\"/>");
      return;
    }
    out_.append(" id=\"");
    AppendUint(next_id_++, &out_);
    out_.push_back('"');
  }
  if (cell.has_fmt) {
    out_.append(" fmt=\"");
    AppendEscaped(cell.fmt, &out_);
    out_.push_back('"');
  }
  for (const auto& [name, value] : cell.attrs) {
    out_.push_back(' ');
    out_.append(name);
    out_.append("=\"");
    AppendEscaped(value, &out_);
    out_.push_back('"');
  }
  // Real exports self-close only attribute-only elements (<binary …/>); a value
  // with fmt keeps both tags even when empty (<string fmt=""></string>).
  if (!cell.has_fmt && cell.text.empty() && cell.children.empty()) {
    out_.append("/>");
    return;
  }
  out_.push_back('>');
  AppendEscaped(cell.text, &out_);
  for (const Cell& child : cell.children) WriteCell(child);
  out_.append("</");
  out_.append(cell.tag);
  out_.push_back('>');
}

void ExportWriter::EndNode() {
  if (!in_node_) return;
  if (options_.pretty && rows_in_node_ > 0) out_.append("    ");
  out_.append("</node>");
  in_node_ = false;
  ++nodes_closed_;
}

std::string ExportWriter::Finish() {
  if (finished_) return {};
  EndNode();
  out_.append("</trace-query-result>\n");
  finished_ = true;
  return std::move(out_);
}

std::string WriteExport(const std::vector<Table>& tables, const WriteOptions& options) {
  ExportWriter writer(options);
  for (const Table& table : tables) {
    writer.BeginNode(table.toc_index, table.omit_schema ? nullptr : &table.schema, table.run);
    for (const Row& row : table.rows) writer.WriteRow(row);
    writer.EndNode();
  }
  return writer.Finish();
}

std::vector<Table> SplitIntoNodes(const Table& table, const std::vector<size_t>& rows_per_node,
                                  bool repeat_schema) {
  std::vector<Table> nodes;
  size_t next = 0;
  for (size_t i = 0; i < rows_per_node.size(); ++i) {
    Table node;
    node.schema = table.schema;
    node.toc_index = table.toc_index;
    node.run = table.run;
    node.omit_schema = i > 0 && !repeat_schema;
    const size_t end = i + 1 == rows_per_node.size() ? table.rows.size()
                                                     : std::min(table.rows.size(), next + rows_per_node[i]);
    node.rows.assign(table.rows.begin() + static_cast<std::ptrdiff_t>(next),
                     table.rows.begin() + static_cast<std::ptrdiff_t>(end));
    next = end;
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::string WriteTable(const Table& table, const WriteOptions& options) {
  return WriteExport({table}, options);
}

bool PermuteColumns(Table* table, const std::vector<size_t>& order) {
  const size_t n = table->schema.columns.size();
  if (order.size() != n) return false;
  std::vector<bool> seen(n, false);
  for (size_t index : order) {
    if (index >= n || seen[index]) return false;
    seen[index] = true;
  }
  auto permute = [&order](auto& items) {
    std::remove_reference_t<decltype(items)> reordered;
    reordered.reserve(items.size());
    for (size_t index : order) reordered.push_back(std::move(items[index]));
    items = std::move(reordered);
  };
  permute(table->schema.columns);
  for (Row& row : table->rows) {
    // Rows of the wrong arity (adversarial tables) keep their cells unpermuted.
    if (row.size() == n) permute(row);
  }
  return true;
}

void InsertColumn(Table* table, size_t position, Column column, const Cell& value) {
  auto& columns = table->schema.columns;
  const size_t at = std::min(position, columns.size());
  columns.insert(columns.begin() + static_cast<std::ptrdiff_t>(at), std::move(column));
  for (Row& row : table->rows) {
    row.insert(row.begin() + static_cast<std::ptrdiff_t>(std::min(at, row.size())), value);
  }
}

}  // namespace perfgate::gen
