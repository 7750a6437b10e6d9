// Nsight Systems export identity and version (export_identity.h).
#include "sources/nsys/export_identity.h"

#include <charconv>
#include <map>

#include "perfgate/nsys/reader.h"

namespace perfgate::nsys::detail {
namespace {

using internal::Database;
using internal::Statement;

// Newest first: nsys 2022.2 renamed 2022.1's EXPORT_META_DATA.
constexpr const char* kMetadataTables[] = {"META_DATA_EXPORT", "EXPORT_META_DATA"};

// The first row of `sql` exists.
StatusOr<bool> AnyRow(const Database& db, const std::string& sql) {
  auto st = db.Prepare(sql);
  if (!st.ok()) return st.status();
  return st->Next();
}

Status NotAnExport(const Database& db, const std::string& why) {
  return Status::Error("nsys.not_nsys_export", why + ": not an nsys export (nsys export --type sqlite)", {db.path()});
}

// name -> value of a metadata table. Its columns are found by name ("name", "value"),
// else taken as the first two, so a renamed column does not hide the version.
StatusOr<std::map<std::string, std::string>> MetadataRows(const Database& db, const std::string& table) {
  auto st = db.Prepare("SELECT * FROM " + table);
  if (!st.ok()) return st.status();
  int name_column = 0, value_column = 1;
  for (int i = 0; i < st->Columns(); ++i) {
    if (st->Name(i) == "name") name_column = i;
    if (st->Name(i) == "value") value_column = i;
  }
  std::map<std::string, std::string> rows;
  if (st->Columns() < 2) return rows;
  while (true) {
    auto more = st->Next();
    if (!more.ok()) return more.status();
    if (!*more) return rows;
    if (auto name = st->Text(name_column)) rows[std::string(*name)] = std::string(st->Text(value_column).value_or(""));
  }
}

// The major number of "3.25.0"; -1 when the text does not start with one.
int MajorOf(const std::string& version) {
  int major = -1;
  const auto [end, ec] = std::from_chars(version.data(), version.data() + version.size(), major);
  const bool whole = ec == std::errc() && (end == version.data() + version.size() || *end == '.');
  return whole ? major : -1;
}

}  // namespace

StatusOr<ExportIdentity> IdentifyExport(const Database& db) {
  ExportIdentity identity;
  for (const char* table : kMetadataTables) {
    auto has = db.HasTable(table);
    if (!has.ok()) return has.status();
    if (*has) {
      identity.metadata_table = table;
      break;
    }
  }
  auto strings = db.HasTable("StringIds");
  if (!strings.ok()) return strings.status();
  if (!*strings) return identity;
  auto tables = AnyRow(db,
                       "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND "
                       "(name GLOB 'CUPTI_ACTIVITY_KIND_*' OR name GLOB 'TARGET_INFO_*')");
  if (!tables.ok()) return tables.status();
  identity.nsys_tables = *tables;
  return identity;
}

StatusOr<ExportVersion> ReadExportVersion(const Database& db, const ExportIdentity& identity,
                                          Diagnostics* diagnostics) {
  if (!identity.is_export()) {
    return NotAnExport(db, "an SQLite database without META_DATA_EXPORT (or EXPORT_META_DATA), StringIds and "
                           "CUPTI_ACTIVITY_KIND_* tables");
  }
  ExportVersion version;
  if (identity.metadata_table.empty()) {
    diagnostics->Add("nsys.unversioned_export", {db.path()},
                     "no META_DATA_EXPORT or EXPORT_META_DATA table (nsys 2021 or older): read by its tables' names");
    return version;
  }
  auto meta = MetadataRows(db, identity.metadata_table);
  if (!meta.ok()) return meta.status();
  auto schema = meta->find("EXPORT_SCHEMA_VERSION");
  if (schema == meta->end()) return NotAnExport(db, identity.metadata_table + " has no EXPORT_SCHEMA_VERSION row");
  version.schema = schema->second;
  if (auto product = meta->find("EXPORT_PRODUCT_VERSION"); product != meta->end()) version.product = product->second;
  const int major = MajorOf(version.schema);
  if (major < kOldestSchemaMajor || major > kKnownSchemaMajor) {
    return Status::Error("nsys.unknown_schema",
                         "export schema version '" + version.schema + "' (" +
                             (version.product.empty() ? "unknown nsys" : "nsys " + version.product) +
                             "); this reader knows schemas " + std::to_string(kOldestSchemaMajor) + ".x to " +
                             std::to_string(kKnownSchemaMajor) + ".x",
                         {db.path()});
  }
  return version;
}

}  // namespace perfgate::nsys::detail
