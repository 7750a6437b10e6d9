// Runs as CSV for Apache Otava's csv tests, and the Otava config that reads it.
// Otava (otava/importer.py, CsvImporter) reads the header row, the time column through
// dateparser, the attribute columns as text and every metric column it is given with
// float(): an empty cell there stops its import, so the config names only full columns.
#include <string>

#include <nlohmann/json.hpp>

#include "core/text_cells.h"
#include "history/interchange_internal.h"

namespace perfgate::history {
namespace {

// RFC 4180: a field holding a comma, a quote, CR or LF is quoted, its quotes doubled.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void WriteRecord(const std::vector<std::string>& fields, std::ostream& out) {
  for (size_t i = 0; i < fields.size(); ++i) out << (i ? "," : "") << CsvField(fields[i]);
  out << "\r\n";
}

// A YAML double-quoted scalar: JSON's string escapes are YAML's.
std::string YamlString(const std::string& text) { return nlohmann::json(text).dump(); }

// Otava's direction: 1 when higher is better (or either way), -1 when higher is worse.
int OtavaDirection(Worse worse) { return worse == Worse::kUp ? -1 : 1; }

bool ColumnIsFull(const interchange::RunTable& table, size_t column) {
  for (const interchange::TableRow& row : table.rows) {
    if (!row.cells[column]) return false;
  }
  return true;
}

}  // namespace

Status ExportOtavaCsv(Store& store, const SeriesFilter& selection, std::ostream& out) {
  PERFGATE_ASSIGN_OR_RETURN(interchange::RunTable table, interchange::BuildRunTable(store, selection));
  std::vector<std::string> header = {"time", "commit", "branch"};
  header.insert(header.end(), table.names.begin(), table.names.end());
  WriteRecord(header, out);
  for (const interchange::TableRow& row : table.rows) {
    std::vector<std::string> fields = {row.time, row.commit, row.branch};
    for (const auto& cell : row.cells) fields.push_back(cell ? text::ShortestDouble(*cell) : "");
    WriteRecord(fields, out);
  }
  return Status();
}

Status ExportOtavaConfig(Store& store, const SeriesFilter& selection, const OtavaConfigOptions& options,
                         std::ostream& out) {
  PERFGATE_ASSIGN_OR_RETURN(interchange::RunTable table, interchange::BuildRunTable(store, selection));
  out << "# Apache Otava's test of perfgate's history export (CSV): otava analyze <test>\n"
      << "tests:\n"
      << "  " << YamlString(options.test_name) << ":\n"
      << "    type: csv\n"
      << "    file: " << YamlString(options.csv_path) << "\n"
      << "    time_column: time\n"
      << "    attributes: [commit, branch]\n"
      << "    metrics:\n";
  std::vector<std::string> partial;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (!ColumnIsFull(table, c)) {
      partial.push_back(table.names[c]);
      continue;
    }
    out << "      " << YamlString(table.names[c]) << ":\n"
        << "        column: " << YamlString(table.names[c]) << "\n"
        << "        direction: " << OtavaDirection(table.columns[c].worse) << "\n";
  }
  if (partial.size() == table.columns.size()) out << "      {}\n";
  for (const std::string& name : partial) {
    out << "# left out, some runs lack it (Otava reads an empty cell as an error): " << YamlString(name) << "\n";
  }
  return Status();
}

}  // namespace perfgate::history
