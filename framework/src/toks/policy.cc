// Ratio-floor policy files: hf2q's perf_baseline.json read as is (perfgate/toks/ratio.h).
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <string_view>

#include "core/text_input.h"
#include "core/json_document.h"
#include "perfgate/core/names.h"
#include "perfgate/toks/ratio.h"
#include "core/json_member_offsets.h"

namespace perfgate::toks {
namespace {

bool IsCommentary(std::string_view key) { return !key.empty() && key.front() == '_'; }

// Counts the '_' keys below `j` (they are commentary at every level).
int CountCommentary(const nlohmann::json& j) {
  int n = 0;
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) n += (IsCommentary(key) ? 1 : 0) + CountCommentary(value);
  } else if (j.is_array()) {
    for (const auto& v : j) n += CountCommentary(v);
  }
  return n;
}

class PolicyReader {
 public:
  PolicyReader(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  StatusOr<RatioPolicy> Read(const nlohmann::json& j) const {
    RatioPolicy p;
    p.path = path_;
    if (!j.is_object()) return Bad("", "a ratio policy is an object: {\"cells\": {\"<cell>\": {\"ratio_floor\": x}}}");
    PERFGATE_RETURN_IF_ERROR(CheckKeys(j, "", {"cells", "test"}, "the policy"));
    p.commentary_keys = CountCommentary(j);
    if (auto tol = j.find("_tolerance_pp"); tol != j.end()) {
      if (!tol->is_number() || !std::isfinite(tol->get<double>()) || tol->get<double>() < 0) {
        return Bad("/_tolerance_pp", "_tolerance_pp must be a number of percentage points >= 0");
      }
      p.tolerance_pp = tol->get<double>();
      p.has_tolerance = true;
    }
    PERFGATE_ASSIGN_OR_RETURN(p.test, TestName(j, ""));
    auto cells = j.find("cells");
    if (cells == j.end() || !cells->is_object()) return Bad(cells == j.end() ? "" : "/cells", "the policy needs \"cells\": {\"<cell>\": {\"ratio_floor\": x}, ...}");
    // Each cell's position from one pass over the text (keys as written, unescaped).
    std::map<std::string, size_t> key_offsets;
    for (const internal::MemberOffset& m : internal::MemberOffsets(text_, "cells")) {
      auto key = nlohmann::json::parse(m.raw_key, nullptr, false);
      if (key.is_string()) key_offsets.emplace(key.get<std::string>(), m.offset);
    }
    const internal::LineIndex lines(text_);
    for (const auto& [name, cell] : cells->items()) {
      if (IsCommentary(name)) continue;
      PERFGATE_ASSIGN_OR_RETURN(RatioCell c, ReadCell(name, cell));
      auto at = key_offsets.find(name);
      c.location = at != key_offsets.end() ? lines.Locate(path_, at->second) : SourceLocation{path_, 0, 0};
      p.cells.push_back(std::move(c));
    }
    if (p.cells.empty()) return Bad("/cells", "the policy has no cells");
    PERFGATE_RETURN_IF_ERROR(CheckToleranceBites(p));
    return p;
  }

  // A tolerance that reaches a cell's floor lets every ratio pass: a gate that can
  // never fail is refused, naming the cell.
  Status CheckToleranceBites(const RatioPolicy& p) const {
    if (!p.has_tolerance) return Status();
    for (const RatioCell& c : p.cells) {
      if (c.ratio_floor * 100 - p.tolerance_pp > 0) continue;
      char figures[128];
      std::snprintf(figures, sizeof figures, "%g percentage points reach cell '%s''s floor of %g", p.tolerance_pp,
                    c.name.c_str(), c.ratio_floor);
      return Bad("/_tolerance_pp", "_tolerance_pp of " + std::string(figures) +
                                       ": every ratio would pass and the gate could never fail");
    }
    return Status();
  }

  // A cell names a directory of --reports: one plain name, never a path out of it.
  Status CheckCellName(const std::string& name, const std::string& at) const {
    const bool plain = !name.empty() && name != "." && name != ".." &&
                       std::none_of(name.begin(), name.end(), [](char ch) {
                         const unsigned char c = static_cast<unsigned char>(ch);
                         return ch == '/' || ch == '\\' || c < 0x20 || c == 0x7f;
                       });
    if (plain) return Status();
    return Bad(at, "cell '" + name + "' names no directory of --reports: a cell is one plain name (no '/', '\\', "
                                     "'.', '..', control byte, and not empty)");
  }

 private:
  StatusOr<RatioCell> ReadCell(const std::string& name, const nlohmann::json& cell) const {
    const std::string at = "/cells/" + internal::EscapeJsonPointerToken(name);
    PERFGATE_RETURN_IF_ERROR(CheckCellName(name, at));
    if (!cell.is_object()) return Bad(at, "cell '" + name + "' must be an object with ratio_floor");
    PERFGATE_RETURN_IF_ERROR(CheckKeys(cell, at, {"ratio_floor", "test"}, "cell '" + name + "'"));
    RatioCell c;
    c.name = name;
    auto floor = cell.find("ratio_floor");
    if (floor == cell.end()) return Bad(at, "cell '" + name + "' has no ratio_floor");
    if (!floor->is_number() || !std::isfinite(floor->get<double>()) || !(floor->get<double>() > 0)) {
      return Bad(at + "/ratio_floor", "cell '" + name + "': ratio_floor must be a number > 0");
    }
    c.ratio_floor = floor->get<double>();
    PERFGATE_ASSIGN_OR_RETURN(c.test, TestName(cell, at));
    return c;
  }

  StatusOr<std::string> TestName(const nlohmann::json& j, const std::string& at) const {
    auto t = j.find("test");
    if (t == j.end()) return std::string();
    if (!t->is_string() || t->get_ref<const std::string&>().empty()) {
      return Bad(at + "/test", "test must name a llama-bench test (\"tg128\", \"pp512\", \"pp512+tg128\", \"tg128 @ d512\")");
    }
    return t->get<std::string>();
  }

  Status CheckKeys(const nlohmann::json& j, const std::string& at, const std::vector<std::string>& known,
                   const std::string& what) const {
    for (const auto& [key, _] : j.items()) {
      if (IsCommentary(key)) continue;
      bool ok = false;
      for (const std::string& k : known) ok = ok || k == key;
      if (!ok) {
        return Bad(at + "/" + internal::EscapeJsonPointerToken(key),
                   what + ": unknown key '" + key + "' (known: " + ListNames(known) +
                       "; keys starting with '_' are commentary)");
      }
    }
    return Status();
  }

  Status Bad(const std::string& pointer, const std::string& message) const {
    return Status::Error("toks.bad_policy", message, internal::LocateJsonPointerOrAncestor(text_, path_, pointer));
  }

  const std::string& path_;
  std::string_view text_;
};

}  // namespace

std::string RatioPolicy::TestOf(const RatioCell& cell, const std::string& fallback) const {
  if (!cell.test.empty()) return cell.test;
  if (!test.empty()) return test;
  return fallback;
}

StatusOr<RatioPolicy> ParseRatioPolicy(const std::string& text, const std::string& path) {
  auto j = internal::ParseJsonDocument(text, path, {"toks.bad_json", "toks.too_deep"});
  if (!j.ok()) return j.status();
  return PolicyReader(path, text).Read(*j);
}

StatusOr<RatioPolicy> ReadRatioPolicy(const std::string& path) {
  auto text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseRatioPolicy(*text, path);
}

}  // namespace perfgate::toks
