// perfgate::gen: a project-owned generator of `xctrace export --xpath` documents.
//
// The xctrace reader's tests and benchmarks need exports that nobody may ship (real
// traces are large, private and recorded on Macs), so this library writes them: the
// exact skeleton of a real export (docs/xctrace-format.md §2), cells with the
// real `fmt` display strings (§5, §6), id/ref interning exactly as Instruments does it
// (§7: one document-wide counter in pre-order, refs to identical earlier values at any
// depth), the Metal tables' column lists (§11), bulk documents of a chosen size, and
// adversarial documents that each carry one named error at a known line:column.
//
// It depends on nothing in perfgate_framework, so a reader bug can never hide a
// generator bug by sharing code with it. Nothing here throws or aborts on data; the
// few preconditions (a permutation that is not one) are reported by return value.
//
// Facts marked [guess] below (display names and types that no real export confirms)
// only matter to code that binds columns by display name or position, which the
// reader must not do.
#ifndef PERFGATE_TOOLS_XCTRACE_GEN_XCTRACE_GEN_H_
#define PERFGATE_TOOLS_XCTRACE_GEN_XCTRACE_GEN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::gen {

// The "none" value of 64-bit ids (accelerator-id, object-id) in real exports.
inline constexpr uint64_t kNoneId = UINT64_MAX;

// ---------------------------------------------------------------------------------
// Cells
// ---------------------------------------------------------------------------------

// One cell of a row, or one child of a composite cell: an element with a tag, an
// optional `fmt`, text, other attributes and child elements. `<sentinel/>` is a cell
// with `sentinel` set and nothing else. Two cells are "identical" for interning when
// every field below (children included, recursively) is equal.
struct Cell {
  std::string tag;
  std::string text;  // raw value, e.g. "329899666"; empty for composites
  std::string fmt;   // display string; written only when has_fmt
  bool has_fmt = false;
  // Attributes other than id/ref/fmt, written after them in this order (a backtrace
  // frame's name and addr, a binary's UUID and path).
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<Cell> children;
  bool sentinel = false;
  // False for elements that real exports never give an id (a backtrace's <source>):
  // written in full every time, while their children are still interned.
  bool interned = true;

  static Cell Sentinel();
};

// Digit grouping of `uint64` fmt strings, which follows the recording Mac's locale.
enum class Locale {
  kEnUs,  // 18,446,744,073,709,551,615
  kDeDe,  // 1.206.362.555
};

// A process as composite cells show it: fmt "name (pid)".
struct ProcessInfo {
  std::string name;
  int64_t pid = 0;
};

// A thread as composite cells show it; its process is nested inside it.
struct ThreadInfo {
  std::string name;
  uint64_t tid = 0;
  ProcessInfo process;
};

// Display strings, exposed so tests can check them without building cells.
// "MM:SS.mmm.uuu", truncated to the microsecond (329899666 -> "00:00.329.899").
// Minutes keep counting past 59 ("75:00.000.000"): no hour field has been seen.
std::string FormatStartTime(int64_t ns);
// "542 ns", "197.58 µs", "1.00 ms", "2.50 s": two decimals rounded half up, and a
// value that rounds to 1000.00 moves to the next unit. UTF-8 µ (U+00B5).
std::string FormatDuration(int64_t ns);
// Lowercase hex with 0x: "0x123457", "0xffffffffffffffff", "0x0".
std::string FormatHex(uint64_t value);
// Grouped decimal: "18,446,744,073,709,551,615" (kEnUs) or "1.206.362.555" (kDeDe).
std::string FormatGrouped(uint64_t value, Locale locale);
// Escapes & < > " ' for text and attribute values alike.
std::string EscapeXml(std::string_view text);

// A leaf with text and fmt, e.g. Leaf("gpu-state", "Active", "Active").
Cell Leaf(std::string tag, std::string text, std::string fmt);
// A leaf without fmt (attribute-only or text-only elements).
Cell LeafWithoutFmt(std::string tag, std::string text);
// A leaf whose fmt equals its text: string-like types (gpu-driver-name, ...).
Cell TextLeaf(std::string tag, std::string text);
// A composite: fmt plus children, no text of its own.
Cell Composite(std::string tag, std::string fmt, std::vector<Cell> children);

