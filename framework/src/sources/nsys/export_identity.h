// What an SQLite database says of itself as an Nsight Systems export: which metadata
// table it has (the name changed across nsys versions, and 2021's exports have none),
// and its schema and product versions. Shared by the reader and the trial sniff.
#ifndef PERFGATE_SOURCES_NSYS_EXPORT_IDENTITY_H_
#define PERFGATE_SOURCES_NSYS_EXPORT_IDENTITY_H_

#include <string>

#include "core/sqlite_db.h"
#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"

namespace perfgate::nsys::detail {

struct ExportIdentity {
  // "META_DATA_EXPORT" (schema 3: nsys 2022.2 on), "EXPORT_META_DATA" (schema 2:
  // nsys 2022.1), or "" (no metadata table: nsys 2021 and older).
  std::string metadata_table;
  // StringIds beside a CUPTI_ACTIVITY_KIND_* or TARGET_INFO_* table: how an export
  // without metadata is known.
  bool nsys_tables = false;
  bool is_export() const { return !metadata_table.empty() || nsys_tables; }
};

// The database's identity; a broken file is an error.
StatusOr<ExportIdentity> IdentifyExport(const internal::Database& db);

struct ExportVersion {
  std::string schema;   // EXPORT_SCHEMA_VERSION ("3.25.0"); "" without a metadata table
  std::string product;  // EXPORT_PRODUCT_VERSION ("2026.2.1.210"); "" when absent
};

// The export's versions. Errors: nsys.not_nsys_export (neither metadata nor nsys
// tables, or metadata without EXPORT_SCHEMA_VERSION), nsys.unknown_schema (a major
// version outside kOldestSchemaMajor..kKnownSchemaMajor). An export without metadata
// is read by its tables' names, counted as nsys.unversioned_export in `diagnostics`.
StatusOr<ExportVersion> ReadExportVersion(const internal::Database& db, const ExportIdentity& identity,
                                          Diagnostics* diagnostics);

}  // namespace perfgate::nsys::detail

#endif  // PERFGATE_SOURCES_NSYS_EXPORT_IDENTITY_H_
