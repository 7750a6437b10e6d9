// The walk in pieces (json_simd_chunks.h) on several cores: worker threads walk
// pieces at once while the calling thread hands what they read to the handler in
// document order. A worker reads a run of events into a handler of its own where the
// handler offers that (a Runs policy, below: the run is then merged, which costs little), and
// otherwise records the piece's callbacks, with the cursor the walker set for each,
// on a tape that the calling thread replays into the handler. The handler sees what
// the one-thread walk in pieces gives it: the same events, diagnostics and errors.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "json_simd_chunks.h"
#include "json_simd_walk.h"

namespace perfgate::json_trace::detail {

// One recorded callback. Strings (keys, string values, float texts) are kept in the
// block's text.
struct TapeToken {
  enum Kind : uint8_t {
    kNull, kFalse, kTrue, kInteger, kUnsigned, kFloat, kString, kKey,
    kStartObject, kEndObject, kStartArray, kEndArray,
  };
  Kind kind;
  uint32_t length = 0;  // of the text
  size_t cursor = 0;    // the handler's cursor, as an offset into the input
  union {
    int64_t integer;
    uint64_t unsigned_integer;
    size_t text;  // offset of the text in the block's text
  };
};

struct TapeBlock {
  std::vector<TapeToken> tokens;
  std::string text;
  void Clear() {
    tokens.clear();
    text.clear();
  }
};

// The walker's handler on a worker thread: records every callback of one piece.
class TapeRecorder {
 public:
  TapeRecorder(const char* input, TapeBlock* tape) : input_(input), tape_(tape) {}

  const char** cursor() { return &at_; }

  bool null() { return Add(TapeToken::kNull); }
  bool boolean(bool b) { return Add(b ? TapeToken::kTrue : TapeToken::kFalse); }
  bool number_integer(int64_t v) {
    Push(TapeToken::kInteger).integer = v;
    return true;
  }
  bool number_unsigned(uint64_t v) {
    Push(TapeToken::kUnsigned).unsigned_integer = v;
    return true;
  }
  // Texts as views (TakesTextViews): copied once, into the tape.
  bool float_text(std::string_view text) { return AddText(TapeToken::kFloat, text); }
  bool string_text(std::string_view s) { return AddText(TapeToken::kString, s); }
  bool key_text(std::string_view k) { return AddText(TapeToken::kKey, k); }
  bool start_object(size_t) { return Add(TapeToken::kStartObject); }
  bool end_object() { return Add(TapeToken::kEndObject); }
  bool start_array(size_t) { return Add(TapeToken::kStartArray); }
  bool end_array() { return Add(TapeToken::kEndArray); }

 private:
  TapeToken& Push(TapeToken::Kind kind) {
    TapeToken& t = tape_->tokens.emplace_back();
    t.kind = kind;
    t.cursor = static_cast<size_t>(at_ - input_);
    return t;
  }
  bool Add(TapeToken::Kind kind) {
    Push(kind);
    return true;
  }
  bool AddText(TapeToken::Kind kind, std::string_view text) {
    // A text past the token's 32-bit length stops the piece (the document is then
    // walked whole, on one thread).
    if (text.size() > UINT32_MAX) return false;
    TapeToken& t = Push(kind);
    t.text = tape_->text.size();
    t.length = static_cast<uint32_t>(text.size());
    tape_->text.append(text);
    return true;
  }

