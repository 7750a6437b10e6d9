// Typed views of the Metal System Trace tables; the contract is in metal_tables.h.
//
// Every view follows one pattern: a ColumnBinder looks up the mnemonics once and
// reports the first missing required column, then a RowDecoder per row decodes the
// cells, notes the first problem (a null required value, text that is not an integer)
// and decides whether the row is kept.
#include "perfgate/xctrace/metal_tables.h"

#include "core/hash_mix.h"
#include "perfgate/core/jobs.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <ostream>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace perfgate::xctrace {
namespace {

// A null (or, after a lenient read, undecodable) value in a required column.
constexpr std::string_view kBadValueCode = "xctrace.null_required_value";
constexpr std::string_view kMissingColumnCode = "xctrace.missing_column";
// A table of the wrong schema handed to a view, and a document without the table.
constexpr std::string_view kWrongSchemaCode = "xctrace.schema_mismatch";
constexpr std::string_view kMissingTableCode = "xctrace.missing_table";

// How a view needs a column; see the header's "Column kinds".
enum class Need { kValue, kKey, kOptional };

struct BoundColumn {
  std::optional<size_t> index;  // nullopt: the table has no such column
  std::string_view mnemonic;
  Need need;
};

// Where a table-level error points: its first row, when it has one.
SourceLocation TableLocation(const Table& table) {
  return table.row_count() > 0 ? table.RowLocation(0) : SourceLocation{};
}

std::string JoinMnemonics(const Table& table) {
  std::string out;
  for (const Column& column : table.columns()) {
    if (!out.empty()) out += ", ";
    out += column.mnemonic;
  }
  return out.empty() ? "no columns" : out;
}

Status CheckSchema(const Table& table, std::string_view expected) {
  if (table.schema() == expected) return Status();
  return Status::Error(std::string(kWrongSchemaCode),
                       "expected a " + std::string(expected) + " table, got " + table.schema(),
                       TableLocation(table));
}

// Looks columns up by mnemonic and remembers the first required one that is missing.
class ColumnBinder {
 public:
  explicit ColumnBinder(const Table& table) : table_(table) {}

  BoundColumn RequiredValue(std::string_view mnemonic) { return Bind(mnemonic, Need::kValue); }
  BoundColumn Key(std::string_view mnemonic) { return Bind(mnemonic, Need::kKey); }
  BoundColumn Optional(std::string_view mnemonic) { return Bind(mnemonic, Need::kOptional); }

  Status status() const {
    if (missing_.empty()) return Status();
    return Status::Error(std::string(kMissingColumnCode),
                         table_.schema() + " lacks required column '" + missing_ +
                             "' (has: " + JoinMnemonics(table_) + ")",
                         TableLocation(table_));
  }

 private:
  BoundColumn Bind(std::string_view mnemonic, Need need) {
    BoundColumn column{table_.ColumnIndex(mnemonic), mnemonic, need};
    if (!column.index && need != Need::kOptional && missing_.empty()) {
      missing_ = std::string(mnemonic);
    }
    return column;
  }

  const Table& table_;
  std::string missing_;
};

std::string_view StripPidSuffix(std::string_view fmt) {
  // "SOLO: Unicorn Run (3539)" -> "SOLO: Unicorn Run"; anything else is kept whole.
  if (fmt.size() < 4 || fmt.back() != ')') return fmt;
  const size_t open = fmt.rfind(" (");
  if (open == std::string_view::npos || open + 3 > fmt.size() - 1) return fmt;
  for (size_t i = open + 2; i + 1 < fmt.size(); ++i) {
    if (fmt[i] < '0' || fmt[i] > '9') return fmt;
  }
  return fmt.substr(0, open);
}

// The reader decodes integers only for the engineering types it knows. Some integer
// columns of the Metal tables use other types (metal-nesting-level, gpu-frame-number),
// so their text is decoded here: plain decimal digits, in range of T.
template <typename T>
std::optional<T> ParseNonNegative(std::string_view text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char ch : text) {
    if (ch < '0' || ch > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(ch - '0');
    if (value > (static_cast<uint64_t>(std::numeric_limits<T>::max()) - digit) / 10) {
      return std::nullopt;
    }
    value = value * 10 + digit;
  }
  return static_cast<T>(value);
}

// Decodes the cells of one row and collects its first problem.
// Decoded composites by Value::identity(): a table refs a handful of processes from
// every row, so each is decoded once.
struct DecodeCache {
  std::unordered_map<uint32_t, ProcessRef, perfgate::internal::SeededHash> processes;
  std::unordered_map<uint32_t, SharedText, perfgate::internal::SeededHash> labels;
};

class RowDecoder {
 public:
  RowDecoder(const Table& table, size_t row, DecodeCache* cache) : table_(table), row_(row), cache_(cache) {}

