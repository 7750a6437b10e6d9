// Reading per-kernel timing reports (perfgate/kernel_report/report.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "core/json_document.h"
#include "core/text_input.h"
#include "kernel_report/nsys_stats.h"
#include "kernel_report/read_common.h"
#include "perfgate/kernel_report/report.h"

namespace perfgate::kernel_report {
namespace {

using nlohmann::json;

// The top-level fields of the two real reports (llama.cpp's and candle's).
const std::set<std::string, std::less<>> kKnownTopLevel = {
    "stack",  "commit",      "build_flags", "device",  "model", "prompt",
    "n_tokens", "temperature", "n_runs", "wall_clock_tok_per_sec_median", "wall_clock_ms_per_token_median",
    "thermal_state_notes", "kernels", "top5_by_us_per_token", "observer_effect_check", "kernel_name_mapping_notes",
    "instrumentation_notes"};
// A kernel's numeric fields perfgate knows: the required ones and candle's totals.
const std::set<std::string, std::less<>> kKnownFigures = {
    "calls_per_token_median", "us_per_token_median", "us_per_call_median", "us_per_call_p95",
    "total_calls",            "total_ns",            "mean_ns",            "samples_recorded"};

// The largest figure a kernel may have: past any count or time (1e18 ns is 31 years),
// and small enough that sums and differences over any report stay finite, so no Δ is
// infinite and no attack target is chosen on one.
constexpr double kMaxFigure = 1e18;

// The figures comparisons sum over kernels and families (the required ones); counts
// such as total_calls stay exact integers of any size.
bool IsSummed(const std::string& key) {
  for (std::string_view required : kRequiredFigures) {
    if (key == required) return true;
  }
  return false;
}

class Reader {
 public:
  Reader(const std::string& path, const std::string& text, const attribution::KernelFamilyTable& families)
      : path_(path), text_(text), families_(families) {}

  StatusOr<KernelReport> Read(const json& root) {
    report_.path = path_;
    for (const auto& [key, value] : root.items()) {
      if (key == "kernels") continue;
      if (kKnownTopLevel.count(key) == 0) Unknown("/" + internal::EscapeJsonPointerToken(key), "top-level field '" + key + "' (kept in the metadata)");
      AddMetadata(key, value);
      if (value.is_number()) report_.numbers[key] = NumberOf(value);
    }
    auto stack = report_.metadata.find("stack");
    report_.name = stack == report_.metadata.end() ? "engine" : stack->second;
    const auto kernels = root.find("kernels");
    if (kernels == root.end() || !kernels->is_array() || kernels->empty()) {
      return Error("kernel_report.no_kernels", kernels == root.end() ? "" : "/kernels",
                   kernels == root.end()   ? "the report has no 'kernels' array"
                   : !kernels->is_array() ? "'kernels' is not an array"
                                          : "'kernels' is empty");
    }
    std::map<std::string, size_t> seen;
    for (size_t i = 0; i < kernels->size(); ++i) {
      Status s = ReadKernel((*kernels)[i], "/kernels/" + std::to_string(i), &seen);
      if (!s.ok()) return s;
    }
    CountMergedKernels(&report_);
    PERFGATE_RETURN_IF_ERROR(CountDroppedSamples(root));
    return std::move(report_);
  }

 private:
  static Number NumberOf(const json& v) { return Number{v.get<double>(), v.is_number_integer()}; }

  Status Error(std::string code, const std::string& pointer, std::string message) const {
    return Status::Error(std::move(code), std::move(message),
                         internal::LocateJsonPointerOrAncestor(text_, path_, pointer));
  }

  void Unknown(const std::string& pointer, std::string detail) {
    report_.diagnostics.AddLocated(
        "kernel_report.unknown_field", [&] { return internal::LocateJsonPointer(text_, path_, pointer); },
        std::move(detail));
  }

  void AddMetadata(const std::string& key, const json& value) {
    if (value.is_object()) {
      for (const auto& [k, v] : value.items()) AddMetadata(key + "/" + k, v);
    } else {
      report_.metadata[key] = value.is_string() ? value.get<std::string>() : value.dump();
    }
  }

