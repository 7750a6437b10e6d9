// The golden file format: parsing with schema checks, canonical rendering and atomic
// writes. The format is documented in perfgate/golden/golden.h; nlohmann stays in
// this file (the framework links it privately).
#include "perfgate/golden/golden.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/text_input.h"
#include "golden/golden_internal.h"
#include "core/json_document.h"

namespace perfgate::golden {

namespace internal {

bool IsWholeNumber(double v) {
  return std::isfinite(v) && std::fabs(v) <= 9007199254740992.0 && std::floor(v) == v;
}

std::string FormatNumber(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (IsWholeNumber(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", v);
  }
  return buf;
}

std::string EscapePointerToken(const std::string& token) { return perfgate::internal::EscapeJsonPointerToken(token); }

}  // namespace internal

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// ---- Names -----------------------------------------------------------------------

constexpr const char* kKindNames[] = {"noisy", "exact"};
constexpr const char* kDirNames[] = {"lower_is_better", "higher_is_better", "both"};

// ---- Rendering -------------------------------------------------------------------

// A tolerance or a non-integer value: rounded; whole tolerances as integers.
json RoundedNumber(double v, bool whole_as_integer) {
  if (!std::isfinite(v)) return nullptr;
  double r = internal::RoundSignificant(v, kSignificantDigits);
  if (whole_as_integer && internal::IsWholeNumber(r)) return static_cast<int64_t>(r);
  return r;
}

json ValueNumber(double v, bool is_integer) {
  if (is_integer && internal::IsWholeNumber(v)) return static_cast<int64_t>(v);
  return RoundedNumber(v, /*whole_as_integer=*/false);
}

json ValueJson(const GoldenValue& v) {
  const FieldPolicy& p = v.policy;
  json j = json::object();
  j["value"] = ValueNumber(v.value, v.is_integer);
  j["kind"] = ToString(p.kind);
  j["dir"] = ToString(p.dir);
  j["gated"] = p.gated;
  json tol = json::object();
  tol["abs"] = RoundedNumber(p.abs, true);
  if (p.kind == Kind::kNoisy) tol["rel"] = RoundedNumber(p.rel, true);
  j["tol"] = std::move(tol);
  if (!p.reason.empty()) j["reason"] = p.reason;
  if (!v.samples.empty()) {
    json samples = json::array();
    for (double s : v.samples) samples.push_back(ValueNumber(s, v.is_integer));
    j["samples"] = std::move(samples);
  }
  return j;
}

// ---- Parsing ---------------------------------------------------------------------

// Schema checking with the JSON pointer of whatever is wrong.
class SchemaReader {
 public:
  SchemaReader(std::string path, std::string_view text)
      : path_(std::move(path)), text_(text), flatten_budget_(text.size()) {}

  StatusOr<GoldenFile> Read(const json& root) {
    GoldenFile out;
    if (!root.is_object()) return Bad("", "expected an object, got " + TypeName(root));
    for (const auto& [key, _] : root.items()) {
      if (key != "schema_version" && key != "context" && key != "values") {
        return Bad("/" + internal::EscapePointerToken(key),
                   "unknown key (expected schema_version, context, values)");
      }
    }
    auto sv = root.find("schema_version");
    if (sv == root.end()) return Bad("/schema_version", "missing");
    if (!sv->is_number_integer()) return Bad("/schema_version", "expected an integer, got " + TypeName(*sv));
    if (sv->get<int64_t>() != kSchemaVersion) {
      return Bad("/schema_version", "unsupported version " + sv->dump() + " (this perfgate reads " +
                                        std::to_string(kSchemaVersion) + ")");
    }
    out.schema_version = kSchemaVersion;
    if (auto c = root.find("context"); c != root.end()) {
      if (!c->is_object()) return Bad("/context", "expected an object, got " + TypeName(*c));
      PERFGATE_RETURN_IF_ERROR(FlattenContext(*c, "", "/context", &out.context));
    }
    auto values = root.find("values");
    if (values == root.end()) return Bad("/values", "missing");
    if (!values->is_object()) return Bad("/values", "expected an object, got " + TypeName(*values));
    for (const auto& [name, entry] : values->items()) {
      if (name.empty()) return Bad("/values/", "empty value name");
      GoldenValue v;
      Status s = ReadValue("/values/" + internal::EscapePointerToken(name), entry, &v);
      if (!s.ok()) return s;
      out.values.emplace(name, std::move(v));
    }
    return out;
  }

