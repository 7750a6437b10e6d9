// RenderLosslessJson (lossless_json.h).
#include "core/lossless_json.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/text_cells.h"

namespace perfgate::text {
namespace {

using json = nlohmann::ordered_json;

// The key whose objects are written in insertion (band) order rather than sorted.
constexpr const char* kBandOrderedKey = "buckets";

// A JSON string (or object key) as nlohmann writes it; invalid UTF-8 (from a foreign
// trace's label) is replaced rather than thrown.
void AppendString(const std::string& s, std::string* out) {
  *out += json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

// nlohmann's dump(2) layout (2-space indent, "key": value, one element a line, {} and
// [] when empty) with sorted keys, except that the object under a "buckets" key keeps
// its band order and a double is ShortestDouble's text: nlohmann's Grisu2
// round-trips but is not always the shortest.
void Write(const json& j, int depth, bool band_order, std::string* out) {
  const std::string inner(static_cast<size_t>(2 * (depth + 1)), ' ');
  switch (j.type()) {
    case json::value_t::object: {
      if (j.empty()) {
        *out += "{}";
        return;
      }
      std::vector<std::pair<std::string, const json*>> members;
      for (auto it = j.begin(); it != j.end(); ++it) members.emplace_back(it.key(), &it.value());
      if (!band_order) {
        std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      }
      *out += "{\n";
      bool first = true;
      for (const auto& [key, value] : members) {
        if (!first) *out += ",\n";
        first = false;
        *out += inner;
        AppendString(key, out);
        *out += ": ";
        Write(*value, depth + 1, key == kBandOrderedKey, out);
      }
      *out += "\n" + std::string(static_cast<size_t>(2 * depth), ' ') + "}";
      return;
    }
    case json::value_t::array: {
      if (j.empty()) {
        *out += "[]";
        return;
      }
      *out += "[\n";
      bool first = true;
      for (const json& e : j) {
        if (!first) *out += ",\n";
        first = false;
        *out += inner;
        Write(e, depth + 1, false, out);
      }
      *out += "\n" + std::string(static_cast<size_t>(2 * depth), ' ') + "]";
      return;
    }
    case json::value_t::string:
      AppendString(j.get_ref<const std::string&>(), out);
      return;
    case json::value_t::number_float:
      *out += ShortestDouble(j.get<double>());
      return;
    default:  // null, booleans, integers
      *out += j.dump();
      return;
  }
}

}  // namespace

std::string RenderLosslessJson(const json& document) {
  std::string out;
  Write(document, 0, false, &out);
  return out + "\n";
}

}  // namespace perfgate::text
