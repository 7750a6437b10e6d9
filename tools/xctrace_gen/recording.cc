// Synthetic two-engine recordings: profiles, the per-trial timeline, the six Metal
// tables, toc.xml, meta.json and deterministic gzip.
#include "xctrace_gen/recording.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "xctrace_gen/random.h"

namespace perfgate::gen {
namespace {

using internal::Rng;

// ---------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------

constexpr double kPi = 3.14159265358979323846;

// Standard normal by Box-Muller; Rng is platform independent, and so is this.
double Normal(Rng& rng) {
  const double u1 = 1.0 - rng.Unit();  // (0, 1]
  const double u2 = rng.Unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

// A duration in ns drawn from `d`, scaled by `factor` before clamping.
int64_t SampleNs(const DurationDist& d, double factor, Rng& rng) {
  double us = d.median_us * factor * std::exp(d.sigma * Normal(rng));
  us = std::min(std::max(us, d.min_us), d.max_us);
  return static_cast<int64_t>(std::llround(us * 1000.0));
}

// Expected count with its fraction drawn as a Bernoulli trial.
int DrawCount(double per_token, Rng& rng) {
  const double whole = std::floor(per_token);
  int n = static_cast<int>(whole);
  if (rng.Chance(per_token - whole)) ++n;
  return n;
}

uint64_t Fnv1a(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t Mix(uint64_t a, uint64_t b) { return Rng(a ^ (b * 0x9E3779B97F4A7C15ULL)).Next(); }

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// The seed's phase normalisation (attribution-method.md §2), re-implemented here so
// the generator shares no code with the reader it checks.
std::string NormalizePhase(std::string_view label) {
  if (label.empty()) return "(unknown)";
  if (label.front() == '[') {
    const size_t close = label.find("] ");
    if (close != std::string_view::npos) label.remove_prefix(close + 2);
  }
  std::string out;
  size_t start = 0;
  while (start <= label.size()) {
    size_t dot = label.find('.', start);
    if (dot == std::string_view::npos) dot = label.size();
    const std::string_view part = label.substr(start, dot - start);
    const bool digits =
        !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      if (!out.empty()) out.push_back('.');
      out.append(part);
    }
    start = dot + 1;
  }
  return out.empty() ? std::string(label) : out;
}

bool IsGeneric(std::string_view phase) {
  return phase.rfind("Command Buffer", 0) == 0 || phase.rfind("Compute Command", 0) == 0 || phase == "(unknown)";
}

// The seed's duration bands (attribution-method.md §2).
const char* BucketOf(int64_t ns) {
  if (ns < 2000) return "xs_<2us";
  if (ns < 8000) return "sm_2_8us";
  if (ns < 32000) return "md_8_32us";
  if (ns < 80000) return "lg_32_80us";
  return "xl_>=80us";
}

std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  return buf;
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
  return out;
}

// ---------------------------------------------------------------------------------
// The timeline of one trial
// ---------------------------------------------------------------------------------

enum class Owner { kEngine, kWindowServer, kUnattributed };

// One GPU submission: one command buffer with one encoder.
struct Submission {
  Owner owner = Owner::kEngine;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t latency_ns = 0;  // commit to GPU start
  int64_t encode_start_ns = 0;
  int64_t encode_ns = 0;
  uint64_t channel = 0;
  uint64_t cmdbuffer = 0;
  uint64_t encoder = 0;
  uint64_t commit = 0;
  uint64_t gpu_submission = 0;  // assigned once every submission is known
  std::optional<uint64_t> frame;
  std::string cmdbuffer_label;
  std::string encoder_label;
  int step = -1;  // decode step (0-based); -1 for prefill and other processes
  int64_t duration() const { return end_ns - start_ns; }
  int64_t commit_ns() const { return start_ns - latency_ns; }
};

const ProcessInfo kWindowServer{"WindowServer", 181};
constexpr uint64_t kWindowServerChannel = 0x123458;
constexpr uint64_t kUnattributedChannel = 0x123459;
constexpr char kGpuName[] = "Apple M5 Max";

std::string ChannelName(const std::string& encoder_label) {
  if (encoder_label.rfind("Blit", 0) == 0) return "Blit";
  if (encoder_label.rfind("Render", 0) == 0) return "Fragment";
  return "Compute";
}

// Trial speed factors of one engine: stratified over [1 - spread/2, 1 + spread/2]
// so that even three trials show about the configured spread, then shuffled.
std::vector<double> SpeedFactors(const RecordingSpec& spec, size_t engine_index) {
  const auto& [name, profile] = spec.engines[engine_index];
  Rng rng(Mix(Mix(spec.seed, Fnv1a(name)), 0xFAC7));
  const int n = spec.trials;
  std::vector<double> factors;
  for (int k = 0; k < n; ++k) {
    const double position = (k + rng.Unit()) / n;
    factors.push_back(1.0 + profile.trial_spread * (position - 0.5));
  }
  for (int k = n - 1; k > 0; --k) std::swap(factors[k], factors[rng.Below(k + 1)]);
  return factors;
}

uint64_t TrialSeed(const RecordingSpec& spec, const std::string& engine, int trial) {
  return Mix(Mix(spec.seed, Fnv1a(engine)), static_cast<uint64_t>(trial));
}

struct Timeline {
  std::vector<Submission> subs;  // sorted by start; gpu-submission ids assigned
  int64_t engine_start_ns = 0;
  int64_t trace_end_ns = 0;
  std::vector<int64_t> shader_times;  // engine pipeline compile times
};

Timeline BuildTimeline(const EngineProfile& p, int decode_steps, double factor, Rng& rng, TrialTruth* truth) {
  Timeline tl;
  uint64_t commit = 1000 + rng.Below(1000);
  uint64_t engine_cb = 0x4a10000 + 0x100 * rng.Below(0x100);
  uint64_t engine_enc = 0x6c20000 + 0x100 * rng.Below(0x100);

  // Model load: the engine's first submission comes after its pipelines compile.
  tl.engine_start_ns = 150'000'000 + static_cast<int64_t>(rng.Below(50'000'000));
  int64_t t = tl.engine_start_ns;
  for (size_t i = 0; i < p.shader_names.size(); ++i) {
    tl.shader_times.push_back(t - 60'000'000 + static_cast<int64_t>(i) * 2'000'000 +
                              static_cast<int64_t>(rng.Below(1'000'000)));
  }

  auto add_engine = [&](const std::string& cb_label, const std::string& enc_label, const DurationDist& d,
                        bool first_of_token, int step) {
    Submission s;
    s.owner = Owner::kEngine;
    t += SampleNs(first_of_token ? p.token_gap : p.gap, 1.0, rng);
    s.start_ns = t;
    s.end_ns = t + SampleNs(d, factor, rng);
    t = s.end_ns;
    s.latency_ns = std::min<int64_t>(SampleNs(p.gap, 1.0, rng), s.start_ns);
    s.encode_ns = SampleNs(p.encode, 1.0, rng);
    s.encode_start_ns = s.commit_ns() - s.encode_ns - rng.Between(300, 3000);
    s.channel = p.channel_id;
    s.cmdbuffer = engine_cb;
    s.encoder = engine_enc;
    engine_cb += 0x10;
    engine_enc += 0x10;
    s.commit = commit++;
    s.cmdbuffer_label = cb_label;
    s.encoder_label = enc_label;
    s.step = step;
    tl.subs.push_back(std::move(s));
  };

  for (int i = 0; i < p.prefill.submissions; ++i) {
    add_engine(p.prefill.cmdbuffer_label, p.prefill.encoder_label, p.prefill.duration, i == 0, -1);
  }
  for (int step = 0; step < decode_steps; ++step) {
    bool first = true;
    for (const CommandBufferKind& kind : p.decode) {
      const int n = DrawCount(kind.per_token, rng);
      for (int j = 0; j < n; ++j) {
        const int layer = kind.random_layer_below > 0 ? static_cast<int>(rng.Below(kind.random_layer_below)) : j;
        add_engine(ReplaceAll(kind.cmdbuffer_label, "{layer}", std::to_string(layer)), kind.encoder_label,
                   kind.duration, first, step);
        first = false;
      }
    }
  }
  const int64_t engine_end = t;
  tl.trace_end_ns = engine_end + 25'000'000 + static_cast<int64_t>(rng.Below(10'000'000));

  // WindowServer: a composite about every 2 ms on its own channel, throughout.
  uint64_t ws_cb = 0x7d30000;
  uint64_t ws_enc = 0x7e40000;
  uint64_t frame = 1;
  for (int64_t ws = 1'000'000 + static_cast<int64_t>(rng.Below(1'000'000)); ws < tl.trace_end_ns;
       ws += rng.Between(1'600'000, 2'400'000)) {
    Submission s;
    s.owner = Owner::kWindowServer;
    s.start_ns = ws;
    s.end_ns = ws + SampleNs(DurationDist{45.0, 0.5, 6.0, 600.0}, 1.0, rng);
    s.latency_ns = rng.Between(5'000, 40'000);
    s.encode_ns = rng.Between(3'000, 15'000);
    s.encode_start_ns = s.commit_ns() - s.encode_ns - rng.Between(500, 5000);
    s.channel = kWindowServerChannel;
    s.cmdbuffer = ws_cb;
    s.encoder = ws_enc;
    ws_cb += 0x20;
    ws_enc += 0x20;
    s.commit = commit++;
    s.frame = frame++;
    s.cmdbuffer_label = "WindowServer.composite";
    s.encoder_label = "Render Command 0";
    tl.subs.push_back(std::move(s));
  }

  // A few one-off submissions whose process the trace did not attribute.
  for (int i = 0; i < 3; ++i) {
    Submission s;
    s.owner = Owner::kUnattributed;
    s.start_ns = tl.engine_start_ns + (engine_end - tl.engine_start_ns) * (2 * i + 1) / 6 +
                 static_cast<int64_t>(rng.Below(500'000));
    s.end_ns = s.start_ns + rng.LogUniform(20'000, 150'000);
    s.latency_ns = rng.Between(5'000, 30'000);
    s.channel = kUnattributedChannel;
    s.cmdbuffer = 0x9f50000 + 0x10 * static_cast<uint64_t>(i);
    s.encoder = 0x9f60000 + 0x10 * static_cast<uint64_t>(i);
    s.commit = commit++;
    s.cmdbuffer_label = "Command Buffer 0";
    s.encoder_label = "Compute Command 0";
    tl.subs.push_back(std::move(s));
  }

  std::stable_sort(tl.subs.begin(), tl.subs.end(), [](const Submission& a, const Submission& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.channel < b.channel;
  });
  uint64_t id = 4096 + rng.Below(4096);
  for (Submission& s : tl.subs) s.gpu_submission = id++;

  // The truth, from the timeline itself.
  truth->decode_steps = decode_steps;
  truth->steps.assign(static_cast<size_t>(decode_steps), Tally{});
  truth->trace_duration_ns = tl.trace_end_ns;
  std::vector<int64_t> label_ends;
  for (const Submission& s : tl.subs) {
    if (s.owner == Owner::kWindowServer) ++truth->windowserver_submissions;
    if (s.owner == Owner::kUnattributed) ++truth->unattributed_submissions;
    if (s.owner != Owner::kEngine) continue;
    const std::string phase = NormalizePhase(s.cmdbuffer_label);
    ++truth->engine_encoders;
    if (!IsGeneric(phase)) ++truth->labelled_encoders;
    if (s.step < 0) {
      ++truth->prefill.submissions;
      truth->prefill.gpu_ns += s.duration();
      continue;
    }
    for (Tally* tally : {&truth->steps[static_cast<size_t>(s.step)], &truth->decode_phases[phase],
                         &truth->decode_buckets[BucketOf(s.duration())]}) {
      ++tally->submissions;
      tally->gpu_ns += s.duration();
    }
    if (!p.token_label.empty() && phase == NormalizePhase(p.token_label)) label_ends.push_back(s.end_ns);
  }
  if (label_ends.size() >= 2) {
    truth->label_window_start_ns = label_ends.front();
    truth->label_window_end_ns = label_ends.back();
    truth->label_window_tokens = static_cast<int>(label_ends.size()) - 1;
    for (const Submission& s : tl.subs) {
      if (s.owner != Owner::kEngine || s.start_ns < label_ends.front() || s.end_ns > label_ends.back()) continue;
      ++truth->label_window.submissions;
      truth->label_window.gpu_ns += s.duration();
    }
  }
  return tl;
}

// ---------------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------------

const std::vector<std::string>& SchemaOrder() {
  // The relative order of the real 26.0 Metal System Trace TOC (probe-cli).
  static const std::vector<std::string> kOrder = {
      kShaderProfilerIntervalsSchema, kEncodersListSchema, kExecutionPointsSchema, kShaderListSchema,
      kSubmissionMapSchema,           kGpuIntervalsSchema,
  };
  return kOrder;
}

// Tables the real TOC marks target-pid="SINGLE" (xctrace-format.md §9).
bool IsSingleTarget(std::string_view schema) {
  return schema != kExecutionPointsSchema && schema != kSubmissionMapSchema;
}

const ProcessInfo* ProcessOf(const Submission& s, const EngineProfile& p) {
  switch (s.owner) {
    case Owner::kEngine:
      return &p.process;
    case Owner::kWindowServer:
      return &kWindowServer;
    case Owner::kUnattributed:
      return nullptr;
  }
  return nullptr;
}

Table BuildExecutionPoints(const Timeline& tl) {
  std::vector<ExecutionPointRow> rows;
  rows.reserve(tl.subs.size() * 2);
  for (const Submission& s : tl.subs) {
    rows.push_back(ExecutionPointRow::Start(s.start_ns, s.channel, s.gpu_submission));
    rows.push_back(ExecutionPointRow::End(s.end_ns, s.channel, s.gpu_submission));
  }
  // Timestamp order as in the real file; at equal times an end before a start.
  std::stable_sort(rows.begin(), rows.end(), [](const ExecutionPointRow& a, const ExecutionPointRow& b) {
    if (a.timestamp_ns != b.timestamp_ns) return a.timestamp_ns < b.timestamp_ns;
    return a.function > b.function;
  });
  return ExecutionPointsTable(rows);
}

Table BuildSubmissionMap(const Timeline& tl, const EngineProfile& p) {
  std::vector<SubmissionMapRow> rows;
  rows.reserve(tl.subs.size());
  for (const Submission& s : tl.subs) {
    SubmissionMapRow r;
    r.timestamp_ns = s.commit_ns();
    r.cmdbuffer_id = s.cmdbuffer;
    r.gpu_submission_id = s.gpu_submission;
    r.segment_id = s.cmdbuffer + 1;
    r.segmentlist_id = s.cmdbuffer + 2;
    r.encoder_id = s.encoder;
    r.channel_id = s.channel;
    r.submission_type = 1;
    const ProcessInfo* process = ProcessOf(s, p);
    r.pid = process != nullptr ? static_cast<uint32_t>(process->pid) : 0;
    if (process != nullptr) r.process = *process;
    r.commit_id = s.commit;
    r.num_coalesced_encoders = 1;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const SubmissionMapRow& a, const SubmissionMapRow& b) {
    return a.timestamp_ns < b.timestamp_ns;
  });
  return SubmissionMapTable(rows);
}

Table BuildEncodersList(const Timeline& tl, const EngineProfile& p) {
  const ThreadInfo engine_thread{p.thread_name, p.tid, p.process};
  const ThreadInfo ws_thread{"WindowServer", 0x2f1, kWindowServer};
  std::vector<EncoderRow> rows;
  rows.reserve(tl.subs.size());
  for (const Submission& s : tl.subs) {
    if (s.owner == Owner::kUnattributed) continue;
    EncoderRow r;
    r.start_ns = s.encode_start_ns;
    r.duration_ns = s.encode_ns;
    r.thread = s.owner == Owner::kEngine ? engine_thread : ws_thread;
    r.gpu = kGpuName;
    r.frame_number = s.frame;
    r.cmdbuffer_label = s.cmdbuffer_label;
    r.cmdbuffer_label_indexed = "[0] " + s.cmdbuffer_label;
    r.encoder_label = s.encoder_label;
    r.encoder_label_indexed = "[0] " + s.encoder_label;
    r.event_type = "Encoding";
    r.cmdbuffer_id = s.cmdbuffer;
    r.encoder_id = s.encoder;
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const EncoderRow& a, const EncoderRow& b) { return a.start_ns < b.start_ns; });
  return EncodersListTable(rows);
}

Table BuildGpuIntervals(const Timeline& tl, const EngineProfile& p) {
  std::vector<GpuIntervalRow> rows;
  rows.reserve(tl.subs.size());
  for (const Submission& s : tl.subs) {
    GpuIntervalRow r;
    r.start_ns = s.start_ns;
    r.duration_ns = s.duration();
    r.channel_name = ChannelName(s.encoder_label);
    r.frame_number = s.frame;
    r.start_latency_ns = s.latency_ns;
    r.depth = 0;
    r.label = s.owner == Owner::kEngine ? s.cmdbuffer_label + ":" + s.encoder_label : "GPU Execution";
    const ProcessInfo* process = ProcessOf(s, p);
    if (process != nullptr) r.process = *process;
    r.connection_uuid = s.owner == Owner::kEngine ? 78 : s.owner == Owner::kWindowServer ? 12 : 0;
    r.gpu = kGpuName;
    r.cmdbuffer_id = s.cmdbuffer;
    r.encoder_id = s.encoder;
    r.gpu_submission_id = s.gpu_submission;
    rows.push_back(std::move(r));
  }
  return GpuIntervalsTable(rows);
}

Table BuildShaderList(const Timeline& tl, const EngineProfile& p) {
  std::vector<ShaderListRow> rows;
  uint64_t id = 1;
  uint64_t pc = 0x104000000;
  auto add = [&](int64_t ts, const std::string& name, const std::string& type, const ProcessInfo& process) {
    ShaderListRow r;
    r.timestamp_ns = ts;
    r.name = name + " (" + std::to_string(id) + ")";
    r.pso_name = name;
    r.id = id++;
    r.pc_start = pc;
    r.pc_end = pc + 0x400 + (Fnv1a(name) & 0x3fc0);
    pc = (r.pc_end + 0xfff) & ~uint64_t{0xfff};
    r.shader_type = type;
    r.process = process;
    r.gpu = kGpuName;
    rows.push_back(std::move(r));
  };
  add(400'000, "ws_composite_fragment", "Fragment", kWindowServer);
  add(420'000, "ws_composite_vertex", "Vertex", kWindowServer);
  for (size_t i = 0; i < p.shader_names.size(); ++i) add(tl.shader_times[i], p.shader_names[i], "Compute", p.process);
  std::stable_sort(rows.begin(), rows.end(),
                   [](const ShaderListRow& a, const ShaderListRow& b) { return a.timestamp_ns < b.timestamp_ns; });
  return ShaderListTable(rows);
}

// ---------------------------------------------------------------------------------
// toc.xml and meta.json
// ---------------------------------------------------------------------------------

std::string Attr(std::string_view name, std::string_view value) {
  return " " + std::string(name) + "=\"" + EscapeXml(value) + "\"";
}

// "2026-11-30T09:00:00.000+00:00" plus `offset_ms` (stays within one day).
std::string Date(int64_t offset_ms) {
  const int64_t ms = 9LL * 3600 * 1000 + offset_ms;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "2026-11-30T%02lld:%02lld:%02lld.%03lld+00:00",
                static_cast<long long>(ms / 3600000 % 24), static_cast<long long>(ms / 60000 % 60),
                static_cast<long long>(ms / 1000 % 60), static_cast<long long>(ms % 1000));
  return buf;
}

std::string Uuid(uint64_t seed) {
  Rng rng(seed);
  const uint64_t a = rng.Next();
  const uint64_t b = rng.Next();
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%08llX-%04llX-%04llX-%04llX-%012llX", static_cast<unsigned long long>(a >> 32),
                static_cast<unsigned long long>((a >> 16) & 0xffff), static_cast<unsigned long long>(a & 0xffff),
                static_cast<unsigned long long>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string BuildToc(const EngineProfile& p, const TrialTruth& truth, size_t engine_index, int trial,
                     uint64_t trial_seed) {
  // Cold trials 150 s apart (ADR-015 settles 120 s); engines an hour apart.
  const int64_t start_ms = static_cast<int64_t>(engine_index) * 3600 * 1000 + (trial - 1) * 150 * 1000 +
                           static_cast<int64_t>(trial_seed % 1000);
  const int64_t end_ms = start_ms + truth.trace_duration_ns / 1'000'000;
  std::string x =
      "<?xml version=\"1.0\"?>\n\n<trace-toc>\n    <run number=\"1\">\n        <info>\n"
      "            <target>\n";
  x += "                <device" + Attr("uuid", Uuid(trial_seed)) + Attr("model", "MacBook Pro") +
       Attr("name", "perfgate synthetic M5 Max") + Attr("os-version", "26.4 (25E246)") + Attr("platform", "macOS") +
       "/>\n";
  x += "                <process" + Attr("type", "launched") + Attr("arguments", p.arguments) +
       Attr("return-exit-status", "0") + Attr("name", p.process.name) + Attr("pid", std::to_string(p.process.pid)) +
       Attr("termination-reason", "exit(0)") + "/>\n";
  x += "            </target>\n            <summary>\n";
  x += "                <start-date>" + Date(start_ms) + "</start-date>\n";
  x += "                <end-date>" + Date(end_ms) + "</end-date>\n";
  x += "                <duration>" + Fixed(static_cast<double>(truth.trace_duration_ns) / 1e9, 6) + "</duration>\n";
  x += "                <end-reason>Target app exited</end-reason>\n"
       "                <instruments-version>26.4 (17E202)</instruments-version>\n"
       "                <template-name>Metal System Trace</template-name>\n"
       "                <recording-mode>Deferred</recording-mode>\n"
       "                <intruments-recording-settings>\n"
       "                    <instrument name=\"Metal Application\">\n"
       "                        <array>\n"
       "                            <dictionary>\n"
       "                                <key name=\"GPU\">\n"
       "                                    <value>Counter Set: (null)</value>\n"
       "                                    <value>Shader Timeline: Disabled</value>\n"
       "                                    <value>Induced GPU Performance State: Default</value>\n"
       "                                </key>\n"
       "                            </dictionary>\n"
       "                        </array>\n"
       "                    </instrument>\n"
       "                </intruments-recording-settings>\n"
       "            </summary>\n        </info>\n        <processes>\n";
  x += "            <process" + Attr("name", "kernel_task") + Attr("pid", "0") +
       Attr("path", "/System/Library/Kernels/kernel.release.t6041") + "/>\n";
  x += "            <process" + Attr("name", kWindowServer.name) + Attr("pid", std::to_string(kWindowServer.pid)) +
       Attr("path", "/System/Library/PrivateFrameworks/SkyLight.framework/Resources/WindowServer") + "/>\n";
  x += "            <process" + Attr("name", p.process.name) + Attr("pid", std::to_string(p.process.pid)) +
       Attr("path", p.executable_path) + "/>\n";
  x += "        </processes>\n        <data>\n";
  for (const std::string& schema : SchemaOrder()) {
    x += "            <table" + Attr("schema", schema) + (IsSingleTarget(schema) ? Attr("target-pid", "SINGLE") : "") +
         "/>\n";
  }
  x += "        </data>\n        <tracks/>\n    </run>\n</trace-toc>\n";
  return x;
}

std::string TallyJson(const Tally& t, int tokens) {
  const double n = std::max(tokens, 1);
  return "{\"submissions\": " + std::to_string(t.submissions) + ", \"gpu_ns\": " + std::to_string(t.gpu_ns) +
         ", \"submissions_per_token\": " + Fixed(t.submissions / n, 4) +
         ", \"gpu_us_per_token\": " + Fixed(t.gpu_ns / 1000.0 / n, 3) + "}";
}

std::string BuildMeta(const RecordingSpec& spec, const TrialRecording& r, const EngineProfile& p) {
  const TrialTruth& t = r.truth;
  std::string j = "{\n";
  j += "  \"synthetic\": true,\n";
  j += "  \"note\": \"Generated by perfgate-xctrace-gen --recording, not recorded on a Mac.\",\n";
  j += "  \"generator\": \"perfgate-xctrace-gen\",\n";
  j += "  \"generator_version\": " + std::to_string(kRecordingGeneratorVersion) + ",\n";
  j += "  \"engine\": " + JsonString(r.engine) + ",\n";
  j += "  \"profile\": " + JsonString(r.profile) + ",\n";
  j += "  \"process\": {\"name\": " + JsonString(p.process.name) + ", \"pid\": " + std::to_string(p.process.pid) +
       "},\n";
  j += "  \"trial\": " + std::to_string(r.trial) + ",\n";
  j += "  \"trials\": " + std::to_string(spec.trials) + ",\n";
  j += "  \"tokens\": " + std::to_string(spec.tokens) + ",\n";
  j += "  \"seed\": " + std::to_string(spec.seed) + ",\n";
  // As a hex string: a 64-bit integer does not survive every JSON reader.
  j += "  \"trial_seed\": \"" + FormatHex(r.trial_seed) + "\",\n";
  j += "  \"gzip\": " + std::string(spec.gzip ? "true" : "false") + ",\n";
  j += "  \"expected\": {\n";
  j += "    \"speed_factor\": " + Fixed(t.speed_factor, 6) + ",\n";
  j += "    \"decode_steps\": " + std::to_string(t.decode_steps) + ",\n";
  j += "    \"prefill\": " + TallyJson(t.prefill, 1) + ",\n";
  Tally decode;
  for (const Tally& s : t.steps) {
    decode.submissions += s.submissions;
    decode.gpu_ns += s.gpu_ns;
  }
  j += "    \"decode\": " + TallyJson(decode, t.decode_steps) + ",\n";
  j += "    \"token_label\": " + JsonString(p.token_label) + ",\n";
  j += "    \"label_window\": {\"tokens\": " + std::to_string(t.label_window_tokens) +
       ", \"start_ns\": " + std::to_string(t.label_window_start_ns) +
       ", \"end_ns\": " + std::to_string(t.label_window_end_ns) +
       ", \"figures\": " + TallyJson(t.label_window, t.label_window_tokens) + "},\n";
  auto map_json = [&](const std::map<std::string, Tally>& m) {
    std::string out = "{";
    bool first = true;
    for (const auto& [name, tally] : m) {
      out += (first ? "\n      " : ",\n      ") + JsonString(name) + ": " + TallyJson(tally, t.decode_steps);
      first = false;
    }
    return out + "\n    }";
  };
  j += "    \"decode_phases\": " + map_json(t.decode_phases) + ",\n";
  j += "    \"decode_buckets\": " + map_json(t.decode_buckets) + ",\n";
  j += "    \"engine_encoders\": " + std::to_string(t.engine_encoders) + ",\n";
  j += "    \"labelled_encoders\": " + std::to_string(t.labelled_encoders) + ",\n";
  j += "    \"windowserver_submissions\": " + std::to_string(t.windowserver_submissions) + ",\n";
  j += "    \"unattributed_submissions\": " + std::to_string(t.unattributed_submissions) + ",\n";
  j += "    \"trace_duration_ns\": " + std::to_string(t.trace_duration_ns) + "\n";
  j += "  }\n}\n";
  return j;
}

bool ValidEngineName(std::string_view name) {
  if (name.empty() || name == "." || name == "..") return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

bool WriteFile(const std::filesystem::path& path, const std::string& bytes, std::string* error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    if (error != nullptr) *error = "cannot write " + path.string();
    return false;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------
// Profiles
// ---------------------------------------------------------------------------------

EngineProfile Hf2qProfile() {
  EngineProfile p;
  p.name = "hf2q";
  p.process = {"hf2q", 4242};
  p.thread_name = "main";
  p.tid = 0x2a5c1;
  p.executable_path = "/Users/perfgate/hf2q/target/release/hf2q";
  p.arguments =
      "generate --model qwen3.6-35b-a3b-dwq46.gguf --prompt \"Hello, my name is\" --max-tokens 64 "
      "--temperature 0";
  p.channel_id = 0x123457;
  p.prefill = {"prefill.forward", "Compute Command 0", 4, {9000.0, 0.15, 3000.0, 30000.0}};
  p.prefill_emits_first_token = true;
  p.decode = {
      {"Command Buffer 0", "Compute Command 0", 3.2, 0, {412.0, 0.2, 120.0, 2000.0}},
      {"layer.{layer}.attn_moe_ffn", "Compute Command 0", 39.4, 0, {197.0, 0.08, 120.0, 600.0}},
      {"layer.{layer}.moe_router", "Compute Command 0", 1.0, 40, {5.5, 0.25, 2.2, 7.8}},
      {"kv_cache.copy", "Compute Command 0", 1.0, 0, {16.0, 0.3, 8.5, 31.0}},
      {"output_head.fused_norm_lm_argmax", "Compute Command 0", 1.0, 0, {558.0, 0.03, 400.0, 800.0}},
  };
  p.token_label = "output_head.fused_norm_lm_argmax";
  p.shader_names = {"kernel_mul_mv_id_q4_0_f32",
                    "kernel_mul_mm_id_q4_0_f32",
                    "kernel_mul_mv_q4_0_f32",
                    "kernel_mul_mv_q6_K_f32",
                    "kernel_flash_attn_ext_f16_h128",
                    "rms_norm_f32",
                    "fused_norm_add_f32",
                    "rope_f32",
                    "swiglu_f32",
                    "gated_delta_net_f32",
                    "moe_router_topk_f32",
                    "kernel_kv_cache_copy_f16",
                    "residual_add_f32",
                    "kernel_argmax"};
  p.trial_spread = 0.026;
  return p;
}

EngineProfile LlamaProfile() {
  EngineProfile p;
  p.name = "llama";
  p.process = {"llama-completion", 5151};
  p.thread_name = "main";
  p.tid = 0x3b7d2;
  p.executable_path = "/Users/perfgate/llama.cpp/build/bin/llama-completion";
  p.arguments = "-m qwen3.6-35b-a3b-q4_0.gguf -p \"Hello, my name is\" -n 64 --temp 0 -no-cnv";
  p.channel_id = 0x123457;
  p.prefill = {"Command Buffer 0", "Compute Command 0", 6, {6000.0, 0.2, 2000.0, 20000.0}};
  p.prefill_emits_first_token = false;
  p.decode = {
      {"Command Buffer 0", "Compute Command 0", 2.0, 0, {4460.0, 0.02, 3500.0, 6000.0}},
      {"Command Buffer 0", "Compute Command 0", 1.0, 0, {3.8, 0.2, 2.2, 7.8}},
      {"Command Buffer 0", "Blit Command 0", 0.3, 0, {16.6, 0.15, 8.5, 31.0}},
  };
  p.shader_names = {"kernel_get_rows_q4_0",
                    "kernel_rms_norm",
                    "kernel_mul_mv_q4_0_f32",
                    "kernel_mul_mv_id_q4_0_f32",
                    "kernel_mul_mm_id_q4_0_f32",
                    "kernel_rope_norm_f32",
                    "kernel_flash_attn_ext_vec_f16_h128",
                    "kernel_soft_max_f32",
                    "kernel_swiglu_f32",
                    "kernel_argsort_f32_i32",
                    "kernel_cpy_f32_f16",
                    "kernel_add",
                    "kernel_mul_mv_q6_K_f32"};
  p.trial_spread = 0.006;
  return p;
}

EngineProfile Hf2qRegressedProfile() {
  EngineProfile p = Hf2qProfile();
  p.name = "hf2q-regressed";
  for (CommandBufferKind& kind : p.decode) {
    if (kind.duration.min_us >= 8.0 && kind.duration.max_us < 32.0) kind.duration.median_us *= 1.10;
  }
  // Two more md submissions per token, before the output head.
  CommandBufferKind gather{"layer.{layer}.moe_gather", "Compute Command 0", 2.0, 40, {16.0 * 1.10, 0.3, 8.5, 31.0}};
  p.decode.insert(p.decode.end() - 1, gather);
  return p;
}

std::optional<EngineProfile> FindProfile(std::string_view name) {
  if (name == "hf2q") return Hf2qProfile();
  if (name == "llama") return LlamaProfile();
  if (name == "hf2q-regressed") return Hf2qRegressedProfile();
  return std::nullopt;
}

std::vector<std::string> ProfileNames() { return {"hf2q", "llama", "hf2q-regressed"}; }

// ---------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------

const std::string* TrialRecording::Export(std::string_view schema) const {
  for (const auto& [name, doc] : exports) {
    if (name == schema) return &doc;
  }
  return nullptr;
}

const std::vector<std::string>& RecordingSchemaNames() { return SchemaOrder(); }

bool ValidateRecordingSpec(const RecordingSpec& spec, std::string* error) {
  auto fail = [&](std::string message) {
    if (error != nullptr) *error = std::move(message);
    return false;
  };
  if (spec.engines.empty()) return fail("no engine");
  if (spec.trials < 1 || spec.trials > 1000) return fail("trials must be between 1 and 1000");
  if (spec.tokens < 1 || spec.tokens > 100000) return fail("tokens must be between 1 and 100000");
  for (size_t i = 0; i < spec.engines.size(); ++i) {
    const std::string& name = spec.engines[i].first;
    if (!ValidEngineName(name)) {
      return fail("engine name '" + name + "' must be letters, digits, '.', '_' or '-'");
    }
    for (size_t j = 0; j < i; ++j) {
      if (spec.engines[j].first == name) return fail("engine name '" + name + "' is given twice");
    }
    const EngineProfile& p = spec.engines[i].second;
    if (p.process.name.empty()) return fail("engine '" + name + "' has no process name");
    if (p.decode.empty()) return fail("engine '" + name + "' has no decode work");
  }
  return true;
}

TrialRecording GenerateTrial(const RecordingSpec& spec, size_t engine_index, int trial) {
  const auto& [engine, profile] = spec.engines[engine_index];
  TrialRecording r;
  r.engine = engine;
  r.profile = profile.name;
  r.trial = trial;
  r.trial_seed = TrialSeed(spec, engine, trial);
  r.truth.speed_factor = SpeedFactors(spec, engine_index)[static_cast<size_t>(trial - 1)];
  r.truth.tokens = spec.tokens;
  const int decode_steps = profile.prefill_emits_first_token ? spec.tokens - 1 : spec.tokens;

  Rng rng(r.trial_seed);
  const Timeline tl = BuildTimeline(profile, decode_steps, r.truth.speed_factor, rng, &r.truth);

  std::vector<Table> tables;
  for (const std::string& schema : SchemaOrder()) {
    Table table;
    if (schema == kExecutionPointsSchema) {
      table = BuildExecutionPoints(tl);
    } else if (schema == kSubmissionMapSchema) {
      table = BuildSubmissionMap(tl, profile);
    } else if (schema == kEncodersListSchema) {
      table = BuildEncodersList(tl, profile);
    } else if (schema == kGpuIntervalsSchema) {
      table = BuildGpuIntervals(tl, profile);
    } else if (schema == kShaderListSchema) {
      table = BuildShaderList(tl, profile);
    } else {
      table = ShaderProfilerIntervalsTable({});
    }
    // xpath indices that point into this recording's own toc.xml.
    table.toc_index = static_cast<int>(r.exports.size()) + 1;
    r.exports.emplace_back(schema, WriteTable(table));
  }
  r.toc_xml = BuildToc(profile, r.truth, engine_index, trial, r.trial_seed);
  r.meta_json = BuildMeta(spec, r, profile);
  return r;
}

std::vector<TrialRecording> GenerateRecording(const RecordingSpec& spec) {
  std::vector<TrialRecording> out;
  for (size_t e = 0; e < spec.engines.size(); ++e) {
    for (int k = 1; k <= spec.trials; ++k) out.push_back(GenerateTrial(spec, e, k));
  }
  return out;
}

std::string GzipDeterministic(std::string_view data) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip wrapper with zlib's default header (mtime 0, no name).
  if (deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())) + 64);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return {};
  return out;
}

bool WriteRecording(const RecordingSpec& spec, const std::string& out_dir, std::string* error,
                    std::vector<TrialRecording>* written) {
  if (!ValidateRecordingSpec(spec, error)) return false;
  namespace fs = std::filesystem;
  for (size_t e = 0; e < spec.engines.size(); ++e) {
    for (int k = 1; k <= spec.trials; ++k) {
      TrialRecording r = GenerateTrial(spec, e, k);
      const fs::path dir = fs::path(out_dir) / r.engine / ("trial-" + std::to_string(k));
      std::error_code ec;
      fs::create_directories(dir, ec);
      if (ec) {
        if (error != nullptr) *error = "cannot create " + dir.string() + ": " + ec.message();
        return false;
      }
      for (const auto& [schema, doc] : r.exports) {
        const fs::path plain = dir / (schema + ".xml");
        const fs::path gz = dir / (schema + ".xml.gz");
        fs::remove(spec.gzip ? plain : gz, ec);
        if (spec.gzip) {
          const std::string bytes = GzipDeterministic(doc);
          if (bytes.empty()) {
            if (error != nullptr) *error = "gzip failed for " + gz.string();
            return false;
          }
          if (!WriteFile(gz, bytes, error)) return false;
        } else if (!WriteFile(plain, doc, error)) {
          return false;
        }
      }
      if (!WriteFile(dir / "toc.xml", r.toc_xml, error)) return false;
      if (!WriteFile(dir / "meta.json", r.meta_json, error)) return false;
      if (written != nullptr) {
        r.exports.clear();
        written->push_back(std::move(r));
      }
    }
  }
  return true;
}

}  // namespace perfgate::gen