  // Required values: 0 after a problem, which also marks the row as skipped.
  int64_t Int64(const BoundColumn& c) { return Integer<int64_t>(c).value_or(0); }
  uint64_t Uint64(const BoundColumn& c) { return Integer<uint64_t>(c).value_or(0); }
  uint32_t Uint32(const BoundColumn& c) { return Integer<uint32_t>(c).value_or(0); }

  // Key or optional values: nullopt when the column is absent or the cell is null.
  std::optional<int64_t> OptionalInt64(const BoundColumn& c) { return Integer<int64_t>(c); }
  std::optional<uint64_t> OptionalUint64(const BoundColumn& c) { return Integer<uint64_t>(c); }
  std::optional<uint32_t> OptionalUint32(const BoundColumn& c) { return Integer<uint32_t>(c); }
  // As OptionalUint64, and kNoId ("none") is nullopt too.
  std::optional<uint64_t> OptionalId(const BoundColumn& c) {
    std::optional<uint64_t> id = Integer<uint64_t>(c);
    if (id && *id == kNoId) return std::nullopt;
    return id;
  }
  template <typename Id>
  std::optional<Id> OptionalTypedId(const BoundColumn& c) {
    std::optional<uint64_t> id = OptionalId(c);
    if (!id) return std::nullopt;
    return Id{*id};
  }

  // A label: a leaf's text, or a composite's display string; empty when null.
  // Labels repeat across rows (refs to one interned value), so each is decoded once.
  SharedText Label(const BoundColumn& c) const {
    if (!c.index) return {};
    const Value v = Cell(c);
    if (v.is_null()) return {};
    auto it = cache_->labels.find(v.identity());
    if (it == cache_->labels.end()) {
      it = cache_->labels.emplace(v.identity(), SharedText(v.child_count() == 0 ? v.text() : v.fmt())).first;
    }
    return it->second;
  }

  ProcessRef Process(const BoundColumn& c) const {
    if (!c.index) return ProcessRef();
    const Value v = Cell(c);
    auto it = cache_->processes.find(v.identity());
    if (it == cache_->processes.end()) it = cache_->processes.emplace(v.identity(), ReadProcess(v)).first;
    return it->second;
  }

  // The `tid` child of a thread cell.
  std::optional<int64_t> ThreadTid(const BoundColumn& c) const {
    if (!c.index) return std::nullopt;
    const Value v = Cell(c);
    if (v.is_null()) return std::nullopt;
    const Value tid = v.Find("tid");
    if (tid.is_null()) return std::nullopt;
    return tid.AsInt64();
  }

  // Counts the row's problem, if any, and says whether to keep the row. With no
  // Diagnostics to count into, a problem is returned as an error instead.
  StatusOr<bool> Finish(std::string_view schema, Diagnostics* diagnostics) const {
    if (problem_.empty()) return true;
    std::string detail = std::string(schema) + " column '" + std::string(problem_column_) + "' " +
                         problem_ + (skip_ ? "; row skipped" : "; value dropped");
    if (diagnostics == nullptr) {
      return Status::Error(std::string(kBadValueCode), std::move(detail), table_.RowLocation(row_));
    }
    diagnostics->Add(kBadValueCode, table_.RowLocation(row_), std::move(detail));
    return !skip_;
  }

 private:
  Value Cell(const BoundColumn& c) const { return table_.cell(row_, *c.index); }

