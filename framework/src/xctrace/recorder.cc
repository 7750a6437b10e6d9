// The recording pipeline: xctrace record, export of the TOC and of each table,
// validation, and the recording bundle. See perfgate/xctrace/recorder.h.
#include "perfgate/xctrace/recorder.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <thread>

#include "perfgate/core/process.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "perfgate/xctrace/toc.h"
#include "xctrace/recorder_internal.h"

namespace perfgate::xctrace {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr int64_t kMinuteMs = 60 * 1000;
constexpr int64_t kHeartbeatMs = 15 * 1000;
constexpr size_t kMaxTocBytes = size_t{64} << 20;
constexpr size_t kMaxToolOutputBytes = size_t{1} << 20;

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string Seconds(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buf;
}

// xctrace's --time-limit takes a number with a unit: "90s", "1500ms".
std::string TimeLimitArgument(int64_t ms) {
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
}

std::string TablePath(const std::string& schema) {
  return "/trace-toc/run[@number=\"1\"]/data/table[@schema=\"" + schema + "\"]";
}

bool ValidEngineName(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

// The command and template are part of a trial's identity in meta.json, compared on
// resume: text that JSON cannot hold could never match.
bool IsUtf8(const std::string& text) { return ::perfgate::internal::FindInvalidUtf8(text) == std::string::npos; }

Status BadSpec(std::string message) {
  return Status::Error("record.bad_spec", std::move(message), {}, ErrorKind::kUsage);
}

// The spec as it will run: {tokens} replaced, the process prefix defaulted.
EngineRecordSpec Resolve(EngineRecordSpec spec) {
  const std::string placeholder = "{tokens}";
  for (std::string& arg : spec.command) {
    for (size_t at = arg.find(placeholder); at != std::string::npos; at = arg.find(placeholder, at + 1)) {
      arg.replace(at, placeholder.size(), std::to_string(spec.tokens));
    }
  }
  if (spec.process_prefix.empty()) spec.process_prefix = spec.engine;
  return spec;
}

Status Validate(const std::vector<EngineRecordSpec>& engines, const RecordOptions& options) {
  if (engines.empty()) return BadSpec("nothing to record: no engine given");
  for (size_t i = 0; i < engines.size(); ++i) {
    const EngineRecordSpec& e = engines[i];
    if (!ValidEngineName(e.engine)) {
      return BadSpec("engine name '" + e.engine + "' must be letters, digits, '.', '_' and '-' (it names a directory)");
    }
    for (size_t j = 0; j < i; ++j) {
      if (engines[j].engine == e.engine) return BadSpec("engine '" + e.engine + "' is given twice");
    }
    if (e.command.empty() || e.command[0].empty()) return BadSpec("engine '" + e.engine + "' has no command to record");
    if (!std::all_of(e.command.begin(), e.command.end(), IsUtf8)) {
      return BadSpec("engine '" + e.engine + "': the command must be UTF-8 text (meta.json keeps it for resume)");
    }
    if (e.tokens <= 0) return BadSpec("engine '" + e.engine + "': tokens must be positive");
    for (const auto& kv : e.environment) {
      if (kv.first.empty() || kv.first.find('=') != std::string::npos) {
        return BadSpec("engine '" + e.engine + "': bad environment variable name '" + kv.first + "'");
      }
    }
  }
  if (options.trials < 1 || options.trials > 1000) return BadSpec("trials must be between 1 and 1000");
  if (options.cooldown_ms < 0 || options.time_limit_ms < 0 || options.record_timeout_ms < 0 ||
      options.export_timeout_ms < 0 || options.kill_grace_ms < 0) {
    return BadSpec("times must not be negative");
  }
  if (options.template_name.empty()) return BadSpec("no template name");
  if (!IsUtf8(options.template_name)) return BadSpec("the template name must be UTF-8 text");
  for (const std::string& t : options.tables) {
    if (t.empty() || t.find_first_of("\"'[]/ ") != std::string::npos) return BadSpec("bad table schema '" + t + "'");
  }
  return Status();
}

// The tables to export, each with whether its absence from the TOC is an error.
std::vector<std::pair<std::string, bool>> TablesToExport(const RecordOptions& options) {
  std::vector<std::pair<std::string, bool>> out;
  auto add = [&out](const std::string& schema, bool required) {
    for (auto& t : out) {
      if (t.first == schema) {
        t.second = t.second || required;
        return;
      }
    }
    out.emplace_back(schema, required);
  };
  for (const std::string& s : RequiredRecordTables()) add(s, true);
  if (options.tables.empty()) {
    for (const std::string& s : DefaultRecordTables()) add(s, false);
  } else {
    for (const std::string& s : options.tables) add(s, true);
  }
  return out;
}

// Progress lines on the caller's stream, stamped with the time since the start.
class Progress {
 public:
  explicit Progress(std::ostream* out) : out_(out), start_(Clock::now()) {}
  void Line(const std::string& text) const {
    if (out_ == nullptr) return;
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%7.1fs] ", static_cast<double>(MillisSince(start_)) / 1000.0);
    *out_ << "perfgate record " << stamp << text << '\n' << std::flush;
  }

 private:
  std::ostream* out_;
  Clock::time_point start_;
};

std::string Quote(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty() && a.find_first_of(" \t\"'\\$`*?[]{}()<>|&;") == std::string::npos;
    out += plain ? a : "'" + a + "'";
  }
  return out;
}

