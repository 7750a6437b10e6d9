// The simdjson walk on two cores: one thread walks the document (SimdWalker) and
// records each callback, with the cursor the walker set for it, into blocks of
// tokens; the calling thread replays the blocks, in order, into the real handler.
// The handler sees exactly the callbacks, cursors and outcome of the one-thread
// walk; the walk and the handler's work, about equal in cost on a Kineto trace,
// overlap.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
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
};

// Blocks handed from the walking thread to the replaying one, at most kInFlight at a
// time (so memory stays a few blocks whatever the input), and returned empty for
// reuse (so neither thread touches fresh memory after the first blocks).
class TapeQueue {
 public:
  static constexpr size_t kInFlight = 4;

  // The walker's next empty block; false once the replay has stopped.
  bool TakeEmpty(TapeBlock* block) {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return stopped_ || full_.size() < kInFlight; });
    if (stopped_) return false;
    if (!empty_.empty()) {
      *block = std::move(empty_.back());
      empty_.pop_back();
    }
    block->tokens.clear();
    block->text.clear();
    return true;
  }
  void PutFull(TapeBlock&& block) {
    std::lock_guard<std::mutex> lock(mutex_);
    full_.push_back(std::move(block));
    ready_.notify_one();
  }
  // The walk is over (no more blocks will come).
  void Finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
    ready_.notify_one();
  }
  // The replay's next block, in order; false once the walk has finished and every
  // block was taken.
  bool TakeFull(TapeBlock* block) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return finished_ || !full_.empty(); });
    if (full_.empty()) return false;
    *block = std::move(full_.front());
    full_.erase(full_.begin());
    room_.notify_one();
    return true;
  }
  void PutEmpty(TapeBlock&& block) {
    std::lock_guard<std::mutex> lock(mutex_);
    empty_.push_back(std::move(block));
  }
  // The handler stopped: the walker gives up at its next callback.
  void Stop() {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    room_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable room_, ready_;
  std::vector<TapeBlock> full_, empty_;
  bool finished_ = false, stopped_ = false;
};

// The walker's handler on the walking thread: records every callback.
class TapeRecorder {
 public:
  static constexpr size_t kTokensPerBlock = 16384;

  TapeRecorder(const char* input, TapeQueue* queue) : input_(input), queue_(queue) {}

  const char** cursor() { return &at_; }
  bool Start() { return queue_->TakeEmpty(&block_); }
  // Hands over the last, partly filled block.
  void Flush() {
    if (!block_.tokens.empty()) queue_->PutFull(std::move(block_));
  }

  bool null() { return Add(TapeToken::kNull); }
  bool boolean(bool b) { return Add(b ? TapeToken::kTrue : TapeToken::kFalse); }
  bool number_integer(int64_t v) {
    TapeToken& t = Push(TapeToken::kInteger);
    t.integer = v;
    return Next();
  }
  bool number_unsigned(uint64_t v) {
    TapeToken& t = Push(TapeToken::kUnsigned);
    t.unsigned_integer = v;
    return Next();
  }
  // Texts as views (TakesTextViews): copied once, into the block.
  bool float_text(std::string_view text) { return AddText(TapeToken::kFloat, text); }
  bool string_text(std::string_view s) { return AddText(TapeToken::kString, s); }
  bool key_text(std::string_view k) { return AddText(TapeToken::kKey, k); }
  bool start_object(size_t) { return Add(TapeToken::kStartObject); }
  bool end_object() { return Add(TapeToken::kEndObject); }
  bool start_array(size_t) { return Add(TapeToken::kStartArray); }
  bool end_array() { return Add(TapeToken::kEndArray); }

 private:
  TapeToken& Push(TapeToken::Kind kind) {
    TapeToken& t = block_.tokens.emplace_back();
    t.kind = kind;
    t.cursor = static_cast<size_t>(at_ - input_);
    return t;
  }
  bool Add(TapeToken::Kind kind) {
    Push(kind);
    return Next();
  }
  bool AddText(TapeToken::Kind kind, std::string_view text) {
    TapeToken& t = Push(kind);
    t.text = block_.text.size();
    t.length = static_cast<uint32_t>(text.size());
    block_.text.append(text);
    return Next();
  }
  // A full block goes to the replay; false (the walk stops) once the replay has.
  bool Next() {
    if (block_.tokens.size() < kTokensPerBlock) return true;
    queue_->PutFull(std::move(block_));
    return queue_->TakeEmpty(&block_);
  }

  const char* input_;
  TapeQueue* queue_;
  const char* at_ = nullptr;
  TapeBlock block_;
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

// SimdWalker<Sax>(bytes, sax).Run(padding), or ChunkedSimdWalk(bytes, sax,
// piece_bytes) when piece_bytes is not 0, with the walk on another thread. The
// outcome is the one-thread walk's: kStopped as soon as a replayed callback returns
// false, else the walk's own (kMalformed only after every callback before the fault
// was replayed, as the one-thread walk would have made them).
template <typename Sax>
SimdWalk PipelinedSimdWalk(std::string_view bytes, size_t padding, size_t piece_bytes, Sax* sax) {
  TapeQueue queue;
  SimdWalk walked = SimdWalk::kMalformed;
  std::thread walker([&] {
    TapeRecorder recorder(bytes.data(), &queue);
    try {
      if (recorder.Start()) {
        walked = piece_bytes > 0 ? ChunkedSimdWalk(bytes, &recorder, piece_bytes)
                                 : SimdWalker<TapeRecorder>(bytes, &recorder).Run(padding);
        recorder.Flush();
      }
    } catch (const std::exception&) {
      walked = SimdWalk::kMalformed;  // out of memory: nlohmann reads it again, and says so
    }
    queue.Finish();
  });
  bool stopped = false;
  try {
    std::string text;
    TapeBlock block;
    while (!stopped && queue.TakeFull(&block)) {
      stopped = !ReplayBlock(block, bytes.data(), sax, &text);
      queue.PutEmpty(std::move(block));
    }
  } catch (...) {  // the handler's own failure (out of memory): the walk stops first
    queue.Stop();
    walker.join();
    throw;
  }
  if (stopped) queue.Stop();
  walker.join();
  if (stopped) return SimdWalk::kStopped;
  // The recorder never refuses a callback, so the walk ends done or malformed.
  return walked == SimdWalk::kStopped ? SimdWalk::kMalformed : walked;
}

}  // namespace perfgate::json_trace::detail
