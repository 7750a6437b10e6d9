// The xctrace backend of the recorder: xctrace record, export of the TOC and of each
// table, and their validation. The loop around it is recorder.cc's; see
// perfgate/xctrace/recorder.h.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <map>
#include <optional>

#include "perfgate/core/process.h"
#include "perfgate/xctrace/metal_tables.h"
#include "perfgate/xctrace/reader.h"
#include "perfgate/xctrace/recorder.h"
#include "perfgate/xctrace/toc.h"
#include "xctrace/recorder_internal.h"

namespace perfgate::xctrace {
namespace {

namespace fs = std::filesystem;
using internal::Clock;
using internal::MillisSince;
using internal::Quote;
using internal::Seconds;
using nlohmann::json;

constexpr int64_t kMinuteMs = 60 * 1000;
constexpr size_t kMaxTocBytes = size_t{64} << 20;
constexpr size_t kMaxToolOutputBytes = size_t{1} << 20;

// xctrace's --time-limit takes a number with a unit: "90s", "1500ms".
std::string TimeLimitArgument(int64_t ms) {
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + "s" : std::to_string(ms) + "ms";
}

std::string TablePath(const std::string& schema) {
  return "/trace-toc/run[@number=\"1\"]/data/table[@schema=\"" + schema + "\"]";
}

// The options only xctrace reads.
Status ValidateXctraceOptions(const RecordOptions& options) {
  if (options.template_name.empty()) return internal::BadSpec("no template name");
  if (::perfgate::internal::FindInvalidUtf8(options.template_name) != std::string::npos) {
    return internal::BadSpec("the template name must be UTF-8 text");
  }
  for (const std::string& t : options.tables) {
    if (t.empty() || t.find_first_of("\"'[]/ ") != std::string::npos) {
      return internal::BadSpec("bad table schema '" + t + "'");
    }
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

// Records, exports and validates one trial into its directory.
class XctraceTrial {
 public:
  XctraceTrial(const internal::TrialInProgress& t, const XctraceCommand& xctrace)
      : t_(t),
        o_(t.options),
        spec_(t.spec),
        trial_(t.trial),
        job_(t.job),
        dir_(t.dir),
        label_(t.label),
        meta_(t.meta),
        missing_tables_(t.missing_tables),
        xctrace_(xctrace) {}

  Status RecordAndExport() {
    const std::string trace_name = "trial-" + std::to_string(trial_) + ".trace";
    const std::string trace = (fs::path(dir_) / trace_name).string();
    PERFGATE_RETURN_IF_ERROR(RecordTrace(trace, trace_name));
    if (internal::Cancelled(o_)) return t_.Interrupted();
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
 private:
  // Runs one xctrace call; a failure becomes an error naming `what`.
  // When `log_name` is given, the call's output and outcome are kept in that file of
  // the trial directory, whatever the outcome.
  StatusOr<ProcessResult> Xctrace(const std::vector<std::string>& args, const std::string& what, int64_t timeout_ms,
                                  int terminate_signal, const std::string& stdout_path = "",
                                  size_t max_stdout = kMaxToolOutputBytes, const std::string& log_name = "") {
    ProcessOptions p;
    p.argv = xctrace_.argv;
    p.argv.insert(p.argv.end(), args.begin(), args.end());
    p.timeout_ms = timeout_ms;
    p.terminate_signal = terminate_signal;
    p.kill_grace_ms = o_.kill_grace_ms;
    p.stdout_path = stdout_path;
    p.max_stdout_bytes = max_stdout;
    p.max_stderr_bytes = kMaxToolOutputBytes;
    PERFGATE_ASSIGN_OR_RETURN(ProcessResult r, t_.Run(std::move(p), what, log_name));
    Status s = CheckProcessSucceeded(r, "`" + what + "`");
    if (!s.ok()) {
      if (s.code() == "process.output_too_large") {
        return Status::Error("record.export_too_large",
                             "`" + what + "` wrote " + std::to_string(r.stdout_bytes) + " bytes, over the limit of " +
                                 std::to_string(max_stdout),
                             {}, ErrorKind::kEnvironment);
      }
      return s;
    }
    return r;
  }



  // `xctrace record` of the command. A timeout stops it with SIGINT, on which xctrace
  // still saves the trace (exports get SIGTERM).
  Status RecordTrace(const std::string& trace, const std::string& trace_name) {
    t_.progress.Line(label_ + " (job " + std::to_string(job_) + "/" + std::to_string(t_.jobs) +
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
    t_.progress.Line(label_ + ": recorded in " + Seconds(MillisSince(phase)) + "; exporting the TOC");
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
      t_.progress.Line("warning: " + label_ + ": the TOC names template '" + run->template_name + "', not '" +
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
        t_.progress.Line("warning: " + label_ + ": the TOC has no " + schema + " table; not exported");
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
      if (internal::Cancelled(o_)) return t_.Interrupted();
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
    t_.progress.Line(label_ + ": exported " + schema + " (" + std::to_string(check->rows) + " rows" + target +
                       ") in " + Seconds(MillisSince(phase)));
    return check;
  }

  const internal::TrialInProgress& t_;
  const RecordOptions& o_;
  const EngineRecordSpec& spec_;
  int trial_;
  int job_;
  const std::string& dir_;
  const std::string& label_;
  json& meta_;
  std::vector<std::string>& missing_tables_;
  const XctraceCommand& xctrace_;
};

// xctrace as the loop's backend: its identity fields, files and meta.json fields.
class XctraceBackend : public internal::Backend {
 public:
  explicit XctraceBackend(XctraceCommand xctrace) : xctrace_(std::move(xctrace)) {}

  json Identity(const EngineRecordSpec& spec, const RecordOptions& options) const override {
    return internal::IdentityOf(spec, options);
  }

  internal::RequiredFiles CompleteTrialFiles() const override { return internal::XctraceTrialFiles(); }

  std::string Describe() const override {
    const std::string& version = Version();
    return "xctrace " + xctrace_.argv[0] + " (" + xctrace_.found_by + (version.empty() ? "" : ", " + version) + ")";
  }

  json MetaFields(const RecordOptions& o) const override {
    return {{"xctrace",
             {{"path", xctrace_.argv.empty() ? "" : xctrace_.argv[0]},
              {"found_by", xctrace_.found_by},
              {"version", Version()}}},
            {"time_limit_ms", o.time_limit_ms > 0 ? json(o.time_limit_ms) : json()}};
  }

  Status RecordTrial(const internal::TrialInProgress& trial) const override {
    return XctraceTrial(trial, xctrace_).RecordAndExport();
  }

 private:
  // Asked once, when the first trial is about to be recorded (a refused call runs no
  // xctrace at all).
  const std::string& Version() const {
    if (!version_) version_ = internal::ReadXctraceVersion(xctrace_);
    return *version_;
  }

  XctraceCommand xctrace_;
  mutable std::optional<std::string> version_;
};

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
  PERFGATE_RETURN_IF_ERROR(internal::ValidateCall(engines, options, out_dir));
  PERFGATE_RETURN_IF_ERROR(ValidateXctraceOptions(options));
  PERFGATE_ASSIGN_OR_RETURN(XctraceCommand xctrace, LocateXctrace());
  const XctraceBackend backend(std::move(xctrace));
  return internal::RecordTrials(engines, options, out_dir, backend);
}

}  // namespace perfgate::xctrace
