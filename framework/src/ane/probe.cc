#include "perfgate/ane/probe.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "ane/report_json.h"
#include "core/text_input.h"
#include "core/json_document.h"
#include "perfgate/core/process.h"

namespace perfgate::ane {
namespace fs = std::filesystem;

namespace {

using internal::Json;

Status EnvError(std::string code, std::string message, std::string path = "") {
  return Status::Error(std::move(code), std::move(message), {std::move(path)}, ErrorKind::kEnvironment);
}
// What `path` is, by the error_code overload: the throwing ones raise filesystem_error
// out of the library for a name too long or a parent without permission. `why` (when
// given) then says what went wrong; a missing file is no error here.
fs::file_status StatusOf(const std::string& path, std::string* why) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory && why) *why = " (" + ec.message() + ")";
  return st;
}

Status UsageError(std::string code, std::string message) {
  return Status::Error(std::move(code), std::move(message), {}, ErrorKind::kUsage);
}

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string GetEnv(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string CodeAndMessage(const Status& s) { return s.code() + ": " + s.message(); }

std::string Tail(const std::string& text, size_t n) { return text.size() <= n ? text : text.substr(text.size() - n); }

int64_t Millis(double seconds) { return static_cast<int64_t>(std::llround(std::max(0.001, seconds) * 1000)); }

// Runs a tool with a timeout (the process group is stopped when it passes). A program
// that cannot start is an error under `code`; how a started one ended is the result.
StatusOr<ProcessResult> RunTool(ProcessOptions spec, const std::string& code, const std::string& what,
                                const std::string& path) {
  spec.kill_grace_ms = 1000;
  auto r = RunProcess(spec);
  if (!r.ok()) return EnvError(code, what + " could not start: " + r.status().message(), path);
  return r;
}

void Log(const NativeOptions& o, const std::string& line) {
  if (o.log != nullptr) *o.log << line << std::endl;
}

std::string SourceDir(const NativeToolchain& t) {
  if (!t.source_dir.empty()) return t.source_dir;
  std::string env = GetEnv("PERFGATE_ANE_SOURCE_DIR");
  if (!env.empty()) return env;
#ifdef PERFGATE_ANE_SOURCE_DIR
  return PERFGATE_ANE_SOURCE_DIR;
#else
  return "";
#endif
}

std::vector<std::string> ModelGenerator(const NativeToolchain& t) {
  if (!t.model_generator.empty()) return t.model_generator;
  std::string python = GetEnv("PERFGATE_PYTHON");
  return {python.empty() ? "python3" : python, SourceDir(t) + "/model_gen.py"};
}

Status WriteAtomic(const std::string& path, const std::string& text) {
  return ::perfgate::internal::WriteFileAtomic(path, text, "ane.write_failed");
}

// The machine-wide probe lock: flock on a file, acquired within 1 s.
class ProbeLock {
 public:
  ~ProbeLock() {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }
  Status Acquire(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) return EnvError("ane.lock_failed", "cannot open the probe lock", path);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::close(fd_);
        fd_ = -1;
        return EnvError("ane.busy", "another ANE probe holds the lock (waited 1 s)", path);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return Status();
  }

 private:
  int fd_ = -1;
};

std::string LockPath(const NativeToolchain& t) {
  if (!t.lock_path.empty()) return t.lock_path;
  std::string tmp = GetEnv("TMPDIR");
  if (tmp.empty()) tmp = "/tmp";
  return tmp + "/perfgate-ane.lock";
}

// The eval host: given, from the environment, or built from eval_host.m with clang.
StatusOr<std::string> EvalHost(const NativeToolchain& t, const std::string& build_dest) {
  std::string given = !t.eval_host.empty() ? t.eval_host : GetEnv("PERFGATE_ANE_EVAL_HOST");
  if (!given.empty()) {
    if (::access(given.c_str(), X_OK) != 0) {
      return EnvError("ane.no_eval_host", "the eval host is not an executable file", given);
    }
    return given;
  }
  const std::string src = SourceDir(t) + "/eval_host.m";
  std::string why;
  if (!fs::is_regular_file(StatusOf(src, &why))) {
    return EnvError("ane.no_eval_host", "eval_host.m not found" + why + " (set PERFGATE_ANE_SOURCE_DIR)", src);
  }
  ProcessOptions spec;
  spec.argv = {t.compiler, "-O2", "-fobjc-arc", src, "-o", build_dest, "-framework", "Foundation",
               "-framework", "CoreVideo", "-framework", "IOSurface", "-F/System/Library/PrivateFrameworks",
               "-framework", "AppleNeuralEngine"};
  spec.timeout_ms = Millis(t.build_timeout_s);
  PERFGATE_ASSIGN_OR_RETURN(ProcessResult r, RunTool(spec, "ane.host_build_failed", "the compiler", src));
  if (!r.ok()) {
    return EnvError("ane.host_build_failed",
                    "building the eval host failed (" + r.Describe() + "): " +
                        Tail(r.stderr_text + r.stdout_text, 4000),
                    src);
  }
  return build_dest;
}

