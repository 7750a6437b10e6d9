// What the interchange formats share: the selected series and their runs as a table
// (the exports), and the located errors, run keys and contexts of the importers.
#ifndef PERFGATE_SRC_HISTORY_INTERCHANGE_INTERNAL_H_
#define PERFGATE_SRC_HISTORY_INTERCHANGE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "perfgate/core/status.h"
#include "perfgate/history/interchange.h"

namespace perfgate::history::interchange {

// One run of the table: its context and, per column, its median (none where it lacks it).
struct TableRow {
  int64_t run_id = 0;
  std::string time;
  std::string commit;
  std::string branch;
  std::vector<std::optional<double>> cells;
};

// The selected series as columns and the runs holding any of them as rows, oldest first.
struct RunTable {
  std::vector<SeriesInfo> columns;
  std::vector<std::string> names;  // a column's name: engine.metric, qualified by suite/test when several
  std::vector<TableRow> rows;
};

StatusOr<RunTable> BuildRunTable(Store& store, const SeriesFilter& selection);

// ---------------------------------------------------------------------------------
// Importing.

// history.bad_import at `location`.
Status BadImport(const std::string& message, SourceLocation location = {});

// A run's key from what makes it that run: the file's kind, the run's engine, suite
// and test, its content, and how many runs of the same content came before it in the
// file. 32 hex digits of FNV-1a 128: the same input always gives the same key.
std::string ImportRunKey(ImportKind kind, const RunContext& context, const std::string& engine,
                         std::string_view content, int occurrence);

// Numbers each item by how many equal items came before it in `contents`.
std::vector<int> Occurrences(const std::vector<std::string>& contents);

// The context every run of a file starts from: the options' suite and test (else the
// kind's defaults), time (else `file_time`), commit, branch and machine, and the file in
// meta ("import.file", "import.kind").
RunContext ImportContext(ImportKind kind, const std::string& path, const ImportOptions& options,
                         const std::string& file_time);

// The options' engine, else `own` (what the file names), else kDefaultImportEngine.
std::string ImportEngine(const ImportOptions& options, const std::string& own = "");

// Values of a JSON document read with errors located at their JSON pointer.
class JsonFields {
 public:
  JsonFields(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {}
  // history.bad_import at `pointer` (else the nearest ancestor the text holds).
  Status Error(const std::string& pointer, const std::string& message) const;
  // The member `key` of `object` (at `pointer`), required to be of each kind.
  StatusOr<double> Number(const nlohmann::json& object, const std::string& pointer, const std::string& key) const;
  StatusOr<std::vector<double>> Numbers(const nlohmann::json& object, const std::string& pointer,
                                        const std::string& key) const;
  StatusOr<const nlohmann::json*> Object(const nlohmann::json& object, const std::string& pointer,
                                         const std::string& key) const;
  StatusOr<const nlohmann::json*> Array(const nlohmann::json& object, const std::string& pointer,
                                        const std::string& key) const;
  // A string member, or "" when it is absent or not a string.
  static std::string Text(const nlohmann::json& object, const std::string& key);
  // `key` appended to `pointer` as an RFC 6901 token.
  static std::string Child(const std::string& pointer, const std::string& key);

 private:
  std::string_view text_;
  std::string path_;
};

// The runs of each kind, from the file's text (and, for JSON, its document).
StatusOr<std::vector<Run>> CounterHistoryRuns(std::string_view text, const std::string& path,
                                              const RunContext& base, const std::string& engine);
StatusOr<std::vector<Run>> AttributeReportRuns(const nlohmann::json& root, const JsonFields& fields,
                                               RunContext base, std::string_view text);
StatusOr<std::vector<Run>> GoldenRuns(std::string_view text, const std::string& path, RunContext base,
                                      const ImportOptions& options);
StatusOr<std::vector<Run>> KernelReportRuns(const nlohmann::json& root, const JsonFields& fields,
                                            RunContext base, std::string_view text);
StatusOr<std::vector<Run>> ToksRatioRuns(const nlohmann::json& root, const JsonFields& fields, RunContext base,
                                         const std::string& engine, std::string_view text);

}  // namespace perfgate::history::interchange

#endif  // PERFGATE_SRC_HISTORY_INTERCHANGE_INTERNAL_H_