  template <typename T>
  std::optional<T> Integer(const BoundColumn& c) {
    if (!c.index) return std::nullopt;
    const Value v = Cell(c);
    if (v.is_null()) {
      if (c.need == Need::kValue) {
        Note(c, v.is_sentinel() ? "is null (<sentinel/>)" : "has no cell");
      }
      return std::nullopt;
    }
    std::optional<T> out;
    if constexpr (std::is_signed_v<T>) {
      out = v.is_integer_type() ? v.AsInt64() : ParseNonNegative<int64_t>(v.text());
    } else {
      std::optional<uint64_t> u =
          v.is_integer_type() ? v.AsUint64() : ParseNonNegative<uint64_t>(v.text());
      if (u && *u <= std::numeric_limits<T>::max()) out = static_cast<T>(*u);
    }
    if (!out) Note(c, "holds '" + std::string(v.text()) + "', not an integer of its type");
    return out;
  }

  void Note(const BoundColumn& c, std::string what) {
    if (c.need == Need::kValue) skip_ = true;
    if (!problem_.empty()) return;
    problem_column_ = c.mnemonic;
    problem_ = std::move(what);
  }

  const Table& table_;
  size_t row_;
  DecodeCache* cache_;
  std::string_view problem_column_;
  std::string problem_;
  bool skip_ = false;
};

// Decodes rows [begin, end) into their places in `rows`, marking in `kept` those
// Finish() accepts.
template <typename Row, typename Decode>
Status DecodeRowsInPlace(const Table& table, size_t begin, size_t end, Diagnostics* diagnostics, Decode& decode,
                         std::vector<Row>* rows, std::vector<char>* kept) {
  DecodeCache cache;
  for (size_t r = begin; r < end; ++r) {
    RowDecoder d(table, r, &cache);
    Row& row = (*rows)[r] = decode(d);
    row.row = r;
    PERFGATE_ASSIGN_OR_RETURN(const bool keep, d.Finish(Row::kSchema, diagnostics));
    (*kept)[r] = keep;
  }
  return Status();
}

// Below this many rows a second thread costs more than it saves.
constexpr size_t kRowsOnTwoCores = 8192;

// Runs `decode(RowDecoder&) -> Row` over every row, keeping the rows that Finish()
// accepts. Each half of a large table is decoded through ParallelFor, on a core of
// its own when a second is free (the document is only read; each half has its own
// cache). The rows are decoded into their places and the skipped ones squeezed out
// after, so memory stays one row per table row whichever way (the peak target is
// 2 × the file); the first half's error comes before the second's, and the
// diagnostics' first details are the ones one pass meets first. The typed rows were
// 13 % of a large export's decode, on one core.
template <typename Row, typename Decode>
StatusOr<std::vector<Row>> DecodeRows(const Table& table, Diagnostics* diagnostics, Decode decode) {
  const size_t n = table.row_count();
  std::vector<Row> rows(n);
  std::vector<char> kept(n, 0);
  if (n < kRowsOnTwoCores) {
    PERFGATE_RETURN_IF_ERROR(DecodeRowsInPlace(table, 0, n, diagnostics, decode, &rows, &kept));
  } else {
    const size_t bounds[3] = {0, n / 2, n};
    Diagnostics later;
    Diagnostics* sinks[2] = {diagnostics, diagnostics == nullptr ? nullptr : &later};
    Status halves[2];
    ParallelFor(2, [&](size_t h) {
      halves[h] = DecodeRowsInPlace(table, bounds[h], bounds[h + 1], sinks[h], decode, &rows, &kept);
    });
    PERFGATE_RETURN_IF_ERROR(halves[0]);
    PERFGATE_RETURN_IF_ERROR(halves[1]);
    if (diagnostics != nullptr) diagnostics->Merge(later);
  }
  size_t out = 0;
  for (size_t r = 0; r < n; ++r) {
    if (!kept[r]) continue;
    if (out != r) rows[out] = std::move(rows[r]);
    ++out;
  }
  rows.resize(out);
  return rows;
}

std::ostream& PrintId(std::ostream& os, std::string_view kind, uint64_t value) {
  return os << kind << ' ' << value;
}

// Two execution points with the same time, function, submission, channel and slot
// are one event read twice (a node appended again, rows repeated), which pairing
// would count twice: an error at the first repeat in row order, naming the point it
// repeats. Found by sorting the keys with their positions (equal keys then stand
// together, first occurrence first): a hash map of every point cost more than the
// rest of the typed view, and more per point as the table grew.
Status CheckNoRepeatedPoint(const Table& table, const std::vector<ExecutionPoint>& points) {
  struct Key {
    int64_t t;
    uint64_t submission, channel, slot;
    uint32_t function;
    size_t index;  // in points
    auto Fields() const { return std::tie(t, submission, channel, slot, function); }
  };
  std::vector<Key> keys;
  keys.reserve(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const ExecutionPoint& p = points[i];
    keys.push_back({p.timestamp_ns, p.submission.value, p.channel_id, p.slot_id.value_or(kNoId), p.function, i});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return a.Fields() != b.Fields() ? a.Fields() < b.Fields() : a.index < b.index;
  });
  // The second point of each run of equal keys repeats the first; the earliest such
  // repeat is the one a pass in row order meets first.
  size_t repeat = SIZE_MAX, first = 0;
  for (size_t k = 1; k < keys.size(); ++k) {
    const bool second_of_run = keys[k].Fields() == keys[k - 1].Fields() &&
                               (k == 1 || keys[k - 1].Fields() != keys[k - 2].Fields());
    if (second_of_run && keys[k].index < repeat) {
      repeat = keys[k].index;
      first = keys[k - 1].index;
    }
  }
  if (repeat == SIZE_MAX) return Status();
  const SourceLocation at = table.RowLocation(points[first].row);
  return Status::Error("xctrace.duplicate_row",
                       "this execution point repeats the one at " + std::to_string(at.line) + ":" +
                           std::to_string(at.column) + " (same time, function, submission, channel and "
                           "slot): a node or rows exported twice would be counted twice",
                       table.RowLocation(points[repeat].row));
}

}  // namespace

