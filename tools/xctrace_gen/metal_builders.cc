// The Metal tables of xctrace-format.md §11: exact column lists, row structs turned
// into cells, and random tables for the CLI.
#include <string>
#include <utility>

#include "xctrace_gen/random.h"
#include "xctrace_gen/xctrace_gen.h"

namespace perfgate::gen {
namespace {

Schema MakeSchema(std::string name, std::string documentation,
                  std::vector<Column> columns) {
  Schema schema;
  schema.name = std::move(name);
  schema.has_documentation = !documentation.empty();
  schema.documentation = std::move(documentation);
  schema.columns = std::move(columns);
  return schema;
}

// Display names marked [guess] have no real export behind them (xctrace-format.md
// marks those tables U); mnemonics and types follow the doc exactly.
const std::vector<Schema>& AllSchemas() {
  static const std::vector<Schema> kSchemas = {
      // [C: JS] names and documentation from a real iOS 26 export.
      MakeSchema(kExecutionPointsSchema, "Denotes an interesting points of activity in the GPU.",
                 {{"timestamp", "Timestamp", "start-time"},
                  {"channel-id", "Channel ID", "metal-command-buffer-id"},
                  {"function", "Function", "uint32"},
                  {"slot-id", "Slot ID", "uint32"},
                  {"gpu-submission-id", "GPU Submission ID", "metal-command-buffer-id"},
                  {"accelerator-id", "Accelerator Id", "uint64"},
                  {"note", "Note", "string"}}),
      // [R: PC spike] names from real 26.0 exports, Apple's "Commmand" typo included;
      // no documentation string is known.
      MakeSchema(kGpuIntervalsSchema, "",
                 {{"start", "Creation", "start-time"},
                  {"duration", "Duration", "duration"},
                  {"channel-name", "Channel Name", "gpu-channel-name"},
                  {"frame-number", "Frame", "gpu-frame-number"},
                  {"start-latency", "CPU to GPU Latency", "duration"},
                  {"event-depth", "Depth", "metal-nesting-level"},
                  {"event-label", "Label", "formatted-label"},
                  {"state", "State", "gpu-state"},
                  {"connection-UUID", "Connection UUID", "connection-uuid64"},
                  {"color", "Color", "render-buffer-depth"},
                  {"process", "Process", "process"},
                  {"gpu", "Metal Device", "metal-device-name"},
                  {"channel-subtitle", "Channel Subtitle", "metal-object-label"},
                  {"iosurface-accesses", "IOSurface Accesses", "formatted-label"},
                  {"bytes", "Bytes", "size-in-bytes"},
                  {"cmdbuffer-id", "Commmand Buffer Id", "metal-command-buffer-id"},
                  {"encoder-id", "Encoder Id", "metal-command-buffer-id"},
                  {"gpu-submission-id", "GPU Submission Id", "uint64"}}),
      // [R: PC spike] names from real 26.0 exports.
      MakeSchema(kEncodersListSchema, "",
                 {{"start", "Creation", "start-time"},
                  {"duration", "Duration", "duration"},
                  {"thread", "Thread", "thread"},
                  {"process", "Process", "process"},
                  {"gpu", "Metal Device", "metal-device-name"},
                  {"frame-number", "Frame", "gpu-frame-number"},
                  {"cmdbuffer-label", "Command Buffer", "metal-object-label"},
                  {"cmdbuffer-label-indexed", "Command Buffer (Indexed)", "metal-object-label"},
                  {"encoder-label", "Encoder", "metal-object-label"},
                  {"encoder-label-indexed", "Encoder (Indexed)", "metal-object-label"},
                  {"event-type", "Event Type", "metal-event-name"},
                  {"cmdbuffer-id", "Commmand Buffer Id", "metal-command-buffer-id"},
                  {"encoder-id", "Encoder Id", "metal-command-buffer-id"}}),
      // [U] documentation is the reported copy-paste string; names [guess].
      MakeSchema(kSubmissionMapSchema, "Maps between Metal command buffer ID and accelerator ID",
                 {{"timestamp", "Timestamp", "start-time"},
                  {"cmdbuffer-id", "Command Buffer ID", "metal-command-buffer-id"},
                  {"gpu-submission-id", "GPU Submission ID", "metal-command-buffer-id"},
                  {"segment-id", "Segment ID", "metal-command-buffer-id"},
                  {"segmentlist-id", "Segment List ID", "metal-command-buffer-id"},
                  {"encoder-id", "Encoder ID", "metal-command-buffer-id"},
                  {"accelerator-id", "Accelerator ID", "uint64"},
                  {"channel-id", "Channel ID", "metal-command-buffer-id"},
                  {"submission-type", "Submission Type", "uint32"},
                  {"metadata-1", "Metadata 1", "uint64"},
                  {"metadata-2", "Metadata 2", "uint64"},
                  {"pid", "PID", "uint32"},
                  {"process", "Process", "process"},
                  {"model", "Model", "uint32"},
                  {"commit-id", "Commit ID", "uint64"},
                  {"num-coalasced-encoders", "Coalesced Encoders", "uint32"}}),
      // [R: HF] columns; names [guess].
      MakeSchema(kShaderListSchema, "",
                 {{"timestamp", "Timestamp", "start-time"},
                  {"name", "Name", "metal-object-label"},
                  {"label", "Label", "metal-object-label"},
                  {"pso-name", "PSO Name", "metal-object-label"},
                  {"id", "ID", "uint64"},
                  {"pc-start", "PC Start", "uint64"},
                  {"pc-end", "PC End", "uint64"},
                  {"shader-type", "Shader Type", "string"},
                  {"process", "Process", "process"},
                  {"gpu", "Metal Device", "metal-device-name"}}),
      // [U] columns; names [guess].
      MakeSchema(kCommandBufferSubmissionsSchema, "",
                 {{"start", "Creation", "start-time"},
                  {"duration", "Duration", "duration"},
                  {"event-type", "Event Type", "metal-event-name"},
                  {"gpu", "Metal Device", "metal-device-name"},
                  {"track-label", "Track Label", "metal-object-label"},
                  {"num-encoders", "Encoder Count", "uint32"},
                  {"encoder-time", "Encoder Time", "duration"},
                  {"process", "Process", "process"},
                  {"thread", "Thread", "thread"},
                  {"event-icon", "Event Icon", "metal-event"},
                  {"event-label", "Event", "narrative"},
                  {"encoder-time-label", "Encoder Time Label", "narrative"},
                  {"frame-number", "Frame", "uint32"},
                  {"color", "Color", "render-buffer-depth"},
                  {"cmdbuffer-id", "Command Buffer Id", "metal-command-buffer-id"}}),
      // [C: JS] names and documentation from a real iOS 26 export.
      MakeSchema(kDriverIntervalsSchema,
                 "Denotes an interesting period of activity in the Metal driver.",
                 {{"start", "Creation", "start-time"},
                  {"duration", "Duration", "duration"},
                  {"gpu-driver-name", "GPU Driver Name", "gpu-driver-name"},
                  {"event-type", "Event Type", "metal-object-label"},
                  {"event-depth", "Depth", "metal-nesting-level"},
                  {"event-label", "Event", "formatted-label"},
                  {"event-priority", "Priority", "metal-workload-priority"},
                  {"connection-UUID", "Connection UUID", "connection-uuid64"},
                  {"color", "Color", "render-buffer-depth"},
                  {"process", "Process", "process"},
                  {"thread", "Thread", "thread"},
                  {"gpu", "Metal Device", "metal-device-name"},
                  {"object-id", "Object ID", "metal-command-buffer-id"},
                  {"lane", "Lane", "formatted-label"}}),
      // [U] mnemonics; the types of pc and datamaster and all names are [guess].
      MakeSchema(kShaderProfilerIntervalsSchema, "",
                 {{"start", "Start", "start-time"},
                  {"duration", "Duration", "duration"},
                  {"pc", "PC", "uint64"},
                  {"submission-id", "Submission ID", "uint32"},
                  {"datamaster", "Data Master", "string"}}),
  };
  return kSchemas;
}

// TOC positions in the real 26.0 Metal System Trace TOC (probe-cli), so xpaths look
// like a real export's.
int DefaultTocIndex(std::string_view schema) {
  if (schema == kExecutionPointsSchema) return 34;
  if (schema == kGpuIntervalsSchema) return 100;
  if (schema == kEncodersListSchema) return 20;
  if (schema == kSubmissionMapSchema) return 98;
  if (schema == kShaderListSchema) return 67;
  if (schema == kCommandBufferSubmissionsSchema) return 47;
  if (schema == kDriverIntervalsSchema) return 44;
  if (schema == kShaderProfilerIntervalsSchema) return 13;
  return 1;
}

const Schema& SchemaOrDie(std::string_view name) {
  for (const Schema& schema : AllSchemas()) {
    if (schema.name == name) return schema;
  }
  return AllSchemas().front();  // unreachable: callers pass the constants above
}

template <typename RowT>
Table MakeTable(std::string_view schema, const std::vector<RowT>& rows,
                Row (*to_cells)(const RowT&)) {
  Table table;
  table.schema = SchemaOrDie(schema);
  table.toc_index = DefaultTocIndex(schema);
  table.rows.reserve(rows.size());
  for (const RowT& row : rows) table.rows.push_back(to_cells(row));
  return table;
}

Cell OptionalProcess(const std::optional<ProcessInfo>& process) {
  return process ? Process(*process) : Cell::Sentinel();
}

Cell OptionalFrame(const std::optional<uint64_t>& frame) {
  return frame ? GpuFrameNumber(*frame) : Cell::Sentinel();
}

}  // namespace

const std::vector<std::string>& MetalSchemaNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const Schema& schema : AllSchemas()) names.push_back(schema.name);
    return names;
  }();
  return kNames;
}