// Generates and compiles the Cout x Cin conv model into dir; returns dir/model.mlmodelc.
StatusOr<std::string> GenerateModel(const NativeToolchain& t, int64_t cin, int64_t cout, const std::string& dir) {
  ProcessOptions spec;
  spec.argv = ModelGenerator(t);
  for (const std::string& a : {std::string("--cin"), std::to_string(cin), std::string("--cout"),
                               std::to_string(cout), std::string("--out"), dir}) {
    spec.argv.push_back(a);
  }
  spec.timeout_ms = Millis(t.model_timeout_s);
  PERFGATE_ASSIGN_OR_RETURN(ProcessResult r, RunTool(spec, "ane.model_gen_failed", "the model generator", dir));
  if (!r.ok()) {
    return EnvError("ane.model_gen_failed",
                    "model generation for Cin " + std::to_string(cin) + " x Cout " + std::to_string(cout) + " " +
                        r.Describe() + ": " + Tail(r.stderr_text.empty() ? r.stdout_text : r.stderr_text, 4000),
                    dir);
  }
  const std::string mlc = dir + "/model.mlmodelc";
  std::string why;
  if (!fs::exists(StatusOf(mlc, &why))) {
    return EnvError("ane.model_gen_failed", "the model generator exited 0 but wrote no model.mlmodelc" + why, dir);
  }
  return mlc;
}

StatusOr<HostEval> TimeModel(const NativeToolchain& t, const std::string& host, const std::string& mlc, int warm,
                             int timed) {
  ProcessOptions spec;
  spec.argv = EvalHostCommand(host, mlc, warm, timed);
  for (const char* name : kRemovedEnv) spec.unset_env.push_back(name);
  spec.set_env.emplace_back("ANE_IDENTITY", kAneIdentity);
  spec.timeout_ms = Millis(t.host_timeout_s);
  PERFGATE_ASSIGN_OR_RETURN(ProcessResult r, RunTool(spec, "ane.host_failed", "the eval host", host));
  const std::string& tail_from = r.stderr_text.empty() ? r.stdout_text : r.stderr_text;
  if (r.timed_out) {
    return EnvError("ane.host_timeout",
                    "the eval host " + r.Describe() + " on " + mlc + " (process group stopped); output tail: " +
                        Tail(tail_from, 2000),
                    host);
  }
  if (!r.ok()) {
    return EnvError("ane.host_failed", "the eval host failed on " + mlc + " (" + r.Describe() + "): " + Tail(tail_from, 4000),
                    host);
  }
  return ParseDmaJson(r.stdout_text);
}

Status CheckNativeAllowed(const NativeToolchain& t) {
  if (t.IsStandIn()) return Status();
  std::string why = NativeUnavailableReason();
  if (!why.empty()) {
    return EnvError("ane.unsupported", why + "; `perfgate ane-dma --host-only` and `perfgate ane-dma replay` work here");
  }
  return Status();
}

Status CheckOptions(const NativeOptions& o, const ChipInfo& chip) {
  if (o.warm < 0 || o.timed < 1 || o.rounds < 1) {
    return UsageError("ane.bad_options", "need warm >= 0, timed >= 1 and rounds >= 1");
  }
  if (o.overhead_channels < 0) return UsageError("ane.bad_options", "overhead channels must be >= 0");
  // The shapes and the on/off rule, before a long run ends in an error.
  std::vector<PointSamples> dummy;
  for (int64_t cin : o.cins) dummy.push_back({cin, o.cout, {1.0}});
  AnalyzeOptions a = o.analyze;
  a.overhead_us.clear();
  auto probe = Analyze(chip, o.cores, dummy, a);
  return probe.ok() ? Status() : probe.status();
}

