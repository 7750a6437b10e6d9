// `perfgate table`'s writers. Refs make a document a DAG that printing expands into a
// tree, so every byte goes through one budget (TableOutputBound) and a write that
// would pass it stops the dump with xctrace.output_too_large at the row being printed.
#include "perfgate/xctrace/table_dump.h"

#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

namespace perfgate::xctrace {
namespace {

constexpr uint64_t kTableOutputSlack = uint64_t{1} << 20;

// An ostream behind a byte budget: once a write would pass it, nothing more is
// written and `exceeded()` says so.
class BoundedOut {
 public:
  BoundedOut(std::ostream& out, uint64_t* budget) : out_(out), budget_(budget) {}

  void Write(std::string_view s) {
    if (exceeded_) return;
    if (s.size() > *budget_) {
      exceeded_ = true;
      return;
    }
    *budget_ -= s.size();
    out_.write(s.data(), static_cast<std::streamsize>(s.size()));
  }
  void Put(char c) { Write(std::string_view(&c, 1)); }
  template <typename Integer>
  void Number(Integer v) { Write(std::to_string(v)); }
  bool exceeded() const { return exceeded_; }

 private:
  std::ostream& out_;
  uint64_t* budget_;
  bool exceeded_ = false;
};

void WriteJsonString(std::string_view s, BoundedOut& out) {
  out.Put('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.Write(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"': out.Write("\\\""); break;
      case '\\': out.Write("\\\\"); break;
      case '\n': out.Write("\\n"); break;
      case '\r': out.Write("\\r"); break;
      case '\t': out.Write("\\t"); break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out.Write(buf);
      }
    }
  }
  out.Write(s.substr(run));
  out.Put('"');
}

void WriteJsonValue(const Value& v, BoundedOut& out);

// Children grouped by tag in first-appearance order; a repeated tag becomes an array.
// One hash lookup per child: a composite of 65,535 distinct tags is linear.
void WriteJsonChildren(const Value& v, BoundedOut& out) {
  std::unordered_map<std::string_view, size_t> group_of;
  std::vector<std::vector<Value>> groups;
  for (size_t i = 0; i < v.child_count(); ++i) {
    Value c = v.child(i);
    auto [it, inserted] = group_of.emplace(c.tag(), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(c);
  }
  for (const std::vector<Value>& same : groups) {
    if (out.exceeded()) return;
    out.Put(',');
    WriteJsonString(same[0].tag(), out);
    out.Put(':');
    if (same.size() == 1) {
      WriteJsonValue(same[0], out);
      continue;
    }
    out.Put('[');
    for (size_t i = 0; i < same.size() && !out.exceeded(); ++i) {
      if (i) out.Put(',');
      WriteJsonValue(same[i], out);
    }
    out.Put(']');
  }
}

// Recursion is bounded: the reader rejects values nested deeper than 64 levels,
// counting through refs (xctrace.too_deep).
void WriteJsonValue(const Value& v, BoundedOut& out) {
  if (out.exceeded()) return;
  if (v.is_null()) {
    out.Write("null");
    return;
  }
  if (v.child_count() == 0 && v.attribute_count() == 0) {
    if (v.is_integer_type()) {
      if (auto i = v.AsInt64()) return out.Number(*i);
      if (auto u = v.AsUint64()) return out.Number(*u);
    }
    WriteJsonString(v.text(), out);
    return;
  }
  out.Write("{\"fmt\":");
  WriteJsonString(v.fmt(), out);
  if (!v.text().empty()) {
    out.Write(",\"text\":");
    WriteJsonString(v.text(), out);
  }
  for (size_t i = 0; i < v.attribute_count(); ++i) {
    auto [name, value] = v.attribute(i);
    out.Write(",\"@");
    out.Write(name);
    out.Write("\":");
    WriteJsonString(value, out);
  }
  WriteJsonChildren(v, out);
  out.Put('}');
}

void WriteCsvField(std::string_view s, BoundedOut& out) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.Write(s);
    return;
  }
  out.Put('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '"') continue;
    out.Write(s.substr(run, i + 1 - run));
    run = i;  // the quote is written again, doubled
  }
  out.Write(s.substr(run));
  out.Put('"');
}