std::ostream& operator<<(std::ostream& os, SubmissionId id) {
  return PrintId(os, "submission", id.value);
}
std::ostream& operator<<(std::ostream& os, EncoderId id) {
  return PrintId(os, "encoder", id.value);
}
std::ostream& operator<<(std::ostream& os, CommandBufferId id) {
  return PrintId(os, "cmdbuffer", id.value);
}

ProcessRef ReadProcess(const Value& cell) {
  ProcessRef process;
  if (cell.is_null()) return process;
  process.is_null = false;
  process.name = SharedText(StripPidSuffix(cell.fmt()));
  const Value pid = cell.Find("pid");
  if (!pid.is_null()) process.pid = pid.AsInt64().value_or(-1);
  return process;
}

StatusOr<std::vector<ExecutionPoint>> ReadExecutionPoints(const Table& table,
                                                          Diagnostics* diagnostics) {
  PERFGATE_RETURN_IF_ERROR(CheckSchema(table, ExecutionPoint::kSchema));
  ColumnBinder b(table);
  const BoundColumn timestamp = b.RequiredValue("timestamp");
  const BoundColumn function = b.RequiredValue("function");
  const BoundColumn submission = b.RequiredValue("gpu-submission-id");
  const BoundColumn channel = b.Optional("channel-id");
  const BoundColumn slot = b.Optional("slot-id");
  const BoundColumn accelerator = b.Optional("accelerator-id");
  PERFGATE_RETURN_IF_ERROR(b.status());
  PERFGATE_ASSIGN_OR_RETURN(std::vector<ExecutionPoint> points,
                            DecodeRows<ExecutionPoint>(table, diagnostics, [&](RowDecoder& d) {
    ExecutionPoint p;
    p.timestamp_ns = d.Int64(timestamp);
    p.function = d.Uint32(function);
    p.submission = SubmissionId{d.Uint64(submission)};
    p.channel_id = d.OptionalUint64(channel).value_or(kNoId);
    p.slot_id = d.OptionalUint64(slot);
    p.accelerator_id = d.OptionalId(accelerator);
    return p;
  }));
  PERFGATE_RETURN_IF_ERROR(CheckNoRepeatedPoint(table, points));
  return points;
}