std::optional<Schema> FindMetalSchema(std::string_view name) {
  for (const Schema& schema : AllSchemas()) {
    if (schema.name == name) return schema;
  }
  return std::nullopt;
}

ExecutionPointRow ExecutionPointRow::Start(int64_t ts_ns, uint64_t channel,
                                           uint64_t submission) {
  ExecutionPointRow row;
  row.timestamp_ns = ts_ns;
  row.channel_id = channel;
  row.function = 1;
  row.submission_id = submission;
  row.note_sentinel = true;
  return row;
}

ExecutionPointRow ExecutionPointRow::End(int64_t ts_ns, uint64_t channel, uint64_t submission) {
  ExecutionPointRow row = Start(ts_ns, channel, submission);
  row.function = 2;
  row.note_sentinel = false;
  return row;
}

Row ExecutionPointCells(const ExecutionPointRow& row) {
  return {StartTime(row.timestamp_ns),
          CommandBufferId(row.channel_id),
          Uint32(row.function),
          Uint32(static_cast<uint32_t>(row.submission_id)),
          CommandBufferId(row.submission_id),
          Uint64(row.accelerator_id),
          row.note_sentinel ? Cell::Sentinel() : String("")};
}

Row GpuIntervalCells(const GpuIntervalRow& row) {
  // "GPU Execution  ( WindowServer (181) )  0x47e7a1bb": the process is defined
  // inside the label, so the process column below becomes a ref to it.
  const std::string address = FormatHex(row.cmdbuffer_id);
  Cell label;
  if (row.process) {
    const std::string process_fmt = row.process->name + " (" + std::to_string(row.process->pid) + ")";
    label = FormattedLabel(row.label + "  ( " + process_fmt + " )  " + address,
                           {MetalObjectLabel(row.label), NarrativeText("  ( "),
                            Process(*row.process), NarrativeText(" )  " + address)});
  } else {
    label = FormattedLabel(row.label + "  " + address,
                           {MetalObjectLabel(row.label), NarrativeText("  " + address)});
  }
  return {StartTime(row.start_ns),
          Duration(row.duration_ns),
          TextLeaf("gpu-channel-name", row.channel_name),
          OptionalFrame(row.frame_number),
          Duration(row.start_latency_ns),
          NestingLevel(row.depth),
          std::move(label),
          TextLeaf("gpu-state", row.state),
          ConnectionUuid(row.connection_uuid),
          RenderBufferDepth(row.color),
          OptionalProcess(row.process),
          MetalDeviceName(row.gpu),
          MetalObjectLabel(row.channel_subtitle),
          FormattedLabel("n/a", {NarrativeText("n/a")}),
          SizeInBytes(row.bytes),
          CommandBufferId(row.cmdbuffer_id),
          CommandBufferId(row.encoder_id),
          Uint64(row.gpu_submission_id)};
}

