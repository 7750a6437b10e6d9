// Nsight Systems SQLite export -> model::WorkSet (see FORMAT.md beside this file).
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sources/cuda_launch_kind.h"
#include "sources/nsys/export_identity.h"
#include "sources/nsys/repeated_ids.h"
#include "core/sqlite_db.h"
#include "perfgate/core/names.h"
#include "perfgate/nsys/reader.h"
#include "text_input.h"

namespace perfgate::nsys {
namespace {

using internal::Database;
using internal::Statement;

// The nsys reader's codes for SQLite's failures.
constexpr internal::SqliteCodes kSqliteCodes{"nsys.not_sqlite", "nsys.bad_table", "nsys.uncommitted"};
using model::Span;
using model::WorkItem;
using model::WorkKind;
using model::HostCall;

// Without these there is nothing to attribute; every other table is optional.
constexpr const char* kRequiredTables[] = {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL"};

// Every table the reader reads: each must be one the file stores (no view, virtual
// table or generated column), so that SQLite runs no query of the file's own.
constexpr const char* kTablesRead[] = {
    "META_DATA_EXPORT",           "EXPORT_META_DATA",          "StringIds",
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS",              "PROCESSES",
    "ThreadNames",                "TARGET_INFO_GPU",           "TARGET_INFO_CUDA_GPU",
    "TARGET_INFO_CUDA_DEVICE",    "TARGET_INFO_SESSION_START_TIME", "ENUM_CUDA_MEMCPY_OPER",
    "ENUM_NSYS_EVENT_CLASS",      "ENUM_NSYS_EVENT_TYPE"};

// NVTX_EVENTS.eventType of the two range kinds (ENUM_NSYS_EVENT_TYPE), used when the
// enum table is absent.
constexpr int64_t kNvtxPushPopRange = 59;
constexpr int64_t kNvtxStartEndRange = 60;

// ENUM_CUDA_MEMCPY_OPER's labels, by CUpti_ActivityMemcpyKind, as every schema 3
// export writes them (both corpus exports): the names of copies in older exports.
std::map<int64_t, std::string> CuptiMemcpyKinds() {
  return {{0, "Unknown"},         {1, "Host-to-Device"},   {2, "Device-to-Host"},
          {3, "Host-to-Array"},   {4, "Array-to-Host"},    {5, "Array-to-Array"},
          {6, "Array-to-Device"}, {7, "Device-to-Array"},  {8, "Device-to-Device"},
          {9, "Host-to-Host"},    {10, "Peer-to-Peer"},    {11, "Unified Host-to-Device"},
          {12, "Unified Device-to-Host"}, {13, "Unified Device-to-Device"}};
}

// (pid, correlationId) as one hash key.
struct PairHash {
  size_t operator()(const std::pair<int64_t, int64_t>& p) const {
    return std::hash<int64_t>()(p.first * 0x9E3779B97F4A7C15LL ^ p.second);
  }
};
using PairMap = std::unordered_map<std::pair<int64_t, int64_t>, int64_t, PairHash>;

// A serialized GlobalId: the process id in bits 24-47, the thread id in bits 0-23.
int64_t PidOf(int64_t global_id) { return (global_id >> 24) & 0xFFFFFF; }
int64_t TidOf(int64_t global_id) { return global_id & 0xFFFFFF; }

// PyTorch's emit_nvtx names a range "aten::mm, seq = 12, op_id = 345, sizes = [...]":
// the op name is the phase, the rest makes every range name unique. Returns the op
// name, or the whole text when it carries no such suffix.
std::string_view PytorchOpName(std::string_view text) {
  size_t cut = std::string_view::npos;
  for (std::string_view marker : {", seq = ", ", op_id = "}) cut = std::min(cut, text.find(marker));
  return cut == std::string_view::npos ? text : text.substr(0, cut);
}

class Reader {
 public:
  Reader(const Database& db, NsysExport* out) : db_(db), out_(out) {}

  Status Read() {
    for (const char* table : kTablesRead) PERFGATE_RETURN_IF_ERROR(db_.RequireStoredTable(table));
    PERFGATE_RETURN_IF_ERROR(ReadExportMetadata());
    PERFGATE_RETURN_IF_ERROR(RequireTables());
    PERFGATE_RETURN_IF_ERROR(ReadStrings());
    PERFGATE_RETURN_IF_ERROR(ReadKernels());
    PERFGATE_RETURN_IF_ERROR(ReadMemcpys());
    PERFGATE_RETURN_IF_ERROR(ReadMemsets());
    PERFGATE_RETURN_IF_ERROR(ReadRuntimeCalls());
    PERFGATE_RETURN_IF_ERROR(ReadNvtxRanges());
    PERFGATE_RETURN_IF_ERROR(ReadProcesses());
    PERFGATE_RETURN_IF_ERROR(ReadThreadNames());
    PERFGATE_RETURN_IF_ERROR(ReadDevices());
    PERFGATE_RETURN_IF_ERROR(ReadSessionStart());
    CheckWorkRows();
    Flush();
    trace().events = out_->rows;
    return Status();
  }

 private:
  model::WorkSet& trace() { return out_->trace; }
  Diagnostics& diagnostics() { return out_->trace.diagnostics; }
  SourceLocation Where() const { return {db_.path()}; }

  Status Error(const char* code, const std::string& message) const { return Status::Error(code, message, Where()); }

  // Whether an optional table is there; its absence is counted, never silent.
  StatusOr<bool> Optional(const char* table) {
    auto has = db_.HasTable(table);
    if (has.ok() && !*has) diagnostics().Add("nsys.absent_table", Where(), table);
    return has;
  }

  // Steps through every row of `sql`, calling row(statement) for each.
  template <typename Row>
  Status ForEachRow(const std::string& sql, Row row) {
    auto st = db_.Prepare(sql);
    if (!st.ok()) return st.status();
    while (true) {
      auto more = st->Next();
      if (!more.ok()) return more.status();
      if (!*more) return Status();
      row(*st);
      if (!stop_.ok()) return stop_;
    }
  }

  // The bytes of names copied into the trace, one copy per row: bounded by the file's
  // size, so that one long name shared by many kernels cannot take memory the file
  // does not hold (a 1 MiB name on 20,000 kernels would be 20 GB). Past the bound,
  // the read stops with nsys.too_large.
  void CountNameBytes(size_t n) {
    name_bytes_ += n;
    if (name_bytes_ <= name_budget_ || !stop_.ok()) return;
    stop_ = Error("nsys.too_large", "the kernel names, one copy per row, would take more than " +
                                        std::to_string(name_budget_ >> 20) +
                                        " MiB (8 bytes per byte of the file, and 64 MiB): names shared by very many "
                                        "kernels");
  }

  Status ReadExportMetadata() {
    auto identity = detail::IdentifyExport(db_);
    if (!identity.ok()) return identity.status();
    auto version = detail::ReadExportVersion(db_, *identity, &diagnostics());
    if (!version.ok()) return version.status();
    out_->schema_version = version->schema;
    out_->product_version = version->product;
    return Status();
  }

  Status RequireTables() {
    std::vector<std::string> missing;
    for (const char* table : kRequiredTables) {
      auto has = db_.HasTable(table);
      if (!has.ok()) return has.status();
      if (!*has) missing.emplace_back(table);
    }
    if (missing.empty()) return Status();
    return Error("nsys.missing_table",
                 "the export lacks the table" + std::string(missing.size() > 1 ? "s " : " ") + ListNames(missing) +
                     " (a report without CUDA kernel trace: record with nsys profile --trace=cuda)");
  }

  // An id given twice keeps its first text; a NULL id names nothing: both counted.
  Status ReadStrings() {
    return ForEachRow("SELECT id, value FROM StringIds", [&](const Statement& s) {
      const auto id = s.Int(0);
      if (id && strings_.emplace(*id, std::string(s.Text(1).value_or(""))).second) return;
      diagnostics().Add("nsys.bad_string", Where(),
                        id ? "StringIds id " + std::to_string(*id) + " given twice (the first kept)"
                           : "a StringIds row with a NULL id");
    });
  }

  // The text of a StringIds reference; a dangling one is counted and named.
  std::string StringOf(std::optional<int64_t> id) {
    if (id) {
      auto it = strings_.find(*id);
      if (it != strings_.end()) return it->second;
    }
    diagnostics().Add("nsys.unknown_string", Where(), id ? "StringIds id " + std::to_string(*id) : "a NULL name");
    return id ? "(string " + std::to_string(*id) + ")" : "(unnamed)";
  }

  // A row's [start, end]; a NULL or reversed interval, or a time beyond ±2^61 ns (73
  // years: the trace-event reader's bound, so that every difference of two times fits
  // in int64), drops the row, counted.
  bool Interval(const Statement& s, const char* table, int64_t* start, int64_t* end) {
    constexpr int64_t kMaxTimeNs = int64_t{1} << 61;
    const auto a = s.Int(0);
    const auto b = s.Int(1);
    if (a && b && *b >= *a && *a >= -kMaxTimeNs && *b <= kMaxTimeNs) {
      *start = *a;
      *end = *b;
      return true;
    }
    diagnostics().Add("nsys.bad_interval", Where(),
                      std::string(table) + " row with start " + (a ? std::to_string(*a) : "NULL") + ", end " +
                          (b ? std::to_string(*b) : "NULL"));
    return false;
  }

  // Correlation ids are per process: (pid, id) gets one id unique in the trace. Where
  // the id fits in kPackedIdBits it is packed with the pid (24 bits, PidOf) into one
  // positive number, so no table of every id is kept: that table grew past the caches
  // and made the read of a large export cost more per row than a small one's. Other
  // ids (negative, or huge) are numbered by a map, below zero.
  std::optional<int64_t> Correlation(int64_t pid, std::optional<int64_t> id, const char* table) {
    if (!id) {
      diagnostics().Add("nsys.missing_correlation", Where(), table);
      return std::nullopt;
    }
    if (*id >= 0 && *id < (int64_t{1} << kPackedIdBits) && pid >= 0 && pid <= 0xFFFFFF) {
      return (pid << kPackedIdBits) | *id;
    }
    auto [it, inserted] =
        odd_correlations_.emplace(std::make_pair(pid, *id), -static_cast<int64_t>(odd_correlations_.size()) - 1);
    return it->second;
  }
  static constexpr int kPackedIdBits = 39;

  // The process of a globalPid / globalTid column; NULL is counted (pid 0).
  int64_t Pid(std::optional<int64_t> global_id, const char* table) {
    if (global_id) return PidOf(*global_id);
    diagnostics().Add("nsys.unknown_process", Where(), table);
    return 0;
  }

  // Rows per table, kept by pointer while reading (one string-keyed map update per
  // table, not per row) and written to event_kinds at the end.
  void Count(const char* table) {
    ++out_->rows;
    ++rows_per_table_[table];
  }

  // A diagnostic met on many rows: counted here, added once with its first detail.
  struct Tally {
    int64_t count = 0;
    std::string first_detail;
    void Add(std::string_view detail) {
      if (count++ == 0) first_detail = std::string(detail);
    }
  };

  void Flush() {
    for (const auto& [table, n] : rows_per_table_) trace().event_kinds[table] += n;
    if (pytorch_suffixes_.count > 0) {
      diagnostics().Add("nsys.pytorch_nvtx_suffix", Where(), pytorch_suffixes_.first_detail);
      diagnostics().AddCount("nsys.pytorch_nvtx_suffix", pytorch_suffixes_.count - 1);
    }
  }

  // GPU work of a CUPTI table whose first columns are start, end, deviceId, streamId,
  // correlationId, globalPid. A NULL device or stream drops the row, counted: no device
  // 0 or stream 0 is made up.
  bool ReadWork(const Statement& s, const char* table, model::WorkKind kind, model::WorkItem* w) {
    Count(table);
    if (!Interval(s, table, &w->start_ns, &w->end_ns)) return false;
    const auto device = s.Int(2);
    const auto stream = s.Int(3);
    if (!device || !stream) {
      diagnostics().Add(device ? "nsys.unknown_stream" : "nsys.unknown_device", Where(),
                        std::string(table) + " row at start " + std::to_string(w->start_ns));
      return false;
    }
    w->kind = kind;
    w->device = *device;
    w->stream = *stream;
    w->pid = Pid(s.Int(5), table);
    if (s.Int(5)) w->process = w->pid;
    w->tid = w->stream;
    w->correlation = Correlation(w->pid, s.Int(4), table);
    return true;
  }

  static constexpr const char* kWorkColumns = "start, end, deviceId, streamId, correlationId, globalPid";

  // Room in `v` for every row of `table` at once. Grown by doubling instead, the
  // vectors of a large export were moved on every growth and overshot by up to twice
  // their size, all fresh memory (2 GB export: peak 2.2 -> 2.8 × the file).
  template <typename T>
  Status ReserveRows(const char* table, std::vector<T>* v) {
    int64_t n = 0;
    PERFGATE_RETURN_IF_ERROR(ForEachRow(std::string("SELECT count(*) FROM ") + table,
                                        [&](const Statement& s) { n = s.Int(0).value_or(0); }));
    v->reserve(v->size() + static_cast<size_t>(std::max<int64_t>(n, 0)));
    return Status();
  }

  // `column` when `table` has it, else "NULL": a column that older exports lack.
  StatusOr<std::string> ColumnOrNull(const char* table, const char* column) const {
    auto has = db_.HasColumn(table, column);
    if (!has.ok()) return has.status();
    return std::string(*has ? column : "NULL");
  }

  // A kernel's name: demangledName, else (NULL, counted) shortName where the table has it.
  Status ReadKernels() {
    const char* table = "CUPTI_ACTIVITY_KIND_KERNEL";
    auto short_name = ColumnOrNull(table, "shortName");
    if (!short_name.ok()) return short_name.status();
    PERFGATE_RETURN_IF_ERROR(ReserveRows(table, &trace().items));
    return ForEachRow(std::string("SELECT ") + kWorkColumns + ", demangledName, " + *short_name + " FROM " + table,
                      [&](const Statement& s) {
                        model::WorkItem w;
                        if (!ReadWork(s, table, model::WorkKind::kKernel, &w)) return;
                        if (!s.Int(6) && s.Int(7)) {
                          diagnostics().Add("nsys.short_name_only", Where(),
                                            "kernel at start " + std::to_string(w.start_ns));
                          w.name = StringOf(s.Int(7));
                        } else {
                          w.name = StringOf(s.Int(6));
                        }
                        CountNameBytes(w.name.size());
                        trace().items.push_back(std::move(w));
                      });
  }

  // One pass over the GPU work in (device, stream, start, end, correlation, kind, name)
  // order. A row that repeats another exactly would count its work twice: the copies
  // are dropped, counted, the first row read kept. One stream runs one kernel at a
  // time: kernels of a stream that overlap are counted (and kept: which one is wrong
  // is not known).
  void CheckWorkRows() {
    std::vector<model::WorkItem>& items = trace().items;
    auto key = [&](size_t i) {
      const model::WorkItem& w = items[i];
      return std::tie(w.device, w.stream, w.start_ns, w.end_ns, w.correlation, w.kind, w.name);
    };
    std::vector<size_t> order(items.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b) || (key(a) == key(b) && a < b); });
    std::vector<bool> copy(items.size(), false);
    const model::WorkItem* busy = nullptr;  // the kernel of this stream that ends last so far
    for (size_t k = 0; k < order.size(); ++k) {
      const model::WorkItem& w = items[order[k]];
      if (k > 0 && key(order[k - 1]) == key(order[k])) {
        copy[order[k]] = true;
        diagnostics().Add("nsys.duplicate_row", Where(), "'" + w.name + "' at " + std::to_string(w.start_ns));
        continue;
      }
      if (w.kind != model::WorkKind::kKernel) continue;
      const bool same_stream = busy != nullptr && busy->device == w.device && busy->stream == w.stream;
      if (same_stream && w.start_ns < busy->end_ns) {
        diagnostics().Add("nsys.stream_overlap", Where(),
                          "'" + w.name + "' starts at " + std::to_string(w.start_ns) + " before '" + busy->name +
                              "' ends at " + std::to_string(busy->end_ns) + " (device " + std::to_string(w.device) +
                              ", stream " + std::to_string(w.stream) + ")");
      }
      if (!same_stream || w.end_ns > busy->end_ns) busy = &w;
    }
    size_t kept = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (copy[i]) continue;
      if (kept != i) items[kept] = std::move(items[i]);  // never a self-move: it would empty the name
      ++kept;
    }
    items.resize(kept);
  }

