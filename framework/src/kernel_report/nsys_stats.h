// `nsys stats` reports (cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum,
// nvtx_sum, and the gpukernsum-era reports of nsys 2021) as per-kernel reports: the
// text nsys prints (its column table, or CSV with --format csv), whole console
// captures of several reports included. See FORMAT-nsys-stats.md beside this file.
#ifndef PERFGATE_SRC_KERNEL_REPORT_NSYS_STATS_H_
#define PERFGATE_SRC_KERNEL_REPORT_NSYS_STATS_H_

#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/status.h"
#include "perfgate/kernel_report/report.h"

namespace perfgate::kernel_report::nsys_stats {

// One row of a table: its cells, and the 1-based byte column where each starts.
struct Row {
  std::vector<std::string> cells;
  std::vector<int> columns;
  int line = 0;
};

// One table of the text.
struct Table {
  std::string report;  // "cuda_gpu_kern_sum", as the text names it ("" when it names none)
  std::string unit;    // the time unit an old title gives ("nanoseconds"), else ""
  std::vector<std::string> header;  // the column titles as written ("Total Time (ns)")
  int line = 0;                     // the header's line
  bool csv = false;
  std::vector<Row> rows;
};

// Whether `text` holds a table of nsys stats: a header with a "Total Time" title.
bool HasStatsTable(std::string_view text);

// Every table of `text`, in order. Errors (at the row): nsys_stats.bad_row (a CSV row
// with a quote left open or another number of fields than its header; a column-table
// row that ends before its last column).
StatusOr<std::vector<Table>> ReadTables(std::string_view text, const std::string& path);

// The per-kernel report of `text`: its kernel summary, else its only time table.
StatusOr<KernelReport> ReadStatsReport(const std::string& path, std::string_view text, const ReadOptions& options);

}  // namespace perfgate::kernel_report::nsys_stats

#endif  // PERFGATE_SRC_KERNEL_REPORT_NSYS_STATS_H_