StatusOr<std::vector<GpuInterval>> ReadGpuIntervals(const Table& table, Diagnostics* diagnostics) {
  PERFGATE_RETURN_IF_ERROR(CheckSchema(table, GpuInterval::kSchema));
  ColumnBinder b(table);
  const BoundColumn start = b.RequiredValue("start");
  const BoundColumn duration = b.RequiredValue("duration");
  const BoundColumn process = b.Key("process");
  const BoundColumn channel_name = b.Optional("channel-name");
  const BoundColumn event_label = b.Optional("event-label");
  const BoundColumn cmdbuffer = b.Optional("cmdbuffer-id");
  const BoundColumn encoder = b.Optional("encoder-id");
  const BoundColumn submission = b.Optional("gpu-submission-id");
  const BoundColumn start_latency = b.Optional("start-latency");
  const BoundColumn depth = b.Optional("event-depth");
  const BoundColumn frame_number = b.Optional("frame-number");
  PERFGATE_RETURN_IF_ERROR(b.status());
  return DecodeRows<GpuInterval>(table, diagnostics, [&](RowDecoder& d) {
    GpuInterval g;
    g.start_ns = d.Int64(start);
    g.duration_ns = d.Int64(duration);
    g.channel_name = d.Label(channel_name);
    g.event_label = d.Label(event_label);
    g.process = d.Process(process);
    g.cmdbuffer = d.OptionalTypedId<CommandBufferId>(cmdbuffer);
    g.encoder = d.OptionalTypedId<EncoderId>(encoder);
    g.submission = d.OptionalTypedId<SubmissionId>(submission);
    g.start_latency_ns = d.OptionalInt64(start_latency);
    g.depth = d.OptionalInt64(depth);
    g.frame_number = d.OptionalUint64(frame_number);
    return g;
  });
}

StatusOr<std::vector<EncoderRow>> ReadEncoderRows(const Table& table, Diagnostics* diagnostics) {
  PERFGATE_RETURN_IF_ERROR(CheckSchema(table, EncoderRow::kSchema));
  ColumnBinder b(table);
  const BoundColumn start = b.RequiredValue("start");
  const BoundColumn duration = b.RequiredValue("duration");
  const BoundColumn process = b.Key("process");
  const BoundColumn cmdbuffer = b.Key("cmdbuffer-id");
  const BoundColumn encoder = b.Key("encoder-id");
  const BoundColumn thread = b.Optional("thread");
  const BoundColumn cmdbuffer_label = b.Optional("cmdbuffer-label");
  const BoundColumn cmdbuffer_label_indexed = b.Optional("cmdbuffer-label-indexed");
  const BoundColumn encoder_label = b.Optional("encoder-label");
  const BoundColumn encoder_label_indexed = b.Optional("encoder-label-indexed");
  const BoundColumn event_type = b.Optional("event-type");
  PERFGATE_RETURN_IF_ERROR(b.status());
  return DecodeRows<EncoderRow>(table, diagnostics, [&](RowDecoder& d) {
    EncoderRow e;
    e.start_ns = d.Int64(start);
    e.duration_ns = d.Int64(duration);
    e.process = d.Process(process);
    e.thread_tid = d.ThreadTid(thread);
    e.cmdbuffer_label = d.Label(cmdbuffer_label);
    e.cmdbuffer_label_indexed = d.Label(cmdbuffer_label_indexed);
    e.encoder_label = d.Label(encoder_label);
    e.encoder_label_indexed = d.Label(encoder_label_indexed);
    e.event_type = d.Label(event_type);
    e.cmdbuffer = d.OptionalTypedId<CommandBufferId>(cmdbuffer);
    e.encoder = d.OptionalTypedId<EncoderId>(encoder);
    return e;
  });
}

StatusOr<std::vector<SubmissionMapRow>> ReadSubmissionMap(const Table& table,
                                                          Diagnostics* diagnostics) {
  PERFGATE_RETURN_IF_ERROR(CheckSchema(table, SubmissionMapRow::kSchema));
  ColumnBinder b(table);
  const BoundColumn timestamp = b.RequiredValue("timestamp");
  const BoundColumn submission = b.RequiredValue("gpu-submission-id");
  const BoundColumn cmdbuffer = b.Key("cmdbuffer-id");
  const BoundColumn encoder = b.Key("encoder-id");
  const BoundColumn process = b.Key("process");
  const BoundColumn pid = b.Optional("pid");
  const BoundColumn num_coalesced = b.Optional("num-coalasced-encoders");  // sic
  const BoundColumn segment = b.Optional("segment-id");
  const BoundColumn segment_list = b.Optional("segmentlist-id");
  const BoundColumn accelerator = b.Optional("accelerator-id");
  PERFGATE_RETURN_IF_ERROR(b.status());
  return DecodeRows<SubmissionMapRow>(table, diagnostics, [&](RowDecoder& d) {
    SubmissionMapRow m;
    m.timestamp_ns = d.Int64(timestamp);
    m.submission = SubmissionId{d.Uint64(submission)};
    m.cmdbuffer = d.OptionalTypedId<CommandBufferId>(cmdbuffer);
    m.encoder = d.OptionalTypedId<EncoderId>(encoder);
    if (std::optional<uint32_t> p = d.OptionalUint32(pid)) m.pid = *p;
    m.process = d.Process(process);
    m.num_coalesced_encoders = d.OptionalUint32(num_coalesced);
    m.segment_id = d.OptionalId(segment);
    m.segment_list_id = d.OptionalId(segment_list);
    m.accelerator_id = d.OptionalId(accelerator);
    return m;
  });
}