Row EncoderCells(const EncoderRow& row) {
  return {StartTime(row.start_ns),
          Duration(row.duration_ns),
          Thread(row.thread),
          Process(row.thread.process),
          MetalDeviceName(row.gpu),
          OptionalFrame(row.frame_number),
          MetalObjectLabel(row.cmdbuffer_label),
          MetalObjectLabel(row.cmdbuffer_label_indexed),
          MetalObjectLabel(row.encoder_label),
          MetalObjectLabel(row.encoder_label_indexed),
          TextLeaf("metal-event-name", row.event_type),
          CommandBufferId(row.cmdbuffer_id),
          CommandBufferId(row.encoder_id)};
}

Row SubmissionMapCells(const SubmissionMapRow& row) {
  return {StartTime(row.timestamp_ns),
          CommandBufferId(row.cmdbuffer_id),
          CommandBufferId(row.gpu_submission_id),
          CommandBufferId(row.segment_id),
          CommandBufferId(row.segmentlist_id),
          CommandBufferId(row.encoder_id),
          Uint64(row.accelerator_id),
          CommandBufferId(row.channel_id),
          Uint32(row.submission_type),
          Uint64(row.metadata_1),
          Uint64(row.metadata_2),
          Uint32(row.pid),
          OptionalProcess(row.process),
          Uint32(row.model),
          Uint64(row.commit_id),
          Uint32(row.num_coalesced_encoders)};
}