  // ENUM_<name>: id -> label ("Host-to-Device"), empty when the table is absent.
  StatusOr<std::map<int64_t, std::string>> EnumLabels(const char* table) {
    std::map<int64_t, std::string> labels;
    auto has = db_.HasTable(table);
    if (!has.ok()) return has.status();
    if (!*has) return labels;
    PERFGATE_RETURN_IF_ERROR(ForEachRow(std::string("SELECT id, label FROM ") + table, [&](const Statement& s) {
      if (auto id = s.Int(0)) labels[*id] = std::string(s.Text(1).value_or(""));
    }));
    return labels;
  }

  Status ReadMemcpys() {
    const char* table = "CUPTI_ACTIVITY_KIND_MEMCPY";
    auto has = Optional(table);
    if (!has.ok() || !*has) return has.status();
    auto kinds = EnumLabels("ENUM_CUDA_MEMCPY_OPER");
    if (!kinds.ok()) return kinds.status();
    if (kinds->empty()) *kinds = CuptiMemcpyKinds();  // an export older than the enum tables
    PERFGATE_RETURN_IF_ERROR(ReserveRows(table, &trace().items));
    return ForEachRow(std::string("SELECT ") + kWorkColumns + ", copyKind FROM " + table, [&](const Statement& s) {
      model::WorkItem w;
      if (!ReadWork(s, table, model::WorkKind::kMemcpy, &w)) return;
      // nsys stats' own name for a copy: "[CUDA memcpy Host-to-Device]".
      const auto kind = s.Int(6);
      auto it = kind ? kinds->find(*kind) : kinds->end();
      w.name = "[CUDA memcpy " +
               (it != kinds->end() ? it->second : "kind " + (kind ? std::to_string(*kind) : std::string("NULL"))) + "]";
      trace().items.push_back(std::move(w));
    });
  }

