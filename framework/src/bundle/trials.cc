// Trial discovery: every entry of a recording is a trial, a named error, or listed as
// ignored. Nothing that looks like a trial is dropped.
#include "perfgate/bundle/trials.h"

#include <algorithm>
#include <filesystem>
#include <cerrno>
#include <set>

#include <nlohmann/json.hpp>

#include "perfgate/attribution/attribute.h"
#include "perfgate/core/names.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/recorder.h"
#include "text_input.h"

namespace perfgate::bundle {
namespace {

namespace fs = std::filesystem;

// Natural order: runs of digits compare by value, so trial-2.json.gz precedes
// trial-10.json whatever the names around the numbers. Equal values ("01", "1") fall
// back to bytes, which keeps the order total.
bool NaturalLess(const std::string& a, const std::string& b) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (!digit(a[i]) || !digit(b[j])) {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
      continue;
    }
    while (i < a.size() && a[i] == '0') ++i;
    while (j < b.size() && b[j] == '0') ++j;
    size_t a_end = i;
    size_t b_end = j;
    while (a_end < a.size() && digit(a[a_end])) ++a_end;
    while (b_end < b.size() && digit(b[b_end])) ++b_end;
    if (a_end - i != b_end - j) return a_end - i < b_end - j;
    if (const int c = a.compare(i, a_end - i, b, j, b_end - j); c != 0) return c < 0;
    i = a_end;
    j = b_end;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Files a recording may hold beside its trials: notes, logs and the recorder's own
// metadata. Anything else that no source reads is an error, not an ignored file.
bool IsSidecarFile(const std::string& name) {
  if (name.empty() || name[0] == '.' || name == "meta.json" || name == "environment.json") return true;
  if (name.rfind("README", 0) == 0 || name.rfind("LICENSE", 0) == 0) return true;
  for (std::string_view ext : {".md", ".txt", ".log", ".csv", ".png", ".svg"}) {
    if (EndsWith(name, ext)) return true;
  }
  return false;
}

// Lists a directory's entries in natural order; an unreadable directory is an error.
StatusOr<std::vector<fs::directory_entry>> SortedEntries(const fs::path& dir) {
  std::vector<fs::directory_entry> entries;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) entries.push_back(*it);
  if (ec) return internal::PathError(dir.string(), ec.value(), "cannot list the directory");
  std::sort(entries.begin(), entries.end(), [](const fs::directory_entry& a, const fs::directory_entry& b) {
    return NaturalLess(a.path().filename().string(), b.path().filename().string());
  });
  return entries;
}

// The type of `p` (links followed); not_found for a path that is absent, an error
// for one that cannot be examined (a symbolic-link loop, a directory without access).
StatusOr<fs::file_type> TypeOf(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (!ec) return st.type();
  if (ec.value() == ENOENT) return fs::file_type::not_found;
  return internal::PathError(p.string(), ec.value(), "cannot examine");
}

// The error for an absent path: a dangling symbolic link is named as one.
Status Absent(const fs::path& p, const char* what) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(p, ec))) {
    return Status::Error("bundle.bad_trial", "a dangling symbolic link in the recording", {p.string()});
  }
  return Status::Error("io.not_found", what, {p.string()});
}

// Deepest nesting of arrays and objects in JSON text (strings skipped), so that
// flattening or printing a crafted meta.json cannot overflow the stack.
size_t JsonDepth(std::string_view text) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

constexpr size_t kMaxMetaDepth = 64;