  const char* input_;
  TapeBlock* tape_;
  const char* at_ = nullptr;
};

// Replays one block into `sax`; false when a callback returned false.
template <typename Sax>
bool ReplayBlock(const TapeBlock& block, const char* input, Sax* sax, std::string* text) {
  const char** cursor = sax->cursor();
  for (const TapeToken& t : block.tokens) {
    *cursor = input + t.cursor;
    bool go = true;
    switch (t.kind) {
      case TapeToken::kNull: go = sax->null(); break;
      case TapeToken::kFalse: go = sax->boolean(false); break;
      case TapeToken::kTrue: go = sax->boolean(true); break;
      case TapeToken::kInteger: go = sax->number_integer(t.integer); break;
      case TapeToken::kUnsigned: go = sax->number_unsigned(t.unsigned_integer); break;
      case TapeToken::kFloat:
        text->assign(block.text, t.text, t.length);
        go = sax->number_float(0.0, *text);
        break;
      case TapeToken::kString:
        text->assign(block.text, t.text, t.length);
        go = sax->string(*text);
        break;
      case TapeToken::kKey:
        text->assign(block.text, t.text, t.length);
        go = sax->key(*text);
        break;
      case TapeToken::kStartObject: go = sax->start_object(static_cast<size_t>(-1)); break;
      case TapeToken::kEndObject: go = sax->end_object(); break;
      case TapeToken::kStartArray: go = sax->start_array(static_cast<size_t>(-1)); break;
      case TapeToken::kEndArray: go = sax->end_array(); break;
    }
    if (!go) return false;
  }
  return true;
}

// The pieces of a walk in pieces, shared by the workers and the calling thread:
// which piece is walked next, which are ready, and slots for reuse (so that no
// thread touches fresh memory after the first pieces). At most kAhead pieces wait
// for the calling thread, so memory stays a few pieces' worth whatever the input.
// A Slot is what a worker leaves for its piece, with Clear().
template <typename Slot>
class PieceBoard {
 public:
  static constexpr size_t kAhead = 4;

  explicit PieceBoard(size_t pieces) : slots_(pieces), walked_(pieces), ready_(pieces, false) {}

  // The next piece for a worker, with an empty slot; false when none is left.
  bool Take(size_t* piece) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || next_ >= slots_.size() || next_ < used_ + kAhead; });
    if (stopped_ || next_ >= slots_.size()) return false;
    *piece = next_++;
    if (!spare_.empty()) {
      slots_[*piece] = std::move(spare_.back());
      spare_.pop_back();
    }
    return true;
  }
  Slot* slot(size_t piece) { return &slots_[piece]; }
  void Done(size_t piece, SimdWalk walked) {
    std::lock_guard<std::mutex> lock(mutex_);
    walked_[piece] = walked;
    ready_[piece] = true;
    changed_.notify_all();
  }
  // The calling thread: waits for the piece, whose slot and outcome are then its own.
  SimdWalk Wait(size_t piece) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return static_cast<bool>(ready_[piece]); });
    return walked_[piece];
  }
  void Used(size_t piece) {
    std::lock_guard<std::mutex> lock(mutex_);
    Slot& slot = slots_[piece];
    slot.Clear();
    spare_.push_back(std::move(slot));
    used_ = piece + 1;
    changed_.notify_all();
  }
  void Stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Slot> slots_, spare_;
  std::vector<SimdWalk> walked_;
  std::vector<char> ready_;
  size_t next_ = 0, used_ = 0;
  bool stopped_ = false;
};

// What a handler offers for reading runs of events apart (see the top): Make() gives
// a handler of a run (a std::unique_ptr<Run>, a walker's handler with cursor() and
// Mergeable()), Merge(Run&) folds it into the document's handler. A run that is not
// Mergeable after its walk, or stopped, is recorded on a tape and replayed instead.
// NoRunHandlers offers none: every piece is taped.
struct NoRunHandlers {
  struct Run {};
};

// What a worker leaves for its piece: a run handler or a tape.
template <typename Runs>
struct PieceSlot {
  std::unique_ptr<typename Runs::Run> run;
  TapeBlock tape;
  void Clear() {
    run.reset();
    tape.Clear();
  }
};