bool Cancelled(const RecordOptions& o) { return o.cancel != nullptr && o.cancel->load(); }

json ProcessJson(const TocProcess& p) {
  return {{"name", p.name},
          {"pid", p.pid},
          {"arguments", p.arguments},
          {"return_exit_status", p.return_exit_status},
          {"termination_reason", p.termination_reason}};
}

json TocSummaryJson(const TocRun& run) {
  json j = {{"instruments_version", run.instruments_version},
            {"template", run.template_name},
            {"device",
             {{"model", run.device.model},
              {"name", run.device.name},
              {"os_version", run.device.os_version},
              {"platform", run.device.platform}}},
            {"start_date", run.start_date},
            {"end_date", run.end_date},
            {"end_reason", run.end_reason},
            {"duration_s", run.duration_s ? json(*run.duration_s) : json()},
            {"table_count", run.tables.size()}};
  j["target_process"] = run.has_target_process ? ProcessJson(run.target_process) : json();
  return j;
}

// Row counts of one exported table, and the target's rows where the table names processes.
struct TableCheck {
  int64_t rows = 0;
  std::optional<int64_t> target_rows;
  std::map<std::string, int64_t> processes;  // rows per process name ("(unattributed)" for sentinels)
  Diagnostics diagnostics;
};

template <typename Row>
void CountProcesses(const std::vector<Row>& rows, const std::string& prefix, TableCheck* check) {
  static const std::string kUnattributed = "(unattributed)";
  int64_t target = 0;
  for (const Row& r : rows) {
    const std::string& name = r.process.is_null ? kUnattributed : r.process.name.str();
    ++check->processes[name];
    if (!r.process.is_null && r.process.name.view().substr(0, prefix.size()) == prefix) ++target;
  }
  check->target_rows = target;
}

// Decodes a validated table with its typed view (as attribution will), counting rows.
StatusOr<TableCheck> CheckTable(const Table& table, const std::string& prefix) {
  TableCheck c;
  c.rows = static_cast<int64_t>(table.row_count());
  const std::string& schema = table.schema();
  if (schema == ExecutionPoint::kSchema) {
    PERFGATE_ASSIGN_OR_RETURN(auto rows, ReadExecutionPoints(table, &c.diagnostics));
    (void)rows;
  } else if (schema == SubmissionMapRow::kSchema) {
    PERFGATE_ASSIGN_OR_RETURN(auto rows, ReadSubmissionMap(table, &c.diagnostics));
    CountProcesses(rows, prefix, &c);
  } else if (schema == GpuInterval::kSchema) {
    PERFGATE_ASSIGN_OR_RETURN(auto rows, ReadGpuIntervals(table, &c.diagnostics));
    CountProcesses(rows, prefix, &c);
  } else if (schema == EncoderRow::kSchema) {
    PERFGATE_ASSIGN_OR_RETURN(auto rows, ReadEncoderRows(table, &c.diagnostics));
    CountProcesses(rows, prefix, &c);
  } else if (schema == ShaderRow::kSchema) {
    PERFGATE_ASSIGN_OR_RETURN(auto rows, ReadShaderList(table, &c.diagnostics));
    CountProcesses(rows, prefix, &c);
  }
  return c;
}

// "WindowServer (428), llama-completion (312), (unattributed) (3)", most rows first.
std::string DescribeProcesses(const std::map<std::string, int64_t>& processes) {
  std::vector<std::pair<std::string, int64_t>> v(processes.begin(), processes.end());
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (size_t i = 0; i < v.size() && i < 8; ++i) {
    if (!out.empty()) out += ", ";
    out += v[i].first + " (" + std::to_string(v[i].second) + ")";
  }
  if (v.size() > 8) out += ", …";
  return out.empty() ? "none" : out;
}

// What every trial of one call shares.
struct Context {
  RecordOptions options;
  XctraceCommand xctrace;
  std::string xctrace_version;
  internal::HostInfo host;
  std::optional<internal::GitInfo> git;
  std::vector<std::string> engine_names;
  Progress progress;
  int jobs = 0;
};