// <start-time fmt="00:00.329.899">329899666</start-time>
Cell StartTime(int64_t ns);
// The same for the other time types (event-time, sample-time).
Cell TimeCell(std::string tag, int64_t ns);
// <duration fmt="197.58 µs">197584</duration>
Cell Duration(int64_t ns);
// <metal-command-buffer-id fmt="0x123457">1193047</metal-command-buffer-id>
Cell CommandBufferId(uint64_t id);
// <uint64 fmt="18,446,744,073,709,551,615">18446744073709551615</uint64>
Cell Uint64(uint64_t value, Locale locale = Locale::kEnUs);
// <uint32 fmt="1594567233">1594567233</uint32>: plain decimal fmt.
Cell Uint32(uint32_t value);
// <pid fmt="75">75</pid>
Cell Pid(int64_t pid);
// <tid fmt="0x9ef">2543</tid>
Cell Tid(uint64_t tid);
// <string fmt="…">…</string>; an empty string is <string fmt=""></string>, which is
// not a sentinel.
Cell String(std::string text);
Cell MetalObjectLabel(std::string text);
Cell NarrativeText(std::string text);
Cell MetalDeviceName(std::string text);
// <metal-nesting-level fmt="0">0</metal-nesting-level> (0 = command buffer, 1 = encoder)
Cell NestingLevel(uint32_t depth);
// <metal-workload-priority fmt="0x0">0</metal-workload-priority>
Cell WorkloadPriority(uint64_t priority);
// <connection-uuid64 fmt="78">78</connection-uuid64>
Cell ConnectionUuid(uint64_t uuid);
// <render-buffer-depth fmt="3">3</render-buffer-depth>
Cell RenderBufferDepth(uint32_t depth);
// <gpu-frame-number fmt="Frame 1">1</gpu-frame-number>
Cell GpuFrameNumber(uint64_t frame);
// <size-in-bytes fmt="0 B">0</size-in-bytes>; "1.50 KiB" above 1023 [guess].
Cell SizeInBytes(uint64_t bytes);
// <process fmt="backboardd (75)"><pid fmt="75">75</pid><device-session fmt="TODO">
// TODO</device-session></process>. The device session is a literal "TODO" in real
// 14.3.1 and 26.x exports; pass false to drop it as probe-cli's edited fixture does.
Cell Process(std::string name, int64_t pid, bool with_device_session = true);
Cell Process(const ProcessInfo& process);
// <thread fmt="name (0x9ef) (backboardd, pid: 75)"><tid …/><process …/></thread>, the
// iOS 26 shape. (Instruments 14.3.1 wrote "name  0x9ef (backboardd, pid: 75)"; build
// that with Composite() when an old-style document is wanted.)
Cell Thread(std::string name, uint64_t tid, const ProcessInfo& process);
Cell Thread(const ThreadInfo& thread);
// <formatted-label fmt="…">children…</formatted-label>
Cell FormattedLabel(std::string fmt, std::vector<Cell> children);
// <narrative fmt="…">children…</narrative>
Cell Narrative(std::string fmt, std::vector<Cell> children);

// ---------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------

struct Column {
  std::string mnemonic;          // stable key
  std::string name;              // display name
  std::string engineering_type;  // the tag of this column's cells
};

struct Schema {
  std::string name;
  // Written as documentation="…" when has_documentation (26.x and 27.x exports;
  // absent in 14.3.1).
  std::string documentation;
  bool has_documentation = false;
  std::vector<Column> columns;
};

using Row = std::vector<Cell>;

// One <node>: a schema and its rows.
struct Table {
  Schema schema;
  std::vector<Row> rows;
  // The N of xpath='//trace-toc[1]/run[R]/data[1]/table[N]'.
  int toc_index = 1;
  // The R of that xpath: the recording run the node comes from.
  int run = 1;
  // Writes the node without <schema>: a continuation reusing the previous node's
  // schema (xctrace-format.md §2). The reader must carry the schema forward.
  bool omit_schema = false;
};

// `table` cut into one <node> per entry of `rows_per_node` (the last takes what is
// left), all of its xpath, as one table whose rows span several nodes; the first node
// has the schema, later ones repeat it when `repeat_schema` is set and omit it
// otherwise. Indexed by node, so a test can alter one (its schema, its run).
std::vector<Table> SplitIntoNodes(const Table& table, const std::vector<size_t>& rows_per_node,
                                  bool repeat_schema);

struct WriteOptions {
  // Off: no id or ref anywhere, every value in full (like probe-cli's edited fixture).
  bool intern = true;
  // The first <row> shares the </schema> line as in JS exports (true), or starts a
  // new line as in XQ exports (false).
  bool first_row_on_schema_line = true;
  // Indents <node> by 4 and later rows by 8 spaces, like xctraceprof's hand-indented
  // time-profile.xml. Cells inside a row never get whitespace.
  bool pretty = false;
};

