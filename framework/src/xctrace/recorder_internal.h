// Private pieces of the recorder (perfgate/xctrace/recorder.h): the host facts that go
// into meta.json (recorder_host.cc) and the bundle's files and resume states
// (recorder_bundle.cc).
#ifndef PERFGATE_SRC_XCTRACE_RECORDER_INTERNAL_H_
#define PERFGATE_SRC_XCTRACE_RECORDER_INTERNAL_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/text_input.h"
#include "perfgate/core/status.h"
#include "perfgate/xctrace/recorder.h"

namespace perfgate::xctrace::internal {

// Facts about the machine a trial ran on. Empty strings when unknown.
struct HostInfo {
  std::string host;        // gethostname()
  std::string chip;        // macOS: machdep.cpu.brand_string ("Apple M3 Max"); Linux: cpuinfo model name
  std::string os_version;  // "macOS 15.1 (24B83)", or "Linux 6.1.0-18-amd64"
};
HostInfo ReadHostInfo();

// The git commit checked out in `directory`, and whether tracked files differ from it;
// nullopt when git is missing or the directory is not in a work tree.
struct GitInfo {
  std::string commit;
  bool dirty = false;
};
std::optional<GitInfo> ReadGitInfo(const std::string& directory);

// The first line of `xctrace version`, e.g. "xctrace version 16.0 (16A242d)"; "" when
// it fails.
std::string ReadXctraceVersion(const XctraceCommand& xctrace);

// The current UTC time as ISO 8601 with milliseconds, e.g. "2026-11-30T09:00:00.539Z".
std::string NowIso8601();

// What a trial directory holds before recording.
enum class TrialState {
  kAbsent,      // no directory, or an empty one: record
  kIncomplete,  // INCOMPLETE marker: redo
  kComplete,    // a complete perfgate bundle of this recording: skip
  kMismatch,    // a complete perfgate bundle of another recording: refuse unless forced
  kForeign,     // files that are not a perfgate bundle, or a damaged one: refuse unless forced
};
struct TrialCheck {
  TrialState state = TrialState::kAbsent;
  std::string detail;  // why kMismatch / kForeign / kIncomplete
};

// The fields of meta.json that must agree for a complete trial to be reused: engine,
// command (as run), tokens and template.
nlohmann::json IdentityOf(const EngineRecordSpec& spec, const RecordOptions& options);
TrialCheck InspectTrial(const std::string& trial_dir, const nlohmann::json& identity);

// meta.json's text. Strings that are not UTF-8 (a path, a host name, a tool's stderr in
// an error message) become U+FFFD instead of throwing.
std::string MetaText(const nlohmann::json& meta);

using ::perfgate::internal::WriteFileAtomic;
// Writes the INCOMPLETE marker with a reason, and meta.json with "complete": false.
Status MarkIncomplete(const std::string& trial_dir, const std::string& reason, const nlohmann::json& meta);

}  // namespace perfgate::xctrace::internal

#endif  // PERFGATE_SRC_XCTRACE_RECORDER_INTERNAL_H_