// Steps 2-4 of the lifecycle in an existing, fresh directory.
StatusOr<NotchResult> RunInDirectory(const std::string& out, const NativeOptions& o, ChipInfo chip,
                                     const std::string& prebuilt_host) {
  PERFGATE_ASSIGN_OR_RETURN(HostReport host_report, BuildHostReport(o.cins, o.cout, chip, o.cores));
  const std::string report_path = out + "/report.json";
  PERFGATE_RETURN_IF_ERROR(WriteAtomic(report_path, RenderRunReportJson(host_report, RunStatus::kPreparing, nullptr, "")));
  const int cores = host_report.cores;

  std::optional<NotchResult> result;
  Status failure = [&]() -> Status {
    ProbeLock lock;
    if (o.toolchain.use_lock) PERFGATE_RETURN_IF_ERROR(lock.Acquire(LockPath(o.toolchain)));
    std::string host = prebuilt_host;
    if (host.empty()) {
      PERFGATE_ASSIGN_OR_RETURN(host, EvalHost(o.toolchain, out + "/kernel_dma_mib_host"));
    }
    std::vector<std::string> models(o.cins.size());
    std::vector<PointSamples> samples;
    for (int64_t cin : o.cins) samples.push_back({cin, o.cout, {}});
    std::string overhead_model;
    std::vector<double> overhead_us;
    std::string route, subtype;
    auto note = [&](const HostEval& e) {
      if (!e.route.empty()) route = e.route;
      if (!e.ane_subtype.empty()) subtype = e.ane_subtype;
    };
    for (int round = 0; round < o.rounds; ++round) {
      if (o.overhead_channels > 0) {
        if (overhead_model.empty()) {
          const int64_t n = o.overhead_channels;
          Log(o, "DMA_NOTCH_COMPILE overhead " + std::to_string(n) + " cout " + std::to_string(n));
          PERFGATE_ASSIGN_OR_RETURN(overhead_model,
                                    GenerateModel(o.toolchain, n, n, out + "/overhead_c" + std::to_string(n)));
        }
        PERFGATE_ASSIGN_OR_RETURN(HostEval e, TimeModel(o.toolchain, host, overhead_model, o.warm, o.timed));
        note(e);
        overhead_us.insert(overhead_us.end(), e.eval_us.begin(), e.eval_us.end());
        Log(o, "DMA_NOTCH_TIME overhead " + Num(Median(e.eval_us)));
      }
      for (size_t k = 0; k < o.cins.size(); ++k) {
        // Interleave: forward on even rounds, reverse on odd ones.
        const size_t i = round % 2 == 0 ? k : o.cins.size() - 1 - k;
        const int64_t cin = o.cins[i];
        if (models[i].empty()) {
          Log(o, "DMA_NOTCH_COMPILE " + std::to_string(cin) + " cout " + std::to_string(o.cout) + " cores " +
                     std::to_string(cores));
          PERFGATE_ASSIGN_OR_RETURN(models[i], GenerateModel(o.toolchain, cin, o.cout, out + "/d" + std::to_string(cin)));
        }
        PERFGATE_ASSIGN_OR_RETURN(HostEval e, TimeModel(o.toolchain, host, models[i], o.warm, o.timed));
        note(e);
        auto& dst = samples[i].eval_us;
        dst.insert(dst.end(), e.eval_us.begin(), e.eval_us.end());
        const double med = Median(e.eval_us);
        Log(o, "DMA_NOTCH_TIME " + std::to_string(cin) + " " + Num(med) + " " +
                   Num(PayloadGbps(TotalFp16Bytes(cin, o.cout), med)));
      }
    }
    if (!subtype.empty()) chip.ane_subtype = subtype;
    AnalyzeOptions a = o.analyze;
    a.overhead_us = overhead_us;
    PERFGATE_ASSIGN_OR_RETURN(NotchResult r, Analyze(chip, cores, samples, a));
    r.timing_path = "native: " + (route.empty() ? std::string("unreported route") : route) + " (" + host + ")";
    r.source_path = out;
    result = std::move(r);
    return Status();
  }();

  if (!failure.ok()) {
    host_report.chip = chip;
    Status w = WriteAtomic(report_path, RenderRunReportJson(host_report, RunStatus::kStopped, nullptr,
                                                            CodeAndMessage(failure)));
    (void)w;  // the run's own error is the one to report
    Log(o, "DMA_NOTCH_RESULT stopped_no_retry " + CodeAndMessage(failure));
    return failure;
  }
  host_report.chip = result->chip;
  PERFGATE_RETURN_IF_ERROR(WriteAtomic(report_path, RenderRunReportJson(host_report, RunStatus::kPassed, &*result, "")));
  Log(o, std::string("DMA_NOTCH_RESULT passed_kernel_dma_profile ") + Num(result->ratio_on_over_off) + " " +
             ToString(result->classification.notch_class));
  return *result;
}