  Status ReadMemsets() {
    const char* table = "CUPTI_ACTIVITY_KIND_MEMSET";
    auto has = Optional(table);
    if (!has.ok() || !*has) return has.status();
    PERFGATE_RETURN_IF_ERROR(ReserveRows(table, &trace().items));
    return ForEachRow(std::string("SELECT ") + kWorkColumns + " FROM " + table, [&](const Statement& s) {
      model::WorkItem w;
      if (!ReadWork(s, table, model::WorkKind::kMemset, &w)) return;
      w.name = "[CUDA memset]";
      trace().items.push_back(std::move(w));
    });
  }

  // The eventClass ids of driver calls (ENUM_NSYS_EVENT_CLASS names ending in
  // CUDA_DRIVER), else 1, their id in every schema 3 export.
  StatusOr<std::vector<int64_t>> DriverClasses() {
    std::vector<int64_t> ids;
    auto read = ReadEnumTable("ENUM_NSYS_EVENT_CLASS", "id FROM ENUM_NSYS_EVENT_CLASS WHERE name LIKE '%CUDA_DRIVER'",
                              [&](const Statement& s) {
                                if (auto id = s.Int(0)) ids.push_back(*id);
                              });
    if (!read.ok()) return read.status();
    return *read ? ids : std::vector<int64_t>{1};
  }