 private:
  Status ReadValue(const std::string& at, const json& e, GoldenValue* v) {
    if (!e.is_object()) return Bad(at, "expected an object, got " + TypeName(e));
    static const std::set<std::string> kKeys = {"value", "kind", "tol", "dir", "gated", "reason", "samples"};
    for (const auto& [key, _] : e.items()) {
      if (kKeys.count(key) == 0) {
        return Bad(at + "/" + internal::EscapePointerToken(key),
                   "unknown key (expected value, kind, tol, dir, gated, reason, samples)");
      }
    }
    FieldPolicy& p = v->policy;
    auto value = e.find("value");
    if (value == e.end()) return Bad(at + "/value", "missing");
    if (!value->is_number()) return Bad(at + "/value", "expected a number, got " + TypeName(*value));
    v->value = value->get<double>();
    v->is_integer = value->is_number_integer();

    auto kind = e.find("kind");
    if (kind == e.end()) return Bad(at + "/kind", "missing (\"noisy\" or \"exact\")");
    PERFGATE_RETURN_IF_ERROR(ReadEnum(at + "/kind", *kind, kKindNames, 2, &p.kind));
    p.dir = Direction::kBoth;
    if (auto d = e.find("dir"); d != e.end()) {
      PERFGATE_RETURN_IF_ERROR(ReadEnum(at + "/dir", *d, kDirNames, 3, &p.dir));
    }
    if (auto g = e.find("gated"); g != e.end()) {
      if (!g->is_boolean()) return Bad(at + "/gated", "expected true or false, got " + TypeName(*g));
      p.gated = g->get<bool>();
    }
    if (auto r = e.find("reason"); r != e.end()) {
      if (!r->is_string()) return Bad(at + "/reason", "expected a string, got " + TypeName(*r));
      p.reason = r->get<std::string>();
    }
    if (auto t = e.find("tol"); t != e.end()) {
      if (!t->is_object()) return Bad(at + "/tol", "expected an object, got " + TypeName(*t));
      for (const auto& [key, num] : t->items()) {
        const std::string where = at + "/tol/" + internal::EscapePointerToken(key);
        if (key != "rel" && key != "abs") return Bad(where, "unknown key (expected rel, abs)");
        if (!num.is_number()) return Bad(where, "expected a number, got " + TypeName(num));
        double x = num.get<double>();
        if (x < 0) return Bad(where, "a tolerance cannot be negative");
        if (key == "rel") {
          if (p.kind == Kind::kExact && x != 0) {
            return Bad(where, "an exact value takes only an absolute tolerance (tol.abs)");
          }
          p.rel = x;
        } else {
          p.abs = x;
        }
      }
    }
    if (auto s = e.find("samples"); s != e.end()) {
      if (!s->is_array()) return Bad(at + "/samples", "expected an array, got " + TypeName(*s));
      for (size_t i = 0; i < s->size(); ++i) {
        const json& x = (*s)[i];
        if (!x.is_number()) {
          return Bad(at + "/samples/" + std::to_string(i), "expected a number, got " + TypeName(x));
        }
        v->samples.push_back(x.get<double>());
      }
    }
    return Status();
  }

  template <typename E>
  Status ReadEnum(const std::string& at, const json& j, const char* const* names, int n, E* out) {
    std::string expected;
    for (int i = 0; i < n; ++i) expected += (i ? ", \"" : "\"") + std::string(names[i]) + "\"";
    if (!j.is_string()) return Bad(at, "expected one of " + expected + ", got " + TypeName(j));
    const std::string s = j.get<std::string>();
    for (int i = 0; i < n; ++i) {
      if (s == names[i]) {
        *out = static_cast<E>(i);
        return Status();
      }
    }
    return Bad(at, "expected one of " + expected + ", got \"" + s + "\"");
  }

  // Nested objects become "outer/inner" keys; two spellings of one key ({"a": {"b"}}
  // and "a/b") would silently keep one of them, so that is an error.
  Status FlattenContext(const json& j, const std::string& prefix, const std::string& at,
                        std::map<std::string, std::string>* out) const {
    for (const auto& [key, v] : j.items()) {
      // Charged before the name is built: a long prefix over many leaves is quadratic.
      const size_t leaf_bytes = prefix.size() + 1 + key.size() + (v.is_string() ? v.get_ref<const std::string&>().size() : 0);
      if (!flatten_budget_.Charge(leaf_bytes)) {
        return Status::Error("golden.too_large",
                             "the context flattens to more than " + std::to_string(flatten_budget_.limit()) +
                                 " bytes of keys and values (every nested key repeats its parents' names)",
                             Locate(at + "/" + internal::EscapePointerToken(key)));
      }
      const std::string name = prefix.empty() ? key : prefix + "/" + key;
      const std::string where = at + "/" + internal::EscapePointerToken(key);
      if (v.is_object() && !v.empty()) {
        PERFGATE_RETURN_IF_ERROR(FlattenContext(v, name, where, out));
        continue;
      }
      if (out->count(name) != 0) return Bad(where, "context key \"" + name + "\" is given twice (nested and flat)");
      (*out)[name] = v.is_string() ? v.get<std::string>() : v.dump();
    }
    return Status();
  }

  static std::string TypeName(const json& j) {
    if (j.is_number()) return "a number";
    if (j.is_string()) return "a string";
    if (j.is_boolean()) return "a boolean";
    if (j.is_null()) return "null";
    if (j.is_array()) return "an array";
    return "an object";
  }

  // Located at the pointer's value, or at its nearest written ancestor (a missing key
  // is reported at the object that lacks it).
  Status Bad(const std::string& pointer, const std::string& what) const {
    return Status::Error("golden.bad_schema", (pointer.empty() ? std::string("/") : pointer) + ": " + what,
                         Locate(pointer));
  }
  SourceLocation Locate(std::string pointer) const {
    return perfgate::internal::LocateJsonPointerOrAncestor(text_, path_, std::move(pointer));
  }

