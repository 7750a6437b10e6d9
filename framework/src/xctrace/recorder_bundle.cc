// A recording bundle's files: the INCOMPLETE marker, meta.json, and what an existing
// trial directory means for a new recording (resume, redo or refuse).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "xctrace/recorder_internal.h"

namespace perfgate::xctrace {
namespace {

namespace fs = std::filesystem;
constexpr const char* kRecorderName = "perfgate record";

std::string ReadSmallFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// nullopt when meta.json is absent; a discarded value when it does not parse.
std::optional<nlohmann::json> ReadMeta(const fs::path& dir) {
  std::error_code ec;
  fs::path path = dir / std::string(kMetaFile);
  if (!fs::exists(path, ec)) return std::nullopt;
  return nlohmann::json::parse(ReadSmallFile(path), nullptr, /*allow_exceptions=*/false);
}

bool IsPerfgateMeta(const nlohmann::json& meta) {
  if (!meta.is_object()) return false;
  auto it = meta.find("recorder");
  return it != meta.end() && it->is_string() && it->get<std::string>() == kRecorderName;
}

bool IsMarkedComplete(const nlohmann::json& meta) {
  auto it = meta.find("complete");
  return it != meta.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

namespace internal {

nlohmann::json IdentityOf(const EngineRecordSpec& spec, const RecordOptions& options) {
  return {
      {"engine", spec.engine}, {"command", spec.command}, {"tokens", spec.tokens}, {"template", options.template_name}};
}

TrialCheck InspectTrial(const std::string& trial_dir, const nlohmann::json& identity) {
  std::error_code ec;
  fs::path dir(trial_dir);
  if (!fs::exists(dir, ec)) return {TrialState::kAbsent, ""};
  if (!fs::is_directory(dir, ec)) return {TrialState::kForeign, "it exists and is not a directory"};
  if (fs::directory_iterator(dir, ec) == fs::directory_iterator()) return {TrialState::kAbsent, ""};
  fs::path marker = dir / std::string(kIncompleteMarkerFile);
  if (fs::exists(marker, ec)) {
    return {TrialState::kIncomplete, FirstLine(ReadSmallFile(marker))};
  }
  std::optional<nlohmann::json> meta = ReadMeta(dir);
  if (!meta) return {TrialState::kForeign, "it holds files but no meta.json"};
  if (meta->is_discarded()) return {TrialState::kForeign, "its meta.json is not valid JSON"};
  if (!IsPerfgateMeta(*meta)) {
    return {TrialState::kForeign, "its meta.json was not written by perfgate record (a synthetic or copied bundle?)"};
  }
  if (!IsMarkedComplete(*meta)) return {TrialState::kIncomplete, "meta.json says \"complete\": false"};
  std::string differences;
  for (const auto& [key, want] : identity.items()) {
    const nlohmann::json have = meta->contains(key) ? (*meta)[key] : nlohmann::json();
    if (have != want) {
      if (!differences.empty()) differences += "; ";
      differences += key + " " + have.dump() + " there, " + want.dump() + " now";
    }
  }
  if (!differences.empty()) return {TrialState::kMismatch, differences};
  for (const std::string& schema : RequiredRecordTables()) {
    if (!fs::exists(dir / (schema + ".xml"), ec) && !fs::exists(dir / (schema + ".xml.gz"), ec)) {
      return {TrialState::kForeign, "it is marked complete but has no " + schema + ".xml (damaged)"};
    }
  }
  return {TrialState::kComplete, ""};
}

std::string MetaText(const nlohmann::json& meta) {
  return meta.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Status MarkIncomplete(const std::string& trial_dir, const std::string& reason, const nlohmann::json& meta) {
  const fs::path dir(trial_dir);
  std::string text = reason +
                     "\n\nThis trial is incomplete: attribution refuses it. Run the same `perfgate record` "
                     "command again to redo it, or delete this directory.\n";
  PERFGATE_RETURN_IF_ERROR(WriteFileAtomic((dir / std::string(kIncompleteMarkerFile)).string(), text));
  nlohmann::json m = meta;
  m["complete"] = false;
  return WriteFileAtomic((dir / std::string(kMetaFile)).string(), MetaText(m));
}

}  // namespace internal

Status CheckTrialComplete(const std::string& trial_dir) {
  std::error_code ec;
  const fs::path dir(trial_dir);
  const fs::path marker = dir / std::string(kIncompleteMarkerFile);
  if (fs::exists(marker, ec)) {
    return Status::Error("record.incomplete_bundle",
                         "this trial was not recorded completely (" + FirstLine(ReadSmallFile(marker)) +
                             "); re-run perfgate record to redo it, or delete it",
                         {trial_dir});
  }
  std::optional<nlohmann::json> meta = ReadMeta(dir);
  if (meta && IsPerfgateMeta(*meta) && !IsMarkedComplete(*meta)) {
    return Status::Error("record.incomplete_bundle",
                         "meta.json says \"complete\": false; re-run perfgate record to redo this trial, or delete it",
                         {trial_dir});
  }
  return Status();
}

}  // namespace perfgate::xctrace