// Records, exports and validates one trial into `dir`.
class TrialRun {
 public:
  TrialRun(const Context& ctx, const EngineRecordSpec& spec, int trial, int job, std::string dir)
      : ctx_(ctx), o_(ctx.options), spec_(spec), trial_(trial), job_(job), dir_(std::move(dir)) {
    label_ = spec_.engine + " trial " + std::to_string(trial_) + "/" + std::to_string(o_.trials);
  }

  StatusOr<RecordedTrial> Run() {
    start_ = Clock::now();
    BuildMeta();
    std::error_code ec;
    fs::remove_all(dir_, ec);
    if (ec)
      return Fail(Status::Error("io.write_failed", "cannot clear the trial directory: " + ec.message(), {dir_},
                                ErrorKind::kEnvironment));
    fs::create_directories(dir_, ec);
    if (ec)
      return Fail(Status::Error("io.write_failed", "cannot create the trial directory: " + ec.message(), {dir_},
                                ErrorKind::kEnvironment));
    Status marked = internal::MarkIncomplete(
        dir_, "recording started at " + meta_["start_time"].get<std::string>() + " and has not finished", meta_);
    if (!marked.ok()) return InTrial(marked);

    Status s = RecordAndExport();
    if (!s.ok()) return Fail(s);

    meta_["complete"] = true;
    meta_["end_time"] = internal::NowIso8601();
    meta_["elapsed_ms"] = MillisSince(start_);
    Status written = internal::WriteFileAtomic((fs::path(dir_) / std::string(kMetaFile)).string(),
                                               internal::MetaText(meta_));
    if (!written.ok()) return Fail(written);
    fs::remove(fs::path(dir_) / std::string(kIncompleteMarkerFile), ec);
    if (ec)
      return Fail(Status::Error("io.write_failed", "cannot remove the INCOMPLETE marker: " + ec.message(), {dir_},
                                ErrorKind::kEnvironment));
    ctx_.progress.Line(label_ + ": done in " + Seconds(MillisSince(start_)) + " -> " + dir_);
    RecordedTrial t;
    t.engine = spec_.engine;
    t.trial = trial_;
    t.path = dir_;
    t.elapsed_ms = MillisSince(start_);
    t.missing_tables = missing_tables_;
    return t;
  }

 private:
  void BuildMeta() {
    meta_ = internal::IdentityOf(spec_, o_);
    json env_names = json::array();
    for (const auto& kv : spec_.environment) env_names.push_back(kv.first);
    meta_.update({{"format", "perfgate recording bundle"},
                  {"format_version", kBundleFormatVersion},
                  {"recorder", "perfgate record"},
                  {"complete", false},
                  {"trial", trial_},
                  {"trials", o_.trials},
                  {"job", {{"index", job_}, {"of", ctx_.jobs}, {"interleaved_engines", ctx_.engine_names}}},
                  {"process_prefix", spec_.process_prefix},
                  {"environment_names", env_names},
                  {"start_time", internal::NowIso8601()},
                  {"end_time", nullptr},
                  {"host", ctx_.host.host},
                  {"chip", ctx_.host.chip},
                  {"os_version", ctx_.host.os_version},
                  {"xctrace",
                   {{"path", ctx_.xctrace.argv.empty() ? "" : ctx_.xctrace.argv[0]},
                    {"found_by", ctx_.xctrace.found_by},
                    {"version", ctx_.xctrace_version}}},
                  {"time_limit_ms", o_.time_limit_ms > 0 ? json(o_.time_limit_ms) : json()},
                  {"cooldown_ms", o_.cooldown_ms},
                  {"git", ctx_.git ? json{{"commit", ctx_.git->commit}, {"dirty", ctx_.git->dirty}} : json()}});
  }

  // Adds the trial's name to an error and locates it at the trial directory.
  Status InTrial(const Status& s) const {
    SourceLocation where = s.location();
    if (where.path.empty()) where.path = dir_;
    return Status::Error(s.code(), label_ + ": " + s.message(), where, s.kind());
  }

  Status Fail(const Status& error) {
    Status s = error.message().rfind(label_, 0) == 0 ? error : InTrial(error);
    meta_["error"] = {{"code", s.code()}, {"message", s.message()}};
    meta_["end_time"] = internal::NowIso8601();
    meta_["elapsed_ms"] = MillisSince(start_);
    std::error_code ec;
    if (fs::is_directory(dir_, ec)) {
      Status marked = internal::MarkIncomplete(dir_, "failed: " + s.ToString(), meta_);
      if (!marked.ok()) ctx_.progress.Line(label_ + ": could not mark the trial incomplete: " + marked.ToString());
    }
    ctx_.progress.Line(label_ + ": FAILED after " + Seconds(MillisSince(start_)) + " (" + s.code() +
                       "); the trial stays marked INCOMPLETE");
    return s;
  }