// Streams one document into a string. Interning is document-wide: across rows,
// across <node>s and at every nesting depth. Calls must follow the grammar
// (BeginNode, WriteRow*, EndNode)* Finish; a call out of order is ignored.
//
// Interning uses a hash table over a canonical encoding of each value, so writing
// costs O(bytes) however many distinct values there are.
class ExportWriter {
 public:
  explicit ExportWriter(WriteOptions options = {});
  ~ExportWriter();
  ExportWriter(const ExportWriter&) = delete;
  ExportWriter& operator=(const ExportWriter&) = delete;

  // Reserves room for a document of about `bytes`.
  void Reserve(size_t bytes);
  // Opens a <node> for run[run]/…/table[toc_index]; a null schema writes a
  // schema-less node.
  void BeginNode(int toc_index, const Schema* schema, int run = 1);
  void WriteRow(const Row& row) { WriteRow(row.data(), row.size()); }
  void WriteRow(const Cell* cells, size_t count);
  void EndNode();
  // Closes the document and hands it over; the writer is then spent.
  std::string Finish();

  // Bytes written so far, without the closing tags Finish adds.
  size_t size() const { return out_.size(); }
  // Ids handed out so far (the last id written).
  uint64_t last_id() const { return next_id_ - 1; }
  size_t rows_written() const { return rows_written_; }

 private:
  class InternTable;

  void WriteCell(const Cell& cell);

  WriteOptions options_;
  std::string out_;
  std::string key_;  // scratch for the canonical encoding of one value
  std::unique_ptr<InternTable> interned_;
  uint64_t next_id_ = 1;
  size_t rows_written_ = 0;
  size_t rows_in_node_ = 0;
  int nodes_closed_ = 0;
  bool in_node_ = false;
  bool finished_ = false;
};

// The whole document for these tables, one <node> each, in order.
std::string WriteExport(const std::vector<Table>& tables, const WriteOptions& options = {});
std::string WriteTable(const Table& table, const WriteOptions& options = {});

// Reorders columns and every row's cells alike: new column i is old column order[i].
// Returns false, changing nothing, unless `order` is a permutation of the columns.
bool PermuteColumns(Table* table, const std::vector<size_t>& order);
// Inserts a column (e.g. one no reader knows) at `position` (clamped to the end),
// with `value` in every row.
void InsertColumn(Table* table, size_t position, Column column, const Cell& value);

// ---------------------------------------------------------------------------------
// Metal tables (xctrace-format.md §11)
// ---------------------------------------------------------------------------------

inline constexpr char kExecutionPointsSchema[] = "metal-gpu-execution-points";
inline constexpr char kGpuIntervalsSchema[] = "metal-gpu-intervals";
inline constexpr char kEncodersListSchema[] = "metal-application-encoders-list";
inline constexpr char kSubmissionMapSchema[] = "metal-gpu-submission-to-command-buffer-id";
inline constexpr char kShaderListSchema[] = "metal-shader-profiler-shader-list";
inline constexpr char kCommandBufferSubmissionsSchema[] =
    "metal-application-command-buffer-submissions";
inline constexpr char kDriverIntervalsSchema[] = "metal-driver-intervals";
inline constexpr char kShaderProfilerIntervalsSchema[] = "metal-shader-profiler-intervals";

// The eight schemas above, in this order.
const std::vector<std::string>& MetalSchemaNames();
// The schema with its exact column list, or nullopt for another name.
std::optional<Schema> FindMetalSchema(std::string_view name);

// metal-gpu-execution-points (7). System-wide; one start (function 1) and one end
// (function 2) per GPU submission.
struct ExecutionPointRow {
  int64_t timestamp_ns = 0;
  uint64_t channel_id = 0x123457;
  uint32_t function = 1;  // 1 = start, 2 = end
  // gpu-submission-id; slot-id is written as the same number (truncated to 32 bits).
  uint64_t submission_id = 0;
  uint64_t accelerator_id = kNoneId;
  // The note is <sentinel/> on start rows and an empty string on end rows.
  bool note_sentinel = true;

  static ExecutionPointRow Start(int64_t ts_ns, uint64_t channel, uint64_t submission);
  static ExecutionPointRow End(int64_t ts_ns, uint64_t channel, uint64_t submission);
};

