// Trial discovery: every entry of a recording is a trial, a named error, or listed as
// ignored. Nothing that looks like a trial is dropped.
#include "perfgate/bundle/trials.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "perfgate/attribution/attribute.h"
#include "perfgate/bundle/summary_cache.h"
#include "perfgate/core/jobs.h"
#include "perfgate/core/names.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/recorder.h"
#include "core/json_document.h"
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

// Parses a recorder's metadata file (meta.json, environment.json): a JSON object with
// bounded nesting and no key given twice in one object, its errors located.
StatusOr<internal::JsonObjectFile> ReadMetadataObject(const std::string& path) {
  return internal::ReadJsonObjectFile(path, {"bundle.bad_meta", "bundle.bad_meta"});
}

// Nested objects become "outer.inner" keys, within a budget (each leaf repeats its
// parents' names), and two spellings of one key ({"a": {"b": 1}} and "a.b") are an
// error rather than one silently replacing the other.
class MetaFlattener {
 public:
  MetaFlattener(const internal::JsonObjectFile& file, const std::string& path)
      : file_(file), path_(path), budget_(file.text.size()) {}

  Status Flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, std::string>* out) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      trail_.push_back(&it.key());
      Status s = FlattenMember(*it, prefix, out);
      if (!s.ok()) return s;
      trail_.pop_back();
    }
    return Status();
  }

 private:
  Status FlattenMember(const nlohmann::json& v, const std::string& prefix, std::map<std::string, std::string>* out) {
    const std::string& key = *trail_.back();
    const std::string value = v.is_object() ? std::string() : v.is_string() ? v.get<std::string>() : v.dump();
    // Charged before the key is built: a long prefix over many leaves is quadratic.
    if (!budget_.Charge(prefix.size() + 1 + key.size() + value.size())) {
      return Bad("flattens to more than " + std::to_string(budget_.limit()) +
                 " bytes of keys and values (every nested key repeats its parents' names)");
    }
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    if (v.is_object()) return Flatten(v, name, out);
    if (!out->emplace(name, value).second) return Bad("gives the key '" + name + "' twice (nested and dotted)");
    return Status();
  }

  // Located at the member being flattened.
  Status Bad(const std::string& what) const {
    std::string pointer;
    for (const std::string* key : trail_) pointer += "/" + internal::EscapeJsonPointerToken(*key);
    return Status::Error("bundle.bad_meta", fs::path(path_).filename().string() + " " + what,
                         internal::LocateJsonPointerOrAncestor(file_.text, path_, pointer));
  }

  const internal::JsonObjectFile& file_;
  const std::string& path_;
  internal::FlattenBudget budget_;
  std::vector<const std::string*> trail_;
};

// A metadata file read and flattened: what discovery checks and ReadTrialMeta returns.
StatusOr<std::map<std::string, std::string>> ReadFlatMetadata(const std::string& path) {
  auto meta = ReadMetadataObject(path);
  if (!meta.ok()) return meta.status();
  std::map<std::string, std::string> out;
  PERFGATE_RETURN_IF_ERROR(MetaFlattener(*meta, path).Flatten(meta->root, "", &out));
  return out;
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

// The trial's counters.txt when anything of that name is there (a directory or a
// dangling link there is read, and refused, rather than passed over).
std::string CountersPathOf(const fs::path& trial) {
  std::error_code ec;
  const fs::path dir = fs::is_directory(trial, ec) ? trial : trial.parent_path();
  const fs::path counters = dir / "counters.txt";
  return fs::symlink_status(counters, ec).type() == fs::file_type::not_found || ec ? "" : counters.string();
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
      auto meta = ReadFlatMetadata(e.path().string());
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
    return Trial{dir.string(), s, MetaPathOf(dir), CountersPathOf(dir)};
  }
  for (const char* name : kTrialTraceFiles) {
    const fs::path file = dir / name;
    if (!fs::is_regular_file(file, ec)) continue;
    if (const sources::TraceSource* s = sources::SniffSource(file.string())) {
      return Trial{file.string(), s, MetaPathOf(dir), CountersPathOf(dir)};
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
      auto meta = ReadFlatMetadata(p.string());
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

StatusOr<std::vector<std::string>> RequireNoTrialInside(const fs::path& dir);

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
    // A trial inside the trial would vanish unread; its own .trace bundle is listed.
    auto own_bundles = RequireNoTrialInside(p);
    if (!own_bundles.ok()) return own_bundles.status();
    auto trial = TrialOfDirectory(p);
    if (!trial.ok()) return trial.status();
    out->trials.push_back(std::move(trial).value());
    out->ignored.insert(out->ignored.end(), own_bundles->begin(), own_bundles->end());
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
      out->trials.push_back(Trial{p.string(), s, "", ""});
      return Status();
    }
  }
  return AddNonTrialFile(p, out);
}

// A Metal trial's exports beside the .trace bundle they were exported from, as
// `perfgate record --keep-trace` leaves a trial (trial-1/trial-1.trace): the bundle is
// where the exports came from, not a second trial.
bool IsTheTrialsOwnBundle(const fs::path& dir, const fs::path& entry) {
  std::error_code ec;
  const std::string points = std::string(xctrace::ExecutionPoint::kSchema) + ".xml";
  return entry.extension() == ".trace" && fs::is_directory(entry, ec) &&
         (fs::is_regular_file(dir / points, ec) || fs::is_regular_file(dir / (points + ".gz"), ec));
}