Status FreshDirectory(const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec) || fs::is_symlink(out, ec)) {
    return UsageError("ane.out_exists", "fresh kernel-DMA profile directory required: " + out);
  }
  fs::create_directories(out, ec);
  if (ec) return EnvError("ane.write_failed", "cannot create the run directory: " + ec.message(), out);
  return Status();
}

std::string Absolute(const std::string& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  return ec ? p : a.lexically_normal().string();
}

// --- replay ------------------------------------------------------------------------

// The ANE core counts a recording may name; anything outside is a typo or an attack,
// and the bound keeps every narrowing to int exact.
constexpr int64_t kMaxAneCores = 1024;
// Channel counts beyond any ANE model; BytesPerCore checks the products as well.
constexpr int64_t kMaxChannels = int64_t{1} << 31;

// A recording being replayed: its path and text, to locate schema errors.
struct Recording {
  std::string path;
  std::string text;
};

// Located at the pointer, or at its nearest ancestor written in the file.
Status SchemaError(const Recording& rec, std::string pointer, const std::string& what) {
  const std::string shown = pointer.empty() ? "/" : pointer;
  const SourceLocation at = ::perfgate::internal::LocateJsonPointerOrAncestor(rec.text, rec.path, std::move(pointer));
  return Status::Error("ane.replay_bad_schema", what + " (at " + shown + ")", at);
}

StatusOr<std::vector<double>> NumberArray(const nlohmann::json& v, const Recording& rec, const std::string& ptr) {
  if (!v.is_array()) return SchemaError(rec, ptr, "expected an array of microseconds");
  std::vector<double> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number()) return SchemaError(rec, ptr + "/" + std::to_string(i), "expected a number");
    out.push_back(v[i].get<double>());
  }
  return out;
}

// An integer in [lo, hi]: the range is checked on the JSON value itself, before any
// narrowing (an unsigned 2^64 - 1 or 4294967312 must not become -1 or 16).
StatusOr<int64_t> Integer(const nlohmann::json& obj, const char* key, const Recording& rec, const std::string& ptr,
                          int64_t lo, int64_t hi, std::optional<int64_t> fallback = std::nullopt) {
  auto it = obj.find(key);
  const std::string at = ptr + "/" + key;
  if (it == obj.end() || it->is_null()) {
    if (fallback) return *fallback;
    return SchemaError(rec, at, std::string("missing integer '") + key + "'");
  }
  if (!it->is_number_integer()) return SchemaError(rec, at, std::string("'") + key + "' must be an integer");
  const bool in_range = it->is_number_unsigned() ? it->get<uint64_t>() <= static_cast<uint64_t>(hi) &&
                                                       static_cast<int64_t>(it->get<uint64_t>()) >= lo
                                                 : it->get<int64_t>() >= lo && it->get<int64_t>() <= hi;
  if (!in_range) {
    return SchemaError(rec, at, std::string("'") + key + "' is " + it->dump() + ", outside " + std::to_string(lo) +
                                    ".." + std::to_string(hi));
  }
  return it->get<int64_t>();
}

// The `points` array of a replayed file (a run's report or an eval-samples file): each
// point's cin, cout (default_cout where a point has none) and its samples under
// `samples_key`.
StatusOr<std::vector<PointSamples>> ReadPoints(const nlohmann::json& j, const Recording& rec,
                                               const char* samples_key, const char* missing_samples,
                                               std::optional<int64_t> default_cout) {
  if (!j.contains("points") || !j["points"].is_array()) return SchemaError(rec, "/points", "missing array 'points'");
  std::vector<PointSamples> points;
  for (size_t i = 0; i < j["points"].size(); ++i) {
    const auto& p = j["points"][i];
    const std::string ptr = "/points/" + std::to_string(i);
    if (!p.is_object()) return SchemaError(rec, ptr, "expected an object");
    PERFGATE_ASSIGN_OR_RETURN(int64_t cin, Integer(p, "cin", rec, ptr, 1, kMaxChannels));
    PERFGATE_ASSIGN_OR_RETURN(int64_t cout, Integer(p, "cout", rec, ptr, 1, kMaxChannels, default_cout));
    const std::string samples_ptr = ptr + "/" + samples_key;
    if (!p.contains(samples_key)) return SchemaError(rec, samples_ptr, missing_samples);
    PERFGATE_ASSIGN_OR_RETURN(std::vector<double> s, NumberArray(p[samples_key], rec, samples_ptr));
    points.push_back({cin, cout, s});
  }
  return points;
}