Row ShaderListCells(const ShaderListRow& row) {
  return {StartTime(row.timestamp_ns),
          MetalObjectLabel(row.name),
          MetalObjectLabel(row.label),
          MetalObjectLabel(row.pso_name),
          Uint64(row.id),
          Uint64(row.pc_start),
          Uint64(row.pc_end),
          String(row.shader_type),
          Process(row.process),
          MetalDeviceName(row.gpu)};
}

Row CommandBufferSubmissionCells(const CommandBufferSubmissionRow& row) {
  const std::string count = std::to_string(row.num_encoders);
  // `Committed "Command Buffer 0" with 1 encoders` [R: HF]; the split into children
  // is [guess], modelled on XQ's narrative (text pieces around typed values).
  Cell event_label = Narrative(
      "Committed \"" + row.track_label + "\" with " + count + " encoders",
      {NarrativeText("Committed \""), MetalObjectLabel(row.track_label), NarrativeText("\" with "),
       Uint32(row.num_encoders), NarrativeText(" encoders")});
  // Nests a ref back to this row's encoder-time cell, like XQ's VSync narrative.
  Cell time_label = Narrative(FormatDuration(row.encoder_time_ns) + " encoding",
                              {Duration(row.encoder_time_ns), NarrativeText(" encoding")});
  return {StartTime(row.start_ns),
          Duration(row.duration_ns),
          TextLeaf("metal-event-name", row.event_type),
          MetalDeviceName(row.gpu),
          MetalObjectLabel(row.track_label),
          Uint32(row.num_encoders),
          Duration(row.encoder_time_ns),
          Process(row.thread.process),
          Thread(row.thread),
          TextLeaf("metal-event", "Commit"),
          std::move(event_label),
          std::move(time_label),
          Uint32(row.frame_number),
          RenderBufferDepth(row.color),
          CommandBufferId(row.cmdbuffer_id)};
}

