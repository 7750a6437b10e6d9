// The golden workflow for one test: the update mode from the environment (refused in
// CI), policy-preserving updates, and CheckGolden with its actual file and report.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "golden/golden_internal.h"
#include "perfgate/core/environment.h"
#include "perfgate/golden/golden.h"

namespace perfgate::golden {
namespace {

namespace fs = std::filesystem;

constexpr const char* kModeVar = "PERFGATE_UPDATE_GOLDEN";
constexpr const char* kForceVar = "PERFGATE_UPDATE_GOLDEN_FORCE";
// "golden/decode/llama_8b.json" -> "llama_8b".
std::string TestName(const std::string& golden_path) {
  std::string base = fs::path(golden_path).filename().string();
  const std::string kExt = ".json";
  if (base.size() > kExt.size() && base.compare(base.size() - kExt.size(), kExt.size(), kExt) == 0) {
    base.resize(base.size() - kExt.size());
  }
  return base;
}

std::string Plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

void RemoveStale(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);  // absent or not removable: nothing more to do
}

// "  <tag> <golden>:<line>: <message>\n", the location pointing at the golden's entry.
std::string FieldLine(const char* tag, const std::string& golden_path, const FieldResult& f) {
  std::string loc = golden_path;
  if (f.golden_line > 0) loc += ":" + std::to_string(f.golden_line);
  return std::string("  ") + tag + " " + loc + ": " + f.message + "\n";
}

void AttachLines(const std::string& golden_text, CompareResult* compare) {
  const std::map<std::string, int> lines = internal::ValueLines(golden_text);
  for (FieldResult& f : compare->fields) {
    auto it = lines.find(f.name);
    if (it != lines.end()) f.golden_line = it->second;
  }
}

// What changed in the golden's shape first (RootCauses), then failing fields, then
// notes: new values and ungated values out of tolerance.
std::string FieldLines(const std::string& golden_path, const CompareResult& c, const CompareOptions& options) {
  std::string out;
  for (const std::string& cause : RootCauses(c, options)) out += "cause: " + cause + "\n";
  for (const FieldResult& f : c.fields) {
    if (!f.ok) out += FieldLine("FAIL", golden_path, f);
  }
  for (const FieldResult& f : c.fields) {
    if (f.ok && (f.new_in_actual || !f.within_tolerance)) out += FieldLine("note", golden_path, f);
  }
  return out;
}

size_t CountFailed(const CompareResult& c) {
  size_t n = 0;
  for (const FieldResult& f : c.fields) n += f.ok ? 0 : 1;
  return n;
}

// Writes the actual file and records the outcome; on failure turns the outcome into
// kError.
void WriteActual(const GoldenFile& file, CheckOutcome* out) {
  Status s = WriteGoldenAtomic(out->actual_path, file);
  if (s.ok()) {
    out->actual_written = true;
    out->report += "actual figures written to " + out->actual_path + "\n";
  } else {
    out->status = CheckStatus::kError;
    out->error = s;
    out->report += s.ToString() + "\n";
  }
}

CheckOutcome WriteGoldenFor(const GoldenFile& file, CheckOutcome out, const std::string& headline) {
  Status s = WriteGoldenAtomic(out.golden_path, file);
  if (!s.ok()) {
    out.status = CheckStatus::kError;
    out.error = s;
    out.report = s.ToString() + "\n";
    return out;
  }
  out.status = CheckStatus::kUpdated;
  out.report = headline + out.report;
  out.report += "review the diff before committing, and rerun without " + std::string(kModeVar) +
                " to verify\n";
  RemoveStale(out.actual_path);
  return out;
}

}  // namespace

const char* ToString(UpdateMode mode) {
  switch (mode) {
    case UpdateMode::kNone: return "none";
    case UpdateMode::kNew: return "new";
    case UpdateMode::kAll: return "all";
  }
  return "none";
}

const char* ToString(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass: return "pass";
    case CheckStatus::kMismatch: return "mismatch";
    case CheckStatus::kMissingGolden: return "missing_golden";
    case CheckStatus::kUpdated: return "updated";
    case CheckStatus::kError: return "error";
  }
  return "error";
}

StatusOr<UpdateMode> UpdateModeFromEnv(const EnvLookup& env) {
  const std::optional<std::string> value = env(kModeVar);
  UpdateMode mode;
  if (!value || value->empty() || *value == "none") {
    return UpdateMode::kNone;
  } else if (*value == "new") {
    mode = UpdateMode::kNew;
  } else if (*value == "all") {
    mode = UpdateMode::kAll;
  } else {
    return Status::Error("golden.bad_update_mode",
                         std::string(kModeVar) + "=" + *value + " is not one of none, new, all", {},
                         ErrorKind::kUsage);
  }
  const std::optional<std::string> force = env(kForceVar);
  if (force && *force == "1") return mode;
  if (const std::optional<std::string> var = CiVariable(env)) {
    return Status::Error(
        "golden.update_refused_in_ci",
        std::string(kModeVar) + "=" + *value + " refused: " + *var +
            " is set, and goldens are never written in CI (update them locally and commit the "
            "diff); set " + kForceVar + "=1 to write anyway",
        {}, ErrorKind::kUsage);
  }
  return mode;
}

