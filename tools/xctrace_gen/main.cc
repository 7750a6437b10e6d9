// perfgate-xctrace-gen: writes synthetic `xctrace export` documents for tests,
// benchmarks and bug reports. Exit codes follow the house rule: 0 done, 2 bad usage
// (including an output file that cannot be written).
//
//   perfgate-xctrace-gen --table SCHEMA --rows N [--seed S] [--no-intern] [--out FILE]
//   perfgate-xctrace-gen --bench-exec-points BYTES | --bench-encoders BYTES [--seed S]
//   perfgate-xctrace-gen --anomaly NAME | --list-anomalies
//   perfgate-xctrace-gen --recording OUT_DIR [--engine NAME=PROFILE ...] [--trials N]
//                        [--tokens N] [--seed S] [--no-gzip]
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "xctrace_gen/recording.h"
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
  std::string recording;
  std::vector<std::string> engines;
  int64_t trials = 3;
  int64_t tokens = 64;
  bool no_gzip = false;

  std::string schemas;
  for (const std::string& name : gen::MetalSchemaNames()) schemas += "\n  " + name;
  CLI::Option* table_opt =
      app.add_option("--table", table, "Write N random rows of this Metal schema:" + schemas);
  CLI::Option* rows_opt = app.add_option("--rows", rows, "Row count for --table");
  CLI::Option* seed_opt =
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
  std::string profiles;
  for (const std::string& name : gen::ProfileNames()) profiles += (profiles.empty() ? "" : ", ") + name;
  CLI::Option* recording_opt = app.add_option(
      "--recording", recording,
      "Write a synthetic multi-engine recording into OUT_DIR: OUT_DIR/<engine>/trial-K/"
      "<schema>.xml.gz, toc.xml, meta.json");
  CLI::Option* engine_opt = app.add_option(
      "--engine", engines,
      "With --recording: NAME=PROFILE, repeatable (default hf2q=hf2q llama=llama); profiles: " + profiles);
  CLI::Option* trials_opt = app.add_option("--trials", trials, "With --recording: trials per engine (default 3)");
  CLI::Option* tokens_opt = app.add_option("--tokens", tokens, "With --recording: tokens per trial (default 64)");
  CLI::Option* no_gzip_opt =
      app.add_flag("--no-gzip", no_gzip, "With --recording: write <schema>.xml instead of <schema>.xml.gz");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return UsageError(e.what());
  }

  const int modes = static_cast<int>(table_opt->count() > 0) + static_cast<int>(exec_opt->count() > 0) +
                    static_cast<int>(enc_opt->count() > 0) + static_cast<int>(anomaly_opt->count() > 0) +
                    static_cast<int>(list_opt->count() > 0) + static_cast<int>(recording_opt->count() > 0);
  if (modes != 1) {
    return UsageError(modes == 0 ? "choose a mode: --table, --bench-exec-points, --bench-encoders, "
                                   "--anomaly, --list-anomalies or --recording"
                                 : "choose only one of --table, --bench-exec-points, "
                                   "--bench-encoders, --anomaly, --list-anomalies and --recording");
  }
  const bool recording_flags = engine_opt->count() > 0 || trials_opt->count() > 0 ||
                               tokens_opt->count() > 0 || no_gzip_opt->count() > 0;
  if (recording_opt->count() == 0 && recording_flags) {
    return UsageError("--engine, --trials, --tokens and --no-gzip apply to --recording only");
  }
  const bool table_flags = rows_opt->count() > 0 || no_intern_opt->count() > 0 ||
                           pretty_opt->count() > 0 || newline_opt->count() > 0;
  if (table_opt->count() == 0 && table_flags) {
    return UsageError("--rows, --no-intern, --pretty and --row-on-new-line apply to --table only");
  }

  if (recording_opt->count() > 0) {
    if (!out.empty()) return UsageError("--out does not apply to --recording (OUT_DIR is its argument)");
    gen::RecordingSpec spec;
    if (engines.empty()) engines = {"hf2q=hf2q", "llama=llama"};
    for (const std::string& e : engines) {
      const size_t eq = e.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == e.size()) {
        return UsageError("--engine wants NAME=PROFILE, got '" + e + "'");
      }
      std::optional<gen::EngineProfile> profile = gen::FindProfile(e.substr(eq + 1));
      if (!profile) return UsageError("unknown profile '" + e.substr(eq + 1) + "'; known profiles: " + profiles);
      spec.engines.emplace_back(e.substr(0, eq), std::move(*profile));
    }
    if (trials < 1 || trials > 1000) return UsageError("--trials must be between 1 and 1000");
    if (tokens < 1 || tokens > 100000) return UsageError("--tokens must be between 1 and 100000");
    spec.trials = static_cast<int>(trials);
    spec.tokens = static_cast<int>(tokens);
    spec.seed = seed_opt->count() > 0 ? seed : 1;
    spec.gzip = !no_gzip;
    std::string error;
    if (!gen::ValidateRecordingSpec(spec, &error)) return UsageError(error);
    std::vector<gen::TrialRecording> written;
    if (!gen::WriteRecording(spec, recording, &error, &written)) {
      std::cerr << kProgram << ": " << error << "\n";
      return 2;
    }
    // What went in, so attribution output can be checked against it.
    for (const gen::TrialRecording& r : written) {
      const gen::TrialTruth& t = r.truth;
      int64_t subs = 0, gpu_ns = 0;
      for (const gen::Tally& s : t.steps) {
        subs += s.submissions;
        gpu_ns += s.gpu_ns;
      }
      const double steps = t.decode_steps > 0 ? t.decode_steps : 1;
      std::fprintf(stderr, "%s/trial-%d: %lld prefill submissions, %d decode steps, %.3f submissions/step, "
                   "%.1f GPU us/step",
                   r.engine.c_str(), r.trial, static_cast<long long>(t.prefill.submissions), t.decode_steps,
                   subs / steps, gpu_ns / 1000.0 / steps);
      if (t.label_window_tokens > 0) {
        std::fprintf(stderr, "; label window %d tokens, %.3f submissions/token, %.1f GPU us/token",
                     t.label_window_tokens, static_cast<double>(t.label_window.submissions) / t.label_window_tokens,
                     t.label_window.gpu_ns / 1000.0 / t.label_window_tokens);
      }
      std::fprintf(stderr, "\n");
    }
    std::cerr << kProgram << ": wrote " << spec.engines.size() << " engine(s) x " << spec.trials
              << " trial(s) to " << recording << "\n";
    return 0;
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