StatusOr<std::vector<ShaderRow>> ReadShaderList(const Table& table, Diagnostics* diagnostics) {
  PERFGATE_RETURN_IF_ERROR(CheckSchema(table, ShaderRow::kSchema));
  ColumnBinder b(table);
  const BoundColumn name = b.Key("name");
  const BoundColumn process = b.Key("process");
  const BoundColumn timestamp = b.Optional("timestamp");
  const BoundColumn label = b.Optional("label");
  const BoundColumn pso_name = b.Optional("pso-name");
  const BoundColumn id = b.Optional("id");
  const BoundColumn shader_type = b.Optional("shader-type");
  PERFGATE_RETURN_IF_ERROR(b.status());
  return DecodeRows<ShaderRow>(table, diagnostics, [&](RowDecoder& d) {
    ShaderRow s;
    s.timestamp_ns = d.OptionalInt64(timestamp);
    s.name = d.Label(name);
    s.label = d.Label(label);
    s.pso_name = d.Label(pso_name);
    s.id = d.OptionalUint64(id);
    s.shader_type = d.Label(shader_type);
    s.process = d.Process(process);
    return s;
  });
}

StatusOr<std::vector<CommandBufferSubmission>> ReadCommandBufferSubmissions(
    const Table& table, Diagnostics* diagnostics) {
  PERFGATE_RETURN_IF_ERROR(CheckSchema(table, CommandBufferSubmission::kSchema));
  ColumnBinder b(table);
  const BoundColumn start = b.RequiredValue("start");
  const BoundColumn duration = b.RequiredValue("duration");
  const BoundColumn process = b.Key("process");
  const BoundColumn cmdbuffer = b.Key("cmdbuffer-id");
  const BoundColumn track_label = b.Optional("track-label");
  const BoundColumn num_encoders = b.Optional("num-encoders");
  const BoundColumn encoder_time = b.Optional("encoder-time");
  const BoundColumn event_label = b.Optional("event-label");
  PERFGATE_RETURN_IF_ERROR(b.status());
  return DecodeRows<CommandBufferSubmission>(table, diagnostics, [&](RowDecoder& d) {
    CommandBufferSubmission c;
    c.start_ns = d.Int64(start);
    c.duration_ns = d.Int64(duration);
    c.track_label = d.Label(track_label);
    c.num_encoders = d.OptionalUint32(num_encoders);
    c.encoder_time_ns = d.OptionalInt64(encoder_time);
    c.event_label = d.Label(event_label);
    c.process = d.Process(process);
    c.cmdbuffer = d.OptionalTypedId<CommandBufferId>(cmdbuffer);
    return c;
  });
}

StatusOr<std::vector<DriverInterval>> ReadDriverIntervals(const Table& table,
                                                          Diagnostics* diagnostics) {
  PERFGATE_RETURN_IF_ERROR(CheckSchema(table, DriverInterval::kSchema));
  ColumnBinder b(table);
  const BoundColumn start = b.RequiredValue("start");
  const BoundColumn duration = b.RequiredValue("duration");
  const BoundColumn process = b.Key("process");
  const BoundColumn event_type = b.Optional("event-type");
  const BoundColumn depth = b.Optional("event-depth");
  const BoundColumn event_label = b.Optional("event-label");
  const BoundColumn thread = b.Optional("thread");
  const BoundColumn object_id = b.Optional("object-id");
  PERFGATE_RETURN_IF_ERROR(b.status());
  return DecodeRows<DriverInterval>(table, diagnostics, [&](RowDecoder& d) {
    DriverInterval i;
    i.start_ns = d.Int64(start);
    i.duration_ns = d.Int64(duration);
    i.event_type = d.Label(event_type);
    i.depth = d.OptionalInt64(depth);
    i.event_label = d.Label(event_label);
    i.process = d.Process(process);
    i.thread_tid = d.ThreadTid(thread);
    i.object_id = d.OptionalId(object_id);
    return i;
  });
}