  Status ReadKernel(const json& k, const std::string& at, std::map<std::string, size_t>* seen) {
    const std::string where = "kernels[" + at.substr(at.rfind('/') + 1) + "]";
    if (!k.is_object()) return Error("kernel_report.bad_kernel", at, where + " is not an object");
    const auto name = k.find("name");
    if (name == k.end() || !name->is_string() || name->get<std::string>().empty()) {
      return Error("kernel_report.bad_kernel", name == k.end() ? at : at + "/name",
                   where + (name == k.end() ? " has no name" : " has a name that is not a non-empty string"));
    }
    Kernel kernel;
    kernel.name = name->get<std::string>();
    const std::string label = where + " ('" + kernel.name + "')";
    if (auto [it, fresh] = seen->emplace(kernel.name, seen->size()); !fresh) {
      return Error("kernel_report.duplicate_kernel", at + "/name",
                   label + " repeats the name of kernels[" + std::to_string(it->second) + "]");
    }
    for (const auto& [key, value] : k.items()) {
      if (key == "name") continue;
      const std::string pointer = at + "/" + internal::EscapeJsonPointerToken(key);
      if (key == "dispatch_shapes_seen") {
        if (!value.is_array() || !value.empty()) Unknown(pointer, label + ": dispatch_shapes_seen entries are not read");
        continue;
      }
      const bool known = kKnownFigures.count(key) > 0;
      if (!value.is_number()) {
        if (known) return Error("kernel_report.bad_kernel", pointer, label + ": " + key + " is not a number");
        Unknown(pointer, label + ": field '" + key + "' is not a number and is not read");
        continue;
      }
      const Number n = NumberOf(value);
      if (!std::isfinite(n.value) || n.value < 0) {
        return Error("kernel_report.bad_value", pointer, label + ": " + key + " is " + value.dump() +
                                                             "; a timing figure is finite and not negative");
      }
      if (IsSummed(key) && n.value > kMaxFigure) {
        return Error("kernel_report.bad_value", pointer,
                     label + ": " + key + " is " + value.dump() +
                         "; a per-token or per-call figure is at most 1e18, so that no sum of them overflows");
      }
      if (!known) Unknown(pointer, label + ": numeric field '" + key + "' (kept as a figure)");
      kernel.figures[key] = n;
    }
    for (std::string_view required : kRequiredFigures) {
      if (kernel.figures.count(std::string(required)) == 0) {
        return Error("kernel_report.bad_kernel", at, label + " has no " + std::string(required));
      }
    }
    kernel.matched = MatchName(kernel.name);
    kernel.family = attribution::KernelFamily(families_, kernel.matched);
    report_.kernels.push_back(std::move(kernel));
    return Status();
  }

  // candle's timer overflows its sample buffer: dispatches it dropped are missing from
  // every per-token figure.
  // The count is a JSON integer of at least 0: "12abc" or 1.5 is no count of
  // dispatches, and is refused rather than read as 12.
  Status CountDroppedSamples(const json& root) {
    const auto notes = root.find("instrumentation_notes");
    if (notes == root.end() || !notes->is_object()) return Status();
    const auto count = notes->find("overflow_count");
    if (count == notes->end()) return Status();
    const bool whole = count->is_number_unsigned() || (count->is_number_integer() && count->get<int64_t>() >= 0);
    if (!whole) {
      return Error("kernel_report.bad_value", "/instrumentation_notes/overflow_count",
                   "instrumentation_notes.overflow_count is " + count->dump() +
                       "; a count of untimed dispatches is an integer of at least 0");
    }
    if (count->get<uint64_t>() > 0) {
      report_.diagnostics.Add("kernel_report.dropped_samples", {path_},
                              count->dump() + " dispatches were not timed (instrumentation_notes.overflow_count): "
                                              "per-token figures undercount");
    }
    return Status();
  }

  const std::string& path_;
  const std::string& text_;
  const attribution::KernelFamilyTable& families_;
  KernelReport report_;
};

}  // namespace

void CountMergedKernels(KernelReport* report) {
  std::map<std::string, int> by_match;
  for (const Kernel& k : report->kernels) {
    if (++by_match[k.matched] > 1) {
      report->diagnostics.Add("kernel_report.merged_kernels", {report->path},
                              "'" + k.name + "' shares the matched name '" + k.matched + "' with another kernel");
    }
  }
}

StatusOr<KernelReport> ParseKernelReportJson(const std::string& path, const std::string& text,
                                             const attribution::KernelFamilyTable& families) {
  auto root = internal::ParseJsonObject(text, path, {"kernel_report.not_json", "kernel_report.too_deep"});
  if (!root.ok()) return root.status();
  return Reader(path, text, families).Read(*root);
}

StatusOr<KernelReport> ReadKernelReport(const std::string& path, const attribution::KernelFamilyTable& families) {
  auto text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  return ParseKernelReportJson(path, *text, families);
}

namespace {

// The file's first byte that is not white space opens a JSON value.
bool OpensJson(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && (text[first] == '{' || text[first] == '[');
}

// Read as JSON: it opens like JSON or is named .json (so that its errors are JSON's).
bool IsJsonReport(const std::string& path, std::string_view text) {
  return OpensJson(text) || std::filesystem::path(path).extension() == ".json";
}

}  // namespace

StatusOr<KernelReport> ReadKernelReport(const std::string& path, const ReadOptions& options) {
  auto text = internal::ReadWholeFile(path);
  if (!text.ok()) return text.status();
  if (IsJsonReport(path, *text)) {
    if (options.tokens) {
      return Status::Error("kernel_report.tokens_given",
                           "a JSON per-kernel report holds its own per-token figures: a token count is for nsys "
                           "stats reports",
                           {path});
    }
    return ParseKernelReportJson(path, *text, options.families ? *options.families : DefaultReportFamilies());
  }
  if (const size_t bad = internal::FindInvalidUtf8(*text); bad != std::string::npos) {
    return Status::Error("nsys_stats.bad_utf8", "the report is not UTF-8 (a byte that breaks it)",
                         internal::LineIndex(*text).Locate(path, bad));
  }
  return nsys_stats::ReadStatsReport(path, *text, options);
}

bool LooksLikeKernelReport(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  if (IsJsonReport(path, head)) {
    return std::filesystem::path(path).extension() == ".json" && head.find("\"kernels\"") != std::string::npos &&
           head.find("\"traceEvents\"") == std::string::npos;
  }
  return nsys_stats::HasStatsTable(head);
}

}  // namespace perfgate::kernel_report