std::string Text(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

ChipInfo ChipFromJson(const nlohmann::json& c) {
  ChipInfo chip;
  chip.hw_model = Text(c, "hw_model");
  chip.brand = Text(c, "brand");
  chip.platform = Text(c, "platform");
  chip.guessed_chip = Text(c, "guessed_chip");
  if (chip.guessed_chip.empty()) chip.guessed_chip = GuessChip(chip.hw_model, chip.brand);
  chip.guessed_ane_cores = GuessAneCores(chip.guessed_chip);
  chip.dual_cluster = chip.guessed_ane_cores >= 32;
  chip.label = Text(c, "label");
  if (chip.label.empty()) chip.label = chip.guessed_chip;
  chip.python = Text(c, "python");
  chip.os = Text(c, "os");
  chip.ane_subtype = Text(c, "ane_subtype");
  chip.unknown_reason = Text(c, "unknown_reason");
  return chip;
}

}  // namespace

// ---------------------------------------------------------------------------------

std::string NativeUnavailableReason() {
  struct utsname u {};
  std::string host = "an unknown host";
  std::string machine;
  if (::uname(&u) == 0) {
    host = std::string(u.sysname) + " " + u.release + " " + u.machine;
    machine = u.machine;
  }
#ifndef __APPLE__
  return "native ANE runs need macOS on Apple silicon; this host is " + host;
#else
  if (machine != "arm64") return "native ANE runs need Apple silicon; this Mac is " + machine;
  if (!fs::exists(StatusOf("/System/Library/PrivateFrameworks/AppleNeuralEngine.framework", nullptr))) {
    return "native ANE runs need /System/Library/PrivateFrameworks/AppleNeuralEngine.framework, which is missing";
  }
  return "";
#endif
}

StatusOr<HostEval> ParseDmaJson(const std::string& stdout_text) {
  std::string last;
  bool found = false;
  std::istringstream in(stdout_text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind(kDmaJsonPrefix, 0) == 0) {
      last = line;
      found = true;
    }
  }
  if (!found) {
    return EnvError("ane.no_dma_json",
                    "native host printed no DMA_JSON line; output tail: " + Tail(stdout_text, 2000));
  }
  const std::string payload = last.substr(std::char_traits<char>::length(kDmaJsonPrefix));
  nlohmann::json j = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& why) {
    return EnvError("ane.bad_dma_json", why + ": " + Tail(last, 2000));
  };
  if (j.is_discarded()) return bad("the DMA_JSON line is not JSON");
  if (!j.is_object()) return bad("the DMA_JSON payload is not an object");
  auto it = j.find("eval_us");
  if (it == j.end() || !it->is_array() || it->empty()) return bad("DMA_JSON has no non-empty eval_us array");
  HostEval e;
  for (const auto& v : *it) {
    if (!v.is_number()) return bad("eval_us holds a non-number");
    double d = v.get<double>();
    if (!std::isfinite(d) || !(d > 0)) return bad("eval_us holds a non-positive time");
    e.eval_us.push_back(d);
  }
  e.route = Text(j, "route");
  e.ane_subtype = Text(j, "ane_subtype");
  auto cores = j.find("ane_cores");
  if (cores != j.end() && !cores->is_null()) {
    const bool in_range = cores->is_number_integer() && !(cores->is_number_unsigned() && cores->get<uint64_t>() > kMaxAneCores) &&
                          cores->get<int64_t>() >= 1 && cores->get<int64_t>() <= kMaxAneCores;
    if (!in_range) return bad("DMA_JSON ane_cores is not a core count in 1.." + std::to_string(kMaxAneCores));
    e.ane_cores = static_cast<int>(cores->get<int64_t>());
  }
  return e;
}

std::vector<std::string> EvalHostCommand(const std::string& host, const std::string& mlmodelc, int warm, int timed) {
  return {host, mlmodelc, std::to_string(warm), std::to_string(timed)};
}