  Status Interrupted() const {
    return Status::Error("record.interrupted", "interrupted; the trial stays incomplete and is redone next time",
                         {dir_}, ErrorKind::kEnvironment);
  }

  // Runs one xctrace call; a failure becomes an error naming `what`.
  // When `log_name` is given, the call's output and outcome are kept in that file of
  // the trial directory, whatever the outcome.
  StatusOr<ProcessResult> Xctrace(const std::vector<std::string>& args, const std::string& what, int64_t timeout_ms,
                                  int terminate_signal, const std::string& stdout_path = "",
                                  size_t max_stdout = kMaxToolOutputBytes, const std::string& log_name = "") {
    ProcessOptions p;
    p.argv = ctx_.xctrace.argv;
    p.argv.insert(p.argv.end(), args.begin(), args.end());
    p.timeout_ms = timeout_ms;
    p.terminate_signal = terminate_signal;
    p.kill_grace_ms = o_.kill_grace_ms;
    p.stdout_path = stdout_path;
    p.max_stdout_bytes = max_stdout;
    p.max_stderr_bytes = kMaxToolOutputBytes;
    p.cancel = o_.cancel;
    p.heartbeat_ms = kHeartbeatMs;
    p.heartbeat = [this, what](int64_t ms) { ctx_.progress.Line(label_ + ": " + what + ", " + Seconds(ms)); };
    auto r = RunProcess(p);
    if (!r.ok()) return r.status();
    if (!log_name.empty()) {
      std::string log = "$ " + Quote(p.argv) + "\n--- stdout" + (r->stdout_truncated ? " (truncated)" : "") + " ---\n" +
                        r->stdout_text + "\n--- stderr" + (r->stderr_truncated ? " (truncated)" : "") + " ---\n" +
                        r->stderr_text + "\n--- " + r->Describe() + " ---\n";
      Status written = internal::WriteFileAtomic((fs::path(dir_) / log_name).string(), log);
      if (!written.ok()) ctx_.progress.Line("warning: " + label_ + ": " + written.ToString());
    }
    if (r->cancelled) return Interrupted();
    Status s = CheckProcessSucceeded(*r, "`" + what + "`");
    if (!s.ok()) {
      if (s.code() == "process.output_too_large") {
        return Status::Error("record.export_too_large",
                             "`" + what + "` wrote " + std::to_string(r->stdout_bytes) + " bytes, over the limit of " +
                                 std::to_string(max_stdout),
                             {}, ErrorKind::kEnvironment);
      }
      return s;
    }
    return r;
  }

  Status RecordAndExport() {
    const std::string trace_name = "trial-" + std::to_string(trial_) + ".trace";
    const std::string trace = (fs::path(dir_) / trace_name).string();
    PERFGATE_RETURN_IF_ERROR(RecordTrace(trace, trace_name));
    if (Cancelled(o_)) return Interrupted();
    const std::string toc_path = (fs::path(dir_) / std::string(kTocFile)).string();
    PERFGATE_ASSIGN_OR_RETURN(const TocRun run, ExportToc(trace, toc_path));
    PERFGATE_ASSIGN_OR_RETURN(const std::vector<std::string> present, TablesInToc(run, toc_path));
    PERFGATE_ASSIGN_OR_RETURN(const TableCheck submission_map, ExportTables(trace, present));
    PERFGATE_RETURN_IF_ERROR(CheckTargetHasGpuWork(submission_map));
    if (!o_.keep_trace) {
      std::error_code ec;
      fs::remove_all(trace, ec);
      meta_["trace"] = nullptr;
    }
    return Status();
  }

  // `xctrace record` of the command. A timeout stops it with SIGINT, on which xctrace
  // still saves the trace (exports get SIGTERM).
  Status RecordTrace(const std::string& trace, const std::string& trace_name) {
    ctx_.progress.Line(label_ + " (job " + std::to_string(job_) + "/" + std::to_string(ctx_.jobs) +
                       "): recording: " + Quote(spec_.command));
    Clock::time_point phase = Clock::now();
    PERFGATE_ASSIGN_OR_RETURN(ProcessResult recorded, Xctrace(RecordArguments(trace), "xctrace record",
                                                              RecordTimeoutMs(), SIGINT, "", kMaxToolOutputBytes,
                                                              "xctrace-record.log"));
    (void)recorded;
    std::error_code ec;
    if (!fs::exists(trace, ec)) {
      return Status::Error("record.no_trace", "`xctrace record` exited 0 but wrote no trace at " + trace, {dir_},
                           ErrorKind::kEnvironment);
    }
    meta_["trace"] = trace_name;
    ctx_.progress.Line(label_ + ": recorded in " + Seconds(MillisSince(phase)) + "; exporting the TOC");
    return Status();
  }

