// The simdjson walk of a large trace in pieces of a few MB: simdjson's index of a
// whole 200 MB document is about a gigabyte of fresh memory, and touching it cost
// more than the parse. A piece's index fits in the cache and its buffers serve the
// next piece.
//
// The pieces of {"...": ..., "traceEvents": [e0, e1, ...], "...": ...}:
//  - the head, up to the '[' that opens traceEvents, walked as head + "]}";
//  - the events, cut after a ',' that ends a line, each run walked as "[" + run + "]";
//  - the tail, from the ']' that closes the array, walked as {"k":[ + tail.
// The handler is given the callbacks of the whole document's walk and no others (the
// added brackets' callbacks are left out) with cursors in the real input. Nothing is
// assumed about where the cuts fall: each piece is parsed whole by simdjson, so a cut
// inside an event, a second array after traceEvents, or any other layout makes a piece
// fail, and the caller walks the document whole instead (kMalformed). Together the
// pieces cover every byte, each one as JSON, so a walk that ends kDone read exactly
// the document's values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "json_simd_walk.h"  // simdjson.h, with the settings every unit must share

namespace perfgate::json_trace::detail {

// Where the pieces lie: the '[' of traceEvents, the ']' that closes it, and the
// start of each run of events after the first.
struct EventPieces {
  size_t open = 0, close = 0;
  std::vector<size_t> cuts;  // each just past a ',' that ends a line; ascending, in (open, close)
};

inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The '[' after the root object's "traceEvents" key, found by reading at most
// `limit` bytes of the head (strings skipped, depth counted); npos when not there.
inline size_t FindEventsOpen(std::string_view b, size_t limit) {
  static constexpr std::string_view kKey = "\"traceEvents\"";
  int depth = 0;
  const size_t end = b.size() < limit ? b.size() : limit;
  for (size_t i = 0; i < end; ++i) {
    const char c = b[i];
    if (c == '"') {
      const bool key = depth == 1 && b.compare(i, kKey.size(), kKey) == 0;
      size_t j = i + 1;
      while (j < end && b[j] != '"') j += b[j] == '\\' ? 2 : 1;
      if (j >= end) return std::string_view::npos;
      i = j;
      if (!key) continue;
      size_t k = j + 1;
      while (k < end && IsJsonSpace(b[k])) ++k;
      if (k >= end || b[k] != ':') continue;
      ++k;
      while (k < end && IsJsonSpace(b[k])) ++k;
      if (k < end && b[k] == '[') return k;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return std::string_view::npos;
}

// The last ']' of the root object's own members, found by reading at most `limit`
// bytes back from the end: a quote is a string's edge unless an odd run of
// backslashes stands before it. npos when not there.
inline size_t FindEventsClose(std::string_view b, size_t limit) {
  int depth = 0;
  bool in_string = false;
  const size_t stop = b.size() > limit ? b.size() - limit : 0;
  for (size_t i = b.size(); i-- > stop;) {
    const char c = b[i];
    if (c == '"') {
      size_t backslashes = 0;
      while (i - backslashes > 0 && b[i - backslashes - 1] == '\\') ++backslashes;
      if (backslashes % 2 == 0) in_string = !in_string;
      continue;
    }
    if (in_string) continue;
    if (c == '}' || c == ']') {
      if (c == ']' && depth == 1) return i;
      ++depth;
    } else if (c == '{' || c == '[') {
      --depth;
    }
  }
  return std::string_view::npos;
}

// Cuts about every `piece_bytes` between open and close, each at the first line end
// from there whose last non-space byte is a ',' and whose next line starts with a
// '{' (inside an event, a ',' at a line's end is followed by a key). A raw newline
// never stands inside a JSON string, so the comma is outside one; whether it ends an
// event is for the pieces' parses to show.
inline EventPieces FindEventPieces(std::string_view b, size_t piece_bytes) {
  EventPieces p;
  p.open = FindEventsOpen(b, size_t{1} << 20);
  if (p.open == std::string_view::npos) return p;
  p.close = FindEventsClose(b, size_t{1} << 20);
  if (p.close == std::string_view::npos || p.close <= p.open) {
    p.open = std::string_view::npos;
    return p;
  }
  size_t from = p.open + 1 + piece_bytes;
  while (from < p.close) {
    const size_t newline = b.find('\n', from);
    if (newline == std::string_view::npos || newline >= p.close) break;
    size_t last = newline, next = newline;
    while (last > p.open && IsJsonSpace(b[last])) --last;
    while (next < p.close && IsJsonSpace(b[next])) ++next;
    if (b[last] == ',' && b[next] == '{' && last > (p.cuts.empty() ? p.open : p.cuts.back())) {
      p.cuts.push_back(last + 1);
      from = last + 1 + piece_bytes;
    } else {
      from = newline + 1;
    }
  }
  return p;
}

enum class PieceKind { kHead, kRun, kTail };

// Hands the walker's callbacks of one piece to `sax`, less the added brackets': a
// head's callbacks located after it (its "]}"), a run's outer "[" and "]", a tail's
// first three ({"k":[).
template <typename Sax>
class PieceSax {
 public:
  PieceSax(Sax* sax, PieceKind kind, const char* head_end) : sax_(sax), kind_(kind), head_end_(head_end) {}

  const char** cursor() { return sax_->cursor(); }
  int64_t values() const { return values_; }  // a run's events

  bool null() { return Scalar() ? sax_->null() : true; }
  bool boolean(bool v) { return Scalar() ? sax_->boolean(v) : true; }
  bool number_integer(int64_t v) { return Scalar() ? sax_->number_integer(v) : true; }
  bool number_unsigned(uint64_t v) { return Scalar() ? sax_->number_unsigned(v) : true; }
  // Texts as views (TakesTextViews), handed on as the handler takes them.
  bool float_text(std::string_view t) {
    if (!Scalar()) return true;
    if constexpr (TakesTextViews<Sax>::value) {
      return sax_->float_text(t);
    } else {
      return sax_->number_float(0.0, text_.assign(t.data(), t.size()));
    }
  }
  bool string_text(std::string_view s) {
    if (!Scalar()) return true;
    if constexpr (TakesTextViews<Sax>::value) {
      return sax_->string_text(s);
    } else {
      return sax_->string(text_.assign(s.data(), s.size()));
    }
  }
  bool key_text(std::string_view k) {
    if (!Keep(0)) return true;
    if constexpr (TakesTextViews<Sax>::value) {
      return sax_->key_text(k);
    } else {
      return sax_->key(text_.assign(k.data(), k.size()));
    }
  }
  bool start_object(size_t n) { return Keep(+1) ? sax_->start_object(n) : true; }
  bool start_array(size_t n) { return Keep(+1) ? sax_->start_array(n) : true; }
  bool end_object() { return Keep(-1) ? sax_->end_object() : true; }
  bool end_array() { return Keep(-1) ? sax_->end_array() : true; }

 private:
  bool Scalar() { return Keep(0); }
  // Whether the callback that moves the depth by `step` is the document's.
  bool Keep(int step) {
    const int before = depth_;
    depth_ += step;
    switch (kind_) {
      case PieceKind::kHead:
        return *sax_->cursor() <= head_end_;
      case PieceKind::kRun:
        if (before == 1 && step >= 0) ++values_;  // a value of the run begins
        return !(before == 0 && step == +1) && !(depth_ == 0 && step == -1);
      case PieceKind::kTail:
        return ++seen_ > 3;
    }
    return true;
  }

  Sax* sax_;
  PieceKind kind_;
  const char* head_end_;
  int depth_ = 0;
  int64_t values_ = 0;
  int seen_ = 0;
  std::string text_;
};

// One piece: prefix + bytes[from, to) + suffix, walked as a document.
struct PieceSpec {
  PieceKind kind;
  size_t from, to;
  std::string_view prefix, suffix;
  bool needs_values;  // a run of a cut array: "[]" parses, but the document's ",," or ",]" does not
};

// The pieces of `bytes` in document order: head, runs, tail.
inline std::vector<PieceSpec> PieceSpecs(std::string_view bytes, const EventPieces& p) {
  std::vector<PieceSpec> specs;
  specs.push_back({PieceKind::kHead, 0, p.open + 1, "", "]}", false});
  size_t from = p.open + 1;
  for (size_t cut : p.cuts) {
    specs.push_back({PieceKind::kRun, from, cut - 1, "[", "]", true});  // the run's ',' is not walked
    from = cut;
  }
  specs.push_back({PieceKind::kRun, from, p.close, "[", "]", !p.cuts.empty()});
  specs.push_back({PieceKind::kTail, p.close, bytes.size(), "{\"k\":[", "", false});
  return specs;
}

// Walks one piece into `sax`, its cursors put where the real bytes are. `parser` and
// `copy` serve the pieces one after the other.
template <typename Sax>
SimdWalk WalkPiece(std::string_view bytes, const PieceSpec& spec, Sax* sax, simdjson::ondemand::parser* parser,
                   std::string* copy) {
  copy->assign(spec.prefix);
  copy->append(bytes.data() + spec.from, spec.to - spec.from);
  copy->append(spec.suffix);
  const size_t size = copy->size();
  copy->append(simdjson::SIMDJSON_PADDING, ' ');
  // The head ends just past the '[' of traceEvents.
  PieceSax<Sax> piece(sax, spec.kind, bytes.data() + spec.to);
  SimdWalker<PieceSax<Sax>> walker(std::string_view(copy->data(), size), &piece,
                                   bytes.data() + spec.from - spec.prefix.size());
  const SimdWalk w = walker.Run(simdjson::SIMDJSON_PADDING, parser);
  if (w == SimdWalk::kDone && spec.needs_values && piece.values() == 0) return SimdWalk::kMalformed;
  return w;
}

// Walks the pieces in order on this thread, into `sax`; the first that is not done
// ends the walk.
template <typename Sax>
SimdWalk WalkPieces(std::string_view bytes, const std::vector<PieceSpec>& specs, Sax* sax) {
  simdjson::ondemand::parser parser;
  std::string copy;
  for (const PieceSpec& spec : specs) {
    const SimdWalk w = WalkPiece(bytes, spec, sax, &parser, &copy);
    if (w != SimdWalk::kDone) return w;
  }
  return SimdWalk::kDone;
}

// Whether `p` cuts the events at all. A document on one line (XLA's writer, and any
// JSON without newlines) has no line end to cut at: its one run would be copied and
// walked whole anyway, at twice the memory (the JAX recording in "pieces" on two
// workers took 78 ms against 19 ms walked whole).
inline bool HasPieces(const EventPieces& p) { return p.open != std::string_view::npos && !p.cuts.empty(); }

// Walks `bytes` piece by piece into `sax` (see above). kMalformed also when the
// document does not have the layout (no pieces could be found, or one did not
// parse): the caller walks it whole.
template <typename Sax>
SimdWalk ChunkedSimdWalk(std::string_view bytes, Sax* sax, size_t piece_bytes) {
  const EventPieces pieces = FindEventPieces(bytes, piece_bytes);
  if (!HasPieces(pieces)) return SimdWalk::kMalformed;
  return WalkPieces(bytes, PieceSpecs(bytes, pieces), sax);
}

}  // namespace perfgate::json_trace::detail
