#include "scaling_inputs.h"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "kineto_gen.h"
#include "support/corpus.h"
#include "xctrace_gen/xctrace_gen.h"

namespace perfgate::bench {
namespace {

namespace fs = std::filesystem;

// The directory of this run's inputs, removed at exit.
const fs::path& ScratchDir() {
  static const struct Dir {
    fs::path path = fs::temp_directory_path() / ("perfgate-scaling-" + std::to_string(::getpid()));
    Dir() { fs::create_directories(path); }
    ~Dir() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } dir;
  return dir.path;
}

std::string WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out ? "" : "cannot write " + path.string();
}

ScaledInput MakeXctrace(int64_t megabytes) {
  ScaledInput in;
  in.path = (ScratchDir() / ("execution-points-" + std::to_string(megabytes) + "MB.xml")).string();
  size_t rows = 0;
  in.error = WriteFile(in.path, gen::GenerateExecutionPointsExport(static_cast<size_t>(megabytes) * 1000000, 42, &rows));
  in.rows = static_cast<int64_t>(rows);
  return in;
}

ScaledInput MakeTraceJson(int64_t megabytes) {
  namespace kg = json_trace::gen;
  kg::DecodeTraceSpec spec;
  spec.tokens = 4;
  const double per_token = static_cast<double>(kg::DecodeTrace(spec).size()) / 4.0;
  spec.tokens = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(megabytes) * 1e6 / per_token));
  ScaledInput in;
  in.path = (ScratchDir() / ("kineto-" + std::to_string(megabytes) + "MB.json")).string();
  in.error = WriteFile(in.path, kg::DecodeTrace(spec));
  return in;
}

// SQL on `db`; "" or SQLite's message.
std::string Exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return "";
  std::string error = std::string(message != nullptr ? message : "?") + " in: " + sql.substr(0, 200);
  sqlite3_free(message);
  return error;
}

// The values of the first column of `sql`, as text.
std::vector<std::string> Column(sqlite3* db, const std::string& sql) {
  std::vector<std::string> values;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return values;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* v = sqlite3_column_text(st, 0);
    values.emplace_back(v != nullptr ? reinterpret_cast<const char*>(v) : "");
  }
  sqlite3_finalize(st);
  return values;
}

constexpr const char* kEventTables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                        "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS"};

// `INSERT INTO main.T SELECT ... FROM src.T` with start/end shifted by `shift` ns and
// correlation ids by `ids` (every column kept, in order).
std::string CopyStatement(sqlite3* db, const std::string& table, const std::string& shift, const std::string& ids) {
  std::string select;
  for (const std::string& c : Column(db, "SELECT name FROM pragma_table_info('" + table + "', 'src')")) {
    if (!select.empty()) select += ", ";
    if (c == "start" || c == "end") {
      select += c + " + " + shift;
    } else if (c == "correlationId") {
      select += c + " + " + ids;
    } else {
      select += "\"" + c + "\"";
    }
  }
  return "INSERT INTO main." + table + " SELECT " + select + " FROM src." + table;
}