  std::vector<std::string> RecordArguments(const std::string& trace) const {
    std::vector<std::string> args = {"record", "--template", o_.template_name, "--no-prompt", "--output", trace};
    if (o_.time_limit_ms > 0) {
      args.push_back("--time-limit");
      args.push_back(TimeLimitArgument(o_.time_limit_ms));
    }
    for (const auto& kv : spec_.environment) {
      args.push_back("--env");
      args.push_back(kv.first + "=" + kv.second);
    }
    args.push_back("--launch");
    args.push_back("--");
    args.insert(args.end(), spec_.command.begin(), spec_.command.end());
    return args;
  }

  // The one given, else the time limit with five minutes for xctrace to save the
  // trace, else half an hour.
  int64_t RecordTimeoutMs() const {
    if (o_.record_timeout_ms > 0) return o_.record_timeout_ms;
    return o_.time_limit_ms > 0 ? o_.time_limit_ms + 5 * kMinuteMs : 30 * kMinuteMs;
  }

  // Exports the TOC and returns its run 1, after checking that the target succeeded.
  StatusOr<TocRun> ExportToc(const std::string& trace, const std::string& toc_path) {
    PERFGATE_ASSIGN_OR_RETURN(ProcessResult toc_out,
                              Xctrace({"export", "--input", trace, "--toc"}, "xctrace export --toc",
                                      o_.export_timeout_ms, SIGTERM, toc_path, kMaxTocBytes));
    (void)toc_out;
    auto toc = ReadTocFile(toc_path);
    if (!toc.ok()) {
      return Status::Error("record.bad_toc", "`xctrace export --toc` gave no usable TOC: " + toc.status().ToString(),
                           {toc_path}, ErrorKind::kEnvironment);
    }
    const TocRun* run = nullptr;
    for (const TocRun& r : toc->runs) {
      if (r.number == 1) run = &r;
    }
    if (run == nullptr) {
      return Status::Error("record.bad_toc", "the TOC has no run number 1", {toc_path}, ErrorKind::kEnvironment);
    }
    meta_["toc"] = TocSummaryJson(*run);
    if (!run->template_name.empty() && run->template_name != o_.template_name) {
      ctx_.progress.Line("warning: " + label_ + ": the TOC names template '" + run->template_name + "', not '" +
                         o_.template_name + "'");
    }
    PERFGATE_RETURN_IF_ERROR(CheckTarget(*run, toc_path));
    return *run;
  }

  // The tables to export that the TOC lists. A missing optional table is a warning
  // (and meta.json's "missing_tables"); a missing required one is the error.
  StatusOr<std::vector<std::string>> TablesInToc(const TocRun& run, const std::string& toc_path) {
    std::vector<std::string> missing_required;
    std::vector<std::string> present;
    for (const auto& [schema, required] : TablesToExport(o_)) {
      if (FindTable(run, schema) != nullptr) {
        present.push_back(schema);
      } else if (required) {
        missing_required.push_back(schema);
      } else {
        missing_tables_.push_back(schema);
        ctx_.progress.Line("warning: " + label_ + ": the TOC has no " + schema + " table; not exported");
      }
    }
    meta_["missing_tables"] = missing_tables_;
    if (missing_required.empty()) return present;
    std::string names;
    for (const std::string& m : missing_required) names += (names.empty() ? "" : ", ") + m;
    return Status::Error("record.missing_table",
                         "the trace has no " + names + " table (run 1 of the TOC lists " +
                             std::to_string(run.tables.size()) + " tables); was it recorded with the '" +
                             o_.template_name + "' template?",
                         {toc_path}, ErrorKind::kEnvironment);
  }

  // Exports and checks each table into meta.json's "tables"; returns the check of the
  // submission map, which says whether the target did GPU work.
  StatusOr<TableCheck> ExportTables(const std::string& trace, const std::vector<std::string>& schemas) {
    json tables = json::object();
    TableCheck submission_map;
    for (const std::string& schema : schemas) {
      if (Cancelled(o_)) return Interrupted();
      PERFGATE_ASSIGN_OR_RETURN(TableCheck check, ExportTable(trace, schema));
      tables[schema] = TableJson(check);
      if (schema == ExecutionPoint::kSchema && check.rows == 0) {
        return Status::Error(
            "record.no_target_rows",
            std::string(ExecutionPoint::kSchema) + " has no rows: the GPU recorded no work at all during the trace",
            {(fs::path(dir_) / (schema + ".xml")).string()}, ErrorKind::kEnvironment);
      }
      if (schema == SubmissionMapRow::kSchema) submission_map = std::move(check);
    }
    meta_["tables"] = tables;
    return submission_map;
  }