// metal-gpu-intervals (18). The event label is a formatted-label that defines the
// process, so the process column refs the nested definition.
struct GpuIntervalRow {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  std::string channel_name = "Compute";  // Compute / Vertex / Fragment / Blit
  std::optional<uint64_t> frame_number;  // nullopt: <sentinel/>
  int64_t start_latency_ns = 0;
  uint32_t depth = 0;
  std::string label = "Command Buffer 0:Compute Command 0";
  std::string state = "Active";
  uint64_t connection_uuid = 1;
  uint32_t color = 0;
  std::optional<ProcessInfo> process;  // nullopt: unattributed, <sentinel/>
  std::string gpu = "Apple M3 Ultra";
  std::string channel_subtitle = "n/a";
  uint64_t bytes = 0;
  uint64_t cmdbuffer_id = 0;
  uint64_t encoder_id = 0;
  uint64_t gpu_submission_id = 0;  // typed uint64 in this table
};

// metal-application-encoders-list (13): CPU-side encode intervals.
struct EncoderRow {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  ThreadInfo thread;  // the process column is thread.process
  std::string gpu = "Apple M3 Ultra";
  std::optional<uint64_t> frame_number;  // nullopt: <sentinel/>
  std::string cmdbuffer_label = "Command Buffer 0";
  std::string cmdbuffer_label_indexed = "[0] Command Buffer 0";
  std::string encoder_label = "Compute Command 0";
  std::string encoder_label_indexed = "[0] Compute Command 0";
  std::string event_type = "Encoding";
  uint64_t cmdbuffer_id = 0;
  uint64_t encoder_id = 0;
};

// metal-gpu-submission-to-command-buffer-id (16).
struct SubmissionMapRow {
  int64_t timestamp_ns = 0;
  uint64_t cmdbuffer_id = 0;
  uint64_t gpu_submission_id = 0;
  uint64_t segment_id = 0;
  uint64_t segmentlist_id = 0;
  uint64_t encoder_id = 0;
  uint64_t accelerator_id = kNoneId;
  uint64_t channel_id = 0x123457;
  uint32_t submission_type = 0;
  uint64_t metadata_1 = 0;
  uint64_t metadata_2 = 0;
  uint32_t pid = 0;
  std::optional<ProcessInfo> process;  // nullopt: unattributed, <sentinel/>
  uint32_t model = 0;
  uint64_t commit_id = 0;
  uint32_t num_coalesced_encoders = 1;
};

// metal-shader-profiler-shader-list (10): a registry of compiled pipelines.
struct ShaderListRow {
  int64_t timestamp_ns = 0;
  std::string name;  // "kernel_mul_mv_q4_0_f32 (35)"
  std::string label;
  std::string pso_name;
  uint64_t id = 0;
  uint64_t pc_start = 0;
  uint64_t pc_end = 0;
  std::string shader_type = "Compute";
  ProcessInfo process;
  std::string gpu = "Apple M3 Ultra";
};

// metal-application-command-buffer-submissions (15).
struct CommandBufferSubmissionRow {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;  // submission to completion
  std::string event_type = "CommandBufferSubmission";
  std::string gpu = "Apple M3 Ultra";
  std::string track_label = "Command Buffer 0";
  uint32_t num_encoders = 1;
  int64_t encoder_time_ns = 0;
  ThreadInfo thread;  // the process column is thread.process
  uint32_t frame_number = 0;
  uint32_t color = 0;
  uint64_t cmdbuffer_id = 0;
};

// metal-driver-intervals (14). Command-buffer rows (depth 0) label themselves
// "label  ( thread )" with the thread and process nested in the label, so the
// process and thread columns ref those; encoder rows (depth 1) carry only a label.
struct DriverIntervalRow {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  std::string driver_name = "Driver Processing";
  uint32_t depth = 0;  // 0: event-type "Command Buffer"; 1: "Command Encoder"
  std::string label = "Command Buffer 0";
  uint64_t priority = 0;
  uint64_t connection_uuid = 0;
  uint32_t color = 0;
  ThreadInfo thread;
  std::string gpu = "A18 Pro";
  uint64_t object_id = kNoneId;
};

// metal-shader-profiler-intervals (5); empty in every CLI export seen.
struct ShaderProfilerIntervalRow {
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  uint64_t pc = 0;
  uint32_t submission_id = 0;
  std::string datamaster = "Compute";
};

// One row's cells, in schema column order.
Row ExecutionPointCells(const ExecutionPointRow& row);
Row GpuIntervalCells(const GpuIntervalRow& row);
Row EncoderCells(const EncoderRow& row);
Row SubmissionMapCells(const SubmissionMapRow& row);
Row ShaderListCells(const ShaderListRow& row);
Row CommandBufferSubmissionCells(const CommandBufferSubmissionRow& row);
Row DriverIntervalCells(const DriverIntervalRow& row);
Row ShaderProfilerIntervalCells(const ShaderProfilerIntervalRow& row);