Row DriverIntervalCells(const DriverIntervalRow& row) {
  Cell label;
  if (row.depth == 0) {
    // The JS shape: "label  ( thread )" over children label, " (", thread, ")".
    Cell thread = Thread(row.thread);
    std::string fmt = row.label + "  ( " + thread.fmt + " )";
    label = FormattedLabel(std::move(fmt), {MetalObjectLabel(row.label), NarrativeText(" ("),
                                            std::move(thread), NarrativeText(")")});
  } else {
    label = FormattedLabel(row.label, {MetalObjectLabel(row.label)});
  }
  return {StartTime(row.start_ns),
          Duration(row.duration_ns),
          TextLeaf("gpu-driver-name", row.driver_name),
          MetalObjectLabel(row.depth == 0 ? "Command Buffer" : "Command Encoder"),
          NestingLevel(row.depth),
          std::move(label),
          WorkloadPriority(row.priority),
          ConnectionUuid(row.connection_uuid),
          RenderBufferDepth(row.color),
          Process(row.thread.process),
          Thread(row.thread),
          MetalDeviceName(row.gpu),
          CommandBufferId(row.object_id),
          FormattedLabel(" ", {NarrativeText(" ")})};
}

Row ShaderProfilerIntervalCells(const ShaderProfilerIntervalRow& row) {
  return {StartTime(row.start_ns), Duration(row.duration_ns), Uint64(row.pc),
          Uint32(row.submission_id), String(row.datamaster)};
}

Table ExecutionPointsTable(const std::vector<ExecutionPointRow>& rows) {
  return MakeTable(kExecutionPointsSchema, rows, &ExecutionPointCells);
}
Table GpuIntervalsTable(const std::vector<GpuIntervalRow>& rows) {
  return MakeTable(kGpuIntervalsSchema, rows, &GpuIntervalCells);
}
Table EncodersListTable(const std::vector<EncoderRow>& rows) {
  return MakeTable(kEncodersListSchema, rows, &EncoderCells);
}
Table SubmissionMapTable(const std::vector<SubmissionMapRow>& rows) {
  return MakeTable(kSubmissionMapSchema, rows, &SubmissionMapCells);
}
Table ShaderListTable(const std::vector<ShaderListRow>& rows) {
  return MakeTable(kShaderListSchema, rows, &ShaderListCells);
}
Table CommandBufferSubmissionsTable(const std::vector<CommandBufferSubmissionRow>& rows) {
  return MakeTable(kCommandBufferSubmissionsSchema, rows, &CommandBufferSubmissionCells);
}
Table DriverIntervalsTable(const std::vector<DriverIntervalRow>& rows) {
  return MakeTable(kDriverIntervalsSchema, rows, &DriverIntervalCells);
}
Table ShaderProfilerIntervalsTable(const std::vector<ShaderProfilerIntervalRow>& rows) {
  return MakeTable(kShaderProfilerIntervalsSchema, rows, &ShaderProfilerIntervalCells);
}

std::string WriteExecutionPoints(const std::vector<ExecutionPointRow>& rows,
                                 const WriteOptions& options) {
  return WriteTable(ExecutionPointsTable(rows), options);
}
std::string WriteGpuIntervals(const std::vector<GpuIntervalRow>& rows,
                              const WriteOptions& options) {
  return WriteTable(GpuIntervalsTable(rows), options);
}
std::string WriteEncodersList(const std::vector<EncoderRow>& rows, const WriteOptions& options) {
  return WriteTable(EncodersListTable(rows), options);
}
std::string WriteSubmissionMap(const std::vector<SubmissionMapRow>& rows,
                               const WriteOptions& options) {
  return WriteTable(SubmissionMapTable(rows), options);
}
std::string WriteShaderList(const std::vector<ShaderListRow>& rows, const WriteOptions& options) {
  return WriteTable(ShaderListTable(rows), options);
}
std::string WriteCommandBufferSubmissions(const std::vector<CommandBufferSubmissionRow>& rows,
                                          const WriteOptions& options) {
  return WriteTable(CommandBufferSubmissionsTable(rows), options);
}
std::string WriteDriverIntervals(const std::vector<DriverIntervalRow>& rows,
                                 const WriteOptions& options) {
  return WriteTable(DriverIntervalsTable(rows), options);
}
std::string WriteShaderProfilerIntervals(const std::vector<ShaderProfilerIntervalRow>& rows,
                                         const WriteOptions& options) {
  return WriteTable(ShaderProfilerIntervalsTable(rows), options);
}

// ---------------------------------------------------------------------------------
// Random tables
// ---------------------------------------------------------------------------------