// A directory read as one trial must not also hold trials: they would vanish unread.
// Its own .trace bundle is the exception, returned to be listed as not read.
StatusOr<std::vector<std::string>> RequireNoTrialInside(const fs::path& dir) {
  auto entries = SortedEntries(dir);
  if (!entries.ok()) return entries.status();
  std::vector<std::string> own_bundles;
  for (const auto& e : *entries) {
    const fs::path& p = e.path();
    if (IsTheTrialsOwnBundle(dir, p)) {
      own_bundles.push_back(p.string());
    } else if (LooksLikeTrialDirectory(p)) {
      return Status::Error("bundle.ambiguous",
                           "this directory is a trial itself and also holds the trial " + p.filename().string() +
                               "; move the trial files or the trial directories elsewhere",
                           {dir.string()});
    }
  }
  return own_bundles;
}

// A trial's name with the leading zeros of its numbers dropped: trial-01 and trial-1
// name one trial.
std::string TrialNumberKey(const std::string& name) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::string key;
  for (size_t i = 0; i < name.size(); ++i) {
    if (digit(name[i]) && (i == 0 || !digit(name[i - 1]))) {
      while (i + 1 < name.size() && name[i] == '0' && digit(name[i + 1])) ++i;
    }
    key += name[i];
  }
  return key;
}

// Two trials whose names differ only in leading zeros (trial-1 beside a copy named
// trial-01) would count one recording twice.
Status RequireDistinctTrialNames(const std::string& path, const std::vector<Trial>& trials) {
  std::map<std::string, std::string> seen;
  for (const Trial& t : trials) {
    // The recording's entry the trial is (trial-1 for trial-1/trace.json).
    const fs::path relative = fs::path(t.path).lexically_relative(path);
    const std::string name = relative.empty() ? t.path : relative.begin()->string();
    auto [it, fresh] = seen.emplace(TrialNumberKey(name), name);
    if (fresh) continue;
    return Status::Error("bundle.ambiguous",
                         "the trials " + it->second + " and " + name +
                             " differ only in leading zeros: one trial copied? remove one, or renumber",
                         {path});
  }
  return Status();
}

StatusOr<Recording> DiscoverRecordingDirectory(const std::string& path) {
  Recording out;
  auto entries = SortedEntries(path);
  if (!entries.ok()) return entries.status();
  for (const auto& e : *entries) PERFGATE_RETURN_IF_ERROR(AddEntry(e, &out));
  PERFGATE_RETURN_IF_ERROR(RequireDistinctTrialNames(path, out.trials));
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
    return Recording{{Trial{path, s, "", ""}}, {}};
  }
  const fs::path dir(path);
  // Listed first, so an unreadable directory is named as one, not as "no trials".
  if (auto entries = SortedEntries(dir); !entries.ok()) return entries.status();
  std::error_code ec;
  if (fs::exists(dir / std::string(xctrace::kIncompleteMarkerFile), ec) || LooksLikeTrialDirectory(dir)) {
    auto own_bundles = RequireNoTrialInside(dir);
    if (!own_bundles.ok()) return own_bundles.status();
    auto trial = TrialOfDirectory(dir);
    if (!trial.ok()) return trial.status();
    return Recording{{std::move(trial).value()}, std::move(own_bundles).value()};
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

namespace {

// The trials' counter reports, checked against each other before any trace is read
// (so that a missing counters.txt fails at once, not after minutes of traces): a
// summary of the reports alone, whose counters the engine's summary takes over.
StatusOr<attribution::EngineSummary> ReadCounterReports(const std::string& engine, const std::vector<Trial>& trials) {
  attribution::EngineSummary reports;
  reports.name = engine;
  for (const Trial& t : trials) {
    attribution::TrialSummary s;
    s.path = t.path;
    if (!t.counters_path.empty()) {
      auto report = counters::ReadCounterReport(t.counters_path);
      if (!report.ok()) return report.status();
      s.counters = std::move(report).value();
    }
    reports.trials.push_back(std::move(s));
  }
  PERFGATE_RETURN_IF_ERROR(attribution::MedianCounters(&reports));
  return reports;
}

}  // namespace

StatusOr<attribution::EngineSummary> AttributeTrials(const std::string& engine, const std::vector<Trial>& trials,
                                                     const attribution::AttributionOptions& options,
                                                     const TrialObserver& on_trial) {
  auto reports = ReadCounterReports(engine, trials);
  if (!reports.ok()) return reports.status();
  if (auto jobs = ResolveJobs(); !jobs.ok()) return jobs.status();
  // Each trial alone, on every core; then in trial order, so the first error and the
  // observer's calls are those of a serial read.
  std::vector<std::optional<StatusOr<attribution::TrialSummary>>> attributed(trials.size());
  const std::string cache_dir = SummaryCacheDir();
  ParallelFor(trials.size(), [&](size_t i) {
    const Trial& t = trials[i];
    attributed[i] = CachedSummary(cache_dir, t, sources::WithDefaultProcessFilter(*t.source, engine, options));
  });
  std::vector<attribution::TrialSummary> summaries;
  for (size_t i = 0; i < trials.size(); ++i) {
    StatusOr<attribution::TrialSummary>& summary = *attributed[i];
    if (!summary.ok()) return summary.status();
    summary->counters = std::move(reports->trials[i].counters);
    if (on_trial) on_trial(trials[i], *summary);
    summaries.push_back(std::move(summary).value());
  }
  attribution::EngineSummary e =
      attribution::SummarizeEngine(engine, std::move(summaries), options.buckets, options.seed_compat);
  e.counters = std::move(reports->counters);
  e.counter_text = std::move(reports->counter_text);
  e.counters_path = std::move(reports->counters_path);
  return e;
}

StatusOr<std::map<std::string, std::string>> ReadTrialMeta(const Trial& trial) {
  if (trial.meta_path.empty()) return std::map<std::string, std::string>();
  return ReadFlatMetadata(trial.meta_path);
}

}  // namespace perfgate::bundle