// Copies the corpus export's schema and its other tables once, then its event
// tables as many times as it takes to reach `megabytes`.
std::string GrowNsys(sqlite3* db, const std::string& corpus, int64_t megabytes, int64_t* rows) {
  std::string e = Exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; ATTACH '" + corpus + "' AS src;");
  if (!e.empty()) return e;
  for (const std::string& sql : Column(db, "SELECT sql FROM src.sqlite_master WHERE type = 'table'")) {
    if (!(e = Exec(db, sql)).empty()) return e;
  }
  for (const std::string& t : Column(db, "SELECT name FROM src.sqlite_master WHERE type = 'table'")) {
    if (std::find(std::begin(kEventTables), std::end(kEventTables), t) == std::end(kEventTables) &&
        !(e = Exec(db, "INSERT INTO main." + t + " SELECT * FROM src." + t)).empty()) {
      return e;
    }
  }
  // Each copy starts after the last one ends; its correlation ids follow the last one's.
  std::string bounds, correlation;
  for (const char* t : kEventTables) {
    bounds += std::string(bounds.empty() ? "" : " UNION ALL ") + "SELECT min(start) AS s, max(end) AS e FROM src." + t;
    if (std::string(t) != "NVTX_EVENTS") {
      correlation += std::string(correlation.empty() ? "" : " UNION ALL ") + "SELECT max(correlationId) AS c FROM src." + t;
    }
  }
  const std::vector<std::string> span = Column(db, "SELECT max(e) - min(s) + 1000 FROM (" + bounds + ")");
  const std::vector<std::string> ids = Column(db, "SELECT max(c) + 1 FROM (" + correlation + ")");
  if (span.empty() || ids.empty() || span[0].empty() || ids[0].empty()) return "the corpus export has no events";
  const int64_t target = megabytes * 1000000;
  int64_t copy = 0;
  if (!(e = Exec(db, "BEGIN")).empty()) return e;
  while (true) {
    for (const char* t : kEventTables) {
      const std::string k = std::to_string(copy);
      if (!(e = Exec(db, CopyStatement(db, t, k + " * " + span[0], k + " * " + ids[0]))).empty()) return e;
    }
    ++copy;
    const auto pages = Column(db, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()");
    if (pages.empty() || std::stoll(pages[0]) >= target) break;
  }
  if (!(e = Exec(db, "COMMIT; DETACH src;")).empty()) return e;
  *rows = 0;
  for (const char* t : kEventTables) *rows += std::stoll(Column(db, std::string("SELECT count(*) FROM ") + t)[0]);
  return "";
}

ScaledInput MakeNsys(int64_t megabytes) {
  ScaledInput in;
  const std::string corpus = testing_support::CorpusFile("nsys/h100_2gpu_1s.sqlite");
  if (corpus.empty()) {
    in.error = "nsys/h100_2gpu_1s.sqlite not found: set PERFGATE_CORPUS_DIR to shared/corpus";
    return in;
  }
  in.path = (ScratchDir() / ("nsys-" + std::to_string(megabytes) + "MB.sqlite")).string();
  sqlite3* db = nullptr;
  if (sqlite3_open(in.path.c_str(), &db) != SQLITE_OK) {
    in.error = "cannot create " + in.path;
  } else {
    in.error = GrowNsys(db, corpus, megabytes, &in.rows);
  }
  sqlite3_close(db);
  return in;
}

// `megabytes` MB of text: `head`, then `row(i)` for i = 0, 1, ... until the size is
// reached, then `tail`.
template <typename Row>
ScaledInput MakeText(const std::string& name, int64_t megabytes, const std::string& head, Row row,
                     const std::string& tail) {
  ScaledInput in;
  in.path = (ScratchDir() / (name + "-" + std::to_string(megabytes) + "MB")).string();
  std::string text = head;
  const size_t target = static_cast<size_t>(megabytes) * 1000000;
  for (int64_t i = 0; text.size() < target; ++i, ++in.rows) text += row(i);
  in.error = WriteFile(in.path, text + tail);
  return in;
}

ScaledInput MakeKernelReport(int64_t megabytes) {
  return MakeText("kernel-report", megabytes, "{\"stack\": \"scaled\", \"kernels\": [\n",
                  [](int64_t i) {
                    const std::string n = std::to_string(i);
                    return std::string(i == 0 ? "" : ",\n") + "{\"name\": \"kernel_mul_mv_" + n +
                           "\", \"calls_per_token_median\": 1.5, \"us_per_token_median\": 12.25, "
                           "\"us_per_call_median\": 8.1, \"us_per_call_p95\": 9.5, \"occupancy_" + n + "\": 0.5}";
                  },
                  "\n]}\n");
}

ScaledInput MakeNsysStats(int64_t megabytes) {
  return MakeText("nsys-stats", megabytes,
                  "\"Time (%)\",\"Total Time (ns)\",\"Instances\",\"Avg (ns)\",\"Med (ns)\",\"Min (ns)\",\"Max (ns)\","
                  "\"StdDev (ns)\",\"Name\"\n",
                  [](int64_t i) {
                    return std::string("\"0.1\",\"1830493\",\"1010\",\"1812.4\",\"1824.0\",\"1792\",\"2752\",\"35.8\","
                                       "\"void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<") +
                           std::to_string(i) + ">>(int, T2, T3)\"\n";
                  },
                  "");
}

ScaledInput MakeCounters(int64_t megabytes) {
  return MakeText("counters", megabytes, "",
                  [](int64_t i) {
                    return "# ====\n# run " + std::to_string(i) +
                           "\n# ====\nmodel: m.gguf\nmedian_tok_per_sec: 92.10\ndispatches_per_token: 1070.52\n"
                           "total_dispatches: 67443\n\n";
                  },
                  "");
}

ScaledInput MakeLlamaBench(int64_t megabytes) {
  return MakeText("llama-bench", megabytes, "",
                  [](int64_t i) {
                    return "{\"build_commit\": \"0253fb21f\", \"build_number\": 9187, \"backends\": \"CUDA\", "
                           "\"gpu_info\": \"NVIDIA H200\", \"model_filename\": \"m.gguf\", \"n_prompt\": 0, "
                           "\"n_gen\": 128, \"n_depth\": " +
                           std::to_string(i) +
                           ", \"avg_ns\": 1000000000, \"stddev_ns\": 1000000, \"avg_ts\": 128.5, \"stddev_ts\": 0.1, "
                           "\"samples_ns\": [999000000, 1001000000], \"samples_ts\": [128.1, 127.9]}\n";
                  },
                  "");
}

}  // namespace

const ScaledInput& GetScaledInput(ScaledSource source, int64_t megabytes) {
  static std::map<std::pair<ScaledSource, int64_t>, ScaledInput> made;
  const auto key = std::make_pair(source, megabytes);
  if (auto it = made.find(key); it != made.end()) return it->second;
  ScaledInput in = source == ScaledSource::kXctrace        ? MakeXctrace(megabytes)
                   : source == ScaledSource::kTraceJson    ? MakeTraceJson(megabytes)
                   : source == ScaledSource::kKernelReport ? MakeKernelReport(megabytes)
                   : source == ScaledSource::kNsysStats    ? MakeNsysStats(megabytes)
                   : source == ScaledSource::kCounters     ? MakeCounters(megabytes)
                   : source == ScaledSource::kLlamaBench   ? MakeLlamaBench(megabytes)
                                                           : MakeNsys(megabytes);
  std::error_code ec;
  if (in.error.empty()) in.bytes = fs::file_size(in.path, ec);
  if (ec) in.error = "cannot stat " + in.path;
  if (!in.error.empty()) in.path.clear();
  return made.emplace(key, std::move(in)).first->second;
}

}  // namespace perfgate::bench