namespace {

using internal::Rng;

// A small cast shared by every random table, so refs to processes and threads recur.
const std::vector<ThreadInfo>& Threads() {
  static const std::vector<ThreadInfo> kThreads = {
      {"Main Thread", 0x1a2b3, {"python3.12", 48213}},
      {"gpu-worker", 0x1a2c0, {"python3.12", 48213}},
      {"com.apple.coreanimation.display.primary", 0x9ef, {"backboardd", 75}},
      {"Render", 0xc55b6, {"llama-server", 5120}},
      {"d\xC3\xA9" "codeur \xE2\x80\x94 \xC2\xB5" "batch", 0xc55c1, {"llama-server", 5120}},
  };
  return kThreads;
}

const std::vector<std::string>& EncoderLabels() {
  static const std::vector<std::string> kLabels = {
      "layer.12.attn_moe_ffn", "layer.12.attn_norm", "layer.13.ffn_down", "lm_head",
      "token_embd", "Compute Command 0", "softmax \xC2\xB5kernel", "Blit Command 0"};
  return kLabels;
}

template <typename Fn>
Table RandomRows(std::string_view schema, size_t n, Fn make_row) {
  Table table;
  table.schema = SchemaOrDie(schema);
  table.toc_index = DefaultTocIndex(schema);
  table.rows.reserve(n);
  for (size_t i = 0; i < n; ++i) table.rows.push_back(make_row(i));
  return table;
}

}  // namespace

