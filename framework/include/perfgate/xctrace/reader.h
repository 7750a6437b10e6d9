// Reader for `xctrace export --xpath` XML (<trace-query-result>).
//
// The whole export is decoded into tables whose cells are bound to columns by schema
// mnemonic. id/ref interning covers every nesting depth with one table per document,
// so a `<process ref>` cell still yields its pid even when the process was first
// written inside a thread inside an earlier row's label. Values come from element
// text, never from `fmt`; `<sentinel/>` is a null distinct from an empty string.
// The format and its pitfalls are documented in src/xctrace/FORMAT.md.
#ifndef PERFGATE_XCTRACE_READER_H_
#define PERFGATE_XCTRACE_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/diagnostics.h"
#include "perfgate/core/status.h"

namespace perfgate::xctrace {

// Strict mode turns the first error-severity anomaly into a Status; lenient mode
// counts every anomaly in the document's Diagnostics and keeps going.
enum class ReadMode { kStrict, kLenient };

struct ReadOptions {
  ReadMode mode = ReadMode::kStrict;
  // When set, an export without any <node> names this schema in its error, and a
  // node of another schema is an xctrace.schema_mismatch.
  std::string expected_schema;
  // Which recording run's tables to keep, by the run each <node>'s xpath names
  // (`run[N]` as Instruments writes it, or `run[@number="N"]`).
  //   0 (default): every table is kept, but a schema (the expected one, when set)
  //     exported from more than one run is an xctrace.multiple_runs error that names
  //     the runs; the reader never picks one of them for the caller.
  //   N > 0: only run N's tables; an export without them (of the expected schema,
  //     when set) is an xctrace.run_not_found error listing the runs present.
  // Both are errors in lenient mode too: they concern the request, not the data.
  int run = 0;
};

// One <col> of a <schema>.
struct Column {
  std::string mnemonic;          // stable key, e.g. "gpu-submission-id"
  std::string name;              // display name, e.g. "GPU Submission ID"
  std::string engineering_type;  // the tag its cells carry, e.g. "metal-command-buffer-id"
};

class Document;
class Table;

// A cell, or a child of a composite cell, with refs already resolved. A cheap handle
// that stays valid while its Document lives.
class Value {
 public:
  // <sentinel/>: the column has no value in this row.
  bool is_sentinel() const;
  // No cell at all (only in lenient mode, after an arity mismatch or a bad ref).
  bool is_missing() const;
  // Either of the two above.
  bool is_null() const { return is_sentinel() || is_missing(); }

  // The element tag, e.g. "start-time" or "process"; empty for null values.
  std::string_view tag() const;
  // The element text (the raw value); empty for composites and null values.
  std::string_view text() const;
  // The display string from `fmt`; empty when absent. For display only.
  std::string_view fmt() const;
  bool has_fmt() const;

  // The text as an integer, for integer engineering types (times in ns, ids, pids).
  // nullopt when the text is not an integer or does not fit.
  std::optional<int64_t> AsInt64() const;
  std::optional<uint64_t> AsUint64() const;
  // True when the tag is one of the integer engineering types.
  bool is_integer_type() const;

  // Child elements of a composite value, in document order.
  size_t child_count() const;
  Value child(size_t index) const;
  // The first child with `tag`, searching depth-first through nested composites;
  // a missing value when there is none. Each distinct value is searched once per tag
  // (memoised in the Document, thread-safe), so values shared through refs cost one
  // visit however many paths lead to them.
  Value Find(std::string_view tag) const;

  // The same number for every cell that resolves to the same interned value of this
  // document (refs included), so a caller can decode a repeated composite once.
  uint32_t identity() const { return index_; }

  // Attributes other than id, ref and fmt (e.g. a backtrace frame's name and addr).
  size_t attribute_count() const;
  std::pair<std::string_view, std::string_view> attribute(size_t index) const;

 private:
  friend class Table;
  friend class Document;
  Value(const void* doc, uint32_t index) : doc_(doc), index_(index) {}
  const void* doc_;
  uint32_t index_;
};

// One table of the trace: the rows of every <node> that belongs to it, concatenated in
// document order. A node belongs to the earlier table of the same `xpath` attribute,
// whether it repeats the schema or omits it. A node with a schema and a new xpath
// starts a table (without an xpath: it continues the xpath-less table of the same
// schema name, if any). A schema-less node of a new xpath continues the previous
// node's table, or, when its xpath names another run, starts a table of that run with
// the same schema. A node that repeats a table's schema with other columns is an
// xctrace.schema_conflict; a schema-less node with no earlier table, an
// xctrace.missing_schema.
class Table {
 public:
  const std::string& schema() const;
  const std::vector<Column>& columns() const;
  // Position of the column with this mnemonic; nullopt when absent.
  std::optional<size_t> ColumnIndex(std::string_view mnemonic) const;
  size_t row_count() const;
  Value cell(size_t row, size_t column) const;
  // Byte offset of a row's <row> tag, and the same as path:line:col.
  size_t RowOffset(size_t row) const;
  SourceLocation RowLocation(size_t row) const;
  // The `xpath` attribute of the table's first <node>.
  const std::string& node_xpath() const;
  // The run its xpath names (`run[N]` or `run[@number="N"]`); 0 when it names none.
  int run() const;
  // How many <node>s the rows came from (1 for a table exported in one piece).
  size_t node_count() const;

 private:
  friend class Document;
  Table(const void* doc, size_t index) : doc_(doc), index_(index) {}
  const void* doc_;
  size_t index_;
};

// A decoded export. Move-only; owns the file bytes that values point into.
class Document {
 public:
  Document(Document&&) noexcept;
  Document& operator=(Document&&) noexcept;
  ~Document();

  const std::string& path() const;
  size_t byte_size() const;
  size_t table_count() const;
  Table table(size_t index) const;
  // The table of this schema (all of its nodes merged; see Table), or nullopt. When
  // one run lists the schema under several TOC tables (kdebug, os-signpost: distinct
  // xpaths), this is the first of them.
  std::optional<Table> FindTable(std::string_view schema) const;
  // Anomalies counted while reading (lenient mode), plus warnings in both modes.
  const Diagnostics& diagnostics() const;
  // Maps a byte offset of this document to path:line:col.
  SourceLocation Locate(size_t offset) const;

  struct Impl;

 private:
  friend StatusOr<Document> ReadExportBuffer(std::string bytes, std::string display_path,
                                             const ReadOptions& options);
  explicit Document(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Decodes an export held in memory. `display_path` names it in errors.
StatusOr<Document> ReadExportBuffer(std::string bytes, std::string display_path,
                                    const ReadOptions& options = {});
// Reads and decodes an export file.
StatusOr<Document> ReadExportFile(const std::string& path, const ReadOptions& options = {});

// True for the engineering types whose text is an integer (start-time, duration,
// uint64, metal-command-buffer-id, pid, ...).
bool IsIntegerEngineeringType(std::string_view engineering_type);

// The "no value" of 64-bit ids (UINT64_MAX), e.g. accelerator-id on every row.
inline constexpr uint64_t kNoId = UINT64_MAX;

}  // namespace perfgate::xctrace

#endif  // PERFGATE_XCTRACE_READER_H_