// Tables (schema + rows) ready for PermuteColumns, InsertColumn or WriteExport.
Table ExecutionPointsTable(const std::vector<ExecutionPointRow>& rows);
Table GpuIntervalsTable(const std::vector<GpuIntervalRow>& rows);
Table EncodersListTable(const std::vector<EncoderRow>& rows);
Table SubmissionMapTable(const std::vector<SubmissionMapRow>& rows);
Table ShaderListTable(const std::vector<ShaderListRow>& rows);
Table CommandBufferSubmissionsTable(const std::vector<CommandBufferSubmissionRow>& rows);
Table DriverIntervalsTable(const std::vector<DriverIntervalRow>& rows);
Table ShaderProfilerIntervalsTable(const std::vector<ShaderProfilerIntervalRow>& rows);

// Single-table documents.
std::string WriteExecutionPoints(const std::vector<ExecutionPointRow>& rows,
                                 const WriteOptions& options = {});
std::string WriteGpuIntervals(const std::vector<GpuIntervalRow>& rows,
                              const WriteOptions& options = {});
std::string WriteEncodersList(const std::vector<EncoderRow>& rows,
                              const WriteOptions& options = {});
std::string WriteSubmissionMap(const std::vector<SubmissionMapRow>& rows,
                               const WriteOptions& options = {});
std::string WriteShaderList(const std::vector<ShaderListRow>& rows,
                            const WriteOptions& options = {});
std::string WriteCommandBufferSubmissions(const std::vector<CommandBufferSubmissionRow>& rows,
                                          const WriteOptions& options = {});
std::string WriteDriverIntervals(const std::vector<DriverIntervalRow>& rows,
                                 const WriteOptions& options = {});
std::string WriteShaderProfilerIntervals(const std::vector<ShaderProfilerIntervalRow>& rows,
                                         const WriteOptions& options = {});

// `rows` plausible random rows of a Metal schema (deterministic for a seed), or
// nullopt when `schema` is not one of MetalSchemaNames().
std::optional<Table> RandomMetalTable(std::string_view schema, size_t rows, uint64_t seed);

// ---------------------------------------------------------------------------------
// Bulk documents for benchmarks
// ---------------------------------------------------------------------------------

// An execution-points export of about `target_bytes` (within 5 % from about 20 kB
// up): two interleaved channels (0x123457, 0x123458), each running one submission
// at a time; submission ids rising; strictly rising timestamps; durations skewed
// between 1 and 500 µs. Start rows define 3 fresh ids and end rows 1, like the real
// file. Every start has its end. `row_count`, when given, receives the row count.
std::string GenerateExecutionPointsExport(size_t target_bytes, uint64_t seed,
                                          size_t* row_count = nullptr);

// An encoders-list export of about `target_bytes`: a few processes and threads
// (composites, refs after their first row), command buffers of several encoders with
// labels such as "[0] Command Buffer 0" and "layer.12.attn_moe_ffn" (some in UTF-8),
// encoder ids rising by one per row.
std::string GenerateEncodersListExport(size_t target_bytes, uint64_t seed,
                                       size_t* row_count = nullptr);

// ---------------------------------------------------------------------------------
// Adversarial documents
// ---------------------------------------------------------------------------------

// A small document with exactly one defect, the error code a reader must report and
// where: line and column (1-based, columns in bytes) of the offending element's `<`.
// The offending element is: the bad cell for ref/id/type/integer errors; the <row>
// for arity errors; the <node> for missing_schema; the root for empty_export and
// wrong_root; the `<` of the mismatched end tag for not_xml; the <row> that was cut
// for truncated. Exceptions: bad_utf8 points at the bad byte itself, and empty_file
// (no bytes at all) at 1:1, where offset 0 of an empty buffer maps.
struct Anomaly {
  std::string name;           // e.g. "dangling_ref"
  std::string bytes;          // the document
  std::string expected_code;  // e.g. "xctrace.dangling_ref"
  int line = 0;
  int column = 0;
  std::string description;    // one sentence: what is wrong
};

// Every anomaly, in a fixed order; names are unique.
std::vector<Anomaly> AllAnomalies();
std::optional<Anomaly> FindAnomaly(std::string_view name);

}  // namespace perfgate::gen

#endif  // PERFGATE_TOOLS_XCTRACE_GEN_XCTRACE_GEN_H_