// Parses a recorder's metadata file (meta.json, environment.json): a JSON object, no
// deeper than kMaxMetaDepth, with no key given twice in one object.
StatusOr<nlohmann::json> ReadMetadataObject(const std::string& path) {
  auto text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  const std::string name = fs::path(path).filename().string();
  if (JsonDepth(*text) > kMaxMetaDepth) {
    return Status::Error("bundle.bad_meta", name + " nests deeper than " + std::to_string(kMaxMetaDepth) + " levels",
                         {path});
  }
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  auto track_keys = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) keys.emplace_back();
    if (event == E::object_end && !keys.empty()) keys.pop_back();
    if (event == E::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
        duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  nlohmann::json j = nlohmann::json::parse(*text, track_keys, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error("bundle.bad_meta", name + " is not valid JSON", {path});
  if (!j.is_object()) return Status::Error("bundle.bad_meta", name + " is not a JSON object", {path});
  if (!duplicate.empty()) {
    return Status::Error("bundle.bad_meta", name + " gives the key '" + duplicate + "' twice", {path});
  }
  return j;
}

bool IsMetadataFile(const std::string& name) { return name == "meta.json" || name == "environment.json"; }

std::string Listing(const fs::path& dir) {
  std::vector<std::string> names;
  if (auto entries = SortedEntries(dir); entries.ok()) {
    for (const auto& e : *entries) names.push_back(e.path().filename().string());
  }
  if (names.empty()) return "it is empty";
  std::string out = "it holds";
  for (size_t i = 0; i < names.size() && i < 8; ++i) out += (i ? ", " : " ") + names[i];
  if (names.size() > 8) out += ", ... (" + std::to_string(names.size()) + " entries)";
  return out;
}

// The file a trace-event trial directory holds its trace in.
constexpr const char* kTrialTraceFiles[] = {"trace.json", "trace.json.gz"};

// A directory that a source reads, or that holds its trace in a trial trace file.
bool LooksLikeTrialDirectory(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const char* name : kTrialTraceFiles) {
    if (fs::exists(dir / name, ec)) return true;
  }
  return sources::SniffSource(dir.string()) != nullptr;
}

std::string MetaPathOf(const fs::path& trial) {
  std::error_code ec;
  const fs::path dir = fs::is_directory(trial, ec) ? trial : trial.parent_path();
  const fs::path meta = dir / "meta.json";
  return fs::is_regular_file(meta, ec) ? meta.string() : "";
}

// A file a trial directory's source or the recorder reads.
bool IsTrialInputName(const std::string& name) {
  return IsMetadataFile(name) || EndsWith(name, ".xml") || EndsWith(name, ".xml.gz") || name == "trace.json" ||
         name == "trace.json.gz";
}

// Every file of a trial directory that something reads is readable, one of a kind
// (X.xml beside X.xml.gz would leave one unread) and, for metadata, valid: the
// trial is read whole or refused with the reason.
Status CheckTrialFiles(const fs::path& dir) {
  auto entries = SortedEntries(dir);
  if (!entries.ok()) return entries.status();
  for (const auto& e : *entries) {
    const std::string name = e.path().filename().string();
    auto type = TypeOf(e.path());
    if (!type.ok()) return type.status();
    if (*type == fs::file_type::not_found) return Absent(e.path(), "no such file");
    if (!IsTrialInputName(name)) continue;
    if (EndsWith(name, ".xml") || name == "trace.json") {
      const fs::path gz = e.path().string() + ".gz";
      if (auto gz_type = TypeOf(gz); gz_type.ok() && *gz_type != fs::file_type::not_found) {
        return Status::Error("bundle.ambiguous",
                             "the trial holds both " + name + " and " + name + ".gz; only one would be read: "
                             "remove the other",
                             {gz.string()});
      }
    }
    PERFGATE_RETURN_IF_ERROR(internal::CheckReadableFile(e.path().string()));
    if (IsMetadataFile(name)) {
      auto meta = ReadMetadataObject(e.path().string());
      if (!meta.ok()) return meta.status();
    }
  }
  return Status();
}