  // Calls row(statement) for each row of `SELECT columns` when the export has the enum
  // table (an older schema may lack it: the caller's defaults stand); false without it.
  template <typename Row>
  StatusOr<bool> ReadEnumTable(const char* table, const std::string& columns, Row row) {
    auto has = db_.HasTable(table);
    if (!has.ok() || !*has) return has;
    PERFGATE_RETURN_IF_ERROR(ForEachRow("SELECT " + columns, row));
    return true;
  }

  Status ReadRuntimeCalls() {
    const char* table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    auto has = Optional(table);
    if (!has.ok() || !*has) return has.status();
    auto driver = DriverClasses();
    if (!driver.ok()) return driver.status();
    detail::RepeatedIds ids;
    PERFGATE_RETURN_IF_ERROR(ReserveRows(table, &trace().host_calls));
    PERFGATE_RETURN_IF_ERROR(
        ForEachRow(std::string("SELECT start, end, eventClass, globalTid, correlationId, nameId FROM ") + table,
                   [&](const Statement& s) { ReadRuntimeRow(s, *driver, table, &ids); }));
    for (const detail::RepeatedIds::Pair& p : ids.Repeats()) {
      diagnostics().Add("nsys.duplicate_correlation", Where(),
                        "correlation " + std::to_string(p.id) + " in process " + std::to_string(p.pid));
    }
    return Status();
  }