StatusOr<NotchResult> RunNative(const std::string& out_arg, const NativeOptions& options, const ChipInfo& chip) {
  PERFGATE_RETURN_IF_ERROR(CheckNativeAllowed(options.toolchain));
  PERFGATE_RETURN_IF_ERROR(CheckOptions(options, chip));
  const std::string out = Absolute(out_arg);
  PERFGATE_RETURN_IF_ERROR(FreshDirectory(out));
  return RunInDirectory(out, options, chip, "");
}

StatusOr<PresetSummary> RunPreset(const std::string& out_arg, Preset preset, const NativeOptions& options,
                                  const ChipInfo& chip) {
  if (preset == Preset::kAuto) return UsageError("ane.bad_preset", "resolve the auto preset first (ResolvePreset)");
  PERFGATE_RETURN_IF_ERROR(CheckNativeAllowed(options.toolchain));
  std::vector<NativeOptions> per_scan;
  const std::vector<LatticeScan> scans = ScansFor(preset);
  for (const LatticeScan& s : scans) {
    NativeOptions o = options;
    o.cins = s.cins;
    o.cout = s.cout;
    o.cores = options.cores > 0 ? options.cores : s.cores;
    PERFGATE_RETURN_IF_ERROR(CheckOptions(o, chip));
    per_scan.push_back(o);
  }
  const std::string out = Absolute(out_arg);
  PERFGATE_RETURN_IF_ERROR(FreshDirectory(out));
  PERFGATE_ASSIGN_OR_RETURN(std::string host, EvalHost(options.toolchain, out + "/kernel_dma_mib_host"));
  PresetSummary summary;
  summary.preset = preset;
  summary.chip = chip;
  for (size_t i = 0; i < scans.size(); ++i) {
    ScanOutcome so;
    so.scan = scans[i];
    so.cores = per_scan[i].cores;
    const std::string sub = out + "/" + scans[i].name;
    Status made = FreshDirectory(sub);
    if (!made.ok()) {
      so.error = CodeAndMessage(made);
    } else {
      auto r = RunInDirectory(sub, per_scan[i], chip, host);
      if (r.ok()) {
        if (!r->chip.ane_subtype.empty()) summary.chip.ane_subtype = r->chip.ane_subtype;
        so.result = std::move(r).value();
      } else {
        so.error = CodeAndMessage(r.status());
      }
    }
    summary.scans.push_back(std::move(so));
  }
  const std::string text = RenderSummaryJson(summary);
  PERFGATE_RETURN_IF_ERROR(WriteAtomic(out + "/summary.json", text));
  Json blob = Json::parse(text);
  Log(options, "DMA_NOTCH_SUMMARY " + blob["scans"].dump(2, ' ', false, Json::error_handler_t::replace));
  return summary;
}

// The recorded chip's core count (ane_cores, else guessed_ane_cores), range-checked.
StatusOr<ChipInfo> ChipFromRecording(const nlohmann::json& c, const Recording& rec, const std::string& ptr) {
  ChipInfo chip = ChipFromJson(c);
  for (const char* key : {"ane_cores", "guessed_ane_cores"}) {
    if (!c.contains(key) || c[key].is_null()) continue;
    PERFGATE_ASSIGN_OR_RETURN(int64_t cores, Integer(c, key, rec, ptr, 1, kMaxAneCores));
    chip.guessed_ane_cores = static_cast<int>(cores);
    break;
  }
  chip.dual_cluster = chip.guessed_ane_cores >= 32;
  return chip;
}

