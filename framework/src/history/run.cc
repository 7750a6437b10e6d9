// Runs: run keys, the words of Worse, and the text forms both store back ends share.
#include <cmath>
#include <random>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "history/codec.h"
#include "core/text_cells.h"
#include "core/text_input.h"
#include "perfgate/history/run.h"

namespace perfgate::history {

const char* WorseName(Worse worse) {
  switch (worse) {
    case Worse::kUp: return "up";
    case Worse::kDown: return "down";
    case Worse::kBoth: return "both";
  }
  return "both";
}

bool ParseWorse(const std::string& word, Worse* worse) {
  for (Worse w : {Worse::kUp, Worse::kDown, Worse::kBoth}) {
    if (word == WorseName(w)) {
      *worse = w;
      return true;
    }
  }
  return false;
}

std::string NewRunKey() {
  // Two runs of one second on two CI runners must not share a key: 128 bits from the
  // system's random device.
  std::random_device device;
  std::string key;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int word = 0; word < 4; ++word) {
    uint32_t bits = device();
    for (int i = 0; i < 8; ++i, bits >>= 4) key += kHex[bits & 15];
  }
  return key;
}

std::string EncodeSamples(const std::vector<double>& samples) {
  std::string out = "[";
  for (size_t i = 0; i < samples.size(); ++i) {
    if (i) out += ',';
    out += text::ShortestDouble(samples[i]);
  }
  return out + "]";
}

namespace {

Status BadStore(const std::string& what, std::string_view text) {
  return Status::Error("history.bad_store", what + ": '" + std::string(text.substr(0, 80)) + "'");
}

}  // namespace

StatusOr<std::vector<double>> DecodeSamples(std::string_view text) {
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_array()) return BadStore("samples that are no JSON array", text);
  std::vector<double> out;
  out.reserve(json.size());
  for (const auto& v : json) {
    if (!v.is_number() || !std::isfinite(v.get<double>())) return BadStore("a sample that is no finite number", text);
    out.push_back(v.get<double>());
  }
  return out;
}

std::string EncodeMeta(const std::map<std::string, std::string>& meta) {
  return nlohmann::json(meta).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

StatusOr<std::map<std::string, std::string>> DecodeMeta(std::string_view text) {
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return BadStore("meta.json that is no JSON object", text);
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : json.items()) {
    if (!value.is_string()) return BadStore("a meta.json value that is no string", text);
    out[key] = value.get<std::string>();
  }
  return out;
}

namespace {

Status BadRun(const std::string& message) { return Status::Error("history.bad_run", message); }

bool AllFinite(const std::vector<double>& values) {
  for (double v : values) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

Status ValidateFigures(const std::vector<Figure>& figures) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const Figure& f : figures) {
    if (f.engine.empty() || f.metric.empty()) return BadRun("a figure without an engine or a metric name");
    const std::string name = f.engine + " " + f.metric;
    if (!std::isfinite(f.median) || !AllFinite(f.samples)) return BadRun(name + ": a median or sample that is not finite");
    if (!seen.emplace(f.engine, f.metric).second) return BadRun(name + ": the figure is given twice");
  }
  return Status();
}

Status ValidateLevels(const std::vector<LevelRow>& levels) {
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  for (const LevelRow& row : levels) {
    const std::string name = row.engine + " " + row.level + " '" + row.name + "'";
    if (!std::isfinite(row.calls_per_token) || !std::isfinite(row.us_per_token)) {
      return BadRun(name + ": a level figure that is not finite");
    }
    if (!seen.emplace(row.engine, row.level, row.name).second) return BadRun(name + ": the level row is given twice");
  }
  return Status();
}

// Text both back ends hold as it is: UTF-8 without NUL (PostgreSQL's TEXT refuses
// both; SQLite would keep them, and the two stores must agree).
Status ValidateText(const std::string& what, const std::string& text) {
  if (text.find('\0') != std::string::npos) return BadRun(what + " holds a NUL byte");
  if (internal::FindInvalidUtf8(text) != std::string_view::npos) return BadRun(what + " is not UTF-8");
  return Status();
}

Status ValidateTexts(const Run& run) {
  const RunContext& c = run.context;
  for (const auto& [what, text] : {std::pair<const char*, const std::string*>{"the time", &c.time},
                                   {"the commit", &c.commit}, {"the branch", &c.branch}, {"the suite", &c.suite},
                                   {"the test", &c.test}, {"the machine", &c.machine}, {"the device", &c.device}}) {
    PERFGATE_RETURN_IF_ERROR(ValidateText(what, *text));
  }
  for (const auto& [key, value] : c.meta) {
    PERFGATE_RETURN_IF_ERROR(ValidateText("meta key", key));
    PERFGATE_RETURN_IF_ERROR(ValidateText("meta '" + key + "'", value));
  }
  for (const Figure& f : run.figures) {
    PERFGATE_RETURN_IF_ERROR(ValidateText("an engine's name", f.engine));
    PERFGATE_RETURN_IF_ERROR(ValidateText("a metric's name", f.metric));
  }
  for (const LevelRow& row : run.levels) {
    for (const std::string* text : {&row.engine, &row.level, &row.name}) {
      PERFGATE_RETURN_IF_ERROR(ValidateText("a level row's name", *text));
    }
  }
  return Status();
}

}  // namespace

Status ValidateRun(const Run& run) {
  if (run.key.empty()) return BadRun("the run has no key (history::NewRunKey())");
  PERFGATE_RETURN_IF_ERROR(ValidateTexts(run));
  PERFGATE_RETURN_IF_ERROR(ValidateFigures(run.figures));
  return ValidateLevels(run.levels);
}

}  // namespace perfgate::history