  // One runtime or driver call; its (process, correlation id) goes to `ids`.
  void ReadRuntimeRow(const Statement& s, const std::vector<int64_t>& driver_classes, const char* table,
                      detail::RepeatedIds* ids) {
    Count(table);
    model::HostCall r;
    if (!Interval(s, table, &r.start_ns, &r.end_ns)) return;
    const auto tid = s.Int(3);
    r.pid = Pid(tid, table);
    r.tid = tid ? TidOf(*tid) : 0;
    const auto cls = s.Int(2);
    r.driver = cls && std::find(driver_classes.begin(), driver_classes.end(), *cls) != driver_classes.end();
    r.name = StringOf(s.Int(5));
    r.kind = sources::CudaHostCallKind(r.name);
    const auto id = s.Int(4);
    if (id) ids->Add(r.pid, *id);
    r.correlation = Correlation(r.pid, id, table);
    trace().host_calls.push_back(std::move(r));
  }

  // The eventType ids of push/pop and start/end ranges.
  StatusOr<std::pair<int64_t, int64_t>> NvtxRangeTypes() {
    std::pair<int64_t, int64_t> types{kNvtxPushPopRange, kNvtxStartEndRange};
    auto read = ReadEnumTable("ENUM_NSYS_EVENT_TYPE",
                              "id, name FROM ENUM_NSYS_EVENT_TYPE "
                              "WHERE name IN ('NvtxPushPopRange', 'NvtxStartEndRange')",
                              [&](const Statement& s) {
                                if (!s.Int(0)) return;
                                (s.Text(1).value_or("") == "NvtxPushPopRange" ? types.first : types.second) = *s.Int(0);
                              });
    if (!read.ok()) return read.status();
    return types;
  }