// Whether the workers still try runs of their own. A run that is not Mergeable has
// been walked for nothing and is walked again onto a tape; in a trace where none is
// (XLA's, whose events are all buffered) that would walk every piece twice. After
// kMisses such runs in a row only every kRetry-th piece is tried. Which way a piece
// goes changes its cost, never what the handler is given.
class RunTries {
 public:
  static constexpr int kMisses = 2;
  static constexpr size_t kRetry = 16;
  bool Worth(size_t piece) const { return misses_.load(std::memory_order_relaxed) < kMisses || piece % kRetry == 0; }
  void Tried(bool merged) {
    if (merged) {
      misses_.store(0, std::memory_order_relaxed);
    } else {
      misses_.fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  std::atomic<int> misses_{0};
};

// A worker's walk of one piece into its slot.
template <typename Runs>
SimdWalk WalkPieceToSlot(std::string_view bytes, const PieceSpec& spec, size_t piece, Runs* runs, RunTries* tries,
                         PieceSlot<Runs>* slot, simdjson::ondemand::parser* parser, std::string* copy) {
  if constexpr (!std::is_same_v<Runs, NoRunHandlers>) {
    if (spec.kind == PieceKind::kRun && tries->Worth(piece)) {
      std::unique_ptr<typename Runs::Run> run = runs->Make();
      const SimdWalk walked = WalkPiece(bytes, spec, run.get(), parser, copy);
      if (walked == SimdWalk::kMalformed) return walked;
      const bool merged = walked == SimdWalk::kDone && run->Mergeable();
      tries->Tried(merged);
      if (merged) {
        slot->run = std::move(run);
        return walked;
      }
    }
  }
  TapeRecorder recorder(bytes.data(), &slot->tape);
  return WalkPiece(bytes, spec, &recorder, parser, copy);
}

// ChunkedSimdWalk(bytes, sax, piece_bytes) with the pieces walked by `workers`
// threads, runs of events read apart where `runs` offers it. The outcome is the
// one-thread walk's where it matters: kStopped as soon as a replayed callback returns
// false, kMalformed at the first piece in order that did not parse (the caller then
// walks the document whole, from the start).
template <typename Sax, typename Runs = NoRunHandlers>
SimdWalk ParallelChunkedSimdWalk(std::string_view bytes, Sax* sax, size_t piece_bytes, int workers,
                                 Runs* runs = nullptr) {
  const EventPieces pieces = FindEventPieces(bytes, piece_bytes);
  if (!HasPieces(pieces)) return SimdWalk::kMalformed;
  const std::vector<PieceSpec> specs = PieceSpecs(bytes, pieces);
  PieceBoard<PieceSlot<Runs>> board(specs.size());
  RunTries tries;
  auto work = [&] {
    simdjson::ondemand::parser parser;
    std::string copy;
    size_t piece = 0;
    while (board.Take(&piece)) {
      SimdWalk walked = SimdWalk::kMalformed;  // out of memory: the whole walk, then nlohmann, say so
      try {
        walked = WalkPieceToSlot(bytes, specs[piece], piece, runs, &tries, board.slot(piece), &parser, &copy);
      } catch (const std::exception&) {
      }
      board.Done(piece, walked);
    }
  };
  std::vector<std::thread> threads;
  try {
    for (int i = 0; i < workers; ++i) threads.emplace_back(work);
  } catch (const std::system_error&) {  // no thread to be had: the threads there are do the work
  }
  if (threads.empty()) return WalkPieces(bytes, specs, sax);
  auto finish = [&] {
    board.Stop();
    for (std::thread& t : threads) t.join();
  };
  SimdWalk outcome = SimdWalk::kDone;
  try {
    std::string text;
    for (size_t piece = 0; piece < specs.size() && outcome == SimdWalk::kDone; ++piece) {
      PieceSlot<Runs>& slot = *board.slot(piece);
      if (board.Wait(piece) != SimdWalk::kDone) {
        outcome = SimdWalk::kMalformed;  // not JSON, or a text too long for the tape: walked whole
        continue;
      }
      if constexpr (!std::is_same_v<Runs, NoRunHandlers>) {
        if (slot.run) runs->Merge(*slot.run);
      }
      if (!slot.run && !ReplayBlock(slot.tape, bytes.data(), sax, &text)) {
        outcome = SimdWalk::kStopped;
      } else {
        board.Used(piece);
      }
    }
  } catch (...) {  // the handler's own failure (out of memory): the workers stop first
    finish();
    throw;
  }
  finish();
  return outcome;
}

}  // namespace perfgate::json_trace::detail