StatusOr<NotchResult> Replay(const std::string& path_arg, const ReplayOptions& options) {
  std::string path = path_arg;
  std::error_code ec;
  if (fs::is_directory(path, ec)) path = (fs::path(path) / "report.json").string();
  auto bytes = ::perfgate::internal::ReadWholeFile(path);
  if (!bytes.ok()) {
    return Status::Error("ane.replay_unreadable", "cannot read the recording: " + bytes.status().message(), {path});
  }
  const Recording rec{path, std::move(*bytes)};
  StatusOr<nlohmann::json> parsed =
      ::perfgate::internal::ParseJsonDocument(rec.text, path, {"ane.replay_bad_json", "ane.replay_too_deep"});
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return SchemaError(rec, "", "expected an object");

  ChipInfo chip;
  int cores = 0;
  std::vector<PointSamples> points;
  std::vector<double> overhead;
  std::string timing;
  std::string note;
  std::optional<OnOffRule> recorded_rule;
  const bool is_report = Text(j, "metric") == "native_eval_us";
  if (is_report) {
    const std::string status = Text(j, "status");
    if (status != ToString(RunStatus::kPassed)) {
      return Status::Error("ane.replay_not_passed",
                           "the recorded run has status '" + status + "'" +
                               (Text(j, "error").empty() ? "" : " (" + Text(j, "error") + ")") + ", nothing to replay",
                           {path});
    }
    if (!j.contains("chip") || !j["chip"].is_object()) return SchemaError(rec, "/chip", "missing object 'chip'");
    PERFGATE_ASSIGN_OR_RETURN(chip, ChipFromRecording(j["chip"], rec, "/chip"));
    PERFGATE_ASSIGN_OR_RETURN(int64_t c, Integer(j, "cores", rec, "", 1, kMaxAneCores));
    cores = static_cast<int>(c);
    PERFGATE_ASSIGN_OR_RETURN(points, ReadPoints(j, rec, "eval_us_samples", "missing samples", std::nullopt));
    if (j.contains("dispatch_overhead") && j["dispatch_overhead"].is_object() &&
        j["dispatch_overhead"].contains("eval_us_samples")) {
      PERFGATE_ASSIGN_OR_RETURN(overhead, NumberArray(j["dispatch_overhead"]["eval_us_samples"], rec,
                                                      "/dispatch_overhead/eval_us_samples"));
    }
    timing = Text(j, "timing_path");
    if (Text(j, "on_off_rule") == "positional") recorded_rule = OnOffRule::kPositional;
    if (Text(j, "on_off_rule") == "predicate") recorded_rule = OnOffRule::kPredicate;
  } else {
    if (Text(j, "kind") != "perfgate.ane_eval_samples") {
      return SchemaError(rec, "/kind",
                         "neither a run's report.json (metric native_eval_us) nor an eval-samples file "
                         "(kind perfgate.ane_eval_samples)");
    }
    PERFGATE_ASSIGN_OR_RETURN(int64_t version, Integer(j, "schema_version", rec, "", 1, 1));
    if (version != 1) return SchemaError(rec, "/schema_version", "only schema_version 1 is understood");
    if (j.contains("chip")) {
      if (!j["chip"].is_object()) return SchemaError(rec, "/chip", "expected an object");
      PERFGATE_ASSIGN_OR_RETURN(chip, ChipFromRecording(j["chip"], rec, "/chip"));
    } else {
      PERFGATE_ASSIGN_OR_RETURN(chip, ChipFromRecording(nlohmann::json::object(), rec, "/chip"));
    }
    PERFGATE_ASSIGN_OR_RETURN(int64_t c, Integer(j, "cores", rec, "", 1, kMaxAneCores, chip.guessed_ane_cores));
    cores = static_cast<int>(c);
    std::optional<int64_t> default_cout;
    if (j.contains("cout")) {
      PERFGATE_ASSIGN_OR_RETURN(int64_t dc, Integer(j, "cout", rec, "", 1, kMaxChannels));
      default_cout = dc;
    }
    PERFGATE_ASSIGN_OR_RETURN(points,
                              ReadPoints(j, rec, "eval_us", "missing samples 'eval_us'", default_cout));
    if (j.contains("overhead_us")) {
      PERFGATE_ASSIGN_OR_RETURN(overhead, NumberArray(j["overhead_us"], rec, "/overhead_us"));
    }
    timing = Text(j, "timing_path");
    note = Text(j, "source");
    if (Text(j, "on_off_rule") == "positional") recorded_rule = OnOffRule::kPositional;
  }
  AnalyzeOptions a;
  a.thresholds = options.thresholds;
  a.rule = options.rule ? *options.rule : recorded_rule.value_or(OnOffRule::kPredicate);
  a.overhead_us = overhead;
  auto analyzed = Analyze(chip, cores, points, a);
  if (!analyzed.ok()) {
    const Status& s = analyzed.status();
    return Status::Error(s.code(), s.message(), {path}, s.kind());
  }
  NotchResult r = std::move(analyzed).value();
  r.timing_path = "replay: " + (timing.empty() ? std::string("unrecorded timing path") : timing);
  r.source_path = path;
  r.source_note = note;
  return r;
}

// --- ANEC options probe -----------------------------------------------------------

