// Typed views of the Metal System Trace tables of an `xctrace export`.
//
// Each view turns one decoded Table (reader.h) into a vector of flat row structs with
// units in the field names and strong id types. Columns are bound by mnemonic, never
// by position, so reordered columns and columns added by newer Instruments versions
// do not matter. Values are decoded from element text; `fmt` is used only for the
// display strings of composites (labels, process names). Labels and process names are
// SharedText, decoded once per interned value and shared by every row that refs it.
//
// Column kinds, the same for every view:
//   - required value: the column must exist, and a row whose cell is null (a sentinel)
//     or not an integer is skipped and counted once in `diagnostics` (code
//     xctrace.bad_integer, with the row's location and the column in the detail);
//   - key: the column must exist, but a null cell is kept and means "unattributed"
//     (std::nullopt ids, ProcessRef::is_null);
//   - optional: the column may be absent; absent or null gives std::nullopt (an empty
//     string for labels).
// A key or optional cell whose text is not an integer becomes std::nullopt and is
// counted with the same code; its row is kept.
// A missing required-value or key column is an xctrace.missing_column error naming the
// table and listing its mnemonics. Optional 64-bit ids equal to kNoId (UINT64_MAX,
// Apple's "none") become std::nullopt. When `diagnostics` is null, a row that would be
// skipped or counted is returned as an error instead, so nothing is dropped unseen.
// Columns and their types: docs/xctrace-format.md §11.
#ifndef PERFGATE_XCTRACE_METAL_TABLES_H_
#define PERFGATE_XCTRACE_METAL_TABLES_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfgate/core/diagnostics.h"
#include "perfgate/core/shared_text.h"
#include "perfgate/core/status.h"
#include "perfgate/xctrace/reader.h"