std::optional<Table> RandomMetalTable(std::string_view schema, size_t rows, uint64_t seed) {
  Rng rng(seed);
  const auto& threads = Threads();
  const auto& labels = EncoderLabels();
  int64_t t = 300'000'000 + rng.Between(0, 50'000'000);
  auto advance = [&rng, &t]() { return t += rng.LogUniform(200, 2'000'000); };
  const uint64_t submission_base = 0x5F000000 + rng.Below(0xFFFFFF);
  const uint64_t cmdbuffer_base = 0xA794000 + rng.Below(0xFFFF);

  if (schema == kExecutionPointsSchema) {
    // Start/end pairs, alternating channels.
    return RandomRows(schema, rows, [&](size_t i) {
      const uint64_t submission = submission_base + i / 2;
      const uint64_t channel = (i / 2) % 2 == 0 ? 0x123457 : 0x123458;
      return ExecutionPointCells(i % 2 == 0 ? ExecutionPointRow::Start(advance(), channel, submission)
                                            : ExecutionPointRow::End(advance(), channel, submission));
    });
  }
  if (schema == kGpuIntervalsSchema) {
    return RandomRows(schema, rows, [&](size_t i) {
      GpuIntervalRow row;
      row.start_ns = advance();
      row.duration_ns = rng.LogUniform(1000, 500'000);
      static const char* kChannels[] = {"Compute", "Vertex", "Fragment", "Blit"};
      row.channel_name = kChannels[rng.Below(4)];
      if (rng.Chance(0.7)) row.frame_number = 1 + i / 8;
      row.start_latency_ns = rng.LogUniform(2000, 3'000'000);
      const ThreadInfo& thread = threads[rng.Below(threads.size())];
      if (rng.Chance(0.9)) row.process = thread.process;  // else unattributed
      row.label = "Command Buffer " + std::to_string(i / 4) + ":" + labels[rng.Below(labels.size())];
      row.connection_uuid = 1 + rng.Below(200);
      row.cmdbuffer_id = cmdbuffer_base + i / 4;
      row.encoder_id = cmdbuffer_base + 0x10000 + i;
      row.gpu_submission_id = submission_base + i;
      row.bytes = rng.Chance(0.8) ? 0 : rng.Below(1 << 24);
      return GpuIntervalCells(row);
    });
  }
  if (schema == kEncodersListSchema) {
    return RandomRows(schema, rows, [&](size_t i) {
      EncoderRow row;
      row.start_ns = advance();
      row.duration_ns = rng.LogUniform(1000, 80'000);
      row.thread = threads[rng.Below(threads.size())];
      const size_t cb = i / 4;
      row.cmdbuffer_label = "Command Buffer " + std::to_string(cb % 3);
      row.cmdbuffer_label_indexed = "[" + std::to_string(cb % 3) + "] " + row.cmdbuffer_label;
      row.encoder_label = labels[rng.Below(labels.size())];
      row.encoder_label_indexed = "[" + std::to_string(i % 4) + "] " + row.encoder_label;
      row.cmdbuffer_id = cmdbuffer_base + cb;
      row.encoder_id = cmdbuffer_base + 0x10000 + i;
      return EncoderCells(row);
    });
  }
  if (schema == kSubmissionMapSchema) {
    return RandomRows(schema, rows, [&](size_t i) {
      SubmissionMapRow row;
      row.timestamp_ns = advance();
      row.cmdbuffer_id = cmdbuffer_base + i / 2;
      row.gpu_submission_id = submission_base + i;
      row.segment_id = i % 2;
      row.segmentlist_id = 0x40000 + i / 2;
      row.encoder_id = cmdbuffer_base + 0x10000 + i / 2;
      row.channel_id = i % 2 == 0 ? 0x123457 : 0x123458;
      const ThreadInfo& thread = threads[rng.Below(threads.size())];
      row.pid = static_cast<uint32_t>(thread.process.pid);
      if (rng.Chance(0.95)) row.process = thread.process;
      row.commit_id = 1000 + i / 2;
      row.num_coalesced_encoders = rng.Chance(0.9) ? 1 : static_cast<uint32_t>(2 + rng.Below(6));
      return SubmissionMapCells(row);
    });
  }
  if (schema == kShaderListSchema) {
    return RandomRows(schema, rows, [&](size_t i) {
      ShaderListRow row;
      row.timestamp_ns = advance();
      row.name = "kernel_mul_mv_q4_0_f32 (" + std::to_string(35 + i) + ")";
      row.pso_name = "kernel_mul_mv_q4_0_f32";
      row.id = 0x100000 + i;
      row.pc_start = 0x1'0000'0000ULL + i * 0x4000;
      row.pc_end = row.pc_start + 0x100 + rng.Below(0x3000);
      row.process = threads[rng.Below(threads.size())].process;
      return ShaderListCells(row);
    });
  }
  if (schema == kCommandBufferSubmissionsSchema) {
    return RandomRows(schema, rows, [&](size_t i) {
      CommandBufferSubmissionRow row;
      row.start_ns = advance();
      row.duration_ns = rng.LogUniform(5000, 5'000'000);
      row.track_label = "Command Buffer " + std::to_string(i % 3);
      row.num_encoders = static_cast<uint32_t>(1 + rng.Below(40));
      row.encoder_time_ns = rng.LogUniform(1000, 400'000);
      row.thread = threads[rng.Below(threads.size())];
      row.frame_number = static_cast<uint32_t>(i / 8);
      row.cmdbuffer_id = cmdbuffer_base + i;
      return CommandBufferSubmissionCells(row);
    });
  }
  if (schema == kDriverIntervalsSchema) {
    return RandomRows(schema, rows, [&](size_t i) {
      DriverIntervalRow row;
      row.start_ns = advance();
      row.duration_ns = rng.LogUniform(500, 300'000);
      row.depth = i % 3 == 0 ? 0 : 1;
      row.label = row.depth == 0 ? "Command Buffer " + std::to_string(i / 3 % 4)
                                 : labels[rng.Below(labels.size())];
      row.connection_uuid = 70 + i;
      row.color = static_cast<uint32_t>(rng.Below(4));
      row.thread = threads[rng.Below(threads.size())];
      return DriverIntervalCells(row);
    });
  }
  if (schema == kShaderProfilerIntervalsSchema) {
    return RandomRows(schema, rows, [&](size_t i) {
      ShaderProfilerIntervalRow row;
      row.start_ns = advance();
      row.duration_ns = rng.LogUniform(100, 50'000);
      row.pc = 0x1'0000'0000ULL + rng.Below(0x40000);
      row.submission_id = static_cast<uint32_t>(submission_base + i / 8);
      return ShaderProfilerIntervalCells(row);
    });
  }
  return std::nullopt;
}

}  // namespace perfgate::gen
