// The series an export selects, and their runs as one table.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "history/interchange_internal.h"

namespace perfgate::history::interchange {
namespace {

// Whether the columns come from more than one test, so that engine.metric is ambiguous.
bool SpansSeveralTests(const std::vector<SeriesInfo>& columns) {
  std::set<std::pair<std::string, std::string>> tests;
  for (const SeriesInfo& s : columns) tests.emplace(s.key.suite, s.key.test);
  return tests.size() > 1;
}

}  // namespace

StatusOr<RunTable> BuildRunTable(Store& store, const SeriesFilter& selection) {
  RunTable table;
  PERFGATE_ASSIGN_OR_RETURN(table.columns, MatchingSeries(store, selection));
  const bool qualified = SpansSeveralTests(table.columns);
  std::map<int64_t, TableRow> rows;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    const SeriesKey& key = table.columns[c].key;
    table.names.push_back((qualified ? key.suite + "/" + key.test + "/" : "") + key.engine + "." + key.metric);
    PERFGATE_ASSIGN_OR_RETURN(std::vector<Point> points, store.Points(key));
    for (const Point& p : points) {
      TableRow& row = rows[p.run_id];
      if (row.cells.empty()) {
        row = {p.run_id, p.time, p.commit, p.branch, {}};
        row.cells.resize(table.columns.size());
      }
      row.cells[c] = p.median;
    }
  }
  for (auto& [id, row] : rows) table.rows.push_back(std::move(row));
  return table;
}

}  // namespace perfgate::history::interchange