  Status ReadNvtxRanges() {
    const char* table = "NVTX_EVENTS";
    auto has = Optional(table);
    if (!has.ok() || !*has) return has.status();
    auto types = NvtxRangeTypes();
    if (!types.ok()) return types.status();
    PERFGATE_RETURN_IF_ERROR(ReserveRows(table, &trace().host_spans));
    // 2021's exports hold the text inline, without textId.
    auto text_id = ColumnOrNull(table, "textId");
    if (!text_id.ok()) return text_id.status();
    return ForEachRow("SELECT start, end, eventType, text, " + *text_id + ", globalTid FROM " + table,
                      [&](const Statement& s) { ReadNvtxRow(s, *types, table); });
  }

  void ReadNvtxRow(const Statement& s, std::pair<int64_t, int64_t> range_types, const char* table) {
    Count(table);
    const auto type = s.Int(2);
    if (!type || (*type != range_types.first && *type != range_types.second)) {
      // Marks, domain and category names, thread names: not ranges.
      diagnostics().Add("nsys.skipped_nvtx", Where(),
                        "eventType " + (type ? std::to_string(*type) : std::string("NULL")));
      return;
    }
    model::Span a;
    if (!s.Int(1)) {
      diagnostics().Add("nsys.unclosed_nvtx", Where(), "a range starting at " + std::to_string(s.Int(0).value_or(0)));
      return;
    }
    if (!Interval(s, table, &a.start_ns, &a.end_ns)) return;
    std::string text = s.Text(3) ? std::string(*s.Text(3)) : StringOf(s.Int(4));
    const size_t op = PytorchOpName(text).size();
    if (op != text.size()) {
      pytorch_suffixes_.Add(text);
      text.resize(op);
    }
    a.name = std::move(text);
    const auto tid = s.Int(5);
    a.pid = Pid(tid, table);
    a.tid = tid ? TidOf(*tid) : 0;
    trace().host_spans.push_back(std::move(a));
  }