StatusOr<std::vector<ShaderProfilerInterval>> ReadShaderProfilerIntervals(
    const Table& table, Diagnostics* diagnostics) {
  PERFGATE_RETURN_IF_ERROR(CheckSchema(table, ShaderProfilerInterval::kSchema));
  ColumnBinder b(table);
  const BoundColumn start = b.RequiredValue("start");
  const BoundColumn duration = b.RequiredValue("duration");
  const BoundColumn submission = b.Key("submission-id");
  const BoundColumn pc = b.Optional("pc");
  PERFGATE_RETURN_IF_ERROR(b.status());
  return DecodeRows<ShaderProfilerInterval>(table, diagnostics, [&](RowDecoder& d) {
    ShaderProfilerInterval s;
    s.start_ns = d.Int64(start);
    s.duration_ns = d.Int64(duration);
    s.submission = d.OptionalTypedId<SubmissionId>(submission);
    s.pc = d.OptionalUint64(pc);
    return s;
  });
}

namespace {

// Overloads that pick the reader for a row type in ReadMetalTable.
auto ReaderFor(const ExecutionPoint*) { return &ReadExecutionPoints; }
auto ReaderFor(const GpuInterval*) { return &ReadGpuIntervals; }
auto ReaderFor(const EncoderRow*) { return &ReadEncoderRows; }
auto ReaderFor(const SubmissionMapRow*) { return &ReadSubmissionMap; }
auto ReaderFor(const ShaderRow*) { return &ReadShaderList; }
auto ReaderFor(const CommandBufferSubmission*) { return &ReadCommandBufferSubmissions; }
auto ReaderFor(const DriverInterval*) { return &ReadDriverIntervals; }
auto ReaderFor(const ShaderProfilerInterval*) { return &ReadShaderProfilerIntervals; }

}  // namespace

template <typename Row>
StatusOr<std::vector<Row>> ReadMetalTable(const Document& document, Diagnostics* diagnostics) {
  std::optional<Table> table = document.FindTable(Row::kSchema);
  if (!table) {
    std::string has;
    for (size_t i = 0; i < document.table_count(); ++i) {
      if (!has.empty()) has += ", ";
      has += document.table(i).schema();
    }
    return Status::Error(std::string(kMissingTableCode),
                         "the export has no " + std::string(Row::kSchema) +
                             " table (has: " + (has.empty() ? "no tables" : has) + ")",
                         SourceLocation{document.path()});
  }
  return ReaderFor(static_cast<const Row*>(nullptr))(*table, diagnostics);
}

template StatusOr<std::vector<ExecutionPoint>> ReadMetalTable<ExecutionPoint>(const Document&,
                                                                              Diagnostics*);
template StatusOr<std::vector<GpuInterval>> ReadMetalTable<GpuInterval>(const Document&,
                                                                        Diagnostics*);
template StatusOr<std::vector<EncoderRow>> ReadMetalTable<EncoderRow>(const Document&,
                                                                      Diagnostics*);
template StatusOr<std::vector<SubmissionMapRow>> ReadMetalTable<SubmissionMapRow>(const Document&,
                                                                                  Diagnostics*);
template StatusOr<std::vector<ShaderRow>> ReadMetalTable<ShaderRow>(const Document&, Diagnostics*);
template StatusOr<std::vector<CommandBufferSubmission>> ReadMetalTable<CommandBufferSubmission>(
    const Document&, Diagnostics*);
template StatusOr<std::vector<DriverInterval>> ReadMetalTable<DriverInterval>(const Document&,
                                                                              Diagnostics*);
template StatusOr<std::vector<ShaderProfilerInterval>> ReadMetalTable<ShaderProfilerInterval>(
    const Document&, Diagnostics*);

}  // namespace perfgate::xctrace