std::string AnecFlagsJson() {
  Json f;
  f["SplitKernelSection"] = false;
  f["EnableSpatialSplitInX"] = true;
  f["EnableKernelSplitForMultiPaletteLUT"] = true;
  f["GlobalRefinementInSpatialSplit"] = true;
  f["EnableSegmentAwareKernelSectionSplit"] = true;
  f["EnableGlobalChannelSplitting"] = true;
  f["EnableL2BatchSplitting"] = true;
  f["EnableForcedMaximalBondedSplit"] = true;
  f["DisableCachePrefetchMask"] = 0;
  f["EnableKernelRewind"] = true;
  f["SplitKernelDMA"] = true;
  f["EnableKernelDMASplit"] = true;
  f["MaxKernelDMASize"] = 1048575;
  f["AvoidOneMiBKernelDMA"] = true;
  f["SplitCoeffBuffer"] = true;
  return f.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

bool MentionsKernelDmaSplit(const std::string& serialized) {
  std::string lower = serialized;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* token : {"split-kernel-dma", "kernel-dma-split", "max-kernel-dma", "one-mib"}) {
    if (lower.find(token) != std::string::npos) return true;
  }
  return false;
}

AnecProbeResult ProbeAnec(const std::string& out, const NativeToolchain& t) {
  AnecProbeResult r;
  std::error_code ec;
  fs::create_directories(out, ec);
  const std::string flags_path = out + "/flags.json";
  Status w = WriteAtomic(flags_path, AnecFlagsJson());
  const std::string src = SourceDir(t) + "/anec_options_probe.m";
  std::string why;
  if (!fs::is_regular_file(StatusOf(src, &why))) {
    r.status = "skipped_no_probe_source";
    r.path = src;
    r.stderr_tail = why;
    return r;
  }
  if (!kSupported && t.compiler == "clang") {
    r.status = "skipped_unsupported";
    r.stderr_tail = NativeUnavailableReason();
    return r;
  }
  if (!w.ok()) {
    r.status = "probe_build_failed";
    r.stderr_tail = w.ToString();
    return r;
  }
  const std::string binary = out + "/anec_options_probe";
  ProcessOptions build;
  build.argv = {t.compiler, "-O2", "-fobjc-arc", src, "-o", binary, "-framework", "Foundation",
                "-F/System/Library/PrivateFrameworks", "-framework", "ANECompiler"};
  build.timeout_ms = Millis(t.build_timeout_s);
  auto b = RunTool(build, "ane.anec_build_failed", "the compiler", src);
  if (!b.ok() || !b->ok()) {
    r.status = "probe_build_failed";
    r.stderr_tail = Tail(b.ok() ? b->stderr_text + " (" + b->Describe() + ")" : b.status().message(), 2000);
    return r;
  }
  ProcessOptions run;
  run.argv = {binary, flags_path};
  run.timeout_ms = 30000;
  auto p = RunTool(run, "ane.anec_probe_failed", "the options probe", binary);
  if (!p.ok()) {
    r.status = "probe_failed";
    r.serialized = p.status().message();
    return r;
  }
  const std::string serialized = p->stdout_text + p->stderr_text;
  const bool has = MentionsKernelDmaSplit(serialized);
  r.status = p->ok() ? "probed" : "probe_failed";
  r.returncode = p->exited ? p->exit_code : -p->term_signal;
  std::string trimmed = serialized;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.pop_back();
  size_t first = trimmed.find_first_not_of(" \t\r\n");
  trimmed = first == std::string::npos ? "" : trimmed.substr(first);
  r.serialized = Tail(trimmed, 2000);
  r.fabricated_keys_dropped = !has;
  r.has_1mib_kernel_dma_split_flag = has;
  return r;
}

std::string RenderAnecProbeJson(const AnecProbeResult& r) {
  Json j;
  j["status"] = r.status;
  if (r.status == "skipped_no_probe_source") {
    j["path"] = r.path;
  } else if (r.status == "probe_build_failed") {
    j["stderr"] = r.stderr_tail;
  } else if (r.status == "skipped_unsupported") {
    j["reason"] = r.stderr_tail;
  } else {
    j["returncode"] = r.returncode ? Json(*r.returncode) : Json(nullptr);
    j["serialized"] = r.serialized;
    j["fabricated_keys_dropped"] = r.fabricated_keys_dropped.value_or(true);
    j["has_1mib_kernel_dma_split_flag"] = r.has_1mib_kernel_dma_split_flag.value_or(false);
  }
  return internal::Dump(j);
}

}  // namespace perfgate::ane