Status OutputTooLarge(const Table& table, size_t row, uint64_t bound) {
  return Status::Error("xctrace.output_too_large",
                       "printing row " + std::to_string(row + 1) + " of '" + table.schema() +
                           "' would pass the output bound of " + std::to_string(bound) +
                           " bytes (64 per input byte, plus 1 MiB): its refs expand into more than the file "
                           "holds; read it with the library, or dump it as CSV",
                       table.RowLocation(row));
}

}  // namespace

uint64_t TableOutputBound(const Document& document) {
  return kTableOutputFactor * static_cast<uint64_t>(document.byte_size()) + kTableOutputSlack;
}

Status WriteTableJson(const Document& document, const Table& table, std::ostream& stream, uint64_t* budget) {
  const uint64_t bound = *budget;
  BoundedOut out(stream, budget);
  const auto& cols = table.columns();
  out.Write("{\n  \"schema\": ");
  WriteJsonString(table.schema(), out);
  out.Write(",\n  \"columns\": [");
  for (size_t c = 0; c < cols.size(); ++c) {
    out.Write(c ? ",\n    " : "\n    ");
    out.Write("{\"mnemonic\": ");
    WriteJsonString(cols[c].mnemonic, out);
    out.Write(", \"name\": ");
    WriteJsonString(cols[c].name, out);
    out.Write(", \"engineering_type\": ");
    WriteJsonString(cols[c].engineering_type, out);
    out.Put('}');
  }
  out.Write(cols.empty() ? "]" : "\n  ]");
  out.Write(",\n  \"rows\": [");
  for (size_t r = 0; r < table.row_count(); ++r) {
    out.Write(r ? ",\n    {" : "\n    {");
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) out.Write(", ");
      WriteJsonString(cols[c].mnemonic, out);
      out.Write(": ");
      WriteJsonValue(table.cell(r, c), out);
    }
    out.Put('}');
    if (out.exceeded()) return OutputTooLarge(table, r, bound);
  }
  out.Write(table.row_count() == 0 ? "]" : "\n  ]");
  out.Write(",\n  \"diagnostics\": {");
  bool first = true;
  for (const auto& e : document.diagnostics().Entries()) {
    out.Write(first ? "" : ", ");
    first = false;
    WriteJsonString(e.code, out);
    out.Write(": ");
    out.Number(e.count);
  }
  out.Write("}\n}\n");
  if (out.exceeded()) {
    return Status::Error("xctrace.output_too_large",
                         "the dump of '" + table.schema() + "' passes the output bound of " + std::to_string(bound) +
                             " bytes",
                         {document.path()});
  }
  return Status();
}

Status WriteTableJson(const Document& document, const Table& table, std::ostream& out) {
  uint64_t budget = TableOutputBound(document);
  return WriteTableJson(document, table, out, &budget);
}

Status WriteTableCsv(const Document& document, const Table& table, std::ostream& stream) {
  const uint64_t bound = TableOutputBound(document);
  uint64_t budget = bound;
  BoundedOut out(stream, &budget);
  const auto& cols = table.columns();
  for (size_t c = 0; c < cols.size(); ++c) {
    if (c) out.Put(',');
    WriteCsvField(cols[c].mnemonic, out);
  }
  out.Put('\n');
  for (size_t r = 0; r < table.row_count(); ++r) {
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) out.Put(',');
      Value v = table.cell(r, c);
      if (v.is_null()) continue;
      if (v.child_count() > 0) {
        WriteCsvField(v.fmt(), out);
      } else if (auto i = v.AsInt64()) {
        out.Number(*i);
      } else if (auto u = v.AsUint64()) {
        out.Number(*u);
      } else {
        WriteCsvField(v.text(), out);
      }
    }
    out.Put('\n');
    if (out.exceeded()) return OutputTooLarge(table, r, bound);
  }
  if (out.exceeded()) return OutputTooLarge(table, 0, bound);
  return Status();
}

}  // namespace perfgate::xctrace