StatusOr<UpdateMode> UpdateModeFromEnv() {
  return UpdateModeFromEnv([](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
}

GoldenFile MergeForUpdate(const GoldenFile& existing, const GoldenFile& actual) {
  GoldenFile out = actual;
  out.schema_version = kSchemaVersion;
  for (auto& [name, v] : out.values) {
    auto it = existing.values.find(name);
    if (it != existing.values.end()) v.policy = it->second.policy;
  }
  return out;
}

CheckOutcome CheckGolden(const std::string& golden_path, const GoldenFile& actual, UpdateMode mode,
                         const std::string& accept_command_hint, const CheckOptions& options) {
  CheckOutcome out;
  out.golden_path = golden_path;
  out.actual_path = ActualPathFor(golden_path);

  std::string text;
  StatusOr<GoldenFile> golden = internal::ReadGoldenWithText(golden_path, &text);
  const bool missing = !golden.ok() && golden.status().code() == "golden.missing";
  const std::string var = kModeVar;
  const std::string test = TestName(golden_path);
  out.accept_command = !accept_command_hint.empty()
                           ? accept_command_hint
                           : var + "=" + (missing ? "new" : "all") + " ctest --no-tests=error -R " + test;

  if (missing) {
    if (mode != UpdateMode::kNone) {
      const std::string headline = "golden created: " + golden_path + " (" + var + "=" + ToString(mode) +
                                   ", " + Plural(actual.values.size(), "value") + ")\n";
      return WriteGoldenFor(actual, std::move(out), headline);
    }
    out.status = CheckStatus::kMissingGolden;
    out.report = "missing golden: " + golden_path + " (a missing golden is a failure, never a pass)\n";
    WriteActual(actual, &out);
    if (out.status == CheckStatus::kMissingGolden) {
      out.report += "create it with: " + out.accept_command + "\n";
    }
    return out;
  }

  if (!golden.ok()) {
    out.status = CheckStatus::kError;
    out.error = golden.status();
    out.report = golden.status().ToString() + "\n";
    if (mode == UpdateMode::kAll) {
      out.report += "the golden's policy cannot be kept while it is unreadable; fix it, or delete it to "
                    "regenerate it with the suite's defaults\n";
    }
    WriteActual(actual, &out);
    out.status = CheckStatus::kError;
    out.error = golden.status();
    return out;
  }

  out.compare = CompareToGolden(*golden, ValuesOf(actual), options);
  AttachLines(text, &out.compare);

  if (mode == UpdateMode::kAll) {
    const GoldenFile merged = MergeForUpdate(*golden, actual);
    if (RenderGolden(merged) == text) {
      out.status = CheckStatus::kPass;
      out.report = "golden unchanged: " + golden_path + " (" + var + "=all)\n";
      RemoveStale(out.actual_path);
      return out;
    }
    size_t kept = 0;
    for (const auto& [name, _] : merged.values) kept += golden->values.count(name);
    size_t out_of_tolerance = 0;
    for (const FieldResult& f : out.compare.fields) {
      out_of_tolerance += (!f.missing_in_actual && !f.new_in_actual && !f.within_tolerance) ? 1 : 0;
    }
    const std::string headline =
        "golden updated: " + golden_path + " (" + var + "=all): " + Plural(merged.values.size(), "value") +
        " written, " + std::to_string(out_of_tolerance) + " out of tolerance, " +
        std::to_string(out.compare.new_in_actual.size()) + " added, " +
        std::to_string(out.compare.missing_in_actual.size()) + " removed; policy kept for " +
        std::to_string(kept) + "\n";
    out.report = FieldLines(golden_path, out.compare, options);
    return WriteGoldenFor(merged, std::move(out), headline);
  }

  if (out.compare.ok) {
    out.status = CheckStatus::kPass;
    out.report = FieldLines(golden_path, out.compare, options);
    if (!out.compare.new_in_actual.empty()) {
      out.report += "record new values with: " + out.accept_command + "\n";
    }
    if (options.always_write_actual) {
      WriteActual(MergeForUpdate(*golden, actual), &out);
    } else {
      RemoveStale(out.actual_path);
    }
    return out;
  }

  out.status = CheckStatus::kMismatch;
  out.report = "golden mismatch: " + golden_path + " (" + std::to_string(CountFailed(out.compare)) + " of " +
               std::to_string(out.compare.fields.size()) + " values failed)\n" +
               FieldLines(golden_path, out.compare, options);
  WriteActual(MergeForUpdate(*golden, actual), &out);
  if (out.status == CheckStatus::kMismatch) {
    out.report += "accept with: " + out.accept_command + " (or move " + out.actual_path + " over " +
                  golden_path + ")\n";
  }
  return out;
}

}  // namespace perfgate::golden
