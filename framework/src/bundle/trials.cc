// Trial discovery: every entry of a recording is a trial, a named error, or listed as
// ignored. Nothing that looks like a trial is dropped.
#include "perfgate/bundle/trials.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "perfgate/attribution/attribute.h"
#include "perfgate/core/names.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/recorder.h"

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
  if (ec) return Status::Error("io.read_failed", "cannot list the directory: " + ec.message(), {dir.string()});
  std::sort(entries.begin(), entries.end(), [](const fs::directory_entry& a, const fs::directory_entry& b) {
    return NaturalLess(a.path().filename().string(), b.path().filename().string());
  });
  return entries;
}

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

// A directory that is one trial: one a source reads, or one holding trace.json[.gz]
// (the trial file is then that file). An INCOMPLETE marker is checked first, so a
// failed recording is refused by name instead of read.
StatusOr<Trial> TrialOfDirectory(const fs::path& dir) {
  std::error_code ec;
  // The marker, or a recorder's meta.json that says the trial is not complete.
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
    return Status::Error("bundle.unknown_file", "the trial's " + std::string(name) + " is not trace-event JSON",
                         {file.string()});
  }
  return Status::Error("bundle.bad_trial",
                       "this trial directory is no trial of any source: no " +
                           std::string(xctrace::ExecutionPoint::kSchema) + ".xml[.gz] and no trace.json[.gz] (" +
                           Listing(dir) + "); restore or re-record it, or remove the directory",
                       {dir.string()});
}

// One entry of a recording directory: a trial appended to `out`, an ignored file, or
// an error.
Status AddEntry(const fs::directory_entry& entry, Recording* out) {
  const fs::path& p = entry.path();
  const std::string name = p.filename().string();
  std::error_code ec;
  if (fs::is_symlink(entry.symlink_status(ec)) && !fs::exists(p, ec)) {
    return Status::Error("bundle.bad_trial", "a dangling symbolic link in the recording", {p.string()});
  }
  if (fs::is_directory(p, ec)) {
    auto trial = TrialOfDirectory(p);
    if (!trial.ok()) return trial.status();
    out->trials.push_back(std::move(trial).value());
    return Status();
  }
  if (const sources::TraceSource* s = sources::SniffSource(p.string())) {
    out->trials.push_back(Trial{p.string(), s, ""});
    return Status();
  }
  if (!IsSidecarFile(name)) {
    return Status::Error("bundle.unknown_file",
                         "no trace source reads this file (known: Metal exports in trial directories, "
                         "trace-event JSON); move it out of the recording",
                         {p.string()});
  }
  out->ignored.push_back(p.string());
  return Status();
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
  std::error_code ec;
  if (!fs::exists(path, ec)) return Status::Error("io.not_found", "no such trial file or directory", {path});
  if (!fs::is_directory(path, ec)) {
    const sources::TraceSource* s = sources::SniffSource(path);
    if (s == nullptr) {
      return Status::Error("bundle.unknown_file", "no trace source reads this file", {path});
    }
    return Recording{{Trial{path, s, ""}}, {}};
  }
  const fs::path dir(path);
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
  std::ifstream in(trial.meta_path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return Status::Error("io.read_failed", "cannot read the trial's meta.json", {trial.meta_path});
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Error("bundle.bad_meta", "meta.json is not a JSON object", {trial.meta_path});
  }
  Flatten(j, "", &out);
  return out;
}

}  // namespace perfgate::bundle
