// The SAX pass of the trace-event JSON reader: nlohmann::json tells a handler about
// one token at a time and the handler builds one event at a time. Kept apart from
// the rest of the reader so that GCC inlines the lexer's hot paths (a large
// translation unit exhausts its inlining budget). The format is in FORMAT.md.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "perfgate/core/jobs.h"

#include "core/json_document.h"
#include "json_simd_chunks.h"
#include "json_simd_pipeline.h"
#include "json_simd_walk.h"
#include "json_trace_internal.h"
#include "sources/cuda_launch_kind.h"
#include "text_input.h"
#include "xla_dialect.h"

namespace perfgate::json_trace {
namespace {

using Json = nlohmann::json;

// Deeper nesting than any trace writes is refused (nlohmann's parser itself is not
// recursive, so this guards memory and time, not the stack).
constexpr int kMaxDepth = 256;

// The largest |ts| and dur, in nanoseconds. With both bounded by 2^61 every end
// (ts + dur) and every difference of two times fits in int64, so nothing downstream
// (durations, spans, the busy union) can overflow.
constexpr int64_t kMaxTimeNs = int64_t{1} << 61;

using ::perfgate::internal::TrackingIterator;

// The reader's own anomaly codes, tallied with the offset of their first occurrence
// and turned into Diagnostics (with line:col) once at the end.
enum Tally : int {
  kTallyBadEvent,
  kTallySkippedEvent,
  kTallyUnknownCategory,
  kTallyUnknownPhase,
  kTallyMissingCorrelation,
  kTallyIgnoredField,
  kTallyXlaOtherLine,
  kTallyCount
};
constexpr std::array<const char*, kTallyCount> kTallyCodes = {
    "json.bad_event",          "json.skipped_event", "json.unknown_category",  "json.unknown_phase",
    "json.missing_correlation", "json.ignored_field", "json.xla_derived_line"};

// Fields of an event and of its args that the reader keeps.
enum class Field : uint8_t { kOther, kPh, kCat, kName, kTs, kDur, kPid, kTid, kArgs };
enum class ArgField : uint8_t {
  kOther, kCorrelation, kDevice, kStream, kExternalId, kName,
  kCorrelationId, kHloModule, kScopeRangeId,  // XLA's (every value a string)
};

// Bits of Field, for the fields an event kind uses.
constexpr uint16_t Bit(Field f) { return static_cast<uint16_t>(1u << static_cast<int>(f)); }
constexpr uint16_t kAllFields = 0x1FF;

// The groups of args an event kind uses (see PendingEvent).
enum ArgUse : uint8_t {
  kNoArgs = 0,
  kKeptArgs = 1,  // correlation, External id
  kGpuArgs = 2,   // device, stream
  kNameArg = 4,   // name
  kXlaArgs = 8,   // correlation_id, hlo_module, scope_range_id (judged in ClassifyXlaEvents)
};

// How the checks of an event ended.
enum class Checked { kOk, kDropped, kStop };

template <size_t N>
bool Is(std::string_view k, const char (&literal)[N]) {
  return k.size() == N - 1 && std::memcmp(k.data(), literal, N - 1) == 0;
}

Field FieldOf(std::string_view k) {
  switch (k.size()) {
    case 2:
      if (Is(k, "ph")) return Field::kPh;
      if (Is(k, "ts")) return Field::kTs;
      return Field::kOther;
    case 3:
      if (Is(k, "cat")) return Field::kCat;
      if (Is(k, "dur")) return Field::kDur;
      if (Is(k, "pid")) return Field::kPid;
      if (Is(k, "tid")) return Field::kTid;
      return Field::kOther;
    case 4:
      if (Is(k, "name")) return Field::kName;
      if (Is(k, "args")) return Field::kArgs;
      return Field::kOther;
    default:
      return Field::kOther;
  }
}

ArgField ArgFieldOf(std::string_view k) {
  switch (k.size()) {
    case 4:
      return Is(k, "name") ? ArgField::kName : ArgField::kOther;
    case 6:
      if (Is(k, "device")) return ArgField::kDevice;
      if (Is(k, "stream")) return ArgField::kStream;
      return ArgField::kOther;
    case 10:
      return Is(k, "hlo_module") ? ArgField::kHloModule : ArgField::kOther;
    case 11:
      if (Is(k, "correlation")) return ArgField::kCorrelation;
      if (Is(k, "External id")) return ArgField::kExternalId;
      return ArgField::kOther;
    case 14:
      if (Is(k, "correlation_id")) return ArgField::kCorrelationId;
      if (Is(k, "scope_range_id")) return ArgField::kScopeRangeId;
      return ArgField::kOther;
    default:
      return ArgField::kOther;
  }
}

const char* FieldName(Field f) {
  switch (f) {
    case Field::kPh: return "ph";
    case Field::kCat: return "cat";
    case Field::kName: return "name";
    case Field::kTs: return "ts";
    case Field::kDur: return "dur";
    case Field::kPid: return "pid";
    case Field::kTid: return "tid";
    case Field::kArgs: return "args";
    case Field::kOther: break;
  }
  return "?";
}

const char* ArgFieldName(ArgField f) {
  switch (f) {
    case ArgField::kCorrelation: return "args.correlation";
    case ArgField::kDevice: return "args.device";
    case ArgField::kStream: return "args.stream";
    case ArgField::kExternalId: return "args.External id";
    case ArgField::kName: return "args.name";
    case ArgField::kCorrelationId: return "args.correlation_id";
    case ArgField::kHloModule: return "args.hlo_module";
    case ArgField::kScopeRangeId: return "args.scope_range_id";
    case ArgField::kOther: break;
  }
  return "?";
}

// What the categories of complete events mean to the reader. Kineto's names, and
// the capitalised ones of its first releases ("Kernel", "Runtime", ...).
enum class Category { kKernel, kMemcpy, kMemset, kRuntime, kDriver, kCpuAnnotation, kGpuAnnotation, kSkipped,
                      kUnknown };

Category CategoryOf(std::string_view cat) {
  char lower[32];
  if (cat.size() >= sizeof lower) return Category::kUnknown;
  for (size_t i = 0; i < cat.size(); ++i) {
    char c = cat[i];
    lower[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  const std::string_view c(lower, cat.size());
  if (c == "kernel") return Category::kKernel;
  if (c == "gpu_memcpy" || c == "memcpy") return Category::kMemcpy;
  if (c == "gpu_memset" || c == "memset") return Category::kMemset;
  if (c == "cuda_runtime" || c == "runtime") return Category::kRuntime;
  if (c == "cuda_driver" || c == "driver") return Category::kDriver;
  if (c == "user_annotation") return Category::kCpuAnnotation;
  if (c == "gpu_user_annotation") return Category::kGpuAnnotation;
  static constexpr std::string_view kKnownUnused[] = {
      "cpu_op",         "operator",          "python_function", "cpu_instant_event", "trace",
      "overhead",       "cuda_sync",         "fwdbwd",          "ac2g",              "gpu_pm_counter",
      "collective_comm", "cuda_profiler_range", "privateuse1_runtime", "privateuse1_driver",
      "mtia_runtime",   "mtia_ccp_events",   "xpu_runtime",     "hpu_op",            "glow_runtime",
      "python",         "memory",            "cpu_memory",
  };
  for (std::string_view k : kKnownUnused) {
    if (c == k) return Category::kSkipped;
  }
  return Category::kUnknown;
}

// Phases of the trace-event format that the reader knows and does not use.
bool IsKnownUnusedPhase(char ph) {
  return std::strchr("BEbeinIsftCPOND()RcTSpF", ph) != nullptr && ph != '\0';
}

const char* KindOfValue(Json::value_t t) {
  switch (t) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::string: return "a string";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    default: return "a value";
  }
}

// A wrong value in args, kept until the event's kind tells whether it matters: the
// same record as an XLA arg's.
using ArgProblem = detail::XlaArgProblem;

// The event being read.
struct PendingEvent {
  size_t offset = 0;  // its '{'
  int keys = 0;       // keys of the event itself: 0 for the `{}` XLA's writer ends with
  std::string ph, cat, name, arg_name, hlo_module;
  bool has_ph = false, has_cat = false, has_name = false, has_ts = false, has_dur = false;
  bool has_pid = false, has_tid = false, has_hlo_module = false;
  int64_t ts_ns = 0, dur_ns = 0, pid = 0, tid = 0;
  std::optional<int64_t> correlation, device, stream, external_id, correlation_id, scope_range_id;
  // Wrong args, by who uses them: correlation and External id (kept events), device and
  // stream (GPU work), name (process and thread names), XLA's correlation_id and its
  // module fields (decided once the event's line is known).
  ArgProblem arg_problem, gpu_arg_problem, name_arg_problem;
  detail::XlaArgProblem xla_correlation_problem, xla_module_problem;
  uint32_t seen_fields = 0;  // bits of Field, then of ArgField << 16: a repeated key is an error
  // A malformed field is an error only where the event's kind uses it (FinishEvent).
  uint16_t problem_fields = 0;  // bits of Field
  std::array<ArgProblem, 9> field_problems;

  void Reset(size_t at) {
    offset = at;
    keys = 0;
    ph.clear();
    cat.clear();
    name.clear();
    arg_name.clear();
    has_ph = has_cat = has_name = has_ts = has_dur = has_pid = has_tid = has_hlo_module = false;
    ts_ns = dur_ns = pid = tid = 0;
    correlation.reset();
    device.reset();
    stream.reset();
    external_id.reset();
    correlation_id.reset();
    scope_range_id.reset();
    seen_fields = 0;
    arg_problem.set = gpu_arg_problem.set = name_arg_problem.set = false;
    xla_correlation_problem.set = xla_module_problem.set = false;
    problem_fields = 0;
  }
};

class Handler {
 public:
  Handler(std::string_view bytes, const std::string& path, const ReadOptions& options, model::WorkSet* out)
      : bytes_(bytes), path_(path), strict_(options.mode == ReadMode::kStrict), out_(out) {
    cursor_ = bytes.data();
    states_.reserve(64);
  }

  const char** cursor() { return &cursor_; }
  const Status& error() const { return error_; }
  bool saw_events() const { return saw_events_; }

  // --- nlohmann SAX interface ---------------------------------------------------
  bool null() { return Scalar(Json::value_t::null); }
  bool boolean(bool) { return Scalar(Json::value_t::boolean); }
  bool number_integer(int64_t v) {
    if (states_.empty() || states_.back() == State::kSkip) return Top(Json::value_t::number_integer);
    return Integer(v < 0, v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
  }
  bool number_unsigned(uint64_t v) {
    if (states_.empty() || states_.back() == State::kSkip) return Top(Json::value_t::number_unsigned);
    return Integer(false, v);
  }
  bool number_float(double, const std::string& text) { return float_text(text); }
  bool string(std::string& s) { return string_text(s); }
  bool binary(Json::binary_t&) { return true; }
  bool start_object(size_t) { return Open(true); }
  bool start_array(size_t) { return Open(false); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool key(std::string& k) { return key_text(k); }
  // The same three as views (json_simd_walk.h TakesTextViews): simdjson's walk hands
  // its own buffer, copied only where the handler keeps the text.
  bool float_text(std::string_view text) {
    if (states_.empty() || states_.back() == State::kSkip) return Top(Json::value_t::number_float);
    return Float(text);
  }
  bool string_text(std::string_view s) {
    if (states_.empty() || states_.back() == State::kSkip) return Top(Json::value_t::string);
    return String(s);
  }
  bool key_text(std::string_view k);
  bool parse_error(size_t position, const std::string& last_token, const nlohmann::detail::exception& ex);

  // Classifies the buffered XLA events, then turns the tallies into diagnostics and
  // the kind counts into the trace. False on a strict-mode error (error()).
  bool Finish();

  // A handler for one run of events of a {"traceEvents": [...]} document, walked
  // apart from the others (json_simd_pipeline.h, a Runs policy): it starts inside the
  // array, and its events, kinds and tallies are merged into the document's handler
  // with MergeRun, in document order.
  void StartRun();
  // Whether what the run read is the same wherever it stands in the document: false
  // once it needed the document's state (an event's index in a message, an error, a
  // string pid or tid given a synthetic id, an XLA event buffered). Such a run is
  // handed to the document's handler callback by callback instead.
  bool Mergeable() const { return !needs_order_ && error_.ok(); }
  // Folds a Mergeable run, the next in document order, into this handler and its trace.
  void MergeRun(Handler& run);

 private:
  enum class State : uint8_t { kRootObject, kEvents, kEvent, kArgs, kSkip };

  size_t Offset() const { return static_cast<size_t>(cursor_ - bytes_.data()); }
  // The index of the event being read, for a message: a run's own index is not the
  // document's, so a run that shows one is not Mergeable.
  int64_t ShownEventIndex() {
    needs_order_ = true;
    return event_index_;
  }
  // Line and column of an offset. The line index covers only the prefix up to the
  // furthest offset asked for, so locating the first diagnostics near the start of a
  // large file costs little.
  SourceLocation Locate(size_t offset) {
    if (offset >= lines_limit_ || lines_limit_ == 0) {
      lines_limit_ = std::min(bytes_.size(), offset + 1);
      lines_ = ::perfgate::internal::LineIndex(bytes_.substr(0, lines_limit_));
      if (lines_limit_ == bytes_.size()) lines_limit_ = SIZE_MAX;
    }
    return lines_.Locate(path_, offset);
  }
  bool Fail(const char* code, size_t offset, std::string message) {
    needs_order_ = true;
    if (error_.ok()) error_ = Status::Error(code, std::move(message), Locate(offset));
    return false;
  }
  // Where a scalar that is just being reported starts: after the position of the
  // previous structural callback, past whitespace and separators. (For numbers the
  // cursor has already read one character ahead.)
  size_t ValueStart() const {
    size_t p = mark_;
    if (p == 0 && bytes_.substr(0, 3) == "\xEF\xBB\xBF") p = 3;
    while (p < bytes_.size() && (bytes_[p] == ' ' || bytes_[p] == '\t' || bytes_[p] == '\n' || bytes_[p] == '\r' ||
                                 bytes_[p] == ',' || bytes_[p] == ':')) {
      ++p;
    }
    return p;
  }
  // Offset of the key just read (its opening quote), else of the event.
  size_t KeyOffset() const { return key_offset_; }
  std::string EventContext() {
    std::string c = "in /traceEvents/" + std::to_string(ShownEventIndex());
    if (ev_.has_ph) c += ", a \"" + ev_.ph + "\" event";
    if (ev_.has_cat) c += " of cat \"" + ev_.cat + "\"";
    if (ev_.has_name) {
      std::string n = ev_.name.size() > 60 ? ev_.name.substr(0, 57) + "..." : ev_.name;
      c += " named \"" + n + "\"";
    }
    return c;
  }
  // A wrong value of the event's field field_, kept (the first per field) until the
  // event's kind tells whether it is used.
  void MarkBad(size_t offset, std::string problem) {
    const uint16_t bit = Bit(field_);
    if (field_ == Field::kOther || (ev_.problem_fields & bit)) return;
    ev_.problem_fields |= bit;
    ev_.field_problems[static_cast<size_t>(field_)] = {true, offset, std::move(problem)};
  }
  // A wrong arg matters only to events that use it: device and stream to GPU work,
  // name to process and thread names, the others to every kept event. Real traces put
  // "stream": -1 on cuda_sync events and "stream": "0x0" on HIP runtime calls, which
  // attribution never reads.
  void MarkArgBad(size_t offset, std::string problem) {
    if (arg_field_ == ArgField::kCorrelationId || arg_field_ == ArgField::kHloModule ||
        arg_field_ == ArgField::kScopeRangeId) {
      detail::XlaArgProblem& x =
          arg_field_ == ArgField::kCorrelationId ? ev_.xla_correlation_problem : ev_.xla_module_problem;
      if (!x.set) x = {true, offset, std::move(problem)};
      return;
    }
    ArgProblem& p = arg_field_ == ArgField::kDevice || arg_field_ == ArgField::kStream ? ev_.gpu_arg_problem
                    : arg_field_ == ArgField::kName                                      ? ev_.name_arg_problem
                                                                                         : ev_.arg_problem;
    if (p.set) return;
    p = {true, offset, std::move(problem)};
  }
  void Count(Tally t, size_t offset, const std::string& detail) {
    TallyEntry& e = tallies_[t];
    if (e.count++ == 0) {
      e.first_offset = offset;
      e.first_detail = detail;
    }
  }
  // A value inside a skipped container, or the root value.
  bool Top(Json::value_t t) {
    if (!states_.empty()) return true;  // inside a skipped container
    return Fail("json.not_json", ValueStart(),
                std::string("the top-level value is ") + KindOfValue(t) +
                    "; expected an object with \"traceEvents\" or an array of events");
  }
  bool Scalar(Json::value_t t);
  bool Integer(bool negative, uint64_t magnitude);
  void EventInteger(bool negative, uint64_t magnitude);
  void EventTime(bool negative, uint64_t magnitude);
  void EventId(bool negative, uint64_t magnitude);
  void ArgInteger(bool negative, uint64_t magnitude);
  void KeepArgInteger(int64_t v);
  void ArgString(std::string_view s);
  bool Float(std::string_view text);
  bool String(std::string_view s);
  bool Open(bool object);
  bool Close();
  int64_t StringId(std::string_view s);
  bool FinishEvent();
  bool FinishCompleteEvent();
  Checked CheckCompleteEvent();
  bool BufferXlaEvent();
  void KeepCompleteEvent(Category cat, int64_t start, int64_t end);
  bool FinishMetadataEvent();
  bool BadEvent(size_t offset, const std::string& problem);
  bool ArgBadEvent(const ArgProblem& p);
  const ArgProblem* FirstProblem(uint16_t used) const;
  void CountIgnored(uint16_t used_fields, int used_args);
  class XlaTallies;

  std::string_view bytes_;
  const std::string& path_;
  bool strict_;
  model::WorkSet* out_;
  const char* cursor_;
  Status error_;
  std::vector<State> states_;
  int depth_ = 0;
  bool saw_events_ = false;
  bool root_key_is_events_ = false;
  Field field_ = Field::kOther;
  ArgField arg_field_ = ArgField::kOther;
  size_t key_offset_ = 0;
  size_t mark_ = 0;  // the cursor after the last container callback
  int64_t event_index_ = -1;
  bool needs_order_ = false;  // see Mergeable()
  PendingEvent ev_;
  ::perfgate::internal::LineIndex lines_;
  size_t lines_limit_ = 0;  // the index covers bytes [0, lines_limit_); SIZE_MAX: all
  struct TallyEntry {
    int64_t count = 0;
    size_t first_offset = 0;
    std::string first_detail;
  };
  std::array<TallyEntry, kTallyCount> tallies_;
  std::unordered_map<std::string, int64_t> kinds_;
  std::string kind_key_;
  std::unordered_map<std::string, int64_t> string_ids_;
  detail::XlaEvents xla_;  // complete events without cat, classified in Finish
};

// A decimal string of at most 18 digits (so it fits in int64).
bool ParseDecimal(std::string_view s, uint64_t* v) {
  if (s.empty() || s.size() > 18) return false;
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *v = n;
  return true;
}

bool Handler::key_text(std::string_view k) {
  if (states_.empty()) return true;
  switch (states_.back()) {
    case State::kSkip:
      return true;
    case State::kEvent:
      field_ = FieldOf(k);
      ++ev_.keys;
      break;
    case State::kArgs:
      arg_field_ = ArgFieldOf(k);
      break;
    case State::kRootObject:
      root_key_is_events_ = Is(k, "traceEvents");
      break;
    case State::kEvents:
      break;
  }
  // The cursor is just past the closing quote; escapes make the raw key longer, in
  // which case the error points at the event instead.
  size_t end = Offset();
  key_offset_ = (end >= k.size() + 2 && bytes_[end - k.size() - 2] == '"') ? end - k.size() - 2 : ev_.offset;
  // A kept field written twice would silently keep its last value.
  uint32_t bit = 0;
  if (states_.back() == State::kEvent && field_ != Field::kOther) bit = 1u << static_cast<int>(field_);
  if (states_.back() == State::kArgs && arg_field_ != ArgField::kOther) bit = 1u << (16 + static_cast<int>(arg_field_));
  if (bit != 0) {
    if (ev_.seen_fields & bit) {
      if (states_.back() == State::kArgs) {
        MarkArgBad(key_offset_, std::string("\"") + ArgFieldName(arg_field_) + "\" is given twice");
      } else {
        MarkBad(key_offset_, std::string("\"") + FieldName(field_) + "\" is given twice");
      }
    }
    ev_.seen_fields |= bit;
  }
  return true;
}

bool Handler::Scalar(Json::value_t t) {
  if (states_.empty() || states_.back() == State::kSkip) return Top(t);
  switch (states_.back()) {
    case State::kRootObject:
      if (root_key_is_events_) {
        return Fail("json.not_json", key_offset_,
                    std::string("\"traceEvents\" is ") + KindOfValue(t) + "; expected an array of events");
      }
      return true;
    case State::kEvents:
      ++event_index_;
      ev_.Reset(ValueStart());
      mark_ = Offset();
      return BadEvent(ev_.offset, std::string("the event is ") + KindOfValue(t) + ", not an object (in /traceEvents/" +
                                      std::to_string(ShownEventIndex()) + ")");
    case State::kEvent:
      // null and booleans are never what a kept field holds.
      if (field_ != Field::kOther) {
        MarkBad(KeyOffset(), std::string("\"") + FieldName(field_) + "\" is " + KindOfValue(t));
      }
      return true;
    case State::kArgs:
      // A null arg counts as absent; a boolean where a number belongs is wrong.
      if (arg_field_ != ArgField::kOther && t != Json::value_t::null) {
        MarkArgBad(KeyOffset(), std::string("\"") + ArgFieldName(arg_field_) + "\" is " + KindOfValue(t));
      }
      return true;
    case State::kSkip:
      return true;
  }
  return true;
}

bool Handler::Integer(bool negative, uint64_t magnitude) {
  switch (states_.back()) {
    case State::kRootObject:
    case State::kEvents:
      return Scalar(Json::value_t::number_integer);
    case State::kEvent:
      EventInteger(negative, magnitude);
      return true;
    case State::kArgs:
      ArgInteger(negative, magnitude);
      return true;
    case State::kSkip:
      return true;
  }
  return true;
}

// An integer as the value of the event's field field_.
void Handler::EventInteger(bool negative, uint64_t magnitude) {
  switch (field_) {
    case Field::kTs:
    case Field::kDur: return EventTime(negative, magnitude);
    case Field::kPid:
    case Field::kTid: return EventId(negative, magnitude);
    case Field::kOther: return;
    default: MarkBad(KeyOffset(), std::string("\"") + FieldName(field_) + "\" is a number");
  }
}

// ts or dur: integer microseconds, kept as nanoseconds.
void Handler::EventTime(bool negative, uint64_t magnitude) {
  int64_t ns = 0;
  if (!detail::MicrosIntegerToNanos(negative, magnitude, &ns)) {
    MarkBad(KeyOffset(), std::string("\"") + FieldName(field_) + "\" is out of range for nanoseconds in 64 bits");
  } else if (field_ == Field::kTs) {
    ev_.ts_ns = ns;
    ev_.has_ts = true;
  } else {
    ev_.dur_ns = ns;
    ev_.has_dur = true;
  }
}

// pid or tid: any int64.
void Handler::EventId(bool negative, uint64_t magnitude) {
  if (!negative && magnitude > static_cast<uint64_t>(INT64_MAX)) {
    MarkBad(KeyOffset(), std::string("\"") + FieldName(field_) + "\" is out of range");
    return;
  }
  const int64_t v = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  if (field_ == Field::kPid) {
    ev_.pid = v;
    ev_.has_pid = true;
  } else {
    ev_.tid = v;
    ev_.has_tid = true;
  }
}

// An integer in args: correlation, device, stream and External id are non-negative int64.
void Handler::ArgInteger(bool negative, uint64_t magnitude) {
  if (arg_field_ == ArgField::kOther) return;
  if (arg_field_ == ArgField::kName) return MarkArgBad(KeyOffset(), "\"args.name\" is a number");
  if (negative || magnitude > static_cast<uint64_t>(INT64_MAX)) {
    return MarkArgBad(KeyOffset(), std::string("\"") + ArgFieldName(arg_field_) + "\" is out of range");
  }
  if (arg_field_ == ArgField::kHloModule) return MarkArgBad(KeyOffset(), "\"args.hlo_module\" is a number");
  KeepArgInteger(static_cast<int64_t>(magnitude));
}

void Handler::KeepArgInteger(int64_t v) {
  switch (arg_field_) {
    case ArgField::kCorrelation: ev_.correlation = v; break;
    case ArgField::kDevice: ev_.device = v; break;
    case ArgField::kStream: ev_.stream = v; break;
    case ArgField::kExternalId: ev_.external_id = v; break;
    case ArgField::kCorrelationId: ev_.correlation_id = v; break;
    case ArgField::kScopeRangeId: ev_.scope_range_id = v; break;
    default: break;
  }
}

// An arg written as a string: the name of a process or thread, XLA's module name, and
// XLA's ids (every XLA arg is a string: "correlation_id": "133").
void Handler::ArgString(std::string_view s) {
  switch (arg_field_) {
    case ArgField::kOther: return;
    case ArgField::kName: ev_.arg_name.assign(s); return;
    case ArgField::kHloModule:
      ev_.hlo_module.assign(s);
      ev_.has_hlo_module = true;
      return;
    case ArgField::kCorrelationId:
    case ArgField::kScopeRangeId: {
      uint64_t v = 0;
      if (ParseDecimal(s, &v)) return KeepArgInteger(static_cast<int64_t>(v));
      std::string shown = s.size() > 40 ? std::string(s.substr(0, 37)) + "..." : std::string(s);
      return MarkArgBad(KeyOffset(), std::string("\"") + ArgFieldName(arg_field_) + "\" is \"" + shown +
                                         "\"; expected a decimal integer");
    }
    default:
      return MarkArgBad(KeyOffset(), std::string("\"") + ArgFieldName(arg_field_) + "\" is a string; expected an integer");
  }
}

bool Handler::Float(std::string_view text) {
  switch (states_.back()) {
    case State::kEvent:
      if (field_ == Field::kTs || field_ == Field::kDur) {
        int64_t ns = 0;
        if (!detail::MicrosTextToNanos(text, &ns)) {
          MarkBad(KeyOffset(), std::string("\"") + FieldName(field_) + "\" is " + std::string(text) +
                                   ", out of range for nanoseconds in 64 bits");
        } else if (field_ == Field::kTs) {
          ev_.ts_ns = ns;
          ev_.has_ts = true;
        } else {
          ev_.dur_ns = ns;
          ev_.has_dur = true;
        }
        return true;
      }
      if (field_ != Field::kOther) {
        MarkBad(KeyOffset(), std::string("\"") + FieldName(field_) + "\" is " + std::string(text) +
                                 (field_ == Field::kPid || field_ == Field::kTid ? "; expected an integer or a string"
                                                                                 : ", a number"));
      }
      return true;
    case State::kArgs:
      if (arg_field_ != ArgField::kOther) {
        MarkArgBad(KeyOffset(), std::string("\"") + ArgFieldName(arg_field_) + "\" is " + std::string(text) +
                                 (arg_field_ == ArgField::kName ? ", a number" : "; expected an integer"));
      }
      return true;
    default:
      return Scalar(Json::value_t::number_float);
  }
}

int64_t Handler::StringId(std::string_view s) {
  // A decimal string is its number ("pid": "1234").
  if (uint64_t v = 0; ParseDecimal(s, &v)) return static_cast<int64_t>(v);
  needs_order_ = true;  // ids are numbered in document order
  auto [it, inserted] = string_ids_.emplace(s, model::kStringIdBase - static_cast<int64_t>(string_ids_.size()));
  if (inserted) out_->string_ids[it->second] = s;
  return it->second;
}

bool Handler::String(std::string_view s) {
  switch (states_.back()) {
    case State::kEvent:
      switch (field_) {
        case Field::kPh:
          ev_.ph.assign(s);
          ev_.has_ph = true;
          return true;
        case Field::kCat:
          ev_.cat.assign(s);
          ev_.has_cat = true;
          return true;
        case Field::kName:
          ev_.name.assign(s);
          ev_.has_name = true;
          return true;
        case Field::kPid:
          ev_.pid = StringId(s);
          ev_.has_pid = true;
          return true;
        case Field::kTid:
          ev_.tid = StringId(s);
          ev_.has_tid = true;
          return true;
        case Field::kOther:
          return true;
        default:
          MarkBad(KeyOffset(), std::string("\"") + FieldName(field_) + "\" is a string" +
                                   (field_ == Field::kTs || field_ == Field::kDur ? "; expected a number of microseconds"
                                                                                  : ""));
          return true;
      }
    case State::kArgs:
      ArgString(s);
      return true;
    default:
      return Scalar(Json::value_t::string);
  }
}

bool Handler::Open(bool object) {
  mark_ = Offset();
  if (++depth_ > kMaxDepth) {
    return Fail("json.too_deep", Offset() == 0 ? 0 : Offset() - 1,
                "values nest deeper than " + std::to_string(kMaxDepth) + " levels");
  }
  if (states_.empty()) {
    if (depth_ != 1) return true;  // unreachable: depth and states move together
    if (object) {
      states_.push_back(State::kRootObject);
    } else {
      states_.push_back(State::kEvents);
      saw_events_ = true;
    }
    return true;
  }
  const size_t at = Offset() == 0 ? 0 : Offset() - 1;
  switch (states_.back()) {
    case State::kSkip:
      states_.push_back(State::kSkip);
      return true;
    case State::kRootObject:
      if (root_key_is_events_) {
        if (object) return Fail("json.not_json", key_offset_, "\"traceEvents\" is an object; expected an array of events");
        if (saw_events_) {
          return Fail("json.not_json", key_offset_, "a second \"traceEvents\" array");
        }
        saw_events_ = true;
        states_.push_back(State::kEvents);
      } else {
        states_.push_back(State::kSkip);
      }
      return true;
    case State::kEvents:
      ++event_index_;
      if (object) {
        ev_.Reset(at);
        states_.push_back(State::kEvent);
        return true;
      }
      ev_.Reset(at);
      states_.push_back(State::kSkip);
      return BadEvent(at, "the event is an array, not an object (in /traceEvents/" +
                              std::to_string(ShownEventIndex()) + ")");
    case State::kEvent:
      if (field_ == Field::kArgs && object) {
        states_.push_back(State::kArgs);
        arg_field_ = ArgField::kOther;
        return true;
      }
      if (field_ != Field::kOther) {
        MarkBad(KeyOffset(), std::string("\"") + FieldName(field_) + "\" is " + (object ? "an object" : "an array"));
      }
      states_.push_back(State::kSkip);
      return true;
    case State::kArgs:
      if (arg_field_ != ArgField::kOther) {
        MarkArgBad(KeyOffset(),
                std::string("\"") + ArgFieldName(arg_field_) + "\" is " + (object ? "an object" : "an array"));
      }
      states_.push_back(State::kSkip);
      return true;
  }
  return true;
}

bool Handler::Close() {
  mark_ = Offset();
  --depth_;
  if (states_.empty()) return true;
  State s = states_.back();
  states_.pop_back();
  if (s == State::kEvent) return FinishEvent();
  return true;
}

bool Handler::BadEvent(size_t offset, const std::string& problem) {
  ++out_->events;
  if (strict_) return Fail("json.bad_event", offset, problem);
  ++out_->bad_events;
  Count(kTallyBadEvent, offset, problem);
  return true;
}

bool Handler::ArgBadEvent(const ArgProblem& p) {
  return BadEvent(p.offset, p.problem + " (" + EventContext() + ")");
}

// The first (in file order) malformed field among `used`, else null.
const ArgProblem* Handler::FirstProblem(uint16_t used) const {
  const ArgProblem* first = nullptr;
  const uint16_t bad = ev_.problem_fields & used;
  for (size_t f = 0; bad != 0 && f < ev_.field_problems.size(); ++f) {
    if (!(bad & (1u << f))) continue;
    const ArgProblem& p = ev_.field_problems[f];
    if (first == nullptr || p.offset < first->offset) first = &p;
  }
  return first;
}

// Malformed fields that the event's kind does not use: counted, never an error.
void Handler::CountIgnored(uint16_t used_fields, int used_args) {
  auto count = [this](bool set, size_t offset, const std::string& problem) {
    if (set) Count(kTallyIgnoredField, offset, problem + " (" + EventContext() + ")");
  };
  const uint16_t ignored = ev_.problem_fields & static_cast<uint16_t>(~used_fields);
  for (size_t f = 0; ignored != 0 && f < ev_.field_problems.size(); ++f) {
    const ArgProblem& p = ev_.field_problems[f];
    count((ignored & (1u << f)) != 0, p.offset, p.problem);
  }
  if (!(used_args & kKeptArgs)) count(ev_.arg_problem.set, ev_.arg_problem.offset, ev_.arg_problem.problem);
  if (!(used_args & kGpuArgs)) count(ev_.gpu_arg_problem.set, ev_.gpu_arg_problem.offset, ev_.gpu_arg_problem.problem);
  if (!(used_args & kNameArg)) count(ev_.name_arg_problem.set, ev_.name_arg_problem.offset, ev_.name_arg_problem.problem);
  if (!(used_args & kXlaArgs)) {
    for (const detail::XlaArgProblem* p : {&ev_.xla_correlation_problem, &ev_.xla_module_problem}) {
      count(p->set, p->offset, p->problem);
    }
  }
}

bool Handler::FinishEvent() {
  if (ev_.keys == 0) {  // XLA's writer closes traceEvents with `{}`
    ++out_->events;
    ++kinds_["{}"];
    Count(kTallySkippedEvent, ev_.offset, "{} (an empty event)");
    return true;
  }
  if (const ArgProblem* p = FirstProblem(Bit(Field::kPh))) return BadEvent(p->offset, p->problem + " (" + EventContext() + ")");
  if (!ev_.has_ph) return BadEvent(ev_.offset, "the event has no \"ph\" (" + EventContext() + ")");
  if (ev_.ph.size() != 1) {
    ++out_->events;
    Count(kTallyUnknownPhase, ev_.offset, "ph \"" + ev_.ph + "\"");
    CountIgnored(Bit(Field::kPh), kNoArgs);
    kind_key_ = ev_.ph;
    ++kinds_[kind_key_];
    return true;
  }
  const char ph = ev_.ph[0];
  // The kind, for model::WorkSet::event_kinds.
  kind_key_.assign(1, ph);
  kind_key_ += '/';
  if (ev_.has_cat) {
    kind_key_ += ev_.cat;
  } else if (ph == 'M') {
    kind_key_ += ev_.name;
  }

  if (ph == 'X') return FinishCompleteEvent();
  if (ph == 'M') return FinishMetadataEvent();
  // Flows, instants, counters, ...: nothing but ph is used.
  CountIgnored(Bit(Field::kPh), kNoArgs);
  ++out_->events;
  ++kinds_[kind_key_];
  Count(IsKnownUnusedPhase(ph) ? kTallySkippedEvent : kTallyUnknownPhase, ev_.offset, kind_key_);
  return true;
}

// The fields and times of a complete event whose every field is used: kDropped when
// it was malformed and lenient mode dropped it, kStop on a strict-mode error.
Checked Handler::CheckCompleteEvent() {
  std::string problem;
  size_t at = ev_.offset;
  if (const ArgProblem* p = FirstProblem(kAllFields)) {
    problem = p->problem;
    at = p->offset;
  } else if (!ev_.has_ts) {
    problem = "the complete event has no \"ts\"";
  } else if (!ev_.has_dur) {
    problem = "the complete event has no \"dur\"";
  } else if (ev_.dur_ns < 0) {
    problem = "\"dur\" is negative";
  } else if (ev_.ts_ns < -kMaxTimeNs || ev_.ts_ns > kMaxTimeNs || ev_.dur_ns > kMaxTimeNs) {
    problem = std::string(ev_.dur_ns > kMaxTimeNs ? "\"dur\"" : "\"ts\"") +
              " is beyond 2^61 ns (73 years), the most a trace time may be";
  } else {
    return Checked::kOk;
  }
  return BadEvent(at, problem + " (" + EventContext() + ")") ? Checked::kDropped : Checked::kStop;
}

// A complete event ("X"): kept by category, counted as skipped, or (without cat)
// buffered for the XLA dialect. Its cat is always used; a skipped category uses no
// other field.
bool Handler::FinishCompleteEvent() {
  if (const ArgProblem* p = FirstProblem(Bit(Field::kPh) | Bit(Field::kCat))) {
    return BadEvent(p->offset, p->problem + " (" + EventContext() + ")");
  }
  if (!ev_.has_cat) return BufferXlaEvent();
  const Category cat = CategoryOf(ev_.cat);
  if (cat == Category::kSkipped || cat == Category::kUnknown) {
    CountIgnored(Bit(Field::kPh) | Bit(Field::kCat), kNoArgs);
    ++out_->events;
    ++kinds_[kind_key_];
    Count(cat == Category::kSkipped ? kTallySkippedEvent : kTallyUnknownCategory, ev_.offset, kind_key_);
    return true;
  }
  if (Checked c = CheckCompleteEvent(); c != Checked::kOk) return c == Checked::kDropped;
  const bool gpu_work = cat == Category::kKernel || cat == Category::kMemcpy || cat == Category::kMemset;
  if (ev_.arg_problem.set) return ArgBadEvent(ev_.arg_problem);
  if (gpu_work && ev_.gpu_arg_problem.set) return ArgBadEvent(ev_.gpu_arg_problem);
  CountIgnored(kAllFields, kKeptArgs | (gpu_work ? kGpuArgs : kNoArgs));
  ++out_->events;
  ++kinds_[kind_key_];
  KeepCompleteEvent(cat, ev_.ts_ns, ev_.ts_ns + ev_.dur_ns);
  return true;
}

// A complete event without cat: every field may be used (it may be XLA GPU work or a
// launch call); its XLA args are judged once its line is known.
bool Handler::BufferXlaEvent() {
  needs_order_ = true;  // XLA events are classified in Finish, with module ids numbered in order
  if (Checked c = CheckCompleteEvent(); c != Checked::kOk) return c == Checked::kDropped;
  ++out_->events;
  detail::XlaEvent e;
  e.offset = ev_.offset;
  e.name = ev_.name;
  e.start_ns = ev_.ts_ns;
  e.end_ns = ev_.ts_ns + ev_.dur_ns;
  e.pid = ev_.pid;
  e.tid = ev_.tid;
  e.has_correlation_id = ev_.correlation_id.has_value();
  e.correlation_id = ev_.correlation_id.value_or(0);
  e.has_scope_range_id = ev_.scope_range_id.has_value();
  e.scope_range_id = ev_.scope_range_id.value_or(0);
  if (ev_.has_hlo_module) e.hlo_module = xla_.ModuleIndex(ev_.hlo_module);
  auto problem = [this](detail::XlaArgProblem& p) {
    if (!p.set) return -1;
    p.problem += " (" + EventContext() + ")";
    return xla_.AddProblem(std::move(p));
  };
  e.correlation_problem = problem(ev_.xla_correlation_problem);
  e.module_problem = problem(ev_.xla_module_problem);
  CountIgnored(kAllFields, kXlaArgs);  // Kineto's args are not XLA's
  xla_.events.push_back(std::move(e));
  return true;
}

void Handler::KeepCompleteEvent(Category cat, int64_t start, int64_t end) {
  switch (cat) {
    case Category::kKernel:
    case Category::kMemcpy:
    case Category::kMemset: {
      model::WorkItem w;
      w.kind = cat == Category::kKernel ? model::WorkKind::kKernel
               : cat == Category::kMemcpy ? model::WorkKind::kMemcpy
                                          : model::WorkKind::kMemset;
      w.name = ev_.name;
      w.start_ns = start;
      w.end_ns = end;
      w.pid = ev_.pid;
      w.tid = ev_.tid;
      w.device = ev_.device.value_or(ev_.pid);
      w.stream = ev_.stream.value_or(ev_.tid);
      w.correlation = ev_.correlation;
      if (!w.correlation) Count(kTallyMissingCorrelation, ev_.offset, kind_key_ + " \"" + w.name + "\"");
      out_->items.push_back(std::move(w));
      return;
    }
    case Category::kRuntime:
    case Category::kDriver: {
      model::HostCall r;
      r.name = ev_.name;
      r.start_ns = start;
      r.end_ns = end;
      r.pid = ev_.pid;
      r.tid = ev_.tid;
      r.correlation = ev_.correlation;
      r.driver = cat == Category::kDriver;
      r.kind = sources::CudaHostCallKind(r.name);
      out_->host_calls.push_back(std::move(r));
      return;
    }
    case Category::kCpuAnnotation:
    case Category::kGpuAnnotation: {
      model::Span a;
      a.name = ev_.name;
      a.start_ns = start;
      a.end_ns = end;
      a.pid = ev_.pid;
      a.tid = ev_.tid;
      a.external_id = ev_.external_id;
      (cat == Category::kCpuAnnotation ? out_->host_spans : out_->gpu_spans).push_back(std::move(a));
      return;
    }
    case Category::kSkipped:
      Count(kTallySkippedEvent, ev_.offset, kind_key_);
      return;
    case Category::kUnknown:
      Count(kTallyUnknownCategory, ev_.offset, kind_key_);
      return;
  }
}

// A metadata event ("M"): process and thread names are kept, the rest skipped.
bool Handler::FinishMetadataEvent() {
  const bool process = Is(ev_.name, "process_name");
  const bool thread = Is(ev_.name, "thread_name");
  // The name says what the event is; process and thread names use pid, tid and args.name.
  const uint16_t used = Bit(Field::kPh) | Bit(Field::kName) |
                        (process || thread ? Bit(Field::kPid) | Bit(Field::kArgs) : 0) |
                        (thread ? Bit(Field::kTid) : 0);
  if (const ArgProblem* p = FirstProblem(used)) return BadEvent(p->offset, p->problem + " (" + EventContext() + ")");
  CountIgnored(used, process || thread ? kNameArg : kNoArgs);
  if (process || thread) {
    if (ev_.name_arg_problem.set) return ArgBadEvent(ev_.name_arg_problem);
    if (!ev_.has_pid || (thread && !ev_.has_tid)) {
      return BadEvent(ev_.offset, std::string("the ") + ev_.name + " event has no \"" +
                                      (ev_.has_pid ? "tid" : "pid") + "\" (" + EventContext() + ")");
    }
    ++out_->events;
    ++kinds_[kind_key_];
    if (process) {
      out_->process_names[ev_.pid] = ev_.arg_name;
    } else {
      out_->thread_names[{ev_.pid, ev_.tid}] = ev_.arg_name;
    }
    return true;
  }
  ++out_->events;
  ++kinds_[kind_key_];
  Count(kTallySkippedEvent, ev_.offset, kind_key_);
  return true;
}

void Handler::StartRun() {
  states_ = {State::kRootObject, State::kEvents};
  depth_ = 2;
  saw_events_ = root_key_is_events_ = true;
}

template <typename T>
void MoveAppend(std::vector<T>* from, std::vector<T>* to) {
  if (to->empty()) {
    to->swap(*from);
    return;
  }
  to->insert(to->end(), std::make_move_iterator(from->begin()), std::make_move_iterator(from->end()));
}

void Handler::MergeRun(Handler& run) {
  model::WorkSet& t = *run.out_;
  out_->events += t.events;
  out_->bad_events += t.bad_events;
  MoveAppend(&t.items, &out_->items);
  MoveAppend(&t.host_calls, &out_->host_calls);
  MoveAppend(&t.host_spans, &out_->host_spans);
  MoveAppend(&t.gpu_spans, &out_->gpu_spans);
  for (auto& [pid, name] : t.process_names) out_->process_names[pid] = std::move(name);
  for (auto& [ids, name] : t.thread_names) out_->thread_names[ids] = std::move(name);
  for (int k = 0; k < kTallyCount; ++k) {
    TallyEntry& mine = tallies_[k];
    TallyEntry& theirs = run.tallies_[k];
    if (theirs.count == 0) continue;
    if (mine.count == 0) {
      mine.first_offset = theirs.first_offset;
      mine.first_detail = std::move(theirs.first_detail);
    }
    mine.count += theirs.count;
  }
  for (auto& [kind, n] : run.kinds_) kinds_[kind] += n;
  event_index_ += run.event_index_ + 1;
}

bool Handler::parse_error(size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
  if (!error_.ok()) return false;  // our own error stopped the parse
  // nlohmann counts the characters read, the one where it failed included, so
  // position - 1 is that character; a number that overflows is reported after its
  // last digit, so it is located at its first.
  size_t offset = position == 0 ? 0 : position - 1;
  if (ex.id == 406 && position >= last_token.size()) offset = position - last_token.size();
  offset = std::min(offset, bytes_.size());
  // Invalid UTF-8 is the cause whenever a bad sequence starts at or before the error.
  const size_t check = std::min(bytes_.size(), offset + 4);
  const size_t bad = ::perfgate::internal::FindInvalidUtf8(bytes_.substr(0, check));
  if (bad != std::string_view::npos && bad <= offset) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(bytes_[bad]));
    return Fail("json.bad_utf8", bad, std::string("invalid UTF-8 sequence starting with byte ") + hex);
  }
  std::string message = ex.what();
  size_t b = message.find("] ");
  if (b != std::string::npos) message = message.substr(b + 2);
  if (message.rfind("parse error", 0) == 0) {
    size_t c = message.find(": ");
    if (c != std::string::npos) message = message.substr(c + 2);
  }
  const bool truncated = message.find("unexpected end of input") != std::string::npos ||
                         (message.find("missing closing quote") != std::string::npos && offset >= bytes_.size());
  if (truncated) {
    std::string where = "a value";
    if (!states_.empty()) {
      switch (states_.back()) {
        case State::kEvent:
        case State::kArgs: where = "event /traceEvents/" + std::to_string(event_index_); break;
        case State::kEvents: where = "the \"traceEvents\" array"; break;
        default: where = "the top-level value"; break;
      }
    }
    return Fail("json.truncated", bytes_.size(), "the file ends inside " + where + " (" + message + ")");
  }
  return Fail("json.not_json", offset, message);
}

// The reader's tallies and mode, as the XLA classification sees them.
class Handler::XlaTallies : public detail::XlaSink {
 public:
  explicit XlaTallies(Handler* h) : h_(h) {}
  void Count(Note note, size_t offset, const std::string& detail) override {
    switch (note) {
      case Note::kNotXla: return h_->Count(kTallyUnknownCategory, offset, detail);
      case Note::kOtherLine: return h_->Count(kTallyXlaOtherLine, offset, detail);
      case Note::kPythonTracer: return h_->Count(kTallySkippedEvent, offset, detail);
      case Note::kMissingCorrelation: return h_->Count(kTallyMissingCorrelation, offset, detail);
    }
  }
  bool Bad(const detail::XlaArgProblem& p) override {
    if (h_->strict_) return h_->Fail("json.bad_event", p.offset, p.problem);
    ++h_->out_->bad_events;
    h_->Count(kTallyBadEvent, p.offset, p.problem);
    return true;
  }
  void Kind(const char* kind) override { ++h_->kinds_[kind]; }

 private:
  Handler* h_;
};

bool Handler::Finish() {
  XlaTallies xla(this);
  if (!detail::ClassifyXlaEvents(&xla_, &xla, out_)) return false;
  size_t furthest = 0;
  for (const TallyEntry& e : tallies_) {
    if (e.count > 0) furthest = std::max(furthest, e.first_offset);
  }
  Locate(furthest);  // one index for all the first locations
  for (int t = 0; t < kTallyCount; ++t) {
    const TallyEntry& e = tallies_[t];
    if (e.count == 0) continue;
    out_->diagnostics.Add(kTallyCodes[t], Locate(e.first_offset), e.first_detail);
    out_->diagnostics.AddCount(kTallyCodes[t], e.count - 1);
  }
  for (auto& [k, n] : kinds_) out_->event_kinds[k] += n;
  return true;
}

// A handler of one run of events, with the trace it reads into (json_simd_pipeline.h).
struct RunTrace {
  model::WorkSet trace;
};
class RunHandler : private RunTrace, public Handler {
 public:
  RunHandler(std::string_view bytes, const std::string& path, const ReadOptions& options)
      : Handler(bytes, path, options, &trace) {
    StartRun();
  }
};

// The runs of a document read apart by the pipeline's workers, merged into its handler.
class HandlerRuns {
 public:
  using Run = RunHandler;
  HandlerRuns(Handler* document, std::string_view bytes, const std::string& path, const ReadOptions& options)
      : document_(document), bytes_(bytes), path_(path), options_(options) {}
  std::unique_ptr<Run> Make() const { return std::make_unique<Run>(bytes_, path_, options_); }
  void Merge(Run& run) { document_->MergeRun(run); }

 private:
  Handler* document_;
  std::string_view bytes_;
  const std::string& path_;
  const ReadOptions& options_;
};

// The checks after a walk that reached the end: there were events, and the
// buffered XLA events and tallies are finished.
Status Finished(Handler& handler, const model::WorkSet& trace, const std::string& path) {
  if (!handler.error().ok()) return handler.error();
  if (!handler.saw_events()) {
    return Status::Error("json.no_events", "no \"traceEvents\" array: not a trace-event file", {path, 1, 1});
  }
  if (trace.events == 0) return Status::Error("json.no_events", "\"traceEvents\" is empty", {path, 1, 1});
  if (!handler.Finish()) return handler.error();
  return Status();
}

}  // namespace

namespace detail {

Status ReadEventsWithNlohmann(std::string_view bytes, const std::string& path, const ReadOptions& options,
                              model::WorkSet* trace) {
  Handler handler(bytes, path, options, trace);
  TrackingIterator begin{bytes.data(), handler.cursor()};
  TrackingIterator end{bytes.data() + bytes.size(), handler.cursor()};
  bool ok = false;
  try {
    ok = Json::sax_parse(begin, end, &handler, Json::input_format_t::json, /*strict=*/true,
                         /*ignore_comments=*/false);
  } catch (const std::exception& e) {
    // The SAX parser reports errors through parse_error; anything thrown here is a
    // resource failure (std::bad_alloc).
    return Status::Error("json.not_json", std::string("the parser failed: ") + e.what(), {path});
  }
  if (!handler.error().ok()) return handler.error();
  if (!ok) return Status::Error("json.not_json", "the parser stopped", {path});
  return Finished(handler, *trace, path);
}

SimdPlan AutoSimdPlan(size_t input_bytes) {
  SimdPlan plan;
  plan.piece_bytes = input_bytes >= 8 * kSimdPieceBytes ? kSimdPieceBytes : 0;
  if (plan.piece_bytes > 0 && ParallelWorkersAvailable()) {
    // Worker threads beside the calling one, which mostly waits on them: on two cores
    // two workers keep both busy.
    const auto jobs = ResolveJobs();
    plan.workers = std::clamp(jobs.ok() ? *jobs : 1, 2, 8);
  }
  return plan;
}

Status ReadEvents(std::string_view bytes, const std::string& path, const ReadOptions& options, model::WorkSet* trace,
                  size_t padding, JsonParser* parser, const SimdPlan* plan) {
  const model::WorkSet before = *trace;
  SimdPlan walk = plan != nullptr ? *plan : AutoSimdPlan(bytes.size());
  // In pieces, then (a document without their layout) whole, then with nlohmann.
  for (int attempt = walk.piece_bytes > 0 ? 0 : 1; attempt < 2; ++attempt) {
    if (attempt == 1) walk.piece_bytes = 0;
    *trace = before;
    Handler handler(bytes, path, options, trace);
    HandlerRuns runs(&handler, bytes, path, options);
    const SimdWalk walked =
        walk.piece_bytes == 0 ? SimdWalker<Handler>(bytes, &handler).Run(padding)
        : walk.workers > 0    ? ParallelChunkedSimdWalk(bytes, &handler, walk.piece_bytes, walk.workers, &runs)
                              : ChunkedSimdWalk(bytes, &handler, walk.piece_bytes);
    if (walked != SimdWalk::kMalformed) {
      if (parser) *parser = JsonParser::kSimdjson;
      return Finished(handler, *trace, path);
    }
  }
  // Not JSON as simdjson reads it: nlohmann reads it from the start, to the same
  // figures where it is JSON after all, and to its error, located and worded, where not.
  *trace = before;
  if (parser) *parser = JsonParser::kNlohmann;
  return ReadEventsWithNlohmann(bytes, path, options, trace);
}

}  // namespace detail
}  // namespace perfgate::json_trace
