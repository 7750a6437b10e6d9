// A recording bundle's files: the INCOMPLETE marker, meta.json, and what an existing
// trial directory means for a new recording (resume, redo or refuse).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/text_input.h"
#include "core/json_document.h"
#include "xctrace/recorder_internal.h"

namespace perfgate::xctrace {
namespace {

namespace fs = std::filesystem;
constexpr const char* kRecorderName = "perfgate record";

// The first line of the INCOMPLETE marker, read with the limits of every input (a FIFO
// or a device named INCOMPLETE is refused, never opened).
StatusOr<std::string> MarkerReason(const fs::path& marker) {
  PERFGATE_ASSIGN_OR_RETURN(std::string text, ::perfgate::internal::ReadWholeFile(marker.string()));
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// meta.json parsed as attribution reads it (limits, depth, duplicate keys, a located
// bundle.bad_meta); nullopt when the trial has none.
StatusOr<std::optional<nlohmann::json>> ReadMeta(const fs::path& dir) {
  std::error_code ec;
  fs::path path = dir / std::string(kMetaFile);
  if (!fs::exists(fs::symlink_status(path, ec))) return std::optional<nlohmann::json>();
  PERFGATE_ASSIGN_OR_RETURN(::perfgate::internal::JsonObjectFile file,
                            ::perfgate::internal::ReadJsonObjectFile(path.string(), {"bundle.bad_meta", "bundle.bad_meta"}));
  return std::optional<nlohmann::json>(std::move(file.root));
}

// A value as a mismatch message shows it; a string that is not UTF-8 is replaced, not thrown on.
std::string Shown(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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

TrialCheck InspectTrial(const std::string& trial_dir, const nlohmann::json& identity,
                        const RequiredFiles& required_files) {
  std::error_code ec;
  fs::path dir(trial_dir);
  if (!fs::exists(dir, ec)) return {TrialState::kAbsent, ""};
  if (!fs::is_directory(dir, ec)) return {TrialState::kForeign, "it exists and is not a directory"};
  if (fs::directory_iterator(dir, ec) == fs::directory_iterator()) return {TrialState::kAbsent, ""};
  fs::path marker = dir / std::string(kIncompleteMarkerFile);
  if (fs::exists(fs::symlink_status(marker, ec))) {
    auto reason = MarkerReason(marker);
    if (!reason.ok()) return {TrialState::kForeign, "its INCOMPLETE marker cannot be read: " + reason.status().ToString()};
    return {TrialState::kIncomplete, *reason};
  }
  auto read = ReadMeta(dir);
  if (!read.ok()) return {TrialState::kForeign, "its meta.json cannot be read: " + read.status().ToString()};
  const std::optional<nlohmann::json>& meta = *read;
  if (!meta) return {TrialState::kForeign, "it holds files but no meta.json"};
  if (!IsPerfgateMeta(*meta)) {
    return {TrialState::kForeign, "its meta.json was not written by perfgate record (a synthetic or copied bundle?)"};
  }
  if (!IsMarkedComplete(*meta)) return {TrialState::kIncomplete, "meta.json says \"complete\": false"};
  std::string differences;
  for (const auto& [key, want] : identity.items()) {
    const nlohmann::json have = meta->contains(key) ? (*meta)[key] : nlohmann::json();
    if (have != want) {
      if (!differences.empty()) differences += "; ";
      differences += key + " " + Shown(have) + " there, " + Shown(want) + " now";
    }
  }
  if (!differences.empty()) return {TrialState::kMismatch, differences};
  for (const std::vector<std::string>& alternatives : required_files) {
    const bool present = std::any_of(alternatives.begin(), alternatives.end(),
                                     [&](const std::string& name) { return fs::exists(dir / name, ec); });
    if (!present && !alternatives.empty()) {
      return {TrialState::kForeign, "it is marked complete but has no " + alternatives.front() + " (damaged)"};
    }
  }
  return {TrialState::kComplete, ""};
}

RequiredFiles XctraceTrialFiles() {
  RequiredFiles files;
  for (const std::string& schema : RequiredRecordTables()) files.push_back({schema + ".xml", schema + ".xml.gz"});
  return files;
}

TrialCheck InspectTrial(const std::string& trial_dir, const nlohmann::json& identity) {
  return InspectTrial(trial_dir, identity, XctraceTrialFiles());
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
  if (fs::exists(fs::symlink_status(marker, ec))) {
    PERFGATE_ASSIGN_OR_RETURN(std::string reason, MarkerReason(marker));
    return Status::Error("record.incomplete_bundle",
                         "this trial was not recorded completely (" + reason +
                             "); re-run perfgate record to redo it, or delete it",
                         {trial_dir});
  }
  PERFGATE_ASSIGN_OR_RETURN(std::optional<nlohmann::json> meta, ReadMeta(dir));
  if (meta && IsPerfgateMeta(*meta) && !IsMarkedComplete(*meta)) {
    return Status::Error("record.incomplete_bundle",
                         "meta.json says \"complete\": false; re-run perfgate record to redo this trial, or delete it",
                         {trial_dir});
  }
  return Status();
}

}  // namespace perfgate::xctrace