  Status ReadProcesses() {
    auto has = Optional("PROCESSES");
    if (!has.ok() || !*has) return has.status();
    return ForEachRow("SELECT globalPid, pid, name FROM PROCESSES", [&](const Statement& s) {
      const auto global = s.Int(0);
      const auto pid = s.Int(1);
      if (!pid && !global) return diagnostics().Add("nsys.unknown_process", Where(), "PROCESSES");
      trace().process_names[pid ? *pid : PidOf(*global)] = std::string(s.Text(2).value_or(""));
    });
  }

  Status ReadThreadNames() {
    auto has = Optional("ThreadNames");
    if (!has.ok() || !*has) return has.status();
    return ForEachRow("SELECT nameId, globalTid FROM ThreadNames", [&](const Statement& s) {
      const auto tid = s.Int(1);
      if (!tid) return diagnostics().Add("nsys.unknown_process", Where(), "ThreadNames");
      trace().thread_names[{PidOf(*tid), TidOf(*tid)}] = StringOf(s.Int(0));
    });
  }

  // Device names by CUDA device id, from the newest table that gives them (see
  // FORMAT.md): TARGET_INFO_GPU by its cuDevice, else 2021's TARGET_INFO_CUDA_GPU, else
  // 2021's five-column TARGET_INFO_GPU by its id; then TARGET_INFO_CUDA_DEVICE's
  // cudaId -> gpuId over all of them.
  Status ReadDevices() {
    auto gpus = db_.HasTable("TARGET_INFO_GPU");
    if (!gpus.ok()) return gpus.status();
    auto has_cu_device = *gpus ? db_.HasColumn("TARGET_INFO_GPU", "cuDevice") : StatusOr<bool>(false);
    if (!has_cu_device.ok()) return has_cu_device.status();
    std::map<int64_t, std::string> by_gpu_id;
    if (*gpus) PERFGATE_RETURN_IF_ERROR(ReadGpus(*has_cu_device, &by_gpu_id));
    if (!*has_cu_device) {
      auto old_gpus = db_.HasTable("TARGET_INFO_CUDA_GPU");
      if (!old_gpus.ok()) return old_gpus.status();
      if (*old_gpus) {
        PERFGATE_RETURN_IF_ERROR(ReadCudaGpus());
      } else if (*gpus) {
        out_->device_names.insert(by_gpu_id.begin(), by_gpu_id.end());
      } else {
        // No GPU table at all: nothing for TARGET_INFO_CUDA_DEVICE to map to.
        diagnostics().Add("nsys.absent_table", Where(), "TARGET_INFO_GPU");
        return Status();
      }
    }
    auto cuda = Optional("TARGET_INFO_CUDA_DEVICE");
    if (!cuda.ok() || !*cuda) return cuda.status();
    return ForEachRow("SELECT cudaId, gpuId FROM TARGET_INFO_CUDA_DEVICE", [&](const Statement& s) {
      const auto cuda_id = s.Int(0);
      const auto gpu_id = s.Int(1);
      auto it = gpu_id ? by_gpu_id.find(*gpu_id) : by_gpu_id.end();
      if (cuda_id && it != by_gpu_id.end()) out_->device_names[*cuda_id] = it->second;
    });
  }

