// Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`): CUDA
// kernels, memcpy and memset, CUDA runtime and driver calls, NVTX ranges, processes and
// devices, turned into the model::WorkSet model so that the trace-event
// attribution (attribution::AttributeWork), reports, gates and goldens apply
// unchanged. The file is opened read-only and immutable; its export schema version is
// checked. What each table becomes is documented in src/sources/nsys/FORMAT.md.
//
// Errors name the file: `path: error[nsys.code]: message`.
#ifndef PERFGATE_NSYS_READER_H_
#define PERFGATE_NSYS_READER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "perfgate/attribution/options.h"
#include "perfgate/attribution/summary.h"
#include "perfgate/core/status.h"
#include "perfgate/json_trace/reader.h"

namespace perfgate::nsys {

// The export schema major versions this reader knows: EXPORT_SCHEMA_VERSION 2.x.y
// (nsys 2022.1, metadata table EXPORT_META_DATA) to 3.x.y (META_DATA_EXPORT). Exports
// of nsys 2021 and older carry no version and are read by their tables' names.
inline constexpr int kOldestSchemaMajor = 2;
inline constexpr int kKnownSchemaMajor = 3;

// One nsys export. In `trace`: model::WorkItem::pid and model::WorkItem::process are the host process
// that ran the work (the pid in bits 24-47 of globalPid), tid the stream; correlation ids are remapped to
// be unique across processes; model::HostCall and model::Span pid/tid are the host process
// and thread of globalTid; NVTX ranges are cpu_annotations.
struct NsysExport {
  model::WorkSet trace;
  std::string schema_version;                   // EXPORT_SCHEMA_VERSION, e.g. "3.25.0" ("" for 2021's exports)
  std::string product_version;                  // EXPORT_PRODUCT_VERSION, e.g. "2026.2.1.210" ("" when absent)
  std::map<int64_t, std::string> device_names;  // CUDA device id -> "NVIDIA H100 80GB HBM3"
  std::optional<int64_t> session_start_utc_ns;  // TARGET_INFO_SESSION_START_TIME utcEpochNs
  int64_t rows = 0;                             // rows read from the event tables (kernels, copies, runtime, NVTX)
};

// Reads an export. Errors: io.* (unreadable file), nsys.not_sqlite,
// nsys.not_nsys_export, nsys.unknown_schema, nsys.missing_table, nsys.bad_table.
StatusOr<NsysExport> ReadNsysFile(const std::string& path);

// True when the file is an SQLite database holding an nsys metadata table
// (META_DATA_EXPORT, EXPORT_META_DATA), or StringIds beside CUPTI_ACTIVITY_KIND_* or
// TARGET_INFO_* tables (the exports of nsys 2021, which have no metadata).
bool LooksLikeNsysExport(const std::string& path);

// Reads and attributes one nsys trial with attribution::AttributeWork (GPU work is
// owned by its globalPid process); with options.device and no process filter, only
// processes with work on that device contribute host rows (nsys.other_device_process).
StatusOr<attribution::TrialSummary> SummarizeNsysTrialFile(const std::string& path,
                                                           const attribution::AttributionOptions& options);

}  // namespace perfgate::nsys

#endif  // PERFGATE_NSYS_READER_H_