  std::string path_;
  std::string_view text_;
  mutable perfgate::internal::FlattenBudget flatten_budget_;
};

// ---- Writing ---------------------------------------------------------------------

Status CheckWritable(const GoldenFile& file, const std::string& path) {
  auto bad = [&](const std::string& pointer) {
    return Status::Error("golden.bad_value", pointer + ": not a finite number; nothing was written", {path});
  };
  if (file.schema_version != kSchemaVersion) {
    return Status::Error("golden.bad_value",
                         "/schema_version: " + std::to_string(file.schema_version) + " (this perfgate writes " +
                             std::to_string(kSchemaVersion) + "); nothing was written",
                         {path});
  }
  for (const auto& [name, v] : file.values) {
    const std::string at = "/values/" + internal::EscapePointerToken(name);
    if (!std::isfinite(v.value)) return bad(at + "/value");
    if (!std::isfinite(v.policy.rel) || v.policy.rel < 0) return bad(at + "/tol/rel");
    if (!std::isfinite(v.policy.abs) || v.policy.abs < 0) return bad(at + "/tol/abs");
    for (size_t i = 0; i < v.samples.size(); ++i) {
      if (!std::isfinite(v.samples[i])) return bad(at + "/samples/" + std::to_string(i));
    }
  }
  return Status();
}

Status WriteFailed(const std::string& path, const std::string& what, int err) {
  return Status::Error("golden.write_failed", what + ": " + std::strerror(err), {path},
                       ErrorKind::kEnvironment);
}

}  // namespace

// ---- Public API ------------------------------------------------------------------

const char* ToString(Kind kind) { return kKindNames[static_cast<int>(kind)]; }
const char* ToString(Direction dir) { return kDirNames[static_cast<int>(dir)]; }


std::string JsonPointerFor(const std::string& name) {
  return "/values/" + internal::EscapePointerToken(name) + "/value";
}

std::string ActualPathFor(const std::string& golden_path) {
  const std::string kExt = ".json";
  if (golden_path.size() > kExt.size() &&
      golden_path.compare(golden_path.size() - kExt.size(), kExt.size(), kExt) == 0) {
    return golden_path.substr(0, golden_path.size() - kExt.size()) + ".actual.json";
  }
  return golden_path + ".actual.json";
}

StatusOr<GoldenFile> ParseGolden(const std::string& text, const std::string& path) {
  StatusOr<json> root = perfgate::internal::ParseJsonDocument(text, path, {"golden.bad_json", "golden.too_deep"},
                                                              kMaxNesting);
  if (!root.ok()) return root.status();
  return SchemaReader(path, text).Read(*root);
}

StatusOr<GoldenFile> ReadGolden(const std::string& path) {
  std::string text;
  return internal::ReadGoldenWithText(path, &text);
}

StatusOr<GoldenFile> internal::ReadGoldenWithText(const std::string& path, std::string* text) {
  StatusOr<std::string> bytes = perfgate::internal::ReadWholeFile(path);
  if (!bytes.ok()) {
    const Status& s = bytes.status();
    if (s.code() == "io.not_found") return Status::Error("golden.missing", "no golden file", {path});
    return Status::Error("golden.read_failed", s.message(), {path});
  }
  *text = std::move(*bytes);
  return ParseGolden(*text, path);
}

std::map<std::string, int> internal::ValueLines(const std::string& text) {
  std::map<std::string, int> out;
  bool in_values = false;
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    ++line_no;
    pos = end + 1;
    if (!in_values) {
      in_values = line == "  \"values\": {";
      continue;
    }
    if (line.substr(0, 3) == "  }") break;
    const std::string_view kOpen = ": {";
    if (line.size() > 4 + kOpen.size() && line.substr(0, 5) == "    \"" &&
        line.substr(line.size() - kOpen.size()) == kOpen) {
      const std::string quoted(line.substr(4, line.size() - 4 - kOpen.size()));
      json key = json::parse(quoted, nullptr, /*allow_exceptions=*/false);
      if (key.is_string()) out.emplace(key.get<std::string>(), line_no);
    }
  }
  return out;
}

std::string RenderGolden(const GoldenFile& file) {
  json root = json::object();
  root["schema_version"] = file.schema_version;
  json context = json::object();
  for (const auto& [k, v] : file.context) context[k] = v;
  root["context"] = std::move(context);
  json values = json::object();
  for (const auto& [name, v] : file.values) values[name] = ValueJson(v);
  root["values"] = std::move(values);
  // Invalid UTF-8 in a context string or a name becomes U+FFFD instead of throwing.
  return root.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Status WriteGoldenAtomic(const std::string& path, const GoldenFile& file) {
  PERFGATE_RETURN_IF_ERROR(CheckWritable(file, path));
  const std::string text = RenderGolden(file);
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec) return WriteFailed(path, "cannot create directory " + parent.string(), ec.value());
  }
  return ::perfgate::internal::WriteFileAtomic(path, text, "golden.write_failed");
}

}  // namespace perfgate::golden
