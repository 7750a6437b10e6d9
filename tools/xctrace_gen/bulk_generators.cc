// Bulk exports of a chosen size for benchmarks. Rows are streamed through one
// ExportWriter with their cells updated in place, because benchmark setup generates
// hundreds of megabytes and a fresh Row per line would dominate the time.
#include <array>
#include <string>

#include "xctrace_gen/random.h"
#include "xctrace_gen/xctrace_gen.h"

namespace perfgate::gen {
namespace {

using internal::Rng;

constexpr char kClosing[] = "</node></trace-query-result>\n";

// Rows are written until the document plus `tail` bytes would pass the target, so
// the result lands within one row of it.
bool Full(const ExportWriter& writer, size_t target_bytes, size_t tail) {
  return writer.size() + sizeof(kClosing) - 1 + tail >= target_bytes;
}

void SetTime(Cell* cell, int64_t ns) {
  cell->text = std::to_string(ns);
  cell->fmt = FormatStartTime(ns);
}

void SetDuration(Cell* cell, int64_t ns) {
  cell->text = std::to_string(ns);
  cell->fmt = FormatDuration(ns);
}

void SetCommandBufferId(Cell* cell, uint64_t id) {
  cell->text = std::to_string(id);
  cell->fmt = FormatHex(id);
}

void SetUint32(Cell* cell, uint32_t value) {
  cell->text = std::to_string(value);
  cell->fmt = cell->text;
}

void SetLabel(Cell* cell, const std::string& text) {
  cell->text = text;
  cell->fmt = text;
}

}  // namespace

std::string GenerateExecutionPointsExport(size_t target_bytes, uint64_t seed, size_t* row_count) {
  Rng rng(seed);
  ExportWriter writer;
  writer.Reserve(target_bytes + target_bytes / 64 + 4096);
  const Schema schema = *FindMetalSchema(kExecutionPointsSchema);
  writer.BeginNode(34, &schema);

  // Each channel runs one submission at a time, so the two channels' submissions
  // overlap in time while each channel's own are sequential, as in the JS trace.
  struct Channel {
    uint64_t id;
    bool busy = false;
    int64_t next_ns = 0;  // the start (idle) or end (busy) of its current submission
    uint64_t submission = 0;
  };
  std::array<Channel, 2> channels = {Channel{0x123457}, Channel{0x123458}};
  int64_t base_ns = 329'000'000 + rng.Between(0, 1'000'000);
  for (Channel& channel : channels) channel.next_ns = base_ns + rng.Between(0, 200'000);
  uint64_t next_submission = 0x5F000000 + rng.Below(0x00FFFFFF);
  int64_t last_ns = 0;

  Row start = ExecutionPointCells(ExecutionPointRow::Start(0, 0x123457, 0));
  Row end = ExecutionPointCells(ExecutionPointRow::End(0, 0x123457, 0));
  auto emit = [&](Channel& channel, Row& cells) {
    // Strictly rising timestamps: two events in one nanosecond would share a value
    // and turn a fresh id into a ref, which the real file never shows.
    const int64_t ts = channel.next_ns > last_ns ? channel.next_ns : last_ns + 1;
    last_ns = ts;
    SetTime(&cells[0], ts);
    SetCommandBufferId(&cells[1], channel.id);
    SetUint32(&cells[3], static_cast<uint32_t>(channel.submission));
    SetCommandBufferId(&cells[4], channel.submission);
    writer.WriteRow(cells);
    return ts;
  };

  // Room for closing the (at most two) open submissions after the loop.
  constexpr size_t kTail = 2 * 200;
  while (!Full(writer, target_bytes, kTail)) {
    Channel& channel = channels[0].next_ns <= channels[1].next_ns ? channels[0] : channels[1];
    if (!channel.busy) {
      channel.submission = next_submission++;
      const int64_t ts = emit(channel, start);
      channel.busy = true;
      channel.next_ns = ts + rng.LogUniform(1'000, 500'000) + rng.Between(0, 999);
    } else {
      const int64_t ts = emit(channel, end);
      channel.busy = false;
      channel.next_ns = ts + rng.LogUniform(300, 3'000'000);
    }
  }
  // Every start gets its end, so readers see no leftover starts.
  while (channels[0].busy || channels[1].busy) {
    Channel* channel = nullptr;
    for (Channel& c : channels) {
      if (c.busy && (channel == nullptr || c.next_ns < channel->next_ns)) channel = &c;
    }
    emit(*channel, end);
    channel->busy = false;
  }
  if (row_count != nullptr) *row_count = writer.rows_written();
  return writer.Finish();
}

std::string GenerateEncodersListExport(size_t target_bytes, uint64_t seed, size_t* row_count) {
  Rng rng(seed);
  ExportWriter writer;
  writer.Reserve(target_bytes + target_bytes / 64 + 4096);
  const Schema schema = *FindMetalSchema(kEncodersListSchema);
  writer.BeginNode(20, &schema);

  // A few processes, one to three threads each; labelled apps (python, the UTF-8
  // studio) name their encoders, unlabelled ones (llama) read "Compute Command N".
  struct App {
    ProcessInfo process;
    std::vector<std::string> thread_names;
    bool labelled = false;
    int weight = 1;
  };
  // Filled one by one: GCC 12 warns falsely (-Wmaybe-uninitialized) on a braced list
  // of these aggregates.
  std::vector<App> apps(4);
  apps[0].process = {"python3.12", 48213};
  apps[0].thread_names = {"Main Thread", "gpu-worker"};
  apps[0].labelled = true;
  apps[0].weight = 6;
  apps[1].process = {"llama-server", 5120};
  apps[1].thread_names = {"Render"};
  apps[1].weight = 3;
  apps[2].process = {"WindowServer", 181};
  apps[2].thread_names = {"com.apple.coreanimation.display.primary"};
  apps[3].process = {"\xC3\x9Cnic\xC3\xB8" "de Studio", 777};
  apps[3].thread_names = {"d\xC3\xA9" "codeur \xE2\x80\x94 \xC2\xB5" "batch", "Main Thread",
                          "\xE6\xB8\xB2\xE6\x9F\x93"};
  apps[3].labelled = true;
  apps[3].weight = 2;
  struct ThreadCells {
    Cell thread;
    Cell process;
    size_t app;
  };
  std::vector<ThreadCells> threads;
  uint64_t tid = 0x1a2b3 + rng.Below(0x1000);
  for (size_t a = 0; a < apps.size(); ++a) {
    for (const std::string& name : apps[a].thread_names) {
      threads.push_back({Thread(name, tid, apps[a].process), Process(apps[a].process), a});
      tid += 1 + rng.Below(64);
    }
  }
  int total_weight = 0;
  for (const App& app : apps) total_weight += app.weight;

  static const char* const kLayerOps[] = {"attn_norm", "attn_q", "attn_k", "attn_v",
                                          "attn_moe_ffn", "ffn_gate", "ffn_down", "ffn_up"};
  static const char* const kUtf8Ops[] = {"softmax \xC2\xB5kernel", "\xE6\xB3\xA8\xE6\x84\x8F\xE5\x8A\x9B",
                                         // Split so that the escape \xA9 ends before "d".
                                         ("r\xC3\xA9" "duction \xE2\x88\x91")};

  EncoderRow prototype;
  prototype.thread = {"t", 1, apps[0].process};
  Row cells = EncoderCells(prototype);
  std::vector<uint32_t> cb_counter(apps.size(), 0);
  uint64_t cmdbuffer_id = 0xA794000 + rng.Below(0xFFFF);
  uint64_t encoder_id = cmdbuffer_id + 0x100000;
  int64_t now = 350'000'000 + rng.Between(0, 10'000'000);
  std::string label;

  while (!Full(writer, target_bytes, 300)) {
    // One command buffer: pick an app by weight, then one of its threads.
    int pick = static_cast<int>(rng.Below(static_cast<uint64_t>(total_weight)));
    size_t app = 0;
    while (pick >= apps[app].weight) pick -= apps[app++].weight;
    std::vector<size_t> candidates;
    for (size_t t = 0; t < threads.size(); ++t) {
      if (threads[t].app == app) candidates.push_back(t);
    }
    const ThreadCells& thread = threads[candidates[rng.Below(candidates.size())]];
    cells[2] = thread.thread;
    cells[3] = thread.process;

    const uint32_t cb_index = cb_counter[app]++ % 4;
    const std::string cb_label =
        apps[app].labelled && cb_index > 0 ? (cb_index == 1 ? "prefill" : "decode.step")
                                           : "Command Buffer " + std::to_string(cb_index);
    SetLabel(&cells[6], cb_label);
    SetLabel(&cells[7], "[" + std::to_string(cb_index) + "] " + cb_label);
    SetCommandBufferId(&cells[11], cmdbuffer_id++);

    const int encoders = static_cast<int>(rng.LogUniform(1, 48));
    const int layer_base = static_cast<int>(rng.Below(32));
    for (int e = 0; e < encoders && !Full(writer, target_bytes, 300); ++e) {
      if (!apps[app].labelled) {
        label = "Compute Command " + std::to_string(e);
      } else if (rng.Chance(0.08)) {
        label = kUtf8Ops[rng.Below(std::size(kUtf8Ops))];
      } else {
        label = "layer." + std::to_string((layer_base + e / 8) % 32) + "." +
                kLayerOps[e % std::size(kLayerOps)];
      }
      now += rng.LogUniform(500, 40'000);
      SetTime(&cells[0], now);
      const int64_t duration = rng.LogUniform(1'000, 80'000);
      SetDuration(&cells[1], duration);
      now += duration;
      SetLabel(&cells[8], label);
      SetLabel(&cells[9], "[" + std::to_string(e) + "] " + label);
      SetCommandBufferId(&cells[12], encoder_id++);
      writer.WriteRow(cells);
    }
  }
  if (row_count != nullptr) *row_count = writer.rows_written();
  return writer.Finish();
}

}  // namespace perfgate::gen
