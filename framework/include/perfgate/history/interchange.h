// Interchange: a history's runs written for other tools (Bencher's BMF JSON, Apache
// Otava's CSV and the Otava config that reads it), and the files teams already keep
// read into a store (hf2q's counter-report histories, perfgate's JSON reports and
// golden files), so that a history can start from what a team has.
#ifndef PERFGATE_HISTORY_INTERCHANGE_H_
#define PERFGATE_HISTORY_INTERCHANGE_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/history/analysis.h"
#include "perfgate/history/run.h"
#include "perfgate/history/store.h"

namespace perfgate::history {

// ExportBmf's run: the newest run that holds a selected figure.
inline constexpr int64_t kNewestRun = 0;

// Bencher's limit on a measure's name (and slug).
inline constexpr size_t kBmfMaxMeasure = 64;

// One run as Bencher Metric Format JSON: {"<suite>/<test>/<engine>": {"<metric>":
// {"value": median, "lower_value": min sample, "upper_value": max sample}}}, for the
// figures `selection` matches of run `run_id` (kNewestRun: the newest run holding one).
// A figure without samples has "value" only. A metric longer than kBmfMaxMeasure moves
// its scope and part into the benchmark name ("…/<engine>/kernels/<kernel>") and keeps
// its quantity as the measure. Errors: history.unknown_run, history.unknown_series (no
// figure of the run, or of the store, matches).
Status ExportBmf(Store& store, const SeriesFilter& selection, int64_t run_id, std::ostream& out);

// Every run that holds a selected figure, in append order, as CSV for Apache Otava
// (RFC 4180: CRLF line ends, a field with a comma, quote, CR or LF quoted, quotes
// doubled): a header row `time,commit,branch,<column>...`, then one row per run. A
// column per selected series, named `<engine>.<metric>` ("hf2q.gpu_us_per_token"), or
// `<suite>/<test>/<engine>.<metric>` when the selection spans several tests; a cell is
// the run's median, as the shortest text that reads back to the same double, and is
// empty where the run lacks the figure. Errors: history.unknown_series.
Status ExportOtavaCsv(Store& store, const SeriesFilter& selection, std::ostream& out);

struct OtavaConfigOptions {
  std::string test_name = "perfgate";  // the key under Otava's `tests:`
  std::string csv_path = "history.csv";  // where ExportOtavaCsv's output is kept
};

// The Otava config (YAML) that reads ExportOtavaCsv's output of the same selection:
// one csv test, `time_column: time`, `attributes: [commit, branch]`, and a metric per
// column that every row fills, with its direction (-1 where higher is worse, else 1).
// Otava reads every cell of a metric it is given as a number, so a column with empty
// cells is left out and named in a comment. Errors: history.unknown_series.
Status ExportOtavaConfig(Store& store, const SeriesFilter& selection, const OtavaConfigOptions& options,
                         std::ostream& out);

// What a file to import holds.
enum class ImportKind {
  kCounterHistory,   // engine counter reports (hf2q's metrics_baseline.txt): a run per report
  kAttributeReport,  // `perfgate attribute --format json` (schema_version 6): one run, every engine
  kGolden,           // a golden file: one run of one engine
  kKernelReport,     // `perfgate kernel-report --format json`: one run, the engine and any baseline
  kToksRatio,        // `perfgate toks-ratio --format json` (perfgate.toks_ratio/1): one run
};

// "counter_history", "attribute_report", "golden", "kernel_report", "toks_ratio".
const char* ImportKindName(ImportKind kind);

// The engine of files whose figures are one engine's that name none.
inline constexpr const char* kDefaultImportEngine = "hf2q";

struct ImportOptions {
  // The engine of a counter history, a golden or a tok/s verdict; "" takes a golden's
  // context `engine`, else kDefaultImportEngine. Attribute and kernel reports name
  // their engines.
  std::string engine;
  // The runs' suite and test; "" takes the golden's folder and name
  // (golden/<suite>/<test>.json), else the kind's name as the suite and the file's
  // name without its extension as the test.
  std::string suite;
  std::string test;
  // UTC ISO 8601 ("2026-12-05T23:14:00Z") for runs whose file gives no date; "" takes
  // the file's modification time.
  std::string time;
  // Where the file gives none.
  std::string commit;
  std::string branch;
  std::string machine;
};

// A file's runs before they are appended, in file order.
struct ImportedFile {
  ImportKind kind = ImportKind::kCounterHistory;
  std::vector<Run> runs;
};

// Reads and sniffs `path` (see ImportFile) into runs, writing nothing.
StatusOr<ImportedFile> ReadImportFile(const std::string& path, const ImportOptions& options = {});

struct ImportResult {
  ImportKind kind = ImportKind::kCounterHistory;
  std::vector<int64_t> run_ids;  // the store's id of each run, in file order
  int64_t added = 0;             // runs the store did not hold before
};

// Appends the runs of `path`, whatever it is by its content: a counter-report history
// (a run per report: figures "counters/<key>", the title and text values as meta, the
// date in its header as time, else its neighbour's), an attribute JSON report (figures
// and level tables of every engine, the samples its trials keep), a golden, a
// kernel-report or a tok/s-ratio JSON report. Each run's key comes from its content
// and the file's other runs of the same content, so importing a file again, or after
// reports were appended to it, adds only the runs the store lacks. Errors:
// history.bad_import (a file of none of these kinds, or one that does not read as its
// kind; at path:line:col where known), io.* (unreadable), the store's.
StatusOr<ImportResult> ImportFile(Store& store, const std::string& path, const ImportOptions& options = {});

}  // namespace perfgate::history

#endif  // PERFGATE_HISTORY_INTERCHANGE_H_