// A directory that is one trial: one a source reads, or one holding trace.json[.gz]
// (the trial file is then that file). An INCOMPLETE marker is checked first, so a
// failed recording is refused by name instead of read.
StatusOr<Trial> TrialOfDirectory(const fs::path& dir) {
  std::error_code ec;
  // The marker, or a recorder's meta.json that says the trial is not complete.
  PERFGATE_RETURN_IF_ERROR(CheckTrialFiles(dir));
  PERFGATE_RETURN_IF_ERROR(xctrace::CheckTrialComplete(dir.string()));
  if (const sources::TraceSource* s = sources::SniffSource(dir.string())) {
    return Trial{dir.string(), s, MetaPathOf(dir)};
  }
  for (const char* name : kTrialTraceFiles) {
    const fs::path file = dir / name;
    if (!fs::is_regular_file(file, ec)) continue;
    if (const sources::TraceSource* s = sources::SniffSource(file.string())) {
      return Trial{file.string(), s, MetaPathOf(dir)};
    }
    PERFGATE_RETURN_IF_ERROR(sources::ExplainUnclaimed(file.string()));  // io.bad_gzip, source.unknown_format
    return Status::Error("bundle.unknown_file", "the trial's " + std::string(name) + " is not trace-event JSON",
                         {file.string()});
  }
  return Status::Error("bundle.bad_trial",
                       "this trial directory is no trial of any source: no " +
                           std::string(xctrace::ExecutionPoint::kSchema) + ".xml[.gz] and no trace.json[.gz] (" +
                           Listing(dir) + "); restore or re-record it, or remove the directory",
                       {dir.string()});
}

// A file of a recording that is no trial: a sidecar (listed as ignored; metadata is
// checked), a JSON file no source reads (source.unknown_format), or an unknown file.
Status AddNonTrialFile(const fs::path& p, Recording* out) {
  const std::string name = p.filename().string();
  if (IsSidecarFile(name)) {
    if (IsMetadataFile(name)) {
      auto meta = ReadMetadataObject(p.string());
      if (!meta.ok()) return meta.status();
    }
    out->ignored.push_back(p.string());
    return Status();
  }
  PERFGATE_RETURN_IF_ERROR(sources::ExplainUnclaimed(p.string()));
  return Status::Error("bundle.unknown_file",
                       "no trace source reads this file (known: Metal exports in trial directories, "
                       "trace-event JSON); move it out of the recording",
                       {p.string()});
}

// One entry of a recording directory: a trial appended to `out`, an ignored file, or
// an error. Entries that cannot be examined or read are errors named for why
// (io.symlink_loop, io.permission_denied, io.not_a_file), never "no trials".
Status AddEntry(const fs::directory_entry& entry, Recording* out) {
  const fs::path& p = entry.path();
  const std::string name = p.filename().string();
  auto type = TypeOf(p);
  if (!type.ok()) return type.status();
  if (*type == fs::file_type::not_found) return Absent(p, "no such file");
  if (*type == fs::file_type::directory) {
    auto trial = TrialOfDirectory(p);
    if (!trial.ok()) return trial.status();
    out->trials.push_back(std::move(trial).value());
    return Status();
  }
  if (*type != fs::file_type::regular) {
    if (IsSidecarFile(name) && !IsMetadataFile(name)) {
      out->ignored.push_back(p.string());
      return Status();
    }
    return internal::CheckReadableFile(p.string());  // io.not_a_file, naming what it is
  }
  if (!IsSidecarFile(name)) {
    PERFGATE_RETURN_IF_ERROR(internal::CheckReadableFile(p.string()));
    if (const sources::TraceSource* s = sources::SniffSource(p.string())) {
      out->trials.push_back(Trial{p.string(), s, ""});
      return Status();
    }
  }
  return AddNonTrialFile(p, out);
}

// A directory read as one trial must not also hold trials: they would vanish unread.
Status RequireNoTrialInside(const fs::path& dir) {
  auto entries = SortedEntries(dir);
  if (!entries.ok()) return entries.status();
  for (const auto& e : *entries) {
    const fs::path& p = e.path();
    if (LooksLikeTrialDirectory(p)) {
      return Status::Error("bundle.ambiguous",
                           "this directory is a trial itself and also holds the trial " + p.filename().string() +
                               "; move the trial files or the trial directories elsewhere",
                           {dir.string()});
    }
  }
  return Status();
}

StatusOr<Recording> DiscoverRecordingDirectory(const std::string& path) {
  Recording out;
  auto entries = SortedEntries(path);
  if (!entries.ok()) return entries.status();
  for (const auto& e : *entries) PERFGATE_RETURN_IF_ERROR(AddEntry(e, &out));
  if (out.trials.empty()) {
    return Status::Error("attr.no_trials",
                         "neither a trial directory (no " + std::string(xctrace::ExecutionPoint::kSchema) +
                             ".xml[.gz]), a trace-event JSON file, nor a recording of trial subdirectories (" +
                             Listing(path) + ")",
                         {path});
  }
  PERFGATE_RETURN_IF_ERROR(RequireOneSource(path, out.trials));
  return out;
}

}  // namespace

