// The recording loop that every backend shares: validation, planning, resume and
// --force, interleaving, cool-down, the INCOMPLETE marker and meta.json of each trial.
// The backends record one trial each: xctrace (recorder_xctrace.cc) and the CUDA
// tracer (src/cuda/recorder.cc). See perfgate/xctrace/recorder.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <thread>

#include "perfgate/core/process.h"
#include "perfgate/core/version.h"
#include "perfgate/xctrace/recorder.h"
#include "xctrace/recorder_internal.h"

namespace perfgate::xctrace {
namespace {

namespace fs = std::filesystem;
using internal::BadSpec;
using internal::Cancelled;
using internal::Clock;
using internal::MillisSince;
using internal::Seconds;
using nlohmann::json;

constexpr int64_t kHeartbeatMs = 15 * 1000;

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

Status ValidateEngines(const std::vector<EngineRecordSpec>& engines) {
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
  return Status();
}

// What every trial of one call shares.
struct Context {
  RecordOptions options;
  const internal::Backend& backend;
  internal::HostInfo host;
  std::optional<internal::GitInfo> git;
  std::vector<std::string> engine_names;
  internal::Progress progress;
  int jobs = 0;
};

// Runs one trial through the backend: the directory cleared and marked INCOMPLETE,
// the backend's recording, then meta.json marked complete and the marker removed.
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

    const internal::TrialInProgress trial{spec_, o_, ctx_.progress, trial_, job_, ctx_.jobs,
                                          dir_,  label_, meta_, missing_tables_};
    Status s = ctx_.backend.RecordTrial(trial);
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
    meta_ = ctx_.backend.Identity(spec_, o_);
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
                  {"cooldown_ms", o_.cooldown_ms},
                  {"git", ctx_.git ? json{{"commit", ctx_.git->commit}, {"dirty", ctx_.git->dirty}} : json()},
                  // The recorder itself: the source directory's git state above may be
                  // another checkout's, or none.
                  {"perfgate", {{"version", std::string(Version())}, {"commit", std::string(BuildCommit())}}}});
    meta_.update(ctx_.backend.MetaFields(o_));
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
                const internal::Backend& backend, std::vector<std::string>* engine_dirs) {
  Plan plan;
  const internal::RequiredFiles required = backend.CompleteTrialFiles();
  for (const EngineRecordSpec& s : specs) {
    const std::string engine_dir = (fs::path(out_dir) / s.engine).string();
    engine_dirs->push_back(engine_dir);
    for (const std::string& x : ExtraTrials(engine_dir, options.trials)) plan.extra.push_back(x);
  }
  for (int k = 1; k <= options.trials; ++k) {
    for (size_t i = 0; i < specs.size(); ++i) {
      const std::string dir = (fs::path(out_dir) / specs[i].engine / ("trial-" + std::to_string(k))).string();
      internal::TrialCheck check = internal::InspectTrial(dir, backend.Identity(specs[i], options), required);
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
Context MakeContext(const RecordOptions& options, const internal::Backend& backend,
                    const std::vector<EngineRecordSpec>& specs, const Plan& plan, const std::string& out_dir) {
  Context ctx{options, backend, internal::ReadHostInfo(), std::nullopt, {}, internal::Progress(options.progress), 0};
  for (const EngineRecordSpec& s : specs) ctx.engine_names.push_back(s.engine);
  ctx.git = internal::ReadGitInfo(options.source_directory);
  int to_record = 0;
  for (const PlannedTrial& t : plan.trials) to_record += t.check.state != internal::TrialState::kComplete;
  ctx.jobs = static_cast<int>(plan.trials.size());
  ctx.progress.Line(std::to_string(specs.size()) + " engine(s) x " + std::to_string(options.trials) +
                    " trial(s) into " + out_dir + ": " + std::to_string(to_record) + " to record, " +
                    std::to_string(plan.trials.size() - to_record) + " already complete; " + backend.Describe());
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

namespace internal {

int64_t MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::string Seconds(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buf;
}

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

void Progress::Line(const std::string& text) const {
  if (out_ == nullptr) return;
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "[%7.1fs] ", static_cast<double>(MillisSince(start_)) / 1000.0);
  *out_ << "perfgate record " << stamp << text << '\n' << std::flush;
}

Status TrialInProgress::Interrupted() const {
  return Status::Error("record.interrupted", "interrupted; the trial stays incomplete and is redone next time", {dir},
                       ErrorKind::kEnvironment);
}

StatusOr<ProcessResult> TrialInProgress::Run(ProcessOptions p, const std::string& what,
                                             const std::string& log_name) const {
  p.cancel = options.cancel;
  p.heartbeat_ms = kHeartbeatMs;
  p.heartbeat = [this, what](int64_t ms) { Line(what + ", " + Seconds(ms)); };
  auto r = RunProcess(p);
  if (!r.ok()) return r.status();
  if (!log_name.empty()) {
    std::string log = "$ " + Quote(p.argv) + "\n--- stdout" + (r->stdout_truncated ? " (truncated)" : "") + " ---\n" +
                      r->stdout_text + "\n--- stderr" + (r->stderr_truncated ? " (truncated)" : "") + " ---\n" +
                      r->stderr_text + "\n--- " + r->Describe() + " ---\n";
    Status written = WriteFileAtomic((fs::path(dir) / log_name).string(), log);
    if (!written.ok()) progress.Line("warning: " + label + ": " + written.ToString());
  }
  if (r->cancelled) return Interrupted();
  return r;
}

Status BadSpec(std::string message) {
  return Status::Error("record.bad_spec", std::move(message), {}, ErrorKind::kUsage);
}

Status ValidateCall(const std::vector<EngineRecordSpec>& engines, const RecordOptions& options,
                    const std::string& out_dir) {
  PERFGATE_RETURN_IF_ERROR(ValidateEngines(engines));
  if (options.trials < 1 || options.trials > 1000) return BadSpec("trials must be between 1 and 1000");
  if (options.cooldown_ms < 0 || options.time_limit_ms < 0 || options.record_timeout_ms < 0 ||
      options.export_timeout_ms < 0 || options.kill_grace_ms < 0) {
    return BadSpec("times must not be negative");
  }
  if (out_dir.empty()) return BadSpec("no output directory");
  return Status();
}

StatusOr<RecordingResult> RecordTrials(const std::vector<EngineRecordSpec>& engines, const RecordOptions& options,
                                       const std::string& out_dir, const Backend& backend) {
  std::vector<EngineRecordSpec> specs;
  for (const EngineRecordSpec& e : engines) specs.push_back(Resolve(e));
  // Plan every trial before recording any, so a refusal costs nothing.
  RecordingResult result;
  result.out_dir = out_dir;
  const Plan plan = PlanTrials(specs, options, out_dir, backend, &result.engine_dirs);
  PERFGATE_RETURN_IF_ERROR(RefuseUnlessForced(plan, options, out_dir));
  PERFGATE_RETURN_IF_ERROR(RemoveExtraTrials(plan));
  const Context ctx = MakeContext(options, backend, specs, plan, out_dir);
  PERFGATE_RETURN_IF_ERROR(RecordPlannedTrials(ctx, specs, plan, out_dir, &result.trials));
  return result;
}

}  // namespace internal
}  // namespace perfgate::xctrace
