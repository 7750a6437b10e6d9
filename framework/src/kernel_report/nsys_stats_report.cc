// A table of `nsys stats` as a per-kernel report (nsys_stats.h): which table, what each
// column means, and the figures of each row.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/string_util.h"
#include "kernel_report/nsys_stats.h"
#include "kernel_report/read_common.h"
#include "perfgate/attribution/kernel_families.h"
#include "perfgate/core/names.h"

namespace perfgate::kernel_report::nsys_stats {
namespace {

// What a column holds.
enum class Role { kTimePct, kTotal, kCount, kMean, kMedian, kMin, kMax, kStdDev, kName, kUnread };

// A column title's role, by its words before any "(unit)": nsys 2022 on writes
// "Avg (ns)", nsys 2021 "Average"; the count is "Instances" (kernels, NVTX ranges),
// "Num Calls" or "Calls" (API), "Count" or "Operations" (memory operations).
Role RoleOf(std::string_view title) {
  const std::string_view t = TrimSpace(title.substr(0, title.find('(')));
  if (StartsWith(TrimSpace(title), "Time (%)") || StartsWith(TrimSpace(title), "Time(%)")) return Role::kTimePct;
  static const std::map<std::string_view, Role> kRoles = {
      {"Total Time", Role::kTotal}, {"Instances", Role::kCount}, {"Num Calls", Role::kCount},
      {"Calls", Role::kCount},      {"Count", Role::kCount},     {"Operations", Role::kCount},
      {"Avg", Role::kMean},         {"Average", Role::kMean},    {"Med", Role::kMedian},
      {"Median", Role::kMedian},    {"Min", Role::kMin},         {"Minimum", Role::kMin},
      {"Max", Role::kMax},          {"Maximum", Role::kMax},     {"StdDev", Role::kStdDev},
      {"Std Dev", Role::kStdDev},   {"Name", Role::kName},       {"Operation", Role::kName},
      {"Range", Role::kName}};
  auto it = kRoles.find(t);
  return it == kRoles.end() ? Role::kUnread : it->second;
}

// Nanoseconds per unit of a title's "(ns)", or of an old title's "(nanoseconds)";
// none for a unit that is no time.
std::optional<double> NsPer(std::string_view unit) {
  static const std::map<std::string_view, double> kUnits = {
      {"", 1},       {"ns", 1},           {"nanoseconds", 1}, {"us", 1e3}, {"usec", 1e3},
      {"microseconds", 1e3}, {"ms", 1e6}, {"msec", 1e6},      {"milliseconds", 1e6},
      {"s", 1e9},    {"sec", 1e9},        {"seconds", 1e9}};
  auto it = kUnits.find(unit);
  return it == kUnits.end() ? std::nullopt : std::optional<double>(it->second);
}

// The unit in a title's parentheses ("Total Time (us)" -> "us"), else `fallback`.
std::string_view UnitOf(std::string_view title, std::string_view fallback) {
  const size_t open = title.find('(');
  const size_t close = title.find(')', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return fallback;
  return TrimSpace(title.substr(open + 1, close - open - 1));
}

// The figure key and name of each role that holds a per-instance time.
struct TimeRole {
  Role role;
  const char* key;
  const char* label;  // as the report's statistics are listed
};
constexpr TimeRole kTimeRoles[] = {{Role::kMean, "mean_ns", "mean"},      {Role::kMedian, "median_ns", "median"},
                                   {Role::kMin, "min_ns", "min"},         {Role::kMax, "max_ns", "max"},
                                   {Role::kStdDev, "stddev_ns", "stddev"}};

// A cell as a number: thousands separators and a trailing '%' dropped.
std::optional<double> NumberOf(std::string_view cell) {
  std::string digits;
  for (char c : TrimSpace(cell)) {
    if (c != ',') digits += c;
  }
  if (!digits.empty() && digits.back() == '%') digits.pop_back();
  if (digits.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  // At most 1e18 (31 years of nanoseconds): sums over any report stay finite.
  if (*end != '\0' || !std::isfinite(v) || v < 0 || v > 1e18) return std::nullopt;
  return v;
}

// The report a table is: its own name, else what its columns say.
std::string ReportOf(const Table& t) {
  if (!t.report.empty()) return t.report;
  for (const std::string& title : t.header) {
    const std::string_view w = TrimSpace(title);
    if (w == "Range") return "nvtx_sum";
    if (w == "Operation") return "cuda_gpu_mem_time_sum";
    if (StartsWith(w, "Num Calls") || w == "Calls") return "cuda_api_sum";
  }
  return "cuda_gpu_kern_sum";
}

bool IsTimeTable(const Table& t) {
  return std::any_of(t.header.begin(), t.header.end(), [](const std::string& h) { return RoleOf(h) == Role::kTotal; });
}

class ReportBuilder {
 public:
  ReportBuilder(const std::string& path, const ReadOptions& options)
      : path_(path),
        options_(options),
        families_(options.families ? *options.families : attribution::CudaKernelFamilies()) {}

  StatusOr<KernelReport> Build(const std::vector<Table>& tables) {
    auto chosen = Choose(tables);
    if (!chosen.ok()) return chosen.status();
    const Table& t = tables[*chosen];
    report_.path = path_;
    report_.name = std::filesystem::path(path_).stem().string();
    PERFGATE_RETURN_IF_ERROR(MapColumns(t));
    if (t.rows.empty()) return Error("nsys_stats.no_rows", t.line, "the " + ReportOf(t) + " table has no rows");
    for (const Row& row : t.rows) PERFGATE_RETURN_IF_ERROR(AddRow(row));
    Describe(t);
    CountMergedKernels(&report_);
    return std::move(report_);
  }

 private:
  Status Error(const char* code, int line, const std::string& message, int column = 1) const {
    return Status::Error(code, message, {path_, line, column});
  }

  // The kernel summary when there is one, else the only time table; the others are
  // named, counted, and not read.
  StatusOr<size_t> Choose(const std::vector<Table>& tables) {
    std::vector<size_t> time_tables, kernels;
    for (size_t i = 0; i < tables.size(); ++i) {
      if (!IsTimeTable(tables[i])) continue;
      time_tables.push_back(i);
      if (ReportOf(tables[i]) == "cuda_gpu_kern_sum") kernels.push_back(i);
    }
    if (time_tables.empty()) {
      return Status::Error("nsys_stats.no_table",
                           "neither a JSON per-kernel report nor the output of nsys stats (no table with a "
                           "\"Total Time\" column)",
                           {path_, 1, 1});
    }
    const std::vector<size_t>& pick = kernels.empty() ? time_tables : kernels;
    if (pick.size() > 1) return Several(tables, pick);
    for (size_t i = 0; i < tables.size(); ++i) {
      if (i == pick[0]) continue;
      report_.diagnostics.Add("nsys_stats.other_report", {path_, tables[i].line, 1},
                              ReportOf(tables[i]) + " (" + std::to_string(tables[i].rows.size()) + " rows)");
    }
    return pick[0];
  }

  Status Several(const std::vector<Table>& tables, const std::vector<size_t>& pick) const {
    std::vector<std::string> names;
    for (size_t i : pick) names.push_back(ReportOf(tables[i]) + " at line " + std::to_string(tables[i].line));
    return Error("nsys_stats.several_reports", tables[pick[1]].line,
                 "the file holds " + std::to_string(pick.size()) + " reports that could be the one read (" +
                     ListNames(names, "") + "): keep one per file (nsys stats --report cuda_gpu_kern_sum)");
  }

  Status MapColumns(const Table& t) {
    for (size_t i = 0; i < t.header.size(); ++i) {
      const Role role = RoleOf(t.header[i]);
      if (role == Role::kUnread) {
        report_.diagnostics.Add("nsys_stats.unread_column", {path_, t.line, 1}, "'" + t.header[i] + "'");
        continue;
      }
      if (role != Role::kName && role != Role::kCount && role != Role::kTimePct) {
        const std::string_view unit = UnitOf(t.header[i], t.unit);
        const auto ns = NsPer(unit);
        if (!ns) return Error("nsys_stats.bad_header", t.line, "'" + t.header[i] + "': a time in an unknown unit");
        ns_per_[role] = *ns;
      }
      columns_[role] = i;
    }
    std::vector<std::string> missing;
    for (const auto& [role, title] : {std::pair{Role::kTotal, "Total Time"}, {Role::kCount, "Instances"},
                                      {Role::kName, "Name"}}) {
      if (columns_.count(role) == 0) missing.emplace_back(title);
    }
    if (missing.empty()) return Status();
    return Error("nsys_stats.bad_header", t.line,
                 "the " + ReportOf(t) + " table has no " + ListNames(missing, "") + " column (columns: " +
                     ListNames(t.header, "") + ")");
  }

  // The number in a row's cell of `role`; none when the table lacks the column.
  StatusOr<std::optional<double>> Cell(const Row& row, Role role) const {
    auto it = columns_.find(role);
    if (it == columns_.end()) return std::optional<double>();
    const std::string& cell = row.cells[it->second];
    auto v = NumberOf(cell);
    if (!v) {
      return Error("nsys_stats.bad_value", row.line, "'" + cell + "' is not a number from 0 to 1e18",
                   row.columns[it->second]);
    }
    auto unit = ns_per_.find(role);
    return std::optional<double>(*v * (unit == ns_per_.end() ? 1 : unit->second));
  }

  Status AddRow(const Row& row) {
    Kernel k;
    k.name = row.cells[columns_.at(Role::kName)];
    if (k.name.empty()) return Error("nsys_stats.bad_row", row.line, "a row without a name");
    NoteName(&k.name, row);
    for (const auto& [role, key] : {std::pair{Role::kTotal, "total_ns"}, {Role::kCount, "total_calls"},
                                    {Role::kTimePct, "time_pct"}}) {
      auto v = Cell(row, role);
      if (!v.ok()) return v.status();
      if (*v) k.figures[key] = Number{**v, role == Role::kCount};
    }
    for (const TimeRole& r : kTimeRoles) {
      auto v = Cell(row, r.role);
      if (!v.ok()) return v.status();
      if (*v) k.figures[r.key] = Number{**v, false};
    }
    const double tokens = options_.tokens ? static_cast<double>(*options_.tokens) : 1.0;
    k.figures["calls_per_token_median"] = {k.figures["total_calls"].value / tokens, false};
    k.figures["us_per_token_median"] = {k.figures["total_ns"].value / 1e3 / tokens, false};
    if (auto m = k.figures.find("median_ns"); m != k.figures.end()) {
      k.figures["us_per_call_median"] = {m->second.value / 1e3, false};
    }
    k.matched = MatchName(k.name);
    k.family = attribution::CudaKernelFamily(families_, k.matched);
    report_.kernels.push_back(std::move(k));
    return Status();
  }

  // A name the column table cut ("…") is counted; a name met before (two cut names
  // that agree) gets " [2]", counted, so that no row is lost or summed.
  void NoteName(std::string* name, const Row& row) {
    if (EndsWith(*name, "\xE2\x80\xA6")) {
      report_.diagnostics.Add("nsys_stats.truncated_name", {path_, row.line, row.columns.back()}, *name);
    }
    const int n = ++seen_[*name];
    if (n == 1) return;
    report_.diagnostics.Add("nsys_stats.repeated_name", {path_, row.line, 1}, *name);
    *name += " [" + std::to_string(n) + "]";
  }

  // The report's metadata, and what its figures are: per token or per run, and which
  // per-instance statistics it holds.
  void Describe(const Table& t) {
    report_.metadata["source"] = "nsys stats";
    report_.metadata["report"] = ReportOf(t);
    report_.metadata["format"] = t.csv ? "csv" : "column table";
    std::vector<std::string> held;
    for (const TimeRole& r : kTimeRoles) {
      if (columns_.count(r.role)) held.emplace_back(r.label);
    }
    report_.metadata["per_instance_statistics"] = ListNames(held, "");
    if (options_.tokens) {
      report_.metadata["n_tokens"] = std::to_string(*options_.tokens);
      report_.numbers["n_tokens"] = Number{static_cast<double>(*options_.tokens), true};
    } else {
      report_.metadata["per"] = "run";
      report_.diagnostics.Add("kernel_report.per_run", {path_},
                              "no token count: per-token figures are per run (give --tokens N)");
    }
    report_.diagnostics.Add("kernel_report.statistics", {path_},
                            "per instance the report holds " + (held.empty() ? "no statistics" : ListNames(held, "")) +
                                (columns_.count(Role::kMedian) ? "" : "; no median, so no us_per_call_median") +
                                "; no p95 (us_per_call_p95 is absent)");
  }

  const std::string& path_;
  const ReadOptions& options_;
  const attribution::KernelFamilyTable families_;
  KernelReport report_;
  std::map<Role, size_t> columns_;
  std::map<Role, double> ns_per_;
  std::map<std::string, int> seen_;
};

}  // namespace

StatusOr<KernelReport> ReadStatsReport(const std::string& path, std::string_view text, const ReadOptions& options) {
  auto tables = ReadTables(text, path);
  if (!tables.ok()) return tables.status();
  return ReportBuilder(path, options).Build(*tables);
}

}  // namespace perfgate::kernel_report::nsys_stats