namespace perfgate::xctrace {

// The gpu-submission-id of an execution-point pair: one GPU submission.
struct SubmissionId {
  uint64_t value = 0;
};
// A Metal encoder's encoder-id.
struct EncoderId {
  uint64_t value = 0;
};
// A Metal command buffer's cmdbuffer-id.
struct CommandBufferId {
  uint64_t value = 0;
};

inline bool operator==(SubmissionId a, SubmissionId b) { return a.value == b.value; }
inline bool operator!=(SubmissionId a, SubmissionId b) { return a.value != b.value; }
inline bool operator<(SubmissionId a, SubmissionId b) { return a.value < b.value; }
inline bool operator==(EncoderId a, EncoderId b) { return a.value == b.value; }
inline bool operator!=(EncoderId a, EncoderId b) { return a.value != b.value; }
inline bool operator<(EncoderId a, EncoderId b) { return a.value < b.value; }
inline bool operator==(CommandBufferId a, CommandBufferId b) { return a.value == b.value; }
inline bool operator!=(CommandBufferId a, CommandBufferId b) { return a.value != b.value; }
inline bool operator<(CommandBufferId a, CommandBufferId b) { return a.value < b.value; }

// Print as `submission 1594567233`, `encoder 42`, `cmdbuffer 7` (also used by gtest).
std::ostream& operator<<(std::ostream& os, SubmissionId id);
std::ostream& operator<<(std::ostream& os, EncoderId id);
std::ostream& operator<<(std::ostream& os, CommandBufferId id);

// A `process` cell. A null cell (sentinel) means the row is unattributed: is_null is
// true, name is empty and pid is -1. Never file such a row under another process.
struct ProcessRef {
  SharedText name;   // the `fmt` without its " (pid)" suffix, e.g. "SOLO: Unicorn Run"
  int64_t pid = -1;  // from the `pid` child; -1 when absent
  bool is_null = true;
};

// Decodes a `process` cell (refs already resolved by the reader); null gives is_null.
ProcessRef ReadProcess(const Value& cell);

// metal-gpu-execution-points: one start (function 1) or end (function 2) of a GPU
// submission, system-wide. Required values: timestamp, function, gpu-submission-id.
struct ExecutionPoint {
  static constexpr std::string_view kSchema = "metal-gpu-execution-points";
  int64_t timestamp_ns = 0;     // since run start
  uint64_t channel_id = kNoId;  // kNoId when the column is absent or null
  uint32_t function = 0;        // 1 = start, 2 = end
  SubmissionId submission;
  std::optional<uint64_t> slot_id;         // equals the submission id in real exports
  std::optional<uint64_t> accelerator_id;  // kNoId in every real row, hence nullopt
  size_t row = 0;                          // row index in the table (for locations)
};

// metal-gpu-intervals: GPU time of about one encoder (segment) on one channel.
// Required values: start, duration. Keys: process. Everything else is optional.
struct GpuInterval {
  static constexpr std::string_view kSchema = "metal-gpu-intervals";
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  SharedText channel_name;  // "Compute", "Vertex", "Fragment", "Blit"
  SharedText event_label;   // e.g. "Command Buffer 0:Compute Command 0 …"
  ProcessRef process;
  std::optional<CommandBufferId> cmdbuffer;
  std::optional<EncoderId> encoder;
  std::optional<SubmissionId> submission;   // typed uint64 in this table
  std::optional<int64_t> start_latency_ns;  // "CPU to GPU Latency"
  std::optional<int64_t> depth;             // event-depth (metal-nesting-level)
  std::optional<uint64_t> frame_number;     // null on most compute rows
  size_t row = 0;
};

// metal-application-encoders-list: CPU-side encode intervals (not GPU time).
// Required values: start, duration. Keys: process, cmdbuffer-id, encoder-id.
struct EncoderRow {
  static constexpr std::string_view kSchema = "metal-application-encoders-list";
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  ProcessRef process;
  std::optional<int64_t> thread_tid;   // from the thread cell's `tid` child
  SharedText cmdbuffer_label;          // e.g. "Command Buffer 0" or a setLabel text
  SharedText cmdbuffer_label_indexed;  // e.g. "[0] Command Buffer 0"
  SharedText encoder_label;            // e.g. "Compute Command 0"
  SharedText encoder_label_indexed;    // e.g. "[0] Compute Command 0"
  SharedText event_type;               // e.g. "Encoding"
  std::optional<CommandBufferId> cmdbuffer;
  std::optional<EncoderId> encoder;
  size_t row = 0;
};

// metal-gpu-submission-to-command-buffer-id: which command buffer and encoder a GPU
// submission ran. Required values: timestamp, gpu-submission-id. Keys: cmdbuffer-id,
// encoder-id, process.
struct SubmissionMapRow {
  static constexpr std::string_view kSchema = "metal-gpu-submission-to-command-buffer-id";
  int64_t timestamp_ns = 0;
  SubmissionId submission;
  std::optional<CommandBufferId> cmdbuffer;
  std::optional<EncoderId> encoder;
  std::optional<int64_t> pid;  // the uint32 `pid` column
  ProcessRef process;
  std::optional<uint32_t> num_coalesced_encoders;  // mnemonic `num-coalasced-encoders` (sic)
  std::optional<uint64_t> segment_id;
  std::optional<uint64_t> segment_list_id;
  std::optional<uint64_t> accelerator_id;
  size_t row = 0;
};

// metal-shader-profiler-shader-list: a registry of compiled pipelines, never joined to
// GPU time. Keys: name, process.
struct ShaderRow {
  static constexpr std::string_view kSchema = "metal-shader-profiler-shader-list";
  std::optional<int64_t> timestamp_ns;
  SharedText name;   // e.g. "kernel_mul_mv_q4_0_f32 (35)"
  SharedText label;  // often empty
  SharedText pso_name;
  std::optional<uint64_t> id;
  SharedText shader_type;  // e.g. "Compute"
  ProcessRef process;
  size_t row = 0;
};

// metal-application-command-buffer-submissions: one committed command buffer, from
// submission to completion. Required values: start, duration. Keys: process,
// cmdbuffer-id.
struct CommandBufferSubmission {
  static constexpr std::string_view kSchema = "metal-application-command-buffer-submissions";
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  SharedText track_label;  // the command buffer's label
  std::optional<uint32_t> num_encoders;
  std::optional<int64_t> encoder_time_ns;
  SharedText event_label;  // e.g. `Committed "Command Buffer 0" with 1 encoders`
  ProcessRef process;
  std::optional<CommandBufferId> cmdbuffer;
  size_t row = 0;
};

// metal-driver-intervals: driver-side processing; includes GPU work, so never add it
// to GPU time. Required values: start, duration. Keys: process.
struct DriverInterval {
  static constexpr std::string_view kSchema = "metal-driver-intervals";
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  SharedText event_type;         // "Command Buffer" or "Command Encoder"
  std::optional<int64_t> depth;  // 0 = command buffer, 1 = encoder
  SharedText event_label;        // the formatted-label's display string
  ProcessRef process;
  std::optional<int64_t> thread_tid;
  std::optional<uint64_t> object_id;  // kNoId in every real row, hence nullopt
  size_t row = 0;
};

// metal-shader-profiler-intervals (Shader Timeline): usually empty from the CLI.
// Required values: start, duration. Keys: submission-id.
struct ShaderProfilerInterval {
  static constexpr std::string_view kSchema = "metal-shader-profiler-intervals";
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  std::optional<SubmissionId> submission;  // a uint32 column here
  std::optional<uint64_t> pc;
  size_t row = 0;
};

// One reader per table. Each checks the columns first, then decodes every row.
// ReadExecutionPoints also refuses a point that repeats an earlier one (same time,
// function, submission, channel and slot): xctrace.duplicate_row at the copy, as a
// node exported twice would otherwise be paired and counted twice.
StatusOr<std::vector<ExecutionPoint>> ReadExecutionPoints(const Table& table,
                                                          Diagnostics* diagnostics);
StatusOr<std::vector<GpuInterval>> ReadGpuIntervals(const Table& table, Diagnostics* diagnostics);
StatusOr<std::vector<EncoderRow>> ReadEncoderRows(const Table& table, Diagnostics* diagnostics);
StatusOr<std::vector<SubmissionMapRow>> ReadSubmissionMap(const Table& table,
                                                          Diagnostics* diagnostics);
StatusOr<std::vector<ShaderRow>> ReadShaderList(const Table& table, Diagnostics* diagnostics);
StatusOr<std::vector<CommandBufferSubmission>> ReadCommandBufferSubmissions(
    const Table& table, Diagnostics* diagnostics);
StatusOr<std::vector<DriverInterval>> ReadDriverIntervals(const Table& table,
                                                          Diagnostics* diagnostics);
StatusOr<std::vector<ShaderProfilerInterval>> ReadShaderProfilerIntervals(const Table& table,
                                                                          Diagnostics* diagnostics);

// Finds the table of schema Row::kSchema in `document` (Document::FindTable: the rows
// of all its <node>s, of the run the document was read for) and reads it with the
// matching reader above, e.g. ReadMetalTable<GpuInterval>(doc, &diags). A document
// without that table is an xctrace.schema_mismatch error naming the schema. Defined
// for the eight row types above only.
template <typename Row>
StatusOr<std::vector<Row>> ReadMetalTable(const Document& document, Diagnostics* diagnostics);

}  // namespace perfgate::xctrace

// Ids hash by value, so they can key unordered maps.
namespace std {
template <>
struct hash<perfgate::xctrace::SubmissionId> {
  size_t operator()(perfgate::xctrace::SubmissionId id) const noexcept {
    return hash<uint64_t>()(id.value);
  }
};
template <>
struct hash<perfgate::xctrace::EncoderId> {
  size_t operator()(perfgate::xctrace::EncoderId id) const noexcept {
    return hash<uint64_t>()(id.value);
  }
};
template <>
struct hash<perfgate::xctrace::CommandBufferId> {
  size_t operator()(perfgate::xctrace::CommandBufferId id) const noexcept {
    return hash<uint64_t>()(id.value);
  }
};
}  // namespace std

#endif  // PERFGATE_XCTRACE_METAL_TABLES_H_
