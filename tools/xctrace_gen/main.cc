// perfgate-xctrace-gen: writes synthetic `xctrace export` documents for tests,
// benchmarks and bug reports. Exit codes follow the house rule: 0 done, 2 bad usage
// (including an output file that cannot be written).
//
//   perfgate-xctrace-gen --table SCHEMA --rows N [--seed S] [--no-intern] [--out FILE]
//   perfgate-xctrace-gen --bench-exec-points BYTES | --bench-encoders BYTES [--seed S]
//   perfgate-xctrace-gen --anomaly NAME | --list-anomalies
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "xctrace_gen/xctrace_gen.h"

namespace {

constexpr char kProgram[] = "perfgate-xctrace-gen";

int UsageError(const std::string& message) {
  std::cerr << kProgram << ": " << message << "\nRun with --help for usage.\n";
  return 2;
}

int WriteError(const std::string& where) {
  std::cerr << kProgram << ": cannot write " << where << "\n";
  return 2;
}

// Limits that keep a typo from exhausting memory: --table holds every row in memory,
// and a bulk document is built in one string.
constexpr int64_t kMaxRows = 10'000'000;
constexpr int64_t kMaxBytes = int64_t{16} << 30;

// Writes to `path`, or to stdout when it is empty.
bool Emit(const std::string& path, const std::string& bytes) {
  if (path.empty()) {
    std::cout.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    return static_cast<bool>(std::cout);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  return static_cast<bool>(out);
}

std::string Where(const std::string& path) { return path.empty() ? "stdout" : path; }

}  // namespace

int main(int argc, char** argv) {
  namespace gen = perfgate::gen;
  CLI::App app{"Writes synthetic `xctrace export --xpath` documents (Metal tables, bulk "
               "benchmark inputs, adversarial documents). Exactly one mode is required."};
  app.set_help_flag("-h,--help", "Print this help and exit");

  std::string table;
  // Signed, so that "-1" is refused rather than wrapped to a huge count.
  int64_t rows = 0;
  uint64_t seed = 1;
  bool no_intern = false;
  bool pretty = false;
  bool row_on_new_line = false;
  std::string out;
  int64_t bench_exec_points = 0;
  int64_t bench_encoders = 0;
  std::string anomaly;
  bool list_anomalies = false;

  std::string schemas;
  for (const std::string& name : gen::MetalSchemaNames()) schemas += "\n  " + name;
  CLI::Option* table_opt =
      app.add_option("--table", table, "Write N random rows of this Metal schema:" + schemas);
  CLI::Option* rows_opt = app.add_option("--rows", rows, "Row count for --table");
  app.add_option("--seed", seed, "Random seed (default 1); one seed, one document");
  CLI::Option* no_intern_opt =
      app.add_flag("--no-intern", no_intern, "With --table: write no id/ref, every value in full");
  CLI::Option* pretty_opt =
      app.add_flag("--pretty", pretty, "With --table: indent nodes and rows like xctraceprof");
  CLI::Option* newline_opt = app.add_flag(
      "--row-on-new-line", row_on_new_line, "With --table: start the first row on its own line");
  app.add_option("--out", out, "Output file (default: stdout)");
  CLI::Option* exec_opt = app.add_option(
      "--bench-exec-points", bench_exec_points, "Write an execution-points export of about BYTES");
  CLI::Option* enc_opt = app.add_option("--bench-encoders", bench_encoders,
                                        "Write an encoders-list export of about BYTES");
  CLI::Option* anomaly_opt =
      app.add_option("--anomaly", anomaly, "Write the adversarial document NAME");
  CLI::Option* list_opt =
      app.add_flag("--list-anomalies", list_anomalies,
                   "List the adversarial documents: name, expected code, line:column, description");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return UsageError(e.what());
  }

  const int modes = static_cast<int>(table_opt->count() > 0) + static_cast<int>(exec_opt->count() > 0) +
                    static_cast<int>(enc_opt->count() > 0) + static_cast<int>(anomaly_opt->count() > 0) +
                    static_cast<int>(list_opt->count() > 0);
  if (modes != 1) {
    return UsageError(modes == 0 ? "choose a mode: --table, --bench-exec-points, --bench-encoders, "
                                   "--anomaly or --list-anomalies"
                                 : "choose only one of --table, --bench-exec-points, "
                                   "--bench-encoders, --anomaly and --list-anomalies");
  }
  const bool table_flags = rows_opt->count() > 0 || no_intern_opt->count() > 0 ||
                           pretty_opt->count() > 0 || newline_opt->count() > 0;
  if (table_opt->count() == 0 && table_flags) {
    return UsageError("--rows, --no-intern, --pretty and --row-on-new-line apply to --table only");
  }

  if (table_opt->count() > 0) {
    if (rows_opt->count() == 0) return UsageError("--table needs --rows N");
    if (rows < 0 || rows > kMaxRows) {
      return UsageError("--rows must be between 0 and " + std::to_string(kMaxRows));
    }
    std::optional<gen::Table> generated =
        gen::RandomMetalTable(table, static_cast<size_t>(rows), seed);
    if (!generated) return UsageError("unknown schema '" + table + "'; known schemas:" + schemas);
    gen::WriteOptions options;
    options.intern = !no_intern;
    options.pretty = pretty;
    options.first_row_on_schema_line = !row_on_new_line;
    if (!Emit(out, gen::WriteTable(*generated, options))) {
      return WriteError(Where(out));
    }
    return 0;
  }

  if (exec_opt->count() > 0 || enc_opt->count() > 0) {
    const int64_t target = exec_opt->count() > 0 ? bench_exec_points : bench_encoders;
    if (target < 1 || target > kMaxBytes) {
      return UsageError("BYTES must be between 1 and " + std::to_string(kMaxBytes));
    }
    size_t row_count = 0;
    const std::string bytes =
        exec_opt->count() > 0
            ? gen::GenerateExecutionPointsExport(static_cast<size_t>(target), seed, &row_count)
            : gen::GenerateEncodersListExport(static_cast<size_t>(target), seed, &row_count);
    if (!Emit(out, bytes)) return WriteError(Where(out));
    std::cerr << kProgram << ": wrote " << row_count << " rows, " << bytes.size() << " bytes to "
              << Where(out) << "\n";
    return 0;
  }

  if (anomaly_opt->count() > 0) {
    std::optional<gen::Anomaly> found = gen::FindAnomaly(anomaly);
    if (!found) {
      std::string names;
      for (const gen::Anomaly& a : gen::AllAnomalies()) names += "\n  " + a.name;
      return UsageError("unknown anomaly '" + anomaly + "'; known anomalies:" + names);
    }
    if (!Emit(out, found->bytes)) return WriteError(Where(out));
    std::cerr << kProgram << ": " << found->name << ": expect error[" << found->expected_code
              << "] at " << found->line << ":" << found->column << "\n";
    return 0;
  }

  std::string listing;
  for (const gen::Anomaly& a : gen::AllAnomalies()) {
    listing += a.name + "\t" + a.expected_code + "\t" + std::to_string(a.line) + ":" +
               std::to_string(a.column) + "\t" + a.description + "\n";
  }
  if (!Emit(out, listing)) return WriteError(Where(out));
  return 0;
}