StatusOr<Recording> DiscoverTrials(const std::string& path) {
  auto type = TypeOf(path);
  if (!type.ok()) return type.status();
  if (*type == fs::file_type::not_found) return Absent(path, "no such trial file or directory");
  if (*type != fs::file_type::directory) {
    PERFGATE_RETURN_IF_ERROR(internal::CheckReadableFile(path));
    const sources::TraceSource* s = sources::SniffSource(path);
    if (s == nullptr) {
      PERFGATE_RETURN_IF_ERROR(sources::ExplainUnclaimed(path));
      return Status::Error("bundle.unknown_file", "no trace source reads this file", {path});
    }
    return Recording{{Trial{path, s, ""}}, {}};
  }
  const fs::path dir(path);
  // Listed first, so an unreadable directory is named as one, not as "no trials".
  if (auto entries = SortedEntries(dir); !entries.ok()) return entries.status();
  std::error_code ec;
  if (fs::exists(dir / std::string(xctrace::kIncompleteMarkerFile), ec) || LooksLikeTrialDirectory(dir)) {
    PERFGATE_RETURN_IF_ERROR(RequireNoTrialInside(dir));
    auto trial = TrialOfDirectory(dir);
    if (!trial.ok()) return trial.status();
    return Recording{{std::move(trial).value()}, {}};
  }
  return DiscoverRecordingDirectory(path);
}

Status RequireTrials(const std::string& path, const Recording& recording, int min_trials) {
  const int n = static_cast<int>(recording.trials.size());
  if (n >= min_trials) return Status();
  std::vector<std::string> trials;
  for (const Trial& t : recording.trials) trials.push_back(fs::path(t.path).filename().string());
  const std::string names = ListNames(trials, "");
  return Status::Error("bundle.too_few_trials",
                       std::to_string(n) + " trial" + (n == 1 ? "" : "s") + " (" + names + "), fewer than the " +
                           std::to_string(min_trials) +
                           " required: record more trials, or lower the minimum (min_trials / --min-trials)",
                       {path});
}

Status RequireOneSource(const std::string& path, const std::vector<Trial>& trials) {
  for (const Trial& t : trials) {
    if (t.source != trials.front().source) {
      return Status::Error("bundle.mixed_sources",
                           "the trials mix two sources: " + trials.front().path + " (" +
                               std::string(trials.front().source->descriptor.name) + ") and " + t.path + " (" +
                               std::string(t.source->descriptor.name) +
                               "); submissions and kernels do not share a median",
                           {path});
    }
  }
  return Status();
}

StatusOr<attribution::EngineSummary> AttributeTrials(const std::string& engine, const std::vector<Trial>& trials,
                                                     const attribution::AttributionOptions& options,
                                                     const TrialObserver& on_trial) {
  std::vector<attribution::TrialSummary> summaries;
  for (const Trial& t : trials) {
    auto summary = t.source->summarize(t.path, sources::WithDefaultProcessFilter(*t.source, engine, options));
    if (!summary.ok()) return summary.status();
    if (on_trial) on_trial(t, *summary);
    summaries.push_back(std::move(summary).value());
  }
  return attribution::SummarizeEngine(engine, std::move(summaries), options.buckets, options.seed_compat);
}

namespace {

void Flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, std::string>* out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) {
      Flatten(*it, key, out);
    } else if (it->is_string()) {
      (*out)[key] = it->get<std::string>();
    } else {
      (*out)[key] = it->dump();
    }
  }
}

}  // namespace

StatusOr<std::map<std::string, std::string>> ReadTrialMeta(const Trial& trial) {
  std::map<std::string, std::string> out;
  if (trial.meta_path.empty()) return out;
  auto j = ReadMetadataObject(trial.meta_path);
  if (!j.ok()) return j.status();
  Flatten(*j, "", &out);
  return out;
}

}  // namespace perfgate::bundle
