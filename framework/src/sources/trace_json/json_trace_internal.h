// Private helpers of the trace-JSON source, exposed to its unit tests.
#ifndef PERFGATE_SRC_JSON_TRACE_JSON_TRACE_INTERNAL_H_
#define PERFGATE_SRC_JSON_TRACE_JSON_TRACE_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "perfgate/attribution/options.h"
#include "perfgate/core/status.h"
#include "perfgate/json_trace/reader.h"

namespace perfgate::json_trace::detail {

// How StreamFilePrefix stopped.
enum class StreamEnd {
  kNotARegularFile,  // it cannot be opened, or is no regular file
  kSinkStopped,      // the sink returned false
  kEnded,            // all of the file was fed
  kPastLimit,        // more than the limit was there (a gzip bomb, or a file grown past the input limit)
  kBrokenGzip,       // the gzip stream is corrupt or cut off
};

// Feeds `sink` the bytes of the regular file `path`, inflated when gzip-compressed (by
// its magic bytes), in chunks of at most 64 KiB, until `sink` returns false, the file
// ends, its gzip stream breaks, or it has fed min(`max_bytes`, the input limits' cap
// for this file) bytes (when the cap is the smaller, one byte more, to tell a file
// that fills it from one that exceeds it). Nothing is kept: memory stays one chunk.
// Opened without blocking and checked to be a regular file on its descriptor, so a
// FIFO never blocks. `*gzip`, when given, says before the first chunk whether the
// file is gzip-compressed.
StreamEnd StreamFilePrefix(const std::string& path, uint64_t max_bytes,
                           const std::function<bool(std::string_view)>& sink, bool* gzip = nullptr);

// The most a reader may see of a file of `size` bytes on disk: the input limit, and
// for a gzip stream the inflation cap ReadWholeFile applies (defaults when the
// environment's limits are bad: the read itself reports them).
uint64_t ReadableBytes(uint64_t size, bool gzip);

// The SAX pass over `bytes` (not empty, not only whitespace) into `trace`: errors
// json.not_json, json.truncated, json.bad_utf8, json.too_deep, json.no_events and,
// in strict mode, json.bad_event, located in `path`.
// simdjson's On-Demand parser reads well-formed input (`padding`: bytes readable past
// its end, SIMDJSON_PADDING or more spares a copy); input it rejects is read again by
// nlohmann's SAX parser, which words the error.
// `*parser`, when given, says which parser's reading is the result.
// How simdjson walks (`plan`, by default AutoSimdPlan): a large trace in pieces
// (json_simd_chunks.h; a document without their layout is walked whole), and the
// pieces walked by worker threads while the calling thread hands their callbacks to
// the handler (json_simd_pipeline.h). The result is the same whatever the plan.
enum class JsonParser { kSimdjson, kNlohmann };
struct SimdPlan {
  int workers = 0;         // threads walking pieces; 0: every piece on the calling thread
  size_t piece_bytes = 0;  // 0: the document whole (and on the calling thread)
};
inline constexpr size_t kSimdPieceBytes = size_t{1} << 20;
// Pieces of kSimdPieceBytes for inputs of 8 pieces or more (below that the threads
// and the pieces' buffers cost more than they save), walked by as many workers as the
// job count (2 to 8) where a second core is free (ParallelWorkersAvailable). 1 MiB,
// not more: a 20 MB trace in 4 MiB pieces gave two workers too few pieces to share
// (43 ms against 30 ms), and at 200 MB the two sizes read alike.
SimdPlan AutoSimdPlan(size_t input_bytes);
Status ReadEvents(std::string_view bytes, const std::string& path, const ReadOptions& options, model::WorkSet* trace,
                  size_t padding = 0, JsonParser* parser = nullptr, const SimdPlan* plan = nullptr);

// The same pass with nlohmann's SAX parser alone: what ReadEvents falls back to, and
// the reference its tests compare simdjson's reading with.
Status ReadEventsWithNlohmann(std::string_view bytes, const std::string& path, const ReadOptions& options,
                              model::WorkSet* trace);

// Converts the text of a JSON number of microseconds ("1234.5678", "-2", "1.5e3") to
// nanoseconds exactly, rounding half away from zero to the nearest nanosecond
// ("0.0005" -> 1, "0.00049" -> 0). The text must be a valid JSON number. False when
// the result does not fit in int64_t.
bool MicrosTextToNanos(std::string_view text, int64_t* ns);

// The same for an integer number of microseconds given as sign and magnitude.
bool MicrosIntegerToNanos(bool negative, uint64_t magnitude, int64_t* ns);

}  // namespace perfgate::json_trace::detail

#endif  // PERFGATE_SRC_JSON_TRACE_JSON_TRACE_INTERNAL_H_