  static json TableJson(const TableCheck& check) {
    json t = {{"rows", check.rows}, {"target_rows", check.target_rows ? json(*check.target_rows) : json()}};
    json anomalies = json::object();
    for (const auto& e : check.diagnostics.Entries()) anomalies[e.code] = e.count;
    if (!anomalies.empty()) t["anomalies"] = anomalies;
    return t;
  }

  // A trace where the target process submitted nothing to the GPU measures nothing.
  Status CheckTargetHasGpuWork(const TableCheck& submission_map) const {
    if (submission_map.target_rows.value_or(0) != 0) return Status();
    return Status::Error("record.no_target_rows",
                         "no GPU submission of a process named '" + spec_.process_prefix + "…' in " +
                             std::string(SubmissionMapRow::kSchema) + " (" + std::to_string(submission_map.rows) +
                             " rows; processes: " + DescribeProcesses(submission_map.processes) +
                             "). Did the command run on the GPU, and is the process prefix right?",
                         {(fs::path(dir_) / (std::string(SubmissionMapRow::kSchema) + ".xml")).string()},
                         ErrorKind::kEnvironment);
  }

  // The launched command must have succeeded (unless the time limit stopped it).
  Status CheckTarget(const TocRun& run, const std::string& toc_path) const {
    if (!run.has_target_process) return Status();
    const TocProcess& p = run.target_process;
    const bool failed = !p.return_exit_status.empty() && p.return_exit_status != "0";
    const bool time_limit = run.end_reason.find("ime limit") != std::string::npos;
    if (!failed || time_limit) return Status();
    return Status::Error("record.target_failed",
                         "the recorded command exited with status " + p.return_exit_status +
                             (p.termination_reason.empty() ? "" : " (" + p.termination_reason + ")") +
                             "; a failed run is not recorded: " + Quote(spec_.command),
                         {toc_path}, ErrorKind::kEnvironment);
  }

  StatusOr<TableCheck> ExportTable(const std::string& trace, const std::string& schema) {
    const std::string path = (fs::path(dir_) / (schema + ".xml")).string();
    Clock::time_point phase = Clock::now();
    const size_t limit = static_cast<size_t>(std::min<uint64_t>(o_.max_export_bytes, SIZE_MAX));
    PERFGATE_ASSIGN_OR_RETURN(
        ProcessResult r, Xctrace({"export", "--input", trace, "--xpath", TablePath(schema)}, "xctrace export " + schema,
                                 o_.export_timeout_ms, SIGTERM, path, limit));
    ReadOptions read;
    read.expected_schema = schema;
    auto doc = ReadExportFile(path, read);
    if (!doc.ok()) {
      const Status& e = doc.status();
      if (e.code() == "xctrace.empty_export") {
        return Status::Error("record.empty_export",
                             "`xctrace export` of " + schema + " exited 0 with no <node> (" +
                                 std::to_string(r.stdout_bytes) + " bytes): nothing was exported. " + e.message(),
                             e.location(), ErrorKind::kEnvironment);
      }
      return Status::Error("record.bad_export", "`xctrace export` of " + schema + " is not usable: " + e.ToString(),
                           e.location(), ErrorKind::kEnvironment);
    }
    std::optional<Table> table = doc->FindTable(schema);
    if (!table) {
      return Status::Error("record.empty_export", "the export of " + schema + " holds no " + schema + " table", {path},
                           ErrorKind::kEnvironment);
    }
    auto check = CheckTable(*table, spec_.process_prefix);
    if (!check.ok()) {
      return Status::Error("record.bad_export",
                           "`xctrace export` of " + schema + " does not decode: " + check.status().ToString(),
                           check.status().location(), ErrorKind::kEnvironment);
    }
    std::string target = check->target_rows ? ", " + std::to_string(*check->target_rows) + " of the target" : "";
    ctx_.progress.Line(label_ + ": exported " + schema + " (" + std::to_string(check->rows) + " rows" + target +
                       ") in " + Seconds(MillisSince(phase)));
    return check;
  }

  const Context& ctx_;
  const RecordOptions& o_;
  const EngineRecordSpec& spec_;
  int trial_;
  int job_;
  std::string dir_;
  std::string label_;
  Clock::time_point start_;
  json meta_;
  std::vector<std::string> missing_tables_;
};

