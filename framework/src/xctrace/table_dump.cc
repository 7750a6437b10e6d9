#include "perfgate/xctrace/table_dump.h"

#include <string>
#include <vector>

namespace perfgate::xctrace {
namespace {

void WriteJsonString(std::string_view s, std::ostream& out) {
  out.put('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.write(s.data() + run, static_cast<std::streamsize>(i - run));
    run = i + 1;
    switch (c) {
      case '"': out << "\\\""; break;
      case '\\': out << "\\\\"; break;
      case '\n': out << "\\n"; break;
      case '\r': out << "\\r"; break;
      case '\t': out << "\\t"; break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out << buf;
      }
    }
  }
  out.write(s.data() + run, static_cast<std::streamsize>(s.size() - run));
  out.put('"');
}

void WriteJsonValue(const Value& v, std::ostream& out) {
  if (v.is_null()) {
    out << "null";
    return;
  }
  if (v.child_count() == 0 && v.attribute_count() == 0) {
    if (v.is_integer_type()) {
      if (auto i = v.AsInt64()) { out << *i; return; }
      if (auto u = v.AsUint64()) { out << *u; return; }
    }
    WriteJsonString(v.text(), out);
    return;
  }
  out << "{\"fmt\":";
  WriteJsonString(v.fmt(), out);
  if (!v.text().empty()) {
    out << ",\"text\":";
    WriteJsonString(v.text(), out);
  }
  for (size_t i = 0; i < v.attribute_count(); ++i) {
    auto [name, value] = v.attribute(i);
    out << ",\"@" << name << "\":";
    WriteJsonString(value, out);
  }
  // Children grouped by tag in first-appearance order; a repeated tag becomes an array.
  std::vector<std::string_view> tags;
  for (size_t i = 0; i < v.child_count(); ++i) {
    std::string_view t = v.child(i).tag();
    bool seen = false;
    for (auto s : tags) seen = seen || s == t;
    if (!seen) tags.push_back(t);
  }
  for (std::string_view t : tags) {
    std::vector<Value> same;
    for (size_t i = 0; i < v.child_count(); ++i) {
      if (v.child(i).tag() == t) same.push_back(v.child(i));
    }
    out.put(',');
    WriteJsonString(t, out);
    out.put(':');
    if (same.size() == 1) {
      WriteJsonValue(same[0], out);
    } else {
      out.put('[');
      for (size_t i = 0; i < same.size(); ++i) {
        if (i) out.put(',');
        WriteJsonValue(same[i], out);
      }
      out.put(']');
    }
  }
  out.put('}');
}

void WriteCsvField(std::string_view s, std::ostream& out) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out << s;
    return;
  }
  out.put('"');
  for (char c : s) {
    if (c == '"') out.put('"');
    out.put(c);
  }
  out.put('"');
}

}  // namespace

void WriteTableJson(const Document& document, const Table& table, std::ostream& out) {
  const auto& cols = table.columns();
  out << "{\n  \"schema\": ";
  WriteJsonString(table.schema(), out);
  out << ",\n  \"columns\": [";
  for (size_t c = 0; c < cols.size(); ++c) {
    out << (c ? ",\n    " : "\n    ") << "{\"mnemonic\": ";
    WriteJsonString(cols[c].mnemonic, out);
    out << ", \"name\": ";
    WriteJsonString(cols[c].name, out);
    out << ", \"engineering_type\": ";
    WriteJsonString(cols[c].engineering_type, out);
    out << '}';
  }
  out << (cols.empty() ? "]" : "\n  ]") << ",\n  \"rows\": [";
  for (size_t r = 0; r < table.row_count(); ++r) {
    out << (r ? ",\n    {" : "\n    {");
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) out << ", ";
      WriteJsonString(cols[c].mnemonic, out);
      out << ": ";
      WriteJsonValue(table.cell(r, c), out);
    }
    out << '}';
  }
  out << (table.row_count() == 0 ? "]" : "\n  ]") << ",\n  \"diagnostics\": {";
  bool first = true;
  for (const auto& e : document.diagnostics().Entries()) {
    out << (first ? "" : ", ");
    first = false;
    WriteJsonString(e.code, out);
    out << ": " << e.count;
  }
  out << "}\n}\n";
}

void WriteTableCsv(const Table& table, std::ostream& out) {
  const auto& cols = table.columns();
  for (size_t c = 0; c < cols.size(); ++c) {
    if (c) out.put(',');
    WriteCsvField(cols[c].mnemonic, out);
  }
  out.put('\n');
  for (size_t r = 0; r < table.row_count(); ++r) {
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) out.put(',');
      Value v = table.cell(r, c);
      if (v.is_null()) continue;
      if (v.child_count() > 0) {
        WriteCsvField(v.fmt(), out);
      } else if (auto i = v.AsInt64()) {
        out << *i;
      } else if (auto u = v.AsUint64()) {
        out << *u;
      } else {
        WriteCsvField(v.text(), out);
      }
    }
    out.put('\n');
  }
}

}  // namespace perfgate::xctrace