  // TARGET_INFO_GPU's names by its id; with a cuDevice column, by CUDA device too. A
  // GPU without a CUDA device (a Windows machine's integrated GPU) names none.
  Status ReadGpus(bool has_cu_device, std::map<int64_t, std::string>* by_gpu_id) {
    const std::string sql = std::string("SELECT id, ") + (has_cu_device ? "cuDevice" : "NULL") + ", name FROM TARGET_INFO_GPU";
    return ForEachRow(sql, [&](const Statement& s) {
      const std::string name(s.Text(2).value_or(""));
      if (auto id = s.Int(0)) (*by_gpu_id)[*id] = name;
      if (!has_cu_device) return;
      const auto cuda = s.Int(1);
      if (cuda && *cuda >= 0) {
        out_->device_names[*cuda] = name;
      } else {
        diagnostics().Add("nsys.non_cuda_gpu", Where(), "'" + name + "' (TARGET_INFO_GPU id " +
                                                            (s.Int(0) ? std::to_string(*s.Int(0)) : "NULL") + ")");
      }
    });
  }

  // 2021's table of CUDA devices: its name under its device id (cuDevice, deviceId or
  // id, the first it has).
  Status ReadCudaGpus() {
    const char* table = "TARGET_INFO_CUDA_GPU";
    std::string id_column;
    for (const char* column : {"cuDevice", "deviceId", "id"}) {
      auto has = db_.HasColumn(table, column);
      if (!has.ok()) return has.status();
      if (*has && id_column.empty()) id_column = column;
    }
    auto has_name = db_.HasColumn(table, "name");
    if (!has_name.ok()) return has_name.status();
    if (id_column.empty() || !*has_name) {
      diagnostics().Add("nsys.absent_column", Where(), std::string(table) + " has no device id or no name column");
      return Status();
    }
    return ForEachRow("SELECT " + id_column + ", name FROM " + table, [&](const Statement& s) {
      if (auto id = s.Int(0)) out_->device_names[*id] = std::string(s.Text(1).value_or(""));
    });
  }

  Status ReadSessionStart() {
    auto has = Optional("TARGET_INFO_SESSION_START_TIME");
    if (!has.ok() || !*has) return has.status();
    return ForEachRow("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME", [&](const Statement& s) {
      if (auto ns = s.Int(0)) out_->session_start_utc_ns = *ns;
    });
  }

  static uint64_t NameBudget(const std::string& path) {
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    return (ec ? 0 : 8 * size) + (uint64_t{64} << 20);
  }

  const Database& db_;
  NsysExport* out_;
  Status stop_;  // set by a row that ends the read (CountNameBytes)
  uint64_t name_bytes_ = 0;
  const uint64_t name_budget_ = NameBudget(db_.path());
  std::unordered_map<int64_t, std::string> strings_;
  PairMap odd_correlations_;  // (pid, id) pairs that Correlation cannot pack
  std::map<const char*, int64_t> rows_per_table_;
  Tally pytorch_suffixes_;
};

}  // namespace

StatusOr<NsysExport> ReadNsysFile(const std::string& path) {
  PERFGATE_RETURN_IF_ERROR(internal::CheckReadableFile(path));
  if (!internal::HasSqliteMagic(path)) {
    return Status::Error(
        "nsys.not_sqlite",
        "not an SQLite database (it does not start with \"SQLite format 3\"); nsys reports (.nsys-rep) "
        "must be exported first: nsys export --type sqlite",
        {path});
  }
  auto db = Database::Open(path, kSqliteCodes);
  if (!db.ok()) return db.status();
  NsysExport out;
  out.trace.path = path;
  PERFGATE_RETURN_IF_ERROR(Reader(*db, &out).Read());
  return out;
}

bool LooksLikeNsysExport(const std::string& path) {
  if (!internal::HasSqliteMagic(path)) return false;
  auto db = Database::Open(path, kSqliteCodes);
  if (!db.ok()) return false;
  auto identity = detail::IdentifyExport(*db);
  return identity.ok() && identity->is_export();
}

}  // namespace perfgate::nsys