// Sleeps `ms`, waking early when cancelled.
bool CoolDown(const RecordOptions& o) {
  Clock::time_point until = Clock::now() + std::chrono::milliseconds(o.cooldown_ms);
  while (Clock::now() < until) {
    if (Cancelled(o)) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !Cancelled(o);
}

// Trial directories trial-K with K > trials.
std::vector<std::string> ExtraTrials(const std::string& engine_dir, int trials) {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(engine_dir, ec)) return out;
  // Incremented with an error_code: a range-for's ++ throws filesystem_error when
  // reading the directory fails midway.
  for (fs::directory_iterator it(engine_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    if (name.rfind("trial-", 0) != 0 || name.size() == 6) continue;
    const std::string digits = name.substr(6);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    if (digits.size() > 4 || std::stoi(digits) > trials) out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One trial of the call, planned before any is recorded.
struct PlannedTrial {
  size_t engine;  // index into the specs
  int trial;
  std::string dir;
  internal::TrialCheck check;
};

// Every trial in recording order (interleaved: trial 1 of each engine, then trial 2,
// ...), the reasons to refuse, and the trial directories beyond those asked for.
struct Plan {
  std::vector<PlannedTrial> trials;
  std::vector<std::string> refusals;
  std::vector<std::string> extra;
};

Plan PlanTrials(const std::vector<EngineRecordSpec>& specs, const RecordOptions& options, const std::string& out_dir,
                std::vector<std::string>* engine_dirs) {
  Plan plan;
  for (const EngineRecordSpec& s : specs) {
    const std::string engine_dir = (fs::path(out_dir) / s.engine).string();
    engine_dirs->push_back(engine_dir);
    for (const std::string& x : ExtraTrials(engine_dir, options.trials)) plan.extra.push_back(x);
  }
  for (int k = 1; k <= options.trials; ++k) {
    for (size_t i = 0; i < specs.size(); ++i) {
      const std::string dir = (fs::path(out_dir) / specs[i].engine / ("trial-" + std::to_string(k))).string();
      internal::TrialCheck check = internal::InspectTrial(dir, internal::IdentityOf(specs[i], options));
      if (check.state == internal::TrialState::kMismatch) {
        plan.refusals.push_back(dir + ": a complete trial of another recording (" + check.detail + ")");
      } else if (check.state == internal::TrialState::kForeign) {
        plan.refusals.push_back(dir + ": not a perfgate record bundle (" + check.detail + ")");
      }
      plan.trials.push_back({i, k, dir, check});
    }
  }
  for (const std::string& x : plan.extra) {
    plan.refusals.push_back(x + ": beyond the " + std::to_string(options.trials) + " trials asked for");
  }
  return plan;
}

// Without force, anything in the way stops the call before it records: a refusal
// costs nothing and destroys nothing.
Status RefuseUnlessForced(const Plan& plan, const RecordOptions& options, const std::string& out_dir) {
  if (plan.refusals.empty() || options.force) return Status();
  std::string list;
  for (const std::string& r : plan.refusals) list += "\n  " + r;
  const bool only_extra = plan.refusals.size() == plan.extra.size();
  const bool mismatch = std::any_of(plan.trials.begin(), plan.trials.end(), [](const PlannedTrial& t) {
    return t.check.state == internal::TrialState::kMismatch;
  });
  return Status::Error(only_extra ? "record.extra_trials" : mismatch ? "record.bundle_mismatch" : "record.not_a_bundle",
                       "refusing to record into " + out_dir +
                           " (nothing was recorded); with --force "
                           "(RecordOptions::force) these are redone or removed:" +
                           list,
                       {out_dir}, ErrorKind::kUsage);
}

// Forced: trials beyond those asked for go, so the engine's directory holds only this
// recording's trials.
Status RemoveExtraTrials(const Plan& plan) {
  std::error_code ec;
  for (const std::string& x : plan.extra) {
    fs::remove_all(x, ec);
    if (ec)
      return Status::Error("io.write_failed", "cannot remove " + x + ": " + ec.message(), {x}, ErrorKind::kEnvironment);
  }
  return Status();
}

// What every trial's meta.json shares, gathered once, and the first progress line.
Context MakeContext(const RecordOptions& options, const XctraceCommand& xctrace,
                    const std::vector<EngineRecordSpec>& specs, const Plan& plan, const std::string& out_dir) {
  Context ctx{options, xctrace, "", internal::ReadHostInfo(), std::nullopt, {}, Progress(options.progress), 0};
  for (const EngineRecordSpec& s : specs) ctx.engine_names.push_back(s.engine);
  ctx.git = internal::ReadGitInfo(options.source_directory);
  ctx.xctrace_version = internal::ReadXctraceVersion(xctrace);
  int to_record = 0;
  for (const PlannedTrial& t : plan.trials) to_record += t.check.state != internal::TrialState::kComplete;
  ctx.jobs = static_cast<int>(plan.trials.size());
  ctx.progress.Line(std::to_string(specs.size()) + " engine(s) x " + std::to_string(options.trials) +
                    " trial(s) into " + out_dir + ": " + std::to_string(to_record) + " to record, " +
                    std::to_string(plan.trials.size() - to_record) + " already complete; xctrace " + xctrace.argv[0] +
                    " (" + xctrace.found_by + (ctx.xctrace_version.empty() ? "" : ", " + ctx.xctrace_version) + ")");
  return ctx;
}

RecordedTrial KeepCompleteTrial(const Context& ctx, const EngineRecordSpec& spec, const PlannedTrial& planned) {
  ctx.progress.Line(spec.engine + " trial " + std::to_string(planned.trial) + "/" + std::to_string(ctx.options.trials) +
                    ": already complete, kept");
  RecordedTrial t;
  t.engine = spec.engine;
  t.trial = planned.trial;
  t.path = planned.dir;
  t.resumed = true;
  return t;
}

// Before each recording: say when an incomplete trial is redone, let the GPU cool
// after the previous recording (so the last one's heat does not slow this one), and
// stop if cancelled.
Status GetReadyToRecord(const Context& ctx, const EngineRecordSpec& spec, const PlannedTrial& planned,
                        bool recorded_before, const std::string& out_dir) {
  const RecordOptions& options = ctx.options;
  if (planned.check.state == internal::TrialState::kIncomplete) {
    ctx.progress.Line(spec.engine + " trial " + std::to_string(planned.trial) + ": redoing an incomplete trial (" +
                      planned.check.detail + ")");
  }
  if (recorded_before && options.cooldown_ms > 0) {
    ctx.progress.Line("cooling down for " + Seconds(options.cooldown_ms));
    if (!CoolDown(options)) {
      return Status::Error("record.interrupted", "interrupted while cooling down; nothing is half-written", {out_dir},
                           ErrorKind::kEnvironment);
    }
  }
  if (Cancelled(options)) {
    return Status::Error("record.interrupted", "interrupted before " + planned.dir, {out_dir}, ErrorKind::kEnvironment);
  }
  return Status();
}

// Records the planned trials in order, keeping complete ones; stops at the first failure.
Status RecordPlannedTrials(const Context& ctx, const std::vector<EngineRecordSpec>& specs, const Plan& plan,
                           const std::string& out_dir, std::vector<RecordedTrial>* trials) {
  bool recorded_before = false;
  for (size_t n = 0; n < plan.trials.size(); ++n) {
    const PlannedTrial& planned = plan.trials[n];
    const EngineRecordSpec& spec = specs[planned.engine];
    if (planned.check.state == internal::TrialState::kComplete) {
      trials->push_back(KeepCompleteTrial(ctx, spec, planned));
      continue;
    }
    PERFGATE_RETURN_IF_ERROR(GetReadyToRecord(ctx, spec, planned, recorded_before, out_dir));
    recorded_before = true;
    TrialRun run(ctx, spec, planned.trial, static_cast<int>(n + 1), planned.dir);
    PERFGATE_ASSIGN_OR_RETURN(RecordedTrial t, run.Run());
    trials->push_back(std::move(t));
  }
  return Status();
}

}  // namespace

const std::vector<std::string>& DefaultRecordTables() {
  static const std::vector<std::string> kTables = {std::string(ExecutionPoint::kSchema),
                                                   std::string(SubmissionMapRow::kSchema),
                                                   std::string(EncoderRow::kSchema),
                                                   std::string(ShaderRow::kSchema),
                                                   std::string(ShaderProfilerInterval::kSchema),
                                                   std::string(GpuInterval::kSchema)};
  return kTables;
}

const std::vector<std::string>& RequiredRecordTables() {
  static const std::vector<std::string> kTables = {std::string(ExecutionPoint::kSchema),
                                                   std::string(SubmissionMapRow::kSchema)};
  return kTables;
}

StatusOr<RecordingResult> RecordInterleaved(const std::vector<EngineRecordSpec>& engines, const RecordOptions& options,
                                            const std::string& out_dir) {
  PERFGATE_RETURN_IF_ERROR(Validate(engines, options));
  if (out_dir.empty()) return BadSpec("no output directory");
  std::vector<EngineRecordSpec> specs;
  for (const EngineRecordSpec& e : engines) specs.push_back(Resolve(e));
  PERFGATE_ASSIGN_OR_RETURN(XctraceCommand xctrace, LocateXctrace());

  // Plan every trial before recording any, so a refusal costs nothing.
  RecordingResult result;
  result.out_dir = out_dir;
  const Plan plan = PlanTrials(specs, options, out_dir, &result.engine_dirs);
  PERFGATE_RETURN_IF_ERROR(RefuseUnlessForced(plan, options, out_dir));
  PERFGATE_RETURN_IF_ERROR(RemoveExtraTrials(plan));
  const Context ctx = MakeContext(options, xctrace, specs, plan, out_dir);
  PERFGATE_RETURN_IF_ERROR(RecordPlannedTrials(ctx, specs, plan, out_dir, &result.trials));
  return result;
}

}  // namespace perfgate::xctrace
